#!/usr/bin/env bash
# Replication figures for cuckoo-server (not a timed test; loopback, one machine):
#  1. CF.ADD throughput of a master alone, then with two replicas attached (redis-benchmark, same
#     run, interleaved rounds; medians), and the same for a stock redis-server replicating SET;
#  2. replication lag in milliseconds (and bytes) under that load and under a pipelined one
#     (redis-benchmark -P 16, as fast as the host drives it; the rate is printed): the master's
#     offset and a replica's applied offset polled every 5 ms, the lag of a master sample being
#     the time until the replica's applied offset reached it (replication-lag.py), for both
#     servers;
#  3. full sync time of a dataset of SIZE_MB megabytes of filters: REPLICAOF until
#     master_link_status:up and the offsets are equal (SIZE_MB=0 skips it), and the same for
#     redis-server with as many 64 MiB string values (DEBUG POPULATE).
# Needs redis-server, redis-benchmark, redis-cli, python3 and the shaded jar:
#   mvn -pl cuckoo-server -am package -DskipTests
# Usage: cuckoo-server/bench/replication-bench.sh [requests-per-run] [rounds] [SIZE_MB]
# (rounds 0: only the full sync)
# Environment: JAR (the server jar), HEAP (-Xmx of each server, default 3g), JAVA_OPTS (more JVM
# options for each cuckoo-server, e.g. -XX:StartFlightRecording; %p in them becomes the port),
# KEEP (a directory: the servers' logs and data are kept there instead of a temporary one),
# REDIS_AOF (yes: the Redis replicas keep an append-only file with appendfsync everysec, as each
# cuckoo-server replica keeps its log; default no, Redis's default), PIN (yes: each master on CPU
# 0, its replicas and the client on CPU 1, with taskset; default no).
set -euo pipefail
cd "$(dirname "$0")/../.."
. cuckoo-server/bench/lib.sh
N=${1:-300000}
ROUNDS=${2:-3}
SIZE_MB=${3:-256}
JAR=${JAR:-cuckoo-server/target/cuckoo-server.jar}
HEAP=${HEAP:-3g}
LAG=cuckoo-server/bench/replication-lag.py
JAVA_OPTS=${JAVA_OPTS:-}
REDIS_AOF=${REDIS_AOF:-no}
MASTER_CPU=(); REST_CPU=()
if [ "${PIN:-no}" = yes ]; then MASTER_CPU=(taskset -c 0); REST_CPU=(taskset -c 1); fi
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP"; WORK=$(cd "$KEEP" && pwd); else WORK=$(mktemp -d); fi
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
field() { redis-cli -p "$1" info replication | tr -d '\r' | sed -n "s/^$2://p"; }
cuckoo() { # port dir [options]
  local port=$1 dir=$2; shift 2
  local cpu=("${REST_CPU[@]}")
  if [ "$dir" = master ]; then cpu=("${MASTER_CPU[@]}"); fi
  # shellcheck disable=SC2086
  "${cpu[@]}" java -Xmx"$HEAP" ${JAVA_OPTS//%p/$port} -jar "$JAR" --port "$port" --dir "$WORK/$dir" "$@" > "$WORK/$dir.log" 2>&1 &
  PIDS+=($!)
  wait_ready "$port" "$!" "$WORK/$dir.log"
}
rps() { # port command...
  local port=$1; shift
  "${REST_CPU[@]}" redis-benchmark -p "$port" -c 50 -n "$N" -r 100000000 -q "$@" | tr '\r' '\n' \
    | sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p' | tail -1
}
lag() { # label master replica [redis-benchmark options] command...
  local label=$1 master=$2 replica=$3; shift 3
  rm -f "$WORK/stop"
  python3 "$LAG" "$master" "$replica" "$WORK/stop" > "$WORK/lag" &
  local sampler=$!
  local rate
  rate=$(rps "$master" "$@")
  touch "$WORK/stop"; wait "$sampler"
  echo "$label, $rate writes/s: $(cat "$WORK/lag")"
}
ticks() { # CPU time (user+system, clock ticks) of the processes given, summed
  local total=0 pid
  for pid in "$@"; do total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat"))); done
  echo "$total"
}
measured() { # label requests command... : runs it and notes each server's CPU per request
  local label=$1; shift
  local before=() after=() i
  for i in 0 1 2 3 4 5; do before+=("$(ticks "${PIDS[$i]}")"); done
  "$@"
  for i in 0 1 2 3 4 5; do after+=("$(ticks "${PIDS[$i]}")"); done
  for i in 0 1 2 3 4 5; do
    echo "$label $i $(( (after[i] - before[i]) ))" >> "$WORK/cpu"
  done
}
median() { python3 -c 'import sys,statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
await_sync() { # master replica
  for _ in $(seq 3000); do
    if [ "$(field "$2" master_link_status)" = up ] \
      && [ "$(field "$1" master_repl_offset)" = "$(field "$2" slave_repl_offset)" ]; then return; fi
    sleep 0.05
  done
  echo "replica $2 did not catch up" >&2; exit 1
}

M=$(free_port); R1=$(free_port); R2=$(free_port)
RM=$(free_port); RR1=$(free_port); RR2=$(free_port)
cuckoo "$M" master
cuckoo "$R1" replica1
cuckoo "$R2" replica2
redis-cli -p "$M" CF.RESERVE cf 100000000 > /dev/null
for port in "$RM" "$RR1" "$RR2"; do
  # its own directory: a master writes an RDB file there for each full sync
  mkdir -p "$WORK/redis-$port"
  aof=no cpu=("${REST_CPU[@]}")
  if [ "$port" = "$RM" ]; then cpu=("${MASTER_CPU[@]}"); else aof=$REDIS_AOF; fi
  # DEBUG POPULATE fills the full-sync peer; no 5 s wait before a diskless full sync starts
  "${cpu[@]}" redis-server --port "$port" --bind 127.0.0.1 --save "" --dir "$WORK/redis-$port" \
    --appendonly "$aof" --appendfsync everysec \
    --enable-debug-command local --repl-diskless-sync-delay 0 \
    > "$WORK/redis-$port.log" 2>&1 &
  PIDS+=($!)
  wait_ready "$port" "$!" "$WORK/redis-$port.log"
done

alone=(); with=(); ralone=(); rwith=()
if [ "$ROUNDS" = 0 ]; then
  redis-cli -p "$R2" replicaof no one > /dev/null
else
for round in $(seq "$ROUNDS"); do
  redis-cli -p "$R1" replicaof no one > /dev/null; redis-cli -p "$R2" replicaof no one > /dev/null
  redis-cli -p "$RR1" replicaof no one > /dev/null; redis-cli -p "$RR2" replicaof no one > /dev/null
  sleep 1
  measured alone rps "$M" CF.ADD cf __rand_int__ > "$WORK/out"; alone+=("$(cat "$WORK/out")")
  measured ralone rps "$RM" SET k__rand_int__ v > "$WORK/out"; ralone+=("$(cat "$WORK/out")")
  redis-cli -p "$R1" replicaof 127.0.0.1 "$M" > /dev/null; redis-cli -p "$R2" replicaof 127.0.0.1 "$M" > /dev/null
  redis-cli -p "$RR1" replicaof 127.0.0.1 "$RM" > /dev/null; redis-cli -p "$RR2" replicaof 127.0.0.1 "$RM" > /dev/null
  await_sync "$M" "$R1"; await_sync "$M" "$R2"; await_sync "$RM" "$RR1"; await_sync "$RM" "$RR2"
  measured with rps "$M" CF.ADD cf __rand_int__ > "$WORK/out"; with+=("$(cat "$WORK/out")")
  measured rwith rps "$RM" SET k__rand_int__ v > "$WORK/out"; rwith+=("$(cat "$WORK/out")")
done

echo "load average before the table: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| server | alone (req/s) | with 2 replicas (req/s) | ratio | rounds (alone / with) |"
echo "|---|---|---|---|---|"
a=$(median "${alone[@]}"); w=$(median "${with[@]}")
echo "| cuckoo-server CF.ADD | $a | $w | $(python3 -c "print(round($w/$a,2))") | ${alone[*]} / ${with[*]} |"
a=$(median "${ralone[@]}"); w=$(median "${rwith[@]}")
echo "| redis-server SET | $a | $w | $(python3 -c "print(round($w/$a,2))") | ${ralone[*]} / ${rwith[*]} |"
python3 - "$WORK/cpu" "$N" "$(getconf CLK_TCK)" <<'PY'
import sys, collections, statistics
per = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, proc, ticks = line.split()
    per[(label, int(proc))].append(int(ticks))
n, hz = int(sys.argv[2]), int(sys.argv[3])
us = lambda label, proc: statistics.median(per[(label, proc)]) / hz / n * 1e6
print("\nCPU per write (median over the rounds, microseconds of user+system time; host-load independent):")
print("| server | master alone | master with 2 replicas | each replica | all three |")
print("|---|---|---|---|---|")
for name, alone, with_, base in (("cuckoo-server CF.ADD", "alone", "with", 0), ("redis-server SET", "ralone", "rwith", 3)):
    m0, m2 = us(alone, base), us(with_, base)
    r1, r2 = us(with_, base + 1), us(with_, base + 2)
    print(f"| {name} | {m0:.1f} | {m2:.1f} | {r1:.1f}, {r2:.1f} | {m2 + r1 + r2:.1f} |")
PY

echo
echo "replication lag (replica's applied offset against the master's, both replicas attached):"
lag "cuckoo-server CF.ADD, 50 clients" "$M" "$R1" CF.ADD cf __rand_int__
lag "redis-server SET, 50 clients" "$RM" "$RR1" SET k__rand_int__ v
lag "cuckoo-server CF.ADD, 50 clients -P 16" "$M" "$R1" -P 16 CF.ADD cf __rand_int__
lag "redis-server SET, 50 clients -P 16" "$RM" "$RR1" -P 16 SET k__rand_int__ v
fi

if [ "$SIZE_MB" = 0 ]; then exit 0; fi
# full sync of SIZE_MB of filters (RedisBloom's sizing: about one byte per unit of capacity)
redis-cli -p "$R1" replicaof no one > /dev/null
redis-cli -p "$M" flushall > /dev/null
keys=$((SIZE_MB / 64))
for k in $(seq "$keys"); do redis-cli -p "$M" CF.RESERVE "big$k" 64000000 > /dev/null; done
redis-cli -p "$M" CF.ADD big1 x > /dev/null
used=$(redis-cli -p "$M" info memory | tr -d '\r' | sed -n 's/^used_memory:\(.*\)/\1/p')
start=$(date +%s.%N)
redis-cli -p "$R1" replicaof 127.0.0.1 "$M" > /dev/null
await_sync "$M" "$R1"
end=$(date +%s.%N)
echo
echo "full sync of $keys filters, used_memory $used bytes: $(python3 -c "print(round($end-$start,2))") s"

# the same for redis-server: as many plain keys of 64 MiB values (Redis 7's default diskless sync)
redis-cli -p "$RR1" replicaof no one > /dev/null
redis-cli -p "$RM" flushall > /dev/null
redis-cli -p "$RM" debug populate "$keys" big 67108864 > /dev/null
used=$(redis-cli -p "$RM" info memory | tr -d '\r' | sed -n 's/^used_memory:\(.*\)/\1/p')
start=$(date +%s.%N)
redis-cli -p "$RR1" replicaof 127.0.0.1 "$RM" > /dev/null
await_sync "$RM" "$RR1"
end=$(date +%s.%N)
echo "redis-server full sync of $keys keys, used_memory $used bytes: $(python3 -c "print(round($end-$start,2))") s"
