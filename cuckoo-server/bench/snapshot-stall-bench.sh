#!/usr/bin/env bash
# Stalls while snapshots are written: a server holding a 512 MiB filter (CF.RESERVE big 536870912
# BUCKETSIZE 1) takes SNAPSHOTS BGSAVEs one after another while one client sends PING and two send
# CF.ADD to their own small keys, each RATE requests per second on a fixed schedule (latency from
# the scheduled time, so a stall is charged for every request it delayed). Prints a line per
# snapshot (its maximum PING and CF.ADD latency) and a summary: p99 and maximum over all
# snapshots, and how many snapshots had a request wait more than 50 ms (the goal is none). After
# each snapshot the same traffic runs as long again without one: the "baseline" line gives the same
# figures over those quiet windows (this host's and client's own noise, measured in the same run).
# The server runs with -Xmx3g, appendfsync everysec (the default) and its default threads.
# Needs: python3, and the server jar and test classes:
#   mvn -B -ntp -pl cuckoo-server -am package -DskipTests
# Usage: cuckoo-server/bench/snapshot-stall-bench.sh [snapshots] [rate]
#   JAR=path/to/cuckoo-server.jar measures another build with the same client.
set -euo pipefail
cd "$(dirname "$0")/../.."
. cuckoo-server/bench/lib.sh
SNAPSHOTS=${1:-50}
RATE=${2:-500}
JAR=${JAR:-cuckoo-server/target/cuckoo-server.jar}
CP=cuckoo-server/target/test-classes:cuckoo-server/target/cuckoo-server.jar
WORK=$(mktemp -d)
PID=
cleanup() {
  [ -n "$PID" ] && kill -9 "$PID" 2> /dev/null
  wait 2> /dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
if [ ! -f "$JAR" ] \
    || [ ! -f cuckoo-server/target/test-classes/dev/cuckoo/server/DurabilityBench.class ]; then
  echo "build first: mvn -B -ntp -pl cuckoo-server -am package -DskipTests" >&2; exit 1
fi
PORT=$(free_port)
java -Xmx3g -jar "$JAR" --port "$PORT" --dir "$WORK/data" > "$WORK/server.log" 2>&1 &
PID=$!
wait_ready "$PORT" "$PID" "$WORK/server.log"
java -cp "$CP" dev.cuckoo.server.DurabilityBench time "$PORT" \
  CF.RESERVE big 536870912 BUCKETSIZE 1 > /dev/null
echo "# $SNAPSHOTS snapshots of a 512 MiB filter, PING and CF.ADD at $RATE/s each ($JAR)"
java -cp "$CP" dev.cuckoo.server.DurabilityBench stalls "$PORT" "$SNAPSHOTS" "$RATE"
