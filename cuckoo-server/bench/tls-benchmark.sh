#!/usr/bin/env bash
# TLS against plaintext, and this server's TLS against Redis's, with the same client
# (redis-benchmark, 50 connections, pipeline 16) in the same run:
#   - one cuckoo-server listening on a plaintext port and a TLS port at once (appendonly no,
#     save ""), CF.ADD and CF.EXISTS over each; between runs CONFIG SET tls-provider switches the
#     TLS engine (OpenSSL through BoringSSL, or the JDK's) for the connections to come, so both
#     engines are measured on the same process;
#   - Debian's redis-server (7.0 here) with TLS only (port 0, tls-port), SET and GET.
# The rounds are interleaved so that load from other processes hits every row alike; each cell is
# the median of ROUNDS runs. CPU µs/request: the server process's utime+stime (all threads) over
# the run / requests. With PIN=1 (default, if taskset exists and there are 2+ cores) the servers
# run on core 0 and the client on core 1, as in pinned-throughput.sh. Certificates are made by
# openssl in a temporary directory (RSA 2048, as Redis's gen-test-certs.sh); clients present one.
# Needs: redis-server, redis-benchmark (redis-tools, built with TLS), openssl, python3, the jar:
#   mvn -B -ntp -pl cuckoo-server -am package -DskipTests
# Usage: [PIN=0] [JAVA_OPTS=...] cuckoo-server/bench/tls-benchmark.sh [requests-per-run] [rounds]
set -euo pipefail
cd "$(dirname "$0")/../.."
. cuckoo-server/bench/lib.sh
N=${1:-500000}
ROUNDS=${2:-3}
CLIENTS=50
PIPELINE=16
# values drawn from RANGE: large enough that a run adds each item about once, as a filter in use
# does (a cuckoo filter holds at most 2 x bucket size copies of one item; with 10^6 values every
# value would be added ~40 times over the script, the filter would overflow into dozens of
# sub-filters, and CF.ADD would measure that overflow, not an insert)
RANGE=${RANGE:-100000000}
JAR=${JAR:-cuckoo-server/target/cuckoo-server.jar}
WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -9 "$p" 2> /dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
SERVER_CPU=() CLIENT_CPU=()
if [ "${PIN:-1}" = 1 ] && command -v taskset > /dev/null && [ "$(nproc)" -ge 2 ]; then
  SERVER_CPU=(taskset -c 0) CLIENT_CPU=(taskset -c 1)
fi

# certificates: a CA, a server certificate for 127.0.0.1, a client certificate
C=$WORK/certs
mkdir -p "$C"
openssl req -x509 -new -nodes -newkey rsa:2048 -sha256 -days 2 -subj "/CN=bench CA" \
  -keyout "$C/ca.key" -out "$C/ca.crt" 2> /dev/null
for name in server client; do
  openssl req -new -nodes -newkey rsa:2048 -subj "/CN=$name" -keyout "$C/$name.key" \
    -out "$C/$name.csr" 2> /dev/null
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > "$C/$name.ext"
  openssl x509 -req -sha256 -days 2 -in "$C/$name.csr" -CA "$C/ca.crt" -CAkey "$C/ca.key" \
    -CAcreateserial -extfile "$C/$name.ext" -out "$C/$name.crt" 2> /dev/null
done
TLS_SERVER=(--tls-cert-file "$C/server.crt" --tls-key-file "$C/server.key"
  --tls-ca-cert-file "$C/ca.crt")
TLS_CLIENT=(--tls --cacert "$C/ca.crt" --cert "$C/client.crt" --key "$C/client.key")

CP=$(free_port); CT=$(free_port); RT=$(free_port)
# shellcheck disable=SC2086 # JAVA_OPTS is a list of options
"${SERVER_CPU[@]}" java ${JAVA_OPTS:-} -jar "$JAR" --port "$CP" --tls-port "$CT" "${TLS_SERVER[@]}" \
  --dir "$WORK/cuckoo" --appendonly no --save "" > "$WORK/cuckoo.log" 2>&1 &
PIDS+=($!); CPID=$!
"${SERVER_CPU[@]}" redis-server --port 0 --tls-port "$RT" "${TLS_SERVER[@]}" --dir "$WORK" \
  --save '' --appendonly no > "$WORK/redis.log" 2>&1 &
PIDS+=($!); RPID=$!
wait_ready "$CP" "$CPID" "$WORK/cuckoo.log"
for _ in $(seq 100); do
  redis-cli -p "$RT" "${TLS_CLIENT[@]}" PING 2> /dev/null | grep -q PONG && break
  sleep 0.1
