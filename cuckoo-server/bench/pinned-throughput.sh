#!/usr/bin/env bash
# Throughput with the server and the client on separate cores (taskset), side by side with
# redis-server pinned the same way: CF.ADD / CF.EXISTS here against SET / GET on Redis, each with
# its default durability (here the log with appendfsync everysec; Redis's default has no AOF),
# redis-benchmark with 50 connections at pipeline 1 and 16, ROUNDS interleaved rounds. Prints one
# line per measurement (requests per second) and the CPU seconds each server used per 10^6
# requests (user + system time of the process, all threads), for each command.
# Needs: redis-server, redis-benchmark (redis-tools), taskset, 2 or more cores, and the jar:
#   mvn -B -ntp -pl cuckoo-server -am package -DskipTests
# JAVA_OPTS adds JVM options to the cuckoo-server (e.g. those of conf/jvm.options); JAR=path runs
# another build. PEER=hits first stores 10^6 keys in Redis and draws SET / GET keys among them, so
# that GETs find their key and SETs replace a value: random accesses into ~100 MB of memory, as
# CF.EXISTS / CF.ADD make into the filter's 128 MiB table (CF.RESERVE k 100000000), where a GET
# of a missing key (the default, keys drawn from 10^8) reads one slot of a small hash table.
# Usage: [JAVA_OPTS=...] [PEER=hits] cuckoo-server/bench/pinned-throughput.sh [requests] [rounds]
set -euo pipefail
cd "$(dirname "$0")/../.."
. cuckoo-server/bench/lib.sh
N=${1:-200000}
ROUNDS=${2:-3}
pinned_setup
CP=$(free_port); RP=$(free_port)
pinned_server "$CP" "$WORK/cuckoo.log" --dir "$WORK/cuckoo"
CPID=$SERVER_PID
taskset -c 0 redis-server --port "$RP" --dir "$WORK" --save '' > "$WORK/redis.log" 2>&1 &
PIDS+=($!); RPID=$!
wait_ready "$CP" "$CPID" "$WORK/cuckoo.log"
wait_ready "$RP" "$RPID" "$WORK/redis.log"
redis-cli -p "$CP" CF.RESERVE k 100000000 > /dev/null
WRITE=(SET key:__rand_int__ x); READ=(GET key:__rand_int__); RANGE=100000000
if [ "${PEER:-}" = hits ]; then
  RANGE=1000000
  # 3·10^6 random SETs store ~95% of the 10^6 keys
  taskset -c 1 redis-benchmark -p "$RP" -c 50 -n 3000000 -P 64 -r "$RANGE" -q SET key:__rand_int__ x > /dev/null
  echo "redis-server holds $(redis-cli -p "$RP" DBSIZE) keys; SET / GET draw from $RANGE"
fi
# warm-up (the JVM compiles the hot paths, those of pipeline 1 included)
pinned_bench "$CP" 16 CF.ADD k __rand_int__ > /dev/null
pinned_bench "$CP" 1 CF.ADD k __rand_int__ > /dev/null
pinned_bench "$CP" 1 CF.EXISTS k __rand_int__ > /dev/null
for r in $(seq "$ROUNDS"); do
  for p in 1 16; do
    c0=$(pinned_cpu "$CPID"); a=$(pinned_bench "$CP" "$p" CF.ADD k __rand_int__); c1=$(pinned_cpu "$CPID")
    r0=$(pinned_cpu "$RPID"); s=$(R=$RANGE pinned_bench "$RP" "$p" "${WRITE[@]}"); r1=$(pinned_cpu "$RPID")
    c2=$(pinned_cpu "$CPID"); e=$(pinned_bench "$CP" "$p" CF.EXISTS k __rand_int__); c3=$(pinned_cpu "$CPID")
    r2=$(pinned_cpu "$RPID"); g=$(R=$RANGE pinned_bench "$RP" "$p" "${READ[@]}"); r3=$(pinned_cpu "$RPID")
    echo "round=$r pipeline=$p cf_add=$a set=$s add_over_set=$(python3 -c "print(round($a/$s,2))") cf_exists=$e get=$g exists_over_get=$(python3 -c "print(round($e/$g,2))") cpu_s_per_Mreq_cuckoo_add=$(python3 -c "print(round(($c1-$c0)/$N*1e6,2))") cpu_s_per_Mreq_redis_set=$(python3 -c "print(round(($r1-$r0)/$N*1e6,2))") cpu_s_per_Mreq_cuckoo_exists=$(python3 -c "print(round(($c3-$c2)/$N*1e6,2))") cpu_s_per_Mreq_redis_get=$(python3 -c "print(round(($r3-$r2)/$N*1e6,2))")"
  done
done
