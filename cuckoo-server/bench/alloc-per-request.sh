#!/usr/bin/env bash
# Heap bytes allocated per request by the server, for the two commands of the many-small-filters
# load (small-keys-bench.sh): CF.RESERVE of a new key and CF.ADD to a small key, and CF.EXISTS of
# the items added (a read). The exact figure
# comes from the JVM's per-thread allocation counters (AllocationPerRequest.java); with JFR=1 the
# server also runs under Flight Recorder and the largest allocation sites are printed (JFR's
# jdk.ObjectAllocationSample events, weighted by the bytes each sample stands for, grouped by the
# first frames of their stack), TOP of them (default 15).
# The server runs with its defaults (appendonly yes, appendfsync everysec) in a temporary
# directory. JAR=path measures another build; JAVA_OPTS adds JVM options.
# Needs: java 17, python3 (JFR=1), and the jar: mvn -B -ntp -pl cuckoo-server -am package -DskipTests
# Usage: [JAR=...] [JFR=1] cuckoo-server/bench/alloc-per-request.sh [keys]
set -euo pipefail
cd "$(dirname "$0")/../.."
. cuckoo-server/bench/lib.sh
KEYS=${1:-100000}
WORK=$(mktemp -d)
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
port=$(free_port)
jfr_opts=
if [ -n "${JFR:-}" ]; then
  # allocation samples at a higher rate than the profile's 300/s, with deeper stacks
  jfr_opts="-XX:FlightRecorderOptions:stackdepth=96 -XX:StartFlightRecording:settings=profile,jdk.ObjectAllocationSample#throttle=2000/s,filename=$WORK/rec.jfr"
fi
# shellcheck disable=SC2086 # option lists
java ${JAVA_OPTS:-} $jfr_opts -jar "${JAR:-cuckoo-server/target/cuckoo-server.jar}" --port "$port" \
  --dir "$WORK/data" > "$WORK/server.log" 2>&1 &
SERVER_PID=$!
wait_ready "$port" "$SERVER_PID" "$WORK/server.log"
echo "| command | requests | network threads: bytes | bytes/request | all threads: bytes | bytes/request |"
echo "|---|---:|---:|---:|---:|---:|"
java cuckoo-server/bench/AllocationPerRequest.java "$SERVER_PID" "$port" "$KEYS" |
  awk '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }'
if [ -n "${JFR:-}" ]; then
  jcmd "$SERVER_PID" JFR.dump filename="$WORK/rec.jfr" > /dev/null
  [ -z "${KEEP:-}" ] || cp "$WORK/rec.jfr" "$KEEP"
  jfr print --json --events jdk.ObjectAllocationSample "$WORK/rec.jfr" > "$WORK/samples.json"
  python3 - "$WORK/samples.json" "${TOP:-15}" <<'PY'
import json, sys, collections
events = json.load(open(sys.argv[1]))["recording"]["events"]
sites = collections.Counter()
total = 0
for e in events:
    v = e["values"]
    frames = v["stackTrace"]["frames"] if v.get("stackTrace") else []
    # the first frame of our code (or of Netty's) says who allocated; the type says what
    names = [f["method"]["type"]["name"] + "." + f["method"]["name"] + ":" + str(f["lineNumber"]) for f in frames]
    ours = [n for n in names if n.startswith(("dev.cuckoo", "io.netty"))][:3]
    site = v["objectClass"]["name"] + " <- " + " <- ".join(ours or names[:2])
    sites[site] += v["weight"]
    total += v["weight"]
print()
print("| share | sampled bytes | type <- first frames of cuckoo/netty code |")
print("|---:|---:|---|")
for site, weight in sites.most_common(int(sys.argv[2])):
    print("| %.1f%% | %d | `%s` |" % (100.0 * weight / total, weight, site))
PY
fi
