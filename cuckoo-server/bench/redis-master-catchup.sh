#!/usr/bin/env bash
# How long a cuckoo-server takes to catch up as a replica of a Redis master (moving off Redis),
# against a redis-server replica of the same master, in the same run (not a timed test; loopback,
# one machine). The master is Debian's redis-server holding KEYS small string keys (DEBUG
# POPULATE: key:N -> value:N). They are not cuckoo filters (no RedisBloom here): the cuckoo-server
# reads them past in the RDB and counts them as foreign keys, so this measures the transfer, the
# RDB reader and the hand-over to the stream, not the loading of filters.
# Each round starts a fresh replica of each kind (so every sync is a full one), sends REPLICAOF and
# times until master_link_status:up and slave_repl_offset equal to the master's
# master_repl_offset; the kinds alternate, and the medians and their ratio are printed.
# Needs redis-server, redis-cli, python3 and the shaded jar:
#   mvn -pl cuckoo-server -am package -DskipTests
# Usage: cuckoo-server/bench/redis-master-catchup.sh [KEYS] [ROUNDS] [DISKLESS]
#   KEYS default 1000000, ROUNDS default 3, DISKLESS yes (Redis 7's default, with delay 0) or no
# Environment: JAR (the server jar), HEAP (-Xmx of the cuckoo-server, default 1g).
set -euo pipefail
cd "$(dirname "$0")/../.."
. cuckoo-server/bench/lib.sh
KEYS=${1:-1000000}
ROUNDS=${2:-3}
DISKLESS=${3:-yes}
JAR=${JAR:-cuckoo-server/target/cuckoo-server.jar}
HEAP=${HEAP:-1g}
WORK=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$WORK"' EXIT

MASTER=$(free_port)
redis-server --port "$MASTER" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" \
  --repl-diskless-sync "$DISKLESS" --repl-diskless-sync-delay 0 --enable-debug-command yes > "$WORK/master.log" 2>&1 &
PIDS+=($!)
wait_ready "$MASTER" "$!" "$WORK/master.log"
redis-cli -p "$MASTER" DEBUG POPULATE "$KEYS" > /dev/null
echo "master: redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/'), $(redis-cli -p "$MASTER" DBSIZE) keys, repl-diskless-sync $DISKLESS"

# catchup PORT: REPLICAOF the master, then milliseconds until the replica is up and level
catchup() {
  python3 - "$1" "$MASTER" <<'PY'
import socket, sys, time
replica, master = int(sys.argv[1]), int(sys.argv[2])
def call(port, *args):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(("*%d\r\n" % len(args) + "".join("$%d\r\n%s\r\n" % (len(a), a) for a in args)).encode())
    data = b""
    while True:
        data += s.recv(65536)
        if data.startswith(b"+") or data.startswith(b"-"):
            if data.endswith(b"\r\n"): break
        elif data.startswith(b"$"):
            head, _, rest = data.partition(b"\r\n")
            if len(rest) >= int(head[1:]) + 2: data = rest[:int(head[1:])]; break
    s.close()
    return data.decode()
def field(port, name):
    for line in call(port, "INFO", "replication").split("\r\n"):
        if line.startswith(name + ":"): return line.split(":", 1)[1]
began = time.monotonic()
call(replica, "REPLICAOF", "127.0.0.1", str(master))
while True:
    if field(replica, "master_link_status") == "up" and \
            field(replica, "slave_repl_offset") == field(master, "master_repl_offset"):
        break
    time.sleep(0.005)
print(round((time.monotonic() - began) * 1000))
PY
}

median() { python3 -c 'import sys,statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
CUCKOO=(); REDIS=()
for round in $(seq "$ROUNDS"); do
  port=$(free_port)
  java -Xmx"$HEAP" -jar "$JAR" --port "$port" --dir "$WORK/cuckoo-$round" --appendonly no --save "" \
    > "$WORK/cuckoo-$round.log" 2>&1 &
  pid=$!; PIDS+=($pid)
  wait_ready "$port" "$pid" "$WORK/cuckoo-$round.log"
  ms=$(catchup "$port"); CUCKOO+=("$ms")
  foreign=$(redis-cli -p "$port" INFO replication | tr -d '\r' | sed -n 's/^master_foreign_keys://p')
  kill "$pid"; wait "$pid" 2>/dev/null || true

  port=$(free_port)
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" \
    --dbfilename "replica-$round.rdb" > "$WORK/redis-$round.log" 2>&1 &
  pid=$!; PIDS+=($pid)
  wait_ready "$port" "$pid" "$WORK/redis-$round.log"
  rms=$(catchup "$port"); REDIS+=("$rms")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "round $round: cuckoo-server ${ms} ms ($foreign foreign keys counted), redis-server ${rms} ms"
done
c=$(median "${CUCKOO[@]}"); r=$(median "${REDIS[@]}")
python3 -c "import sys; c,r=float(sys.argv[1]),float(sys.argv[2]); print('median catch-up: cuckoo-server %d ms, redis-server %d ms, ratio %.2f' % (c, r, c/r))" "$c" "$r"
