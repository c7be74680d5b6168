#!/usr/bin/env bash
# Throughput of cuckoo-server's CF.ADD / CF.EXISTS next to a stock redis-server's SET / GET,
# measured with redis-benchmark in the same run on the same machine (loopback only).
# Needs: redis-server and redis-benchmark (Debian: apt-get install redis-server redis-tools),
# and the shaded jar: mvn -pl cuckoo-server -am package -DskipTests
# Usage: cuckoo-server/bench/redis-benchmark.sh [requests-per-test] > table.md
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-1000000}
CLIENTS=50
JAR=cuckoo-server/target/cuckoo-server.jar
WORK=$(mktemp -d)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

start_cuckoo() { # $1 = extra options
  CUCKOO_PORT=$(free_port)
  java -Xmx2g -XX:+UseParallelGC -jar "$JAR" --port "$CUCKOO_PORT" --dir "$WORK/data" $1 \
    > "$WORK/cuckoo.log" 2>&1 &
  CUCKOO_PID=$!
  for _ in $(seq 100); do redis-cli -p "$CUCKOO_PORT" ping > /dev/null 2>&1 && return; sleep 0.1; done
  echo "cuckoo-server did not start" >&2; cat "$WORK/cuckoo.log" >&2; exit 1
}
stop_cuckoo() { redis-cli -p "$CUCKOO_PORT" shutdown nosave > /dev/null 2>&1 || true; wait "$CUCKOO_PID" || true; rm -rf "$WORK/data"; }

REDIS_PORT=$(free_port)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize no \
  > "$WORK/redis.log" 2>&1 &
REDIS_PID=$!
trap 'kill "$REDIS_PID" 2>/dev/null || true; kill "${CUCKOO_PID:-0}" 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping > /dev/null 2>&1 && break; sleep 0.1; done

# prints requests per second of one redis-benchmark run
rps() { # $1 port, $2 pipeline, rest = command
  local port=$1 pipeline=$2; shift 2
  redis-benchmark -p "$port" -c "$CLIENTS" -n "$N" -P "$pipeline" -r 1000000 --csv "$@" \
    | tail -1 | cut -d, -f2 | tr -d '"'
}

declare -A R
for p in 1 16; do
  R[redis_set_$p]=$(rps "$REDIS_PORT" $p SET key:__rand_int__ v)
  R[redis_get_$p]=$(rps "$REDIS_PORT" $p GET key:__rand_int__)
done

for mode in "--appendonly no" "--appendonly yes --appendfsync everysec"; do
  start_cuckoo "$mode"
  redis-cli -p "$CUCKOO_PORT" CF.RESERVE cf 100000000 > /dev/null
  redis-cli -p "$CUCKOO_PORT" CF.RESERVE warm 10000000 > /dev/null
  # warm-up: let the JIT compile the hot paths
  rps "$CUCKOO_PORT" 16 CF.ADD warm __rand_int__ > /dev/null
  rps "$CUCKOO_PORT" 16 CF.EXISTS warm __rand_int__ > /dev/null
  key=${mode//[^a-z]/}
  for p in 1 16; do
    R[${key}_add_$p]=$(rps "$CUCKOO_PORT" $p CF.ADD cf __rand_int__)
    R[${key}_exists_$p]=$(rps "$CUCKOO_PORT" $p CF.EXISTS cf __rand_int__)
  done
  stop_cuckoo
done

ratio() { python3 -c "print(f'{float($1)/float($2):.2f}')"; }
echo "| command (server) | pipeline 1 (req/s) | pipeline 16 (req/s) | ratio to Redis at P=16 |"
echo "|---|---:|---:|---:|"
echo "| SET (redis-server) | ${R[redis_set_1]} | ${R[redis_set_16]} | 1.00 |"
echo "| GET (redis-server) | ${R[redis_get_1]} | ${R[redis_get_16]} | 1.00 |"
for key in appendonlyno appendonlyyesappendfsynceverysec; do
  label="cuckoo-server, ${key/appendonlyyesappendfsynceverysec/appendonly yes, fsync everysec}"
  label=${label/appendonlyno/appendonly no}
  echo "| CF.ADD ($label) | ${R[${key}_add_1]} | ${R[${key}_add_16]} | $(ratio "${R[${key}_add_16]}" "${R[redis_set_16]}") vs SET |"
  echo "| CF.EXISTS ($label) | ${R[${key}_exists_1]} | ${R[${key}_exists_16]} | $(ratio "${R[${key}_exists_16]}" "${R[redis_get_16]}") vs GET |"
done
