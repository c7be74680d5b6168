#!/usr/bin/env bash
# Many small filters: the memory and the load time of N keys, each made by `CF.RESERVE user:I 100`
# and given 5 `CF.ADD`s, sent in one `redis-cli --pipe` stream. Prints one Markdown row per run:
# the load time; the CPU time the server process used during the load (user + system of all its
# threads and of the children it forked and collected: less disturbed than the load time by other
# work on a shared host), and that CPU time until the snapshots the load started had ended
# (redis-server rewrites its append-only file in a forked child, this server writes snapshots on a
# thread: both columns count that work alike); RSS (VmRSS) right after the load and after QUIET
# seconds without requests (nothing forces a collection before: what the JVM's own settings give
# back), then the live heap after a full GC (`jcmd PID GC.run`, then GC.heap_info's "used"), INFO
# used_memory and MEMORY USAGE of one key.
#
# MODE picks how the server is started:
#   jar    java -jar cuckoo-server/target/cuckoo-server.jar, as cuckoo-server/README.md shows
#          (JAR=path runs another build, e.g. one from before a change)
#   serve  ./cuckoo serve, the repository's launcher (cuckoo-cli/target/cuckoo.jar); CUCKOO=path
#          runs another copy of the launcher (with its own cuckoo-cli/target/cuckoo.jar)
#   redis  redis-server (appendonly yes, appendfsync everysec, no RDB saves) as a same-run peer:
#          the same key count and request count with plain strings, `SET user:I <128 bytes>` (the
#          size of such a filter's slots) and 5 `SETRANGE user:I OFFSET item:I:J` writing into it;
#          its live heap column is empty
# CLUSTER=yes starts the server (either kind) as a cluster node serving all 16384 slots alone
# (cluster-enabled yes, CLUSTER ADDSLOTSRANGE 0 16383): the keys then are also in the slot index,
# so the live heap against a run without CLUSTER gives the index's cost per key.
# JAVA_OPTS adds JVM options for both (jar: before -jar; serve: through CUCKOO_JAVA_OPTS), and
# SERVER_OPTS adds server options, e.g. SERVER_OPTS="--maxmemory 2gb". HISTO=N prints the N
# largest classes of the heap histogram after the load (GC.class_histogram) to standard error.
# The server runs with its defaults otherwise (appendonly yes, appendfsync everysec) in a fresh
# temporary directory, on a free loopback port.
# Needs: java 17, python3, redis-cli, and the jars:
#   mvn -B -ntp -pl cuckoo-cli,cuckoo-server -am package -DskipTests
# Usage: [MODE=jar|serve|redis] [CLUSTER=yes] [QUIET=60] [ROUNDS=1] [STREAM_DIR=dir]
#   cuckoo-server/bench/small-keys-bench.sh [keys]
set -euo pipefail
cd "$(dirname "$0")/../.."
. cuckoo-server/bench/lib.sh
KEYS=${1:-1000000}
MODE=${MODE:-jar}
QUIET=${QUIET:-60}
ROUNDS=${ROUNDS:-1}
WORK=$(mktemp -d)
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# the request stream, built once: RESP arrays, as redis-cli --pipe wants them; with STREAM_DIR it
# is kept there and reused by later runs of the same key count and kind (building it takes minutes)
stream_kind=cf
[ "$MODE" != redis ] || stream_kind=redis
STREAM=$WORK/load.resp
if [ -n "${STREAM_DIR:-}" ]; then
  mkdir -p "$STREAM_DIR"
  STREAM=$STREAM_DIR/small-keys-$KEYS-$stream_kind.resp
fi
if [ ! -s "$STREAM" ]; then
python3 - "$KEYS" "$MODE" > "$STREAM.part" <<'EOF'
import sys
out = sys.stdout.buffer
redis = sys.argv[2] == "redis"
def cmd(*args):
    parts = [b"*%d\r\n" % len(args)]
    for a in args:
        parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(parts)
for i in range(int(sys.argv[1])):
    key = b"user:%d" % i
    if redis:
        chunk = [cmd(b"SET", key, b"." * 128)]
        for j in range(5):
            chunk.append(cmd(b"SETRANGE", key, b"%d" % (j * 24), b"item:%d:%d" % (i, j)))
    else:
        chunk = [cmd(b"CF.RESERVE", key, b"100")]
        for j in range(5):
            chunk.append(cmd(b"CF.ADD", key, b"item:%d:%d" % (i, j)))
    out.write(b"".join(chunk))
EOF
mv "$STREAM.part" "$STREAM"
fi

