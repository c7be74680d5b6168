#!/usr/bin/env bash
# What cuckoo-server's durability costs, measured over loopback on this machine:
#  1. the time to create a 1 GiB filter (CF.RESERVE big 1073741824 BUCKETSIZE 1: 2^30 buckets of
#     one 8-bit slot; CF.INFO Size is printed to confirm): first in a new server, then again
#     after DEL,
#  2. the latency of CF.ADD on other keys while SAVE, and BGSAVE, write that filter to the
#     snapshot (goal: p99 <= 20 ms): 4 connections at 2000 requests/s in total, on a fixed
#     schedule, latency counted from the scheduled time (DurabilityBench in the test sources),
#  3. the log size and the restart time after 10^7 CF.ADD writes (redis-benchmark, pipeline 32)
#     to one filter reserved for 2^24 items, with default settings (appendfsync everysec; a
#     snapshot is taken when the log reaches 64 MiB and 100% of the snapshot's size), after
#     kill -9 (snapshot + log replay) and after SHUTDOWN (snapshot only).
# Each figure is the median of ROUNDS runs (the first creation of the filter is shown apart);
# raw runs are printed below the table. Servers run with -Xmx3g and default options otherwise.
# Needs: redis-benchmark and redis-cli (Debian: apt-get install redis-tools), python3, and the
# server jar and test classes: mvn -B -ntp -pl cuckoo-server -am package -DskipTests
# Usage: cuckoo-server/bench/durability-bench.sh [rounds] [writes] > report.md
# The data directories go to a temporary directory under ${TMPDIR:-/tmp} (about 3 GiB).
set -euo pipefail
cd "$(dirname "$0")/../.."
. cuckoo-server/bench/lib.sh
ROUNDS=${1:-3}
WRITES=${2:-10000000}
JAR=cuckoo-server/target/cuckoo-server.jar
CP=cuckoo-server/target/test-classes:$JAR
WORK=$(mktemp -d)
PID=
POLLER=
cleanup() {
  for p in $PID $POLLER; do kill -9 "$p" 2> /dev/null; done
  wait 2> /dev/null; rm -rf "$WORK"
}
trap cleanup EXIT
for tool in redis-benchmark redis-cli python3; do
  command -v "$tool" > /dev/null || { echo "$tool not found" >&2; exit 1; }
done
if [ ! -f "$JAR" ] \
    || [ ! -f cuckoo-server/target/test-classes/dev/cuckoo/server/DurabilityBench.class ]; then
  echo "build first: mvn -B -ntp -pl cuckoo-server -am package -DskipTests" >&2; exit 1
fi
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { # values... -> their median, rounded to 2 decimals below 100
  python3 -c "import statistics,sys; m=statistics.median(map(float, sys.argv[1:]))
print(round(m) if m >= 100 else round(m, 2))" "$@"
}
field() { # name line -> value of name=value in line
  sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< " $2"
}

start_server() { # dir port -> starts in the background; sets PID and STARTUP_MS (until PING)
  local dir=$1 port=$2 started
  started=$(now_ms)
  java -Xmx3g -jar "$JAR" --port "$port" --dir "$WORK/$dir" >> "$WORK/$dir.log" 2>&1 &
  PID=$!
  for _ in $(seq 3000); do
    if redis-cli -p "$port" ping > /dev/null 2>&1; then
      STARTUP_MS=$(( $(now_ms) - started ))
      return
    fi
    if ! kill -0 "$PID" 2> /dev/null; then
      echo "server exited:" >&2; tail "$WORK/$dir.log" >&2; exit 1
    fi
    sleep 0.01
  done
  echo "server on $port did not start" >&2; exit 1
}
kill_server() { kill -9 "$PID"; wait "$PID" 2> /dev/null || true; PID=; }
bench() { java -cp "$CP" dev.cuckoo.server.DurabilityBench "$@"; }

# 1 and 2: a 1 GiB filter
A=$(free_port)
start_server a "$A"
CREATE=()
for round in $(seq "$ROUNDS"); do
  [ "$round" -gt 1 ] && redis-cli -p "$A" DEL big > /dev/null
  CREATE+=("$(bench time "$A" CF.RESERVE big 1073741824 BUCKETSIZE 1 | cut -d' ' -f1)")
done
SIZE=$(redis-cli -p "$A" CF.INFO big | sed -n 2p)
declare -A LAT
for round in $(seq "$ROUNDS"); do
  for command in SAVE BGSAVE; do
    line=$(bench latency "$A" "$command" 2000 4)
    LAT[$command]+="$line"$'\n'
  done