done
redis-cli -p "$CP" CF.RESERVE cf 100000000 > /dev/null
redis-cli -p "$CP" CF.RESERVE warm 100000000 > /dev/null
grep -q 'TLS with the OPENSSL engine' "$WORK/cuckoo.log" || {
  echo "cuckoo-server did not start with OpenSSL:" >&2
  cat "$WORK/cuckoo.log" >&2
  exit 1
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime, all threads
declare -A R U
run() { # key pid port tls? command... -> appends req/s to R[key], server CPU µs/request to U[key]
  local key=$1 pid=$2 port=$3 tls=$4 before after rps options=()
  shift 4
  if [ "$tls" = tls ]; then options=("${TLS_CLIENT[@]}"); fi
  before=$(cpu_ticks "$pid")
  rps=$("${CLIENT_CPU[@]}" redis-benchmark -p "$port" "${options[@]}" -c "$CLIENTS" -n "$N" \
    -P "$PIPELINE" -r "$RANGE" --csv "$@" | tail -1 | cut -d, -f2 | tr -d '"')
  after=$(cpu_ticks "$pid")
  R[$key]+=" $rps"
  U[$key]+=" $(python3 -c "print(round(($after - $before) * 1e6 / $(getconf CLK_TCK) / $N, 3))")"
}
engine() { redis-cli -p "$CP" CONFIG SET tls-provider "$1" > /dev/null; }

# JIT warm-up
for engine_name in openssl jdk; do
  engine "$engine_name"
  run warmup "$CPID" "$CT" tls CF.ADD warm __rand_int__
  run warmup "$CPID" "$CT" tls CF.EXISTS warm __rand_int__
done
run warmup "$CPID" "$CP" plain CF.ADD warm __rand_int__
run warmup "$CPID" "$CP" plain CF.EXISTS warm __rand_int__

for _ in $(seq "$ROUNDS"); do
  for command in ADD EXISTS; do
    run "plain_$command" "$CPID" "$CP" plain "CF.$command" cf __rand_int__
    engine openssl
    run "openssl_$command" "$CPID" "$CT" tls "CF.$command" cf __rand_int__
    engine jdk
    run "jdk_$command" "$CPID" "$CT" tls "CF.$command" cf __rand_int__
  done
  run redis_SET "$RPID" "$RT" tls SET key:__rand_int__ v
  engine openssl
  run openssl_SET_PEER "$CPID" "$CT" tls CF.ADD cf __rand_int__
  run redis_GET "$RPID" "$RT" tls GET key:__rand_int__
  run openssl_GET_PEER "$CPID" "$CT" tls CF.EXISTS cf __rand_int__
done

median() { python3 -c "import statistics,sys; print(statistics.median(map(float, sys.argv[1:])))" $1; }
fmt() { python3 -c "print(f'{float(\"$1\"):.${2}f}')"; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}' if $2 else 'n/a')"; }
row() { # label key reference-key
  local r u
  r=$(median "${R[$2]}") u=$(median "${U[$2]}")
  echo "| $1 | $(fmt "$r" 0) | $(ratio "$r" "$(median "${R[$3]}")") | $(fmt "$u" 2) |" \
    "$(ratio "$u" "$(median "${U[$3]}")") |"
}
echo "| command (server, connection) | req/s | throughput ratio | CPU µs/req | CPU ratio |"
echo "|---|---:|---:|---:|---:|"
row "CF.ADD (cuckoo-server, plaintext)" plain_ADD plain_ADD
row "CF.ADD (cuckoo-server, TLS, OpenSSL) vs plaintext" openssl_ADD plain_ADD
row "CF.ADD (cuckoo-server, TLS, JDK) vs plaintext" jdk_ADD plain_ADD
row "CF.EXISTS (cuckoo-server, plaintext)" plain_EXISTS plain_EXISTS
row "CF.EXISTS (cuckoo-server, TLS, OpenSSL) vs plaintext" openssl_EXISTS plain_EXISTS
row "CF.EXISTS (cuckoo-server, TLS, JDK) vs plaintext" jdk_EXISTS plain_EXISTS
row "SET (redis-server $(redis-server --version | grep -o 'v=[0-9.]*' | cut -c3-), TLS)" redis_SET redis_SET
row "CF.ADD (cuckoo-server, TLS, OpenSSL) vs Redis SET over TLS" openssl_SET_PEER redis_SET
row "GET (redis-server, TLS)" redis_GET redis_GET
row "CF.EXISTS (cuckoo-server, TLS, OpenSSL) vs Redis GET over TLS" openssl_GET_PEER redis_GET
echo
echo "Each cell: median of $ROUNDS interleaved runs of $N requests, $CLIENTS clients, pipeline"
echo "$PIPELINE, values drawn from $RANGE (-r $RANGE); ${SERVER_CPU[*]:-no pinning} for the servers,"
echo "${CLIENT_CPU[*]:-no pinning} for redis-benchmark. Ratios: row / reference (throughput: higher"
echo "is better; CPU: lower is better)."
echo "Raw req/s: $(for k in "${!R[@]}"; do [ "$k" = warmup ] || printf '%s=[%s] ' "$k" "${R[$k]# }"; done)"
echo
echo "Raw CPU µs/req: $(for k in "${!U[@]}"; do [ "$k" = warmup ] || printf '%s=[%s] ' "$k" "${U[$k]# }"; done)"
