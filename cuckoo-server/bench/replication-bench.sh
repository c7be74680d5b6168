#!/usr/bin/env bash
# Replication figures for cuckoo-server (not a timed test; loopback, one machine):
#  1. CF.ADD throughput of a master alone, then with two replicas attached (redis-benchmark, same
#     run, interleaved rounds; medians), and the same for a stock redis-server replicating SET;
#  2. replication lag while the master takes that load: master_repl_offset minus the replicas'
#     acknowledged offset (INFO replication), sampled every 100 ms (bytes; p50, p99, max);
#  3. full sync time of a dataset of SIZE_MB megabytes of filters: REPLICAOF until
#     master_link_status:up and the offsets are equal.
# Needs redis-server, redis-benchmark, redis-cli, python3 and the shaded jar:
#   mvn -pl cuckoo-server -am package -DskipTests
# Usage: cuckoo-server/bench/replication-bench.sh [requests-per-run] [rounds] [SIZE_MB]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-300000}
ROUNDS=${2:-3}
SIZE_MB=${3:-256}
JAR=cuckoo-server/target/cuckoo-server.jar
WORK=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$WORK"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
await_ping() { for _ in $(seq 300); do redis-cli -p "$1" ping > /dev/null 2>&1 && return; sleep 0.1; done; echo "server on $1 did not start" >&2; exit 1; }
field() { redis-cli -p "$1" info replication | tr -d '\r' | sed -n "s/^$2://p"; }
cuckoo() { # port dir [options]
  local port=$1 dir=$2; shift 2
  java -Xmx3g -jar "$JAR" --port "$port" --dir "$WORK/$dir" "$@" > "$WORK/$dir.log" 2>&1 &
  PIDS+=($!)
  await_ping "$port"
}
rps() { # port command...
  local port=$1; shift
  redis-benchmark -p "$port" -c 50 -n "$N" -r 100000000 -q "$@" | tr '\r' '\n' \
    | sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p' | tail -1
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
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK/redis-$port" \
    > "$WORK/redis-$port.log" 2>&1 &
  PIDS+=($!)
  await_ping "$port"
done

alone=(); with=(); ralone=(); rwith=(); lags="$WORK/lags"
for round in $(seq "$ROUNDS"); do
  redis-cli -p "$R1" replicaof no one > /dev/null; redis-cli -p "$R2" replicaof no one > /dev/null
  redis-cli -p "$RR1" replicaof no one > /dev/null; redis-cli -p "$RR2" replicaof no one > /dev/null
  sleep 1
  alone+=("$(rps "$M" CF.ADD cf __rand_int__)")
  ralone+=("$(rps "$RM" SET k__rand_int__ v)")
  redis-cli -p "$R1" replicaof 127.0.0.1 "$M" > /dev/null; redis-cli -p "$R2" replicaof 127.0.0.1 "$M" > /dev/null
  redis-cli -p "$RR1" replicaof 127.0.0.1 "$RM" > /dev/null; redis-cli -p "$RR2" replicaof 127.0.0.1 "$RM" > /dev/null
  await_sync "$M" "$R1"; await_sync "$M" "$R2"; await_sync "$RM" "$RR1"; await_sync "$RM" "$RR2"
  ( while true; do
      o=$(field "$M" master_repl_offset)
      a=$(redis-cli -p "$M" info replication | tr -d '\r' | sed -n 's/^slave0:.*offset=\([0-9]*\).*/\1/p')
      [ -n "$o" ] && [ -n "$a" ] && echo $((o - a)) >> "$lags"
      sleep 0.1
    done ) &
  SAMPLER=$!
  with+=("$(rps "$M" CF.ADD cf __rand_int__)")
  kill "$SAMPLER"; wait "$SAMPLER" 2>/dev/null || true
  rwith+=("$(rps "$RM" SET k__rand_int__ v)")
done

echo "| server | alone (req/s) | with 2 replicas (req/s) | ratio |"
echo "|---|---|---|---|"
a=$(median "${alone[@]}"); w=$(median "${with[@]}")
echo "| cuckoo-server CF.ADD | $a | $w | $(python3 -c "print(round($w/$a,2))") |"
a=$(median "${ralone[@]}"); w=$(median "${rwith[@]}")
echo "| redis-server SET | $a | $w | $(python3 -c "print(round($w/$a,2))") |"
python3 - "$lags" <<'PY'
import sys
lags = sorted(int(x) for x in open(sys.argv[1]) if x.strip())
if lags:
    pick = lambda q: lags[min(len(lags) - 1, int(q * len(lags)))]
    print(f"\nreplica lag under load (bytes behind, {len(lags)} samples every 100 ms):"
          f" p50 {pick(0.5)}, p99 {pick(0.99)}, max {lags[-1]}")
PY

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
