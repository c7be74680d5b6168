#!/usr/bin/env bash
# Throughput of cuckoo-server's CF.ADD / CF.EXISTS next to a stock redis-server's SET / GET,
# measured with redis-benchmark in the same run on the same machine (loopback only). The servers
# run side by side (idle ones cost nothing) and the benchmarks are interleaved over several
# rounds, so load from other processes hits all of them alike; the table shows medians.
#
# Besides requests per second, each run measures the server's CPU time per request: utime+stime
# of the server process (all its threads: network, log, GC, JIT) from /proc/<pid>/stat before and
# after the run, divided by the run's requests. That figure does not depend on how fast the
# client is, so it compares the servers' efficiency even where the single-threaded client is the
# bottleneck (pipeline 16 on a small machine). /proc counts in clock ticks (10 ms at USER_HZ=100),
# so runs should take a few hundred ms of server CPU at least.
#
# BASELINE_JAR=path adds the same rows for another build of cuckoo-server (with the log,
# everysec), for A/B comparisons in the same run. NOLOG=0 leaves out the server without the log.
# NOSAVE=1 gives this build's servers --save "" (not the baseline, which may not know it): builds
# since save points came take snapshots on Redis's default points, which a baseline did not.
# Needs: redis-server and redis-benchmark (Debian: apt-get install redis-server redis-tools),
# python3, and the shaded jar: mvn -pl cuckoo-server -am package -DskipTests
# Usage: [BASELINE_JAR=old.jar] [NOLOG=0] cuckoo-server/bench/redis-benchmark.sh \
#          [requests-per-run] [rounds] > table.md
set -euo pipefail
cd "$(dirname "$0")/../.."
. cuckoo-server/bench/lib.sh
N=${1:-1000000}
ROUNDS=${2:-3}
CLIENTS=50
JAR=cuckoo-server/target/cuckoo-server.jar
WORK=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$WORK"' EXIT

declare -A PORT PID
start_cuckoo() { # name jar appendonly
  local extra=()
  if [ "${NOSAVE:-0}" = 1 ] && [ "$2" = "$JAR" ]; then
    extra=(--save "")
  fi
  PORT[$1]=$(free_port)
  java -Xmx3g -jar "$2" --port "${PORT[$1]}" --dir "$WORK/$1" --appendonly "$3" \
    --appendfsync everysec "${extra[@]}" > "$WORK/$1.log" 2>&1 &
  PID[$1]=$!
  PIDS+=($!)
}
PORT[redis]=$(free_port)
redis-server --port "${PORT[redis]}" --bind 127.0.0.1 --save "" --appendonly no \
  > "$WORK/redis.log" 2>&1 &
PID[redis]=$!
PIDS+=($!)
CUCKOOS=(log)
start_cuckoo log "$JAR" yes
if [ "${NOLOG:-1}" != 0 ]; then
  start_cuckoo nolog "$JAR" no
  CUCKOOS+=(nolog)
fi
if [ -n "${BASELINE_JAR:-}" ]; then
  start_cuckoo base "$BASELINE_JAR" yes
  CUCKOOS+=(base)
fi
for name in redis "${CUCKOOS[@]}"; do wait_ready "${PORT[$name]}" "${PID[$name]}" "$WORK/$name.log"; done
for name in "${CUCKOOS[@]}"; do
  redis-cli -p "${PORT[$name]}" CF.RESERVE cf 100000000 > /dev/null
  redis-cli -p "${PORT[$name]}" CF.RESERVE warm 10000000 > /dev/null
done

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime, all threads
declare -A R C
run() { # key server pipeline command... -> appends req/s to R[key], server CPU us/request to C[key]
  local key=$1 name=$2 pipeline=$3 before after rps
  shift 3
  before=$(cpu_ticks "${PID[$name]}")
  rps=$(redis-benchmark -p "${PORT[$name]}" -c "$CLIENTS" -n "$N" -P "$pipeline" -r 1000000 --csv "$@" \
    | tail -1 | cut -d, -f2 | tr -d '"')
  after=$(cpu_ticks "${PID[$name]}")
  R[$key]+=" $rps"
  C[$key]+=" $(python3 -c "print(round(($after - $before) * 1e6 / $(getconf CLK_TCK) / $N, 3))")"
}
# JIT warm-up of the cuckoo servers
for name in "${CUCKOOS[@]}"; do
  for p in 1 16; do
    run warmup "$name" $p CF.ADD warm __rand_int__
    run warmup "$name" $p CF.EXISTS warm __rand_int__
  done
done

for round in $(seq "$ROUNDS"); do
  for p in 1 16; do
    run "set_$p" redis $p SET key:__rand_int__ v
    for name in "${CUCKOOS[@]}"; do run "add_${name}_$p" "$name" $p CF.ADD cf __rand_int__; done
    run "get_$p" redis $p GET key:__rand_int__
    for name in "${CUCKOOS[@]}"; do run "exists_${name}_$p" "$name" $p CF.EXISTS cf __rand_int__; done
  done
done

median() { python3 -c "import statistics,sys; print(statistics.median(map(float, sys.argv[1:])))" $1; }
fmt() { python3 -c "print(f'{float(\"$1\"):.${2}f}')"; }
# "n/a" when the reference is 0 (a run too short for the CPU clock's 10 ms ticks)
ratio() { python3 -c "print(f'{$1 / $2:.2f}' if $2 else 'n/a')"; }
row() { # label key reference-key
  local r1 r16 c1 c16
  r1=$(median "${R[${2}_1]}") r16=$(median "${R[${2}_16]}")
  c1=$(median "${C[${2}_1]}") c16=$(median "${C[${2}_16]}")
  echo "| $1 | $(fmt "$r1" 0) | $(ratio "$r1" "$(median "${R[${3}_1]}")") |" \
    "$(fmt "$r16" 0) | $(ratio "$r16" "$(median "${R[${3}_16]}")") |" \
    "$(fmt "$c1" 2) | $(fmt "$c16" 2) | $(ratio "$c16" "$(median "${C[${3}_16]}")") |"
}
label() {
  case $1 in
    log) echo "cuckoo-server, appendonly yes, everysec" ;;
    nolog) echo "cuckoo-server, appendonly no" ;;
    base) echo "baseline $(basename "$BASELINE_JAR"), appendonly yes, everysec" ;;
  esac
}
echo "| command (server) | P1 req/s | P1 ratio | P16 req/s | P16 ratio | CPU µs/req P1 | CPU µs/req P16 | P16 CPU ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
row "SET (redis-server, no persistence)" set set
for name in "${CUCKOOS[@]}"; do row "CF.ADD ($(label "$name")) vs SET" "add_$name" set; done
row "GET (redis-server, no persistence)" get get
for name in "${CUCKOOS[@]}"; do row "CF.EXISTS ($(label "$name")) vs GET" "exists_$name" get; done
echo
echo "Each cell: median of $ROUNDS interleaved runs of $N requests, $CLIENTS clients, keys/items"
echo "drawn from 10^6 random values (-r 1000000). Ratios: ours / Redis's (throughput: higher is"
echo "better; CPU: lower is better). CPU: the server process's utime+stime over the run / requests."
echo "Raw req/s: $(for k in "${!R[@]}"; do [ "$k" = warmup ] || printf '%s=[%s] ' "$k" "${R[$k]# }"; done)"
echo
echo "Raw CPU µs/req: $(for k in "${!C[@]}"; do [ "$k" = warmup ] || printf '%s=[%s] ' "$k" "${C[$k]# }"; done)"
