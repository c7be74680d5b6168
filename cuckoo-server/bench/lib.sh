# Shell functions the bench scripts share; sourced (". cuckoo-server/bench/lib.sh") from the
# repository root, after the script's own `cd`. Needs python3.

# Prints a TCP port that is free on the loopback interface now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0))
print(s.getsockname()[1]); s.close()'
}

# wait_ready PORT [PID LOG]: waits up to 30 s until the server on PORT answers PING (over a raw
# socket, so no redis-cli is needed). Exits the script if it does not, or, given PID, as soon as
# that process has exited; the LOG file, if given, is shown then.
wait_ready() {
  local port=$1 pid=${2:-} log=${3:-}
  for _ in $(seq 300); do
    python3 -c 'import socket,sys
s=socket.create_connection(("127.0.0.1",int(sys.argv[1])),timeout=1)
s.sendall(b"PING\r\n")
sys.exit(0 if s.recv(7)==b"+PONG\r\n" else 1)' "$port" 2> /dev/null && return
    if [ -n "$pid" ] && ! kill -0 "$pid" 2> /dev/null; then
      break
    fi
    sleep 0.1
  done
  echo "the server on port $port did not start" >&2
  if [ -n "$log" ]; then cat "$log" >&2; fi
  exit 1
}
