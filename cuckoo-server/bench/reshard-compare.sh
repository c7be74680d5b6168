#!/usr/bin/env bash
# `redis-cli --cluster reshard` of SLOTS slots holding FILTERS small filters under a WAIT-confirmed
# writer, between cuckoo-server nodes and between Redis + RedisBloom nodes, in ROUNDS interleaved
# rounds (cuckoo first in odd rounds, Redis first in even ones). Per kind and round:
#  - six nodes on free loopback ports (a client port and a bus port each), 3 masters + 3 replicas:
#    cluster-enabled yes, cluster-node-timeout NODE_TIMEOUT (2000 ms), no persistence on either
#    kind (appendonly no, save ""); `redis-cli --cluster create ... --cluster-replicas 1
#    --cluster-yes`, then cluster_state:ok on every node and every replica's link up;
#  - FILTERS filters f:<i> (CF.RESERVE f:<i> 100 BUCKETSIZE 2, CF.ADD a<i>, CF.ADD b<i>) spread
#    over all slots, pipelined to each slot's master (reshard-load.py fill);
#  - the writer (reshard-load.py write: batches of 32 adds to random filters, each master's share
#    confirmed by WAIT 1, following -MOVED and -ASK) starts, and a second later
#    `redis-cli --cluster reshard <master A> --cluster-from <A's id> --cluster-to <B's id>
#    --cluster-slots SLOTS --cluster-yes` (redis-cli's defaults: --cluster-pipeline 10 keys per
#    MIGRATE, --cluster-timeout 60000) moves slots from the master of slot 0 (A) to the master of
#    slot 16383 (B); its wall time is the figure;
#  - with WARMUP=n, before that reshard (the writer already running) n round trips of the same
#    SLOTS slots from A to B and back, so that the measured reshard finds warmed-up nodes (a JVM
#    compiles its hot code in the first minutes; on 2 cores six fresh JVMs spend about half of
#    their CPU in the JIT compiler during a first reshard); both kinds get the same warm-up;
#    with WARMUP_WITH=third the round trips go between A and the third master C instead, so the
#    measured reshard moves slots from a warmed-up source onto a target that has never imported
#    one (as onto a node just added to a running cluster, whose JVM has served only the writer
#    and the bus);
#  - a second later the writer stops; `redis-cli --cluster check` must find no error or warning,
#    and reshard-load.py verify that every confirmed item (and every filter's first two) answers
#    CF.EXISTS 1 on its slot's master and that each filter's CF.INFO counts exactly its adds.
# The same Debian redis-cli (7.0) drives both kinds. Nodes are killed and their directories
# removed after each run and when the script exits.
#
# Prints one line per run, then a table: per kind the reshard seconds of each round and their
# median, the CPU seconds the six nodes used during the reshard (utime + stime of their processes;
# for cuckoo-server also the part of it its JIT compiler threads used), the keys moved, the
# confirmed writes lost and the filters whose count is off (both must be 0, summed over the
# rounds), and the ratio of the medians cuckoo / Redis.
#
# Needs python3, redis-cli (redis-tools), the jar:
#   mvn -B -ntp -pl cuckoo-server -am package -DskipTests
# and a Redis 8 server with the RedisBloom module, given by two variables:
#   REDIS_SERVER       the redis-server binary (Redis 8, cluster-enabled builds are the default)
#   REDISBLOOM_MODULE  the RedisBloom module (redisbloom.so), loaded with --loadmodule
# The builds measured in docs/server-benchmark.md ("Resharding against Redis 8 + RedisBloom") and
# how they were made are described there. Optional: JAR (default the jar above), JAVA_OPTS,
# NODE_TIMEOUT (2000), WARMUP (0), WARMUP_WITH (target; or third), KINDS ("cuckoo redis": run one
# kind alone with KINDS=cuckoo), STATS=1
# (after each run, the source's and target's INFO commandstats of SETSLOT, GETKEYSINSLOT,
# MIGRATE, RESTORE-ASKING, CF.ADD and WAIT).
#
# Usage: REDIS_SERVER=... REDISBLOOM_MODULE=... cuckoo-server/bench/reshard-compare.sh \
#          [rounds (3)] [filters (100000)] [slots (1500)]
set -euo pipefail
cd "$(dirname "$0")/../.."
. cuckoo-server/bench/lib.sh
ROUNDS=${1:-3}
FILTERS=${2:-100000}
SLOTS=${3:-1500}
JAR=${JAR:-cuckoo-server/target/cuckoo-server.jar}
NODE_TIMEOUT=${NODE_TIMEOUT:-2000}
KINDS=${KINDS:-cuckoo redis}
LOAD=cuckoo-server/bench/reshard-load.py
case ${WARMUP_WITH:-target} in
  target | third) ;;
  *) echo "WARMUP_WITH: unknown value $WARMUP_WITH (expected: target, third)" >&2; exit 2 ;;
