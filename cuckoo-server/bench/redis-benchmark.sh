#!/usr/bin/env bash
# Throughput of cuckoo-server's CF.ADD / CF.EXISTS next to a stock redis-server's SET / GET,
# measured with redis-benchmark in the same run on the same machine (loopback only). The three
# servers run side by side (idle ones cost nothing) and the benchmarks are interleaved over
# several rounds, so load from other processes hits all of them alike; the table shows medians.
# Needs: redis-server and redis-benchmark (Debian: apt-get install redis-server redis-tools),
# python3, and the shaded jar: mvn -pl cuckoo-server -am package -DskipTests
# Usage: cuckoo-server/bench/redis-benchmark.sh [requests-per-run] [rounds] > table.md
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-1000000}
ROUNDS=${2:-3}
CLIENTS=50
JAR=cuckoo-server/target/cuckoo-server.jar
WORK=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$WORK"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
await_ping() { for _ in $(seq 200); do redis-cli -p "$1" ping > /dev/null 2>&1 && return; sleep 0.1; done; echo "server on $1 did not start" >&2; exit 1; }

REDIS=$(free_port)
redis-server --port "$REDIS" --bind 127.0.0.1 --save "" --appendonly no > "$WORK/redis.log" 2>&1 &
PIDS+=($!)
NOLOG=$(free_port)
java -Xmx3g -jar "$JAR" --port "$NOLOG" --dir "$WORK/a" --appendonly no > "$WORK/a.log" 2>&1 &
PIDS+=($!)
LOG=$(free_port)
java -Xmx3g -jar "$JAR" --port "$LOG" --dir "$WORK/b" --appendonly yes --appendfsync everysec \
  > "$WORK/b.log" 2>&1 &
PIDS+=($!)
for port in "$REDIS" "$NOLOG" "$LOG"; do await_ping "$port"; done
for port in "$NOLOG" "$LOG"; do
  redis-cli -p "$port" CF.RESERVE cf 100000000 > /dev/null
  redis-cli -p "$port" CF.RESERVE warm 10000000 > /dev/null
done

rps() { # port pipeline command... -> requests per second
  local port=$1 pipeline=$2; shift 2
  redis-benchmark -p "$port" -c "$CLIENTS" -n "$N" -P "$pipeline" -r 1000000 --csv "$@" \
    | tail -1 | cut -d, -f2 | tr -d '"'
}
# JIT warm-up of both cuckoo servers
for port in "$NOLOG" "$LOG"; do
  rps "$port" 16 CF.ADD warm __rand_int__ > /dev/null
  rps "$port" 16 CF.EXISTS warm __rand_int__ > /dev/null
done

declare -A R
for round in $(seq "$ROUNDS"); do
  for p in 1 16; do
    R[set_$p]+=" $(rps "$REDIS" $p SET key:__rand_int__ v)"
    R[add_no_$p]+=" $(rps "$NOLOG" $p CF.ADD cf __rand_int__)"
    R[add_log_$p]+=" $(rps "$LOG" $p CF.ADD cf __rand_int__)"
    R[get_$p]+=" $(rps "$REDIS" $p GET key:__rand_int__)"
    R[exists_no_$p]+=" $(rps "$NOLOG" $p CF.EXISTS cf __rand_int__)"
    R[exists_log_$p]+=" $(rps "$LOG" $p CF.EXISTS cf __rand_int__)"
  done
done

median() { python3 -c "import statistics,sys; print(round(statistics.median(map(float, sys.argv[1:]))))" $1; }
ratio() { python3 -c "import statistics,sys; a=statistics.median(map(float,'$1'.split())); b=statistics.median(map(float,'$2'.split())); print(f'{a/b:.2f}')"; }
row() { # label key reference-key
  echo "| $1 | $(median "${R[${2}_1]}") | $(median "${R[${2}_16]}") | $(ratio "${R[${2}_16]}" "${R[${3}_16]}") |"
}
echo "| command (server) | pipeline 1 (req/s) | pipeline 16 (req/s) | P=16 ratio to Redis |"
echo "|---|---:|---:|---:|"
row "SET (redis-server, no persistence)" set set
row "GET (redis-server, no persistence)" get get
row "CF.ADD (cuckoo-server, appendonly no) vs SET" add_no set
row "CF.ADD (cuckoo-server, appendonly yes, everysec) vs SET" add_log set
row "CF.EXISTS (cuckoo-server, appendonly no) vs GET" exists_no get
row "CF.EXISTS (cuckoo-server, appendonly yes, everysec) vs GET" exists_log get
echo
echo "Each cell: median of $ROUNDS interleaved runs of $N requests, $CLIENTS clients, keys/items"
echo "drawn from 10^6 random values (-r 1000000); raw runs: $(for k in "${!R[@]}"; do printf '%s=[%s] ' "$k" "${R[$k]# }"; done)"
