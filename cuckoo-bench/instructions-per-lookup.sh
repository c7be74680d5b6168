#!/usr/bin/env bash
# Instructions per single lookup, counted by valgrind (exact, not timed: the machine's load does
# not change the count). Runs LookupLoop twice per filter, with N and 3N lookups, under callgrind
# with -Xbatch (compilation in the foreground, so the main thread does the same work in both runs
# apart from the extra lookups) and divides the difference of the main thread's instruction counts
# by 2N. The count covers the benchmark's whole per-key work: the loop, the call through Subject,
# the hashing (XXH3 of the key for CUCKOO, fastfilter's own hash for FF_*) and the lookup.
#
#   cuckoo-bench/instructions-per-lookup.sh [SIZE] [RATE] [N] [KIND...]
#   defaults: 10000 0.001 2000000 CUCKOO FF_CUCKOO16 FF_XOR8 MEMORY_FLOOR
# Needs valgrind (apt-get install valgrind); each run takes about 20 s.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-10000}
rate=${2:-0.001}
n=${3:-2000000}
shift $(($# < 3 ? $# : 3))
kinds=("$@")
if [ ${#kinds[@]} -eq 0 ]; then
  kinds=(CUCKOO FF_CUCKOO16 FF_XOR8 MEMORY_FLOOR)
fi
jar=cuckoo-bench/target/benchmarks.jar
if [ ! -f "$jar" ]; then
  mvn -B -ntp -q package -pl cuckoo-core,cuckoo-bench -am -DskipTests
fi
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# main-thread instructions of one run: the thread that ran LookupLoop executed the most
main_thread_count() {
  local kind=$1 lookups=$2 dir="$work/$1-$2"
  mkdir -p "$dir"
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$dir/out" \
    --smc-check=all-non-file java -Xbatch -XX:+UseSerialGC -cp "$jar" \
    dev.cuckoo.bench.LookupLoop "$kind" "$size" "$rate" "$lookups" >"$dir/log" 2>&1
  # thread 1 is the launcher; the Java main thread is thread 2
  sed -n 's/^summary: //p' "$dir/out-02"
}

printf '%-16s %10s %8s %s\n' filter size rate instructions/lookup
for kind in "${kinds[@]}"; do
  a=$(main_thread_count "$kind" "$n")
  b=$(main_thread_count "$kind" $((3 * n)))
  awk -v k="$kind" -v s="$size" -v r="$rate" -v a="$a" -v b="$b" -v n="$n" \
    'BEGIN { printf "%-16s %10d %8s %.1f\n", k, s, r, (b - a) / (2 * n) }'
done