cpu_seconds() { # user + system time of a process, all its threads and its ended children, in s
  # (redis-server rewrites its append-only file in a forked child, whose time it collects when the
  # child ends; this server writes its snapshots on a thread of its own process)
  awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15 + $16 + $17) / hz}' "/proc/$1/stat"
}
kib() { awk -v f="$2" '$1 == f":" {print $2}' "/proc/$1/status"; }
mb() { python3 -c "print(round($1 / 1e6, 1))"; }
heap_used_bytes() { # live heap after a full collection, in bytes
  jcmd "$1" GC.run > /dev/null
  jcmd "$1" GC.heap_info | python3 -c '
import re, sys
text = sys.stdin.read()
unit = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
# G1: one "garbage-first heap" line; Serial and Parallel: one line per generation (their spaces
# and Metaspace are indented further); Shenandoah: "..., 340M used"
gens = re.findall(r"^ (?:garbage-first heap|\S.*?(?:generation|Gen)) +total \d+K, used (\d+)([KMG])",
                  text, re.M)
if not gens:
    gens = re.findall(r"committed, (\d+)([KMG]) used", text)
print(sum(int(n) * unit[u] for n, u in gens))'
}

start_server() {
  local port=$1 dir=$2 cluster=()
  mkdir -p "$dir"
  if [ "${CLUSTER:-}" = yes ]; then
    cluster=(--cluster-enabled yes --cluster-port "$(free_port)")
  fi
  case $MODE in
    jar)
      # shellcheck disable=SC2086 # JAVA_OPTS and SERVER_OPTS are lists of options
      java ${JAVA_OPTS:-} -jar "${JAR:-cuckoo-server/target/cuckoo-server.jar}" --port "$port" \
        --dir "$dir" "${cluster[@]}" ${SERVER_OPTS:-} > "$dir.log" 2>&1 &
      ;;
    serve)
      # shellcheck disable=SC2086
      CUCKOO_JAVA_OPTS="${JAVA_OPTS:-}" "${CUCKOO:-./cuckoo}" serve --port "$port" --dir "$dir" \
        "${cluster[@]}" ${SERVER_OPTS:-} > "$dir.log" 2>&1 &
      ;;
    redis)
      redis-server --port "$port" --dir "$dir" --appendonly yes --appendfsync everysec --save '' \
        "${cluster[@]}" > "$dir.log" 2>&1 &
      ;;
    *) echo "MODE must be jar, serve or redis, not $MODE" >&2; exit 2 ;;
  esac
  SERVER_PID=$!
  wait_ready "$port" "$SERVER_PID" "$dir.log"
  if [ ${#cluster[@]} -gt 0 ]; then
    redis-cli -p "$port" CLUSTER ADDSLOTSRANGE 0 16383 > /dev/null
    for _ in $(seq 300); do
      redis-cli -p "$port" CLUSTER INFO | grep -q cluster_state:ok && return
      sleep 0.1
    done
    echo "the cluster node on port $port did not reach cluster_state:ok" >&2
    exit 1
  fi
}

echo "| keys | start | load time (s) | server CPU during the load (s) | with the snapshots the load started (s) | live heap after full GC (MB) | RSS after load (MB) |" \
  "RSS after ${QUIET} s quiet (MB) | INFO used_memory (MB) | MEMORY USAGE user:1 (bytes) |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for round in $(seq "$ROUNDS"); do
  port=$(free_port)
  start_server "$port" "$WORK/data$round"
  cpu_before=$(cpu_seconds "$SERVER_PID")
  began=$(date +%s.%N)
  redis-cli -p "$port" --pipe < "$STREAM" > "$WORK/pipe.out"
  ended=$(date +%s.%N)
  cpu_after=$(cpu_seconds "$SERVER_PID")
  grep -q "errors: 0" "$WORK/pipe.out" || { cat "$WORK/pipe.out" >&2; exit 1; }
  rss_loaded=$(kib "$SERVER_PID" VmRSS)
  # a snapshot the load started allocates while it runs: measure the heap after it
  for _ in $(seq 600); do
    redis-cli -p "$port" info persistence | grep -q "^aof_rewrite_in_progress:0" && break
    sleep 0.1
  done
  if [ "$MODE" = redis ]; then
    for _ in $(seq 600); do
      redis-cli -p "$port" info persistence | grep -q "^aof_rewrite_in_progress:0" && break
      sleep 0.1
    done
  fi
  cpu_settled=$(cpu_seconds "$SERVER_PID")
  if [ -n "${HISTO:-}" ] && [ "$MODE" != redis ]; then
    jcmd "$SERVER_PID" GC.class_histogram | head -n $((HISTO + 3)) >&2
  fi
  # the quiet minute first: a forced collection would shrink the heap itself
  sleep "$QUIET"
  rss_quiet=$(kib "$SERVER_PID" VmRSS)
  heap=
  [ "$MODE" = redis ] || heap=$(heap_used_bytes "$SERVER_PID")
  used=$(redis-cli -p "$port" info memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r')
  usage=$(redis-cli -p "$port" memory usage user:1)
  echo "| $KEYS | $MODE | $(python3 -c "print(round($ended - $began, 1))") |" \
    "$(python3 -c "print(round($cpu_after - $cpu_before, 1))") |" \
    "$(python3 -c "print(round($cpu_settled - $cpu_before, 1))") | ${heap:+$(mb "$heap")} |" \
    "$(mb "$rss_loaded * 1024") | $(mb "$rss_quiet * 1024") | $(mb "$used") | $usage |"
  kill "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
done
