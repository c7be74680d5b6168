#!/usr/bin/env bash
# Runs the benchmark suite and writes docs/benchmarks.md, docs/benchmarks.csv and the PNG charts.
#
#   cuckoo-bench/run-benchmarks.sh [--quick] [--forks N] [--large] [--huge] [--out DIR] [--report-only]
#
# --quick: one fork, short iterations, sizes up to 10^6 (a smoke test, minutes).
# default: 3 forks for the points the targets compare, 1 for the rest, sizes 10^4, 10^6, 10^7,
# and the growth curve of growing filters (counts, not times).
# --large adds 3.2*10^7 keys; --huge adds 10^8 keys for the single lookups of CUCKOO,
# CUCKOO_STANDARD, FF_CUCKOO16 and the memory floor (several GiB of heap per fork).
# The full run of record: --forks 3 --large --huge (about 1.5 hours on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."

jar=cuckoo-bench/target/benchmarks.jar
if [[ ! -f "$jar" || -n "$(find cuckoo-core/src cuckoo-bench/src -newer "$jar" -print -quit)" ]]; then
  mvn -B -ntp -q package -pl cuckoo-bench -am -DskipTests
fi

thp=/sys/kernel/mm/transparent_hugepage/enabled
if [[ -r "$thp" ]] && ! grep -q '\[always\]\|\[madvise\]' "$thp"; then
  echo "note: transparent huge pages are off ($(cat "$thp")); large-table numbers will suffer" >&2
fi

out=docs
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [[ "${args[$i]}" == --out ]] && out="${args[$((i + 1))]}"
done
mkdir -p "$out"
# the JMH log stays in target/: it names local paths
java -Djava.awt.headless=true -cp "$jar" dev.cuckoo.bench.report.Suite "$@" \
  2>&1 | tee cuckoo-bench/target/benchmarks.log