done
SNAPSHOT_BYTES=$(stat -c %s "$WORK/a/dump.cuckoo")
redis-cli -p "$A" SHUTDOWN NOSAVE > /dev/null 2>&1 || true
wait "$PID" 2> /dev/null || true
PID=

# 3: 10^7 writes with default settings
B=$(free_port)
start_server b "$B"
redis-cli -p "$B" CF.RESERVE k 16777216 > /dev/null
while :; do # the active log's size twice a second, for its maximum
  redis-cli -p "$B" INFO persistence 2> /dev/null | sed -n 's/^aof_current_size:\([0-9]*\).*/\1/p'
  sleep 0.5
done > "$WORK/log-sizes" &
POLLER=$!
LOAD_RPS=$(redis-benchmark -p "$B" -c 8 -P 32 -n "$WRITES" -r 100000000 --csv \
  CF.ADD k __rand_int__ | tail -1 | cut -d, -f2 | tr -d '"')
kill "$POLLER"; wait "$POLLER" 2> /dev/null || true; POLLER=
MAX_LOG=$(sort -n "$WORK/log-sizes" | tail -1)
while redis-cli -p "$B" INFO persistence | grep -q 'rdb_bgsave_in_progress:1'; do sleep 0.1; done
sleep 1.5 # one everysec fsync
ITEMS=$(redis-cli -p "$B" CF.INFO k | sed -n 8p)
REWRITES=$(grep -c -E 'rewriting|taking a new snapshot' "$WORK/b.log" || true)
FILES=$(cd "$WORK/b" && ls -l | awk 'NR > 1 { printf "%s %s B, ", $9, $5 }')
LOG_BYTES=$(stat -c %s "$WORK/b/appendonly.log")
KILLED=()
for round in $(seq "$ROUNDS"); do
  kill_server
  start_server b "$B"
  KILLED+=("$STARTUP_MS")
done
REPLAYED=$(grep 'replayed' "$WORK/b.log" | tail -1 | sed 's/.*replayed/replayed/')
CLEAN=()
for round in $(seq "$ROUNDS"); do
  redis-cli -p "$B" SHUTDOWN > /dev/null 2>&1 || true
  wait "$PID" 2> /dev/null || true
  start_server b "$B"
  CLEAN+=("$STARTUP_MS")
done
SNAPSHOT_B=$(stat -c %s "$WORK/b/dump.cuckoo")

col() { # command field -> median over rounds
  local values=()
  while IFS= read -r line; do
    [ -n "$line" ] && values+=("$(field "$2" "$line")")
  done <<< "${LAT[$1]}"
  median "${values[@]}"
}
echo "| measurement | median | goal |"
echo "|---|---:|---|"
echo "| CF.RESERVE of a 1 GiB filter (CF.INFO Size $SIZE), first in a new server |" \
  "${CREATE[0]} ms | |"
if [ "$ROUNDS" -gt 1 ]; then
  echo "| ... again after DEL (the heap's pages already in use) | $(median "${CREATE[@]:1}") ms | |"
fi
for c in SAVE BGSAVE; do
  echo "| $c of the 1 GiB filter (snapshot $SNAPSHOT_BYTES B): duration | $(col $c save_ms) ms | |"
  echo "| CF.ADD on other keys during $c: p50 / p99 / max |" \
    "$(col $c during_p50_ms) / $(col $c during_p99_ms) / $(col $c during_max_ms) ms |" \
    "p99 <= 20 ms |"
  echo "| ... the same load before $c: p50 / p99 |" \
    "$(col $c baseline_p50_ms) / $(col $c baseline_p99_ms) ms | |"
done
echo "| $WRITES CF.ADD (redis-benchmark -c 8 -P 32): throughput | $LOAD_RPS req/s | |"
echo "| ... the active log (appendonly.log): largest seen during the writes / after them |" \
  "$MAX_LOG / $LOG_BYTES B | |"
echo "| ... restart after kill -9 until PING answers | $(median "${KILLED[@]}") ms | |"
echo "| ... restart after SHUTDOWN (snapshot $SNAPSHOT_B B, empty log) |" \
  "$(median "${CLEAN[@]}") ms | |"
echo
echo "Raw runs: create_ms=[${CREATE[*]}] restart_after_kill_ms=[${KILLED[*]}]"\
  "restart_after_shutdown_ms=[${CLEAN[*]}]"
echo "After the writes: $ITEMS items in k, $REWRITES automatic rewrites, files: ${FILES%, };"\
  "restart after kill -9 $REPLAYED"
for command in SAVE BGSAVE; do
  printf '%s' "${LAT[$command]}"
done
echo "Machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end;"\
  "$(java -version 2>&1 | head -1); data in $(df --output=source,fstype "$WORK" | tail -1)"
