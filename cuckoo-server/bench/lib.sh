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

# The setup of the benchmarks that pin the servers to core 0 and redis-benchmark to core 1
# (pinned-throughput.sh, cluster-throughput.sh): JAR (default: the jar the build makes), a fresh
# WORK directory and PIDS, the processes killed (and WORK removed) when the script exits.
pinned_setup() {
  JAR=${JAR:-cuckoo-server/target/cuckoo-server.jar}
  WORK=$(mktemp -d)
  PIDS=()
  trap pinned_cleanup EXIT
}

pinned_cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2> /dev/null || true; done
  rm -rf "$WORK"
}

# pinned_cpu PID: prints the CPU seconds (user + system, all threads) the process has used.
pinned_cpu() { awk '{print ($14 + $15) / 100}' "/proc/$1/stat"; }

# pinned_server PORT LOG [OPTION...]: starts the JAR on core 0 in the background (with JAVA_OPTS
# before -jar and the options after --port), adds it to PIDS and sets SERVER_PID.
pinned_server() {
  local port=$1 log=$2
  # shellcheck disable=SC2086 # JAVA_OPTS is a list of options
  taskset -c 0 java ${JAVA_OPTS:-} -jar "$JAR" --port "$port" "${@:3}" > "$log" 2>&1 &
  SERVER_PID=$!
  PIDS+=("$SERVER_PID")
}

# pinned_bench PORT PIPELINE COMMAND...: N requests from redis-benchmark on core 1, 50
# connections, random arguments drawn from R (default 10^8); prints the requests per second.
pinned_bench() {
  taskset -c 1 redis-benchmark -p "$1" -c 50 -n "$N" -P "$2" -r "${R:-100000000}" -q "${@:3}" \
    | tr '\r' '\n' | grep -oE '[0-9.]+ requests per second' | tail -1 | awk '{print $1}'
}
