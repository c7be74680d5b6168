#!/usr/bin/env bash
# One big request: the time to send `ECHO <N MiB bulk>` and read the echo back, and the largest
# PING round trip of a second client meanwhile (does the big request starve other clients?),
# against cuckoo-server under -Xmx1g with 1 network thread (both clients on the one event loop,
# like Redis's single thread) and with 2, and against a stock redis-server in the same run on the
# same machine (loopback only). Servers run side by side and the runs are interleaved over rounds;
# the table shows medians and each server's peak RSS (VmHWM) over the whole run. BASELINE_JAR=path
# adds the same two rows for another build of the server (e.g. before a change).
# Needs: java 17, python3, the shaded jar (mvn -pl cuckoo-server -am package -DskipTests), and for
# the Redis row redis-server (Debian: apt-get install redis-server).
# Usage: [BASELINE_JAR=old.jar] cuckoo-server/bench/big-bulk.sh [MiB] [rounds] > table.md
set -euo pipefail
cd "$(dirname "$0")/../.."
. cuckoo-server/bench/lib.sh
MIB=${1:-400}
ROUNDS=${2:-5}
JAR=cuckoo-server/target/cuckoo-server.jar
WORK=$(mktemp -d)
[ -z "${KEEP:-}" ] || echo "work directory (kept): $WORK" >&2
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null
  [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
javac -d "$WORK" cuckoo-server/bench/BigBulk.java

declare -A PORT PID
NAMES=()
if command -v redis-server > /dev/null; then
  PORT[redis]=$(free_port)
  redis-server --port "${PORT[redis]}" --bind 127.0.0.1 --save "" --appendonly no \
    > "$WORK/redis.log" 2>&1 &
  PID[redis]=$!; PIDS+=($!); NAMES+=(redis)
fi
start_cuckoo() { # name jar threads
  PORT[$1]=$(free_port)
  java -Xmx1g -jar "$2" --port "${PORT[$1]}" --dir "$WORK/$1" --appendonly no --save "" --threads "$3" \
    > "$WORK/$1.log" 2>&1 &
  PID[$1]=$!; PIDS+=($!); NAMES+=("$1")
}
for threads in 1 2; do
  start_cuckoo "cuckoo_t$threads" "$JAR" "$threads"
  if [ -n "${BASELINE_JAR:-}" ]; then
    start_cuckoo "baseline_t$threads" "$BASELINE_JAR" "$threads"
  fi
done
for name in "${NAMES[@]}"; do wait_ready "${PORT[$name]}" "${PID[$name]}" "$WORK/$name.log"; done
for name in "${NAMES[@]}"; do   # warm-up: JIT, and every server has touched its memory once
  java -cp "$WORK" BigBulk "${PORT[$name]}" "$MIB" > /dev/null
done

declare -A TOTAL PINGMAX PINGUP
for round in $(seq "$ROUNDS"); do
  for name in "${NAMES[@]}"; do
    line=$(java -cp "$WORK" BigBulk "${PORT[$name]}" "$MIB")
    TOTAL[$name]+=" $(sed -E 's/.*total_ms=([0-9]+).*/\1/' <<< "$line")"
    PINGMAX[$name]+=" $(sed -E 's/.*ping_max_ms=([0-9]+).*/\1/' <<< "$line")"
    PINGUP[$name]+=" $(sed -E 's/.*ping_max_upload_ms=([0-9]+).*/\1/' <<< "$line")"
  done
done

median() {
  python3 -c "import statistics,sys; print(round(statistics.median(map(float, sys.argv[1:]))))" $1
}
rss_mib() { echo $(( $(awk '/VmHWM/ {print $2}' "/proc/$1/status") / 1024 )); }
label() {
  case $1 in
    redis) echo "redis-server $(redis-server --version | sed -E 's/.*v=([^ ]+).*/\1/')" ;;
    cuckoo_t*) echo "cuckoo-server, -Xmx1g, --threads ${1#cuckoo_t}" ;;
    baseline_t*) echo "baseline $(basename "$BASELINE_JAR"), -Xmx1g, --threads ${1#baseline_t}" ;;
  esac
}
echo "| server | ECHO $MIB MiB round trip (ms) | max PING meanwhile (ms) |" \
  "max PING while uploading (ms) | peak RSS (MiB) |"
echo "|---|---:|---:|---:|---:|"
for name in "${NAMES[@]}"; do
  echo "| $(label "$name") | $(median "${TOTAL[$name]}") | $(median "${PINGMAX[$name]}") |" \
    "$(median "${PINGUP[$name]}") | $(rss_mib "${PID[$name]}") |"
done
echo
echo "Medians of $ROUNDS interleaved rounds; raw runs (round trip / max PING / max PING while"
echo "uploading, ms):"
for name in "${NAMES[@]}"; do
  echo "- $name: [${TOTAL[$name]# }] / [${PINGMAX[$name]# }] / [${PINGUP[$name]# }]"
done