esac
for kind in $KINDS; do
  case $kind in
    cuckoo) [ -f "$JAR" ] || { echo "no jar at $JAR: build it first" >&2; exit 2; } ;;
    redis)
      [ -x "${REDIS_SERVER:-}" ] || { echo "set REDIS_SERVER to a Redis 8 redis-server" >&2; exit 2; }
      [ -f "${REDISBLOOM_MODULE:-}" ] || { echo "set REDISBLOOM_MODULE to redisbloom.so" >&2; exit 2; } ;;
    *) echo "KINDS: unknown kind $kind (expected: cuckoo, redis)" >&2; exit 2 ;;
  esac
done

WORK=$(mktemp -d)
PIDS=()
stop_nodes() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2> /dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2> /dev/null || true; done
  PIDS=()
}
cleanup() {
  stop_nodes
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_node KIND DIR PORT BUS: one cluster node, memory only, in the background.
start_node() {
  local kind=$1 dir=$2 port=$3 bus=$4
  mkdir -p "$dir"
  if [ "$kind" = cuckoo ]; then
    # shellcheck disable=SC2086 # JAVA_OPTS is a list of options
    java ${JAVA_OPTS:-} -jar "$JAR" --port "$port" --bind 127.0.0.1 --dir "$dir" \
      --cluster-enabled yes --cluster-port "$bus" --cluster-node-timeout "$NODE_TIMEOUT" \
      --appendonly no --save '' > "$dir/log" 2>&1 &
  else
    "$REDIS_SERVER" --port "$port" --bind 127.0.0.1 --dir "$dir" --loadmodule "$REDISBLOOM_MODULE" \
      --cluster-enabled yes --cluster-port "$bus" --cluster-node-timeout "$NODE_TIMEOUT" \
      --cluster-config-file nodes.conf --appendonly no --save '' --daemonize no \
      > "$dir/log" 2>&1 &
  fi
  PIDS+=("$!")
}

# field PORT SECTION NAME: a field of INFO SECTION (or CLUSTER INFO when SECTION is "cluster-info").
field() {
  local out
  if [ "$2" = cluster-info ]; then
    out=$(redis-cli -p "$1" CLUSTER INFO)
  else
    out=$(redis-cli -p "$1" INFO "$2")
  fi
  printf '%s\n' "$out" | tr -d '\r' | awk -F: -v n="$3" '$1 == n {print $2}'
}

# await_ready PORTS...: cluster_state:ok on every node, and every replica's link to its master up.
await_ready() {
  for _ in $(seq 300); do
    local ready=1
    for port in "$@"; do
      [ "$(field "$port" cluster-info cluster_state)" = ok ] || ready=0
      if [ "$(field "$port" replication role)" = slave ] \
          && [ "$(field "$port" replication master_link_status)" != up ]; then
        ready=0
      fi
    done
    [ $ready = 1 ] && return
    sleep 0.2
  done
  echo "the cluster did not become ready" >&2
  exit 1
}

# cpu_ticks [jit]: utime + stime of the nodes' processes, or with "jit" of their JIT compiler
# threads only (a thread's name in /proc is "C1 CompilerThre" or "C2 CompilerThre")
cpu_ticks() {
  local total=0 p t
  for p in "${PIDS[@]}"; do
    if [ "${1:-}" = jit ]; then
      for t in /proc/"$p"/task/*; do
        case "$(cat "$t/comm" 2> /dev/null)" in
          C[12]\ CompilerThre*) total=$((total + $(awk '{print $14 + $15}' "$t/stat"))) ;;
        esac
      done
    else
      total=$((total + $(awk '{print $14 + $15}' /proc/"$p"/stat)))
    fi
  done
  echo "$total"
}
seconds_of() { python3 -c "print(f'{$1 / $(getconf CLK_TCK):.2f}')"; }

RESULTS=$WORK/results
# run KIND ROUND: one run; appends "kind seconds keys_moved lost wrong_counts" to RESULTS.
run() {
  local kind=$1 round=$2 dir=$WORK/$1-$2 ports=() addresses=()
  for i in 0 1 2 3 4 5; do
    local port bus
    port=$(free_port); bus=$(free_port)
    start_node "$kind" "$dir/n$i" "$port" "$bus"
    ports+=("$port"); addresses+=("127.0.0.1:$port")
  done
  for i in 0 1 2 3 4 5; do
    wait_ready "${ports[$i]}" "${PIDS[$i]}" "$dir/n$i/log"
  done
  redis-cli --cluster create "${addresses[@]}" --cluster-replicas 1 --cluster-yes \
    > "$dir/create.log" 2>&1 || { cat "$dir/create.log" >&2; exit 1; }
  await_ready "${ports[@]}"
  python3 "$LOAD" fill "${ports[0]}" "$FILTERS" > "$dir/fill.log"
  local from to from_id to_id
  local third third_id
  read -r from from_id to to_id third third_id < <(python3 "$LOAD" ends "${ports[0]}")
  # the warm-up's other end: B (the measured target), or with WARMUP_WITH=third the third master C
  local peer=$to peer_id=$to_id
  if [ "${WARMUP_WITH:-target}" = third ]; then peer=$third peer_id=$third_id; fi
  python3 "$LOAD" owners "${ports[0]}" "$dir/before.json"
  python3 "$LOAD" write "${ports[0]}" "$FILTERS" "$dir/stop" "$dir/writes.json" \
    > "$dir/writer.log" 2>&1 &
  local writer=$!
  sleep 1
  local round_trip pair source target
  for round_trip in $(seq "${WARMUP:-0}"); do
    for pair in "$from $from_id $peer_id" "$peer $peer_id $from_id"; do
      read -r port source target <<< "$pair"
      redis-cli --cluster reshard "127.0.0.1:$port" --cluster-from "$source" \
        --cluster-to "$target" --cluster-slots "$SLOTS" --cluster-yes \
        > "$dir/warmup-$round_trip.log" 2>&1 || { tail -20 "$dir/warmup-$round_trip.log" >&2; exit 1; }
      sleep 1
    done
  done
  local start end cpu0 jit0 cpu jit
  cpu0=$(cpu_ticks) jit0=$(cpu_ticks jit)
  start=$(date +%s.%N)
  redis-cli --cluster reshard "127.0.0.1:$from" --cluster-from "$from_id" --cluster-to "$to_id" \
    --cluster-slots "$SLOTS" --cluster-yes > "$dir/reshard.log" 2>&1 \
    || { tail -20 "$dir/reshard.log" >&2; exit 1; }
  end=$(date +%s.%N)
  cpu=$(seconds_of $(($(cpu_ticks) - cpu0))) jit=$(seconds_of $(($(cpu_ticks jit) - jit0)))
  sleep 1
  touch "$dir/stop"
  wait "$writer" || { cat "$dir/writer.log" >&2; exit 1; }
  local check=clean
  redis-cli --cluster check "127.0.0.1:$from" > "$dir/check.log" 2>&1 || check=failed
  if grep -qE '\[(ERR|WARNING)\]' "$dir/check.log" \
      || ! grep -q 'All 16384 slots covered' "$dir/check.log"; then
    check=failed
  fi
  local verified
  verified=$(python3 "$LOAD" verify "${ports[0]}" "$FILTERS" "$dir/writes.json" \
    "$dir/before.json") || true
  local seconds moved lost wrong
  seconds=$(python3 -c "print(f'{$end - $start:.2f}')")
  moved=$(printf '%s\n' "$verified" | grep -oE 'keys_moved=[0-9]+' | cut -d= -f2)
  lost=$(printf '%s\n' "$verified" | grep -oE ' lost=[0-9]+' | cut -d= -f2)
  wrong=$(printf '%s\n' "$verified" | grep -oE 'wrong_counts=[0-9]+' | cut -d= -f2)
  echo "round=$round kind=$kind reshard_seconds=$seconds nodes_cpu_seconds=$cpu jit_cpu_seconds=$jit" \
    "check=$check $(tail -1 "$dir/writer.log") $verified"
  if [ "$check" != clean ] || [ -z "$lost" ]; then
    cat "$dir/check.log" >&2
    exit 1
  fi
  echo "$kind $seconds $moved $lost $wrong $cpu $jit" >> "$RESULTS"
  if [ "${STATS:-0}" = 1 ]; then
    for port in "$from" "$to"; do
      { redis-cli -p "$port" INFO commandstats || true; } | tr -d '\r' \
        | grep -E 'cmdstat_(cluster\|setslot|cluster\|getkeysinslot|migrate|restore-asking|cf\.add|wait):' \
        | sed "s/^/  $kind $([ "$port" = "$from" ] && echo source || echo target) /" || true
    done
  fi
  stop_nodes
  rm -rf "$dir"
}

for round in $(seq "$ROUNDS"); do
  order=$KINDS
  if [ $((round % 2)) = 0 ]; then order=$(printf '%s\n' $KINDS | tac | xargs); fi
  for kind in $order; do run "$kind" "$round"; done
done

python3 - "$RESULTS" "$SLOTS" "$FILTERS" "${WARMUP:-0}" "${WARMUP_WITH:-target}" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    kind, seconds, moved, lost, wrong, cpu, jit = line.split()
    runs.setdefault(kind, []).append(
        (float(seconds), int(moved), int(lost), int(wrong), float(cpu), float(jit)))
print()
print(f"reshard of {sys.argv[2]} slots, {sys.argv[3]} filters, {len(next(iter(runs.values())))} rounds,"
      f" {sys.argv[4]} warm-up round trips"
      + (" (with the third master: the measured target had never imported a slot)"
         if sys.argv[5] == "third" and sys.argv[4] != "0" else ""))
print("| nodes | reshard seconds per round | median | nodes' CPU s (median) | of it JIT |"
      " keys moved | lost | counts off |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
names = {"cuckoo": "cuckoo-server", "redis": "Redis 8 + RedisBloom"}
medians = {}
for kind, rows in runs.items():
    medians[kind] = statistics.median(r[0] for r in rows)
    jit = f"{statistics.median(r[5] for r in rows):.2f}" if kind == "cuckoo" else "-"
    print(f"| {names[kind]} | {' '.join(f'{r[0]:.2f}' for r in rows)} | {medians[kind]:.2f} "
          f"| {statistics.median(r[4] for r in rows):.2f} | {jit} "
          f"| {'/'.join(sorted({str(r[1]) for r in rows}))} | {sum(r[2] for r in rows)} "
          f"| {sum(r[3] for r in rows)} |")
if "cuckoo" in medians and "redis" in medians:
    print(f"\nratio of the medians cuckoo / Redis: {medians['cuckoo'] / medians['redis']:.2f}")
PY
