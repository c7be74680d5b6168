#!/usr/bin/env bash
# One node's throughput in cluster mode against the same build outside cluster mode: two servers
# pinned to core 0 (one plain, one cluster node serving all 16384 slots alone), redis-benchmark on
# core 1 with 50 connections, CF.ADD and CF.EXISTS on one filter at pipeline 1 and 16, ROUNDS
# interleaved rounds. Prints one line per round and pipeline with the requests per second of each
# server and the ratio cluster / plain, and the same ratio of the CPU seconds each server process
# used per request (less sensitive than throughput to other load on the machine); the last lines
# give the median ratios of each measurement.
# Needs: redis-benchmark, redis-cli (redis-tools), taskset, 2 or more cores, and the jar:
#   mvn -B -ntp -pl cuckoo-server -am package -DskipTests
# Usage: cuckoo-server/bench/cluster-throughput.sh [requests] [rounds]
set -euo pipefail
cd "$(dirname "$0")/../.."
. cuckoo-server/bench/lib.sh
N=${1:-200000}
ROUNDS=${2:-3}
pinned_setup
PP=$(free_port); CP=$(free_port); BUS=$(free_port)
mkdir -p "$WORK/plain" "$WORK/cluster"
pinned_server "$PP" "$WORK/plain.log" --dir "$WORK/plain"
PPID_=$SERVER_PID
pinned_server "$CP" "$WORK/cluster.log" --dir "$WORK/cluster" --cluster-enabled yes \
  --cluster-port "$BUS"
CPID=$SERVER_PID
wait_ready "$PP" "$PPID_" "$WORK/plain.log"
wait_ready "$CP" "$CPID" "$WORK/cluster.log"
redis-cli -p "$CP" CLUSTER ADDSLOTSRANGE 0 16383 > /dev/null
for _ in $(seq 100); do
  redis-cli -p "$CP" CLUSTER INFO | grep -q cluster_state:ok && break
  sleep 0.1
done
for port in "$PP" "$CP"; do redis-cli -p "$port" CF.RESERVE k 10000000 > /dev/null; done
# warm-up (the JVM compiles the hot paths of both servers)
for port in "$PP" "$CP"; do
  pinned_bench "$port" 16 CF.ADD k __rand_int__ > /dev/null
  pinned_bench "$port" 1 CF.EXISTS k __rand_int__ > /dev/null
done
RATIOS="$WORK/ratios"
for r in $(seq "$ROUNDS"); do
  for p in 1 16; do
    for cmd in CF.ADD CF.EXISTS; do
      p0=$(pinned_cpu "$PPID_"); plain=$(pinned_bench "$PP" "$p" "$cmd" k __rand_int__); p1=$(pinned_cpu "$PPID_")
      c0=$(pinned_cpu "$CPID"); cluster=$(pinned_bench "$CP" "$p" "$cmd" k __rand_int__); c1=$(pinned_cpu "$CPID")
      ratio=$(python3 -c "print(round($cluster/$plain,3))")
      cpu_ratio=$(python3 -c "print(round(($c1-$c0)/max($p1-$p0,0.01),3))")
      echo "round=$r pipeline=$p command=$cmd plain=$plain cluster=$cluster cluster_over_plain=$ratio cpu_per_request_cluster_over_plain=$cpu_ratio"
      echo "$cmd-P$p $ratio" >> "$RATIOS"
      echo "$cmd-P$p $cpu_ratio" >> "$RATIOS.cpu"
    done
  done
done
python3 - "$RATIOS" "$RATIOS.cpu" <<'PY'
import statistics, sys, collections
for path, what in ((sys.argv[1], "requests/s"), (sys.argv[2], "CPU per request")):
    ratios = collections.defaultdict(list)
    for line in open(path):
        name, value = line.split()
        ratios[name].append(float(value))
    print(f"median cluster/plain {what}: "
          + " ".join(f"{k}={statistics.median(v):.3f}" for k, v in ratios.items()))
PY
