#!/usr/bin/env bash
# What the ACL check costs: one cuckoo-server, pinned to core 0, serves redis-benchmark (core 1,
# 50 connections) as the `default` user (all commands, all keys: the check's cheapest path) and as
# a restricted user whose every request goes through the whole check — a command allowed by
# category (+@cuckoo), a key matched against read and write patterns (%R~k* %W~k*), channels
# reset. CF.ADD and CF.EXISTS on one filter, pipeline 1 and 16, ROUNDS interleaved rounds so that
# load from other processes hits both users alike (which user goes first alternates). Prints one
# line per round and pipeline with the requests per second of each user and the ratio restricted / default, and the same ratio of the
# server's CPU seconds per request (utime+stime of the process, all threads, from /proc); the last
# lines give the median ratios.
# Needs: redis-benchmark, redis-cli (redis-tools), taskset, python3, 2 or more cores, and the jar:
#   mvn -B -ntp -pl cuckoo-server -am package -DskipTests
# Usage: [JAR=path] [PIPELINES="1 16"] cuckoo-server/bench/acl-benchmark.sh [requests] [rounds]
set -euo pipefail
cd "$(dirname "$0")/../.."
. cuckoo-server/bench/lib.sh
N=${1:-200000}
ROUNDS=${2:-5}
pinned_setup
PORT=$(free_port)
pinned_server "$PORT" "$WORK/server.log" --dir "$WORK" --appendonly no --save ""
PID=$SERVER_PID
wait_ready "$PORT" "$PID" "$WORK/server.log"
redis-cli -p "$PORT" CF.RESERVE k 100000000 > /dev/null
redis-cli -p "$PORT" ACL SETUSER bench on '>bench-pass' resetchannels '%R~k*' '%W~k*' \
  -@all +@cuckoo +ping > /dev/null
# bench USER PIPELINE COMMAND... -> requests per second
bench() {
  if [ "$1" = bench ]; then
    pinned_bench "$PORT" "$2" --user bench -a bench-pass "${@:3}" 2> /dev/null
  else
    pinned_bench "$PORT" "$2" "${@:3}"
  fi
}
# JIT warm-up of both paths
for user in default bench; do
  bench "$user" 16 CF.ADD k __rand_int__ > /dev/null
  bench "$user" 1 CF.EXISTS k __rand_int__ > /dev/null
done
RATIOS=()
for r in $(seq "$ROUNDS"); do
  for p in ${PIPELINES:-1 16}; do
    line="round=$r pipeline=$p"
    for cmd in CF.ADD CF.EXISTS; do
      # the order of the two users alternates from round to round, so a drift in the host's load
      # does not favour one of them
      if [ $((r % 2)) = 1 ]; then
        c0=$(pinned_cpu "$PID"); d=$(bench default "$p" "$cmd" k __rand_int__); c1=$(pinned_cpu "$PID")
        b=$(bench bench "$p" "$cmd" k __rand_int__); c2=$(pinned_cpu "$PID")
        cd_=$(python3 -c "print($c1 - $c0)") cb=$(python3 -c "print($c2 - $c1)")
      else
        c0=$(pinned_cpu "$PID"); b=$(bench bench "$p" "$cmd" k __rand_int__); c1=$(pinned_cpu "$PID")
        d=$(bench default "$p" "$cmd" k __rand_int__); c2=$(pinned_cpu "$PID")
        cb=$(python3 -c "print($c1 - $c0)") cd_=$(python3 -c "print($c2 - $c1)")
      fi
      rr=$(python3 -c "print(round($b/$d,3))")
      cr=$(python3 -c "print(round($cb / $cd_, 3) if $cd_ > 0 else 'nan')")
      line+=" ${cmd}_default=$d ${cmd}_restricted=$b ${cmd}_rps_ratio=$rr ${cmd}_cpu_ratio=$cr"
      RATIOS+=("$cmd/P$p rps $rr" "$cmd/P$p cpu $cr")
    done
    echo "$line"
  done
done
printf '%s\n' "${RATIOS[@]}" | python3 -c '
import statistics, sys, collections
by = collections.defaultdict(list)
for line in sys.stdin:
    cmd, kind, value = line.split()
    if value != "nan":
        by[(cmd, kind)].append(float(value))
for (cmd, kind), values in sorted(by.items()):
    print(f"median restricted/default {kind} {cmd}: {statistics.median(values):.3f} (n={len(values)})")'
