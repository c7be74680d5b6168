#!/usr/bin/env bash
# SCAN and RANDOMKEY over a large keyspace, side by side with redis-server in the same run: N keys
# are loaded into each server (`CF.RESERVE user:I 100` here, `SET user:I <128 bytes>` on
# redis-server), then each server is timed, in turn, on a whole SCAN iteration
# (redis-py's scan_iter with COUNT C, for each C of COUNTS) and on RANDOMKEY requests (redis-benchmark, 50 clients).
# Prints one Markdown row per measurement with both times and their ratio.
# Both servers keep their data in memory only, on free loopback ports.
# Needs: java 17, python3 (and Debian's python3-redis for /usr/bin/python3), redis-server, redis-cli, redis-benchmark, and the jar:
#   mvn -B -ntp -pl cuckoo-server -am package -DskipTests
# Usage: [COUNTS="10 1000"] [RANDOMKEYS=20000] [JAR=path] cuckoo-server/bench/scan-bench.sh [keys]
set -euo pipefail
cd "$(dirname "$0")/../.."
. cuckoo-server/bench/lib.sh
KEYS=${1:-1000000}
COUNTS=${COUNTS:-10 1000}
RANDOMKEYS=${RANDOMKEYS:-20000}
JAR=${JAR:-cuckoo-server/target/cuckoo-server.jar}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
load() { # port kind
  python3 - "$KEYS" "$2" <<'PY' | redis-cli -p "$1" --pipe > /dev/null
import sys
out = sys.stdout.buffer
cuckoo = sys.argv[2] == "cuckoo"
for i in range(int(sys.argv[1])):
    key = b"user:%d" % i
    if cuckoo:
        out.write(b"*3\r\n$10\r\nCF.RESERVE\r\n$%d\r\n%s\r\n$3\r\n100\r\n" % (len(key), key))
    else:
        out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$128\r\n%s\r\n" % (len(key), key, b"." * 128))
PY
}
seconds() { # command...
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.2f}')"
}
scan_all() { # port count: a whole SCAN iteration from one connection (redis-py)
  /usr/bin/python3 - "$1" "$2" "$KEYS" <<'PY'
import sys
import redis
client = redis.Redis(port=int(sys.argv[1]))
found = sum(1 for _ in client.scan_iter(count=int(sys.argv[2])))
if found != int(sys.argv[3]):
    sys.exit(f"port {sys.argv[1]}: SCAN returned {found} keys of {sys.argv[3]}")
PY
}

CUCKOO_PORT=$(free_port)
java -Xmx4g -jar "$JAR" --port "$CUCKOO_PORT" --appendonly no --save "" > "$WORK/cuckoo.log" 2>&1 &
PIDS+=($!)
REDIS_PORT=$(free_port)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" \
  > "$WORK/redis.log" 2>&1 &
PIDS+=($!)
wait_ready "$CUCKOO_PORT"
wait_ready "$REDIS_PORT"
load "$CUCKOO_PORT" cuckoo
load "$REDIS_PORT" redis

echo "| $KEYS keys, load $(cut -d' ' -f1 /proc/loadavg) | cuckoo-server s | redis-server s | ratio |"
echo "|---|---|---|---|"
for count in $COUNTS; do
  ours=$(seconds scan_all "$CUCKOO_PORT" "$count")
  theirs=$(seconds scan_all "$REDIS_PORT" "$count")
  echo "| whole SCAN, COUNT $count | $ours | $theirs | $(python3 -c "print(f'{$ours / $theirs:.2f}')") |"
done
ours=$(seconds redis-benchmark -p "$CUCKOO_PORT" -c 50 -n "$RANDOMKEYS" -q RANDOMKEY)
theirs=$(seconds redis-benchmark -p "$REDIS_PORT" -c 50 -n "$RANDOMKEYS" -q RANDOMKEY)
echo "| $RANDOMKEYS RANDOMKEY | $ours | $theirs | $(python3 -c "print(f'{$ours / $theirs:.2f}')") |"
