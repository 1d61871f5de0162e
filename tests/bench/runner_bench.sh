#!/bin/sh
# tests/bench/runner_bench.sh: what `tycho test` costs per `it`, against busted 2.1.1 itself
# under plain lua5.4 in the same run: a spec file of N empty tests and one of none, each run
# RUNS times by both; prints the medians, the cost per test (N tests minus none, over N) and
# the ratio. Needs the busted command (Debian's lua-busted) for the baseline.
# usage: sh tests/bench/runner_bench.sh [BUILD_DIR] [N] [RUNS]   (defaults: build 2000 5)
# Target: no slower than busted.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
N=${2:-2000}
RUNS=${3:-5}
TYCHO=$BUILD/tycho
command -v busted >/dev/null || { echo "runner_bench: needs the busted command (apt-get install lua-busted)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir -p "$TMP/many" "$TMP/none"
{
  echo 'describe("empty tests", function()'
  i=0
  while [ "$i" -lt "$N" ]; do echo "  it(\"t$i\", function() end)"; i=$((i + 1)); done
  echo 'end)'
} > "$TMP/many/many_spec.lua"
echo 'describe("nothing", function() end)' > "$TMP/none/none_spec.lua"

now() { date +%s%N; }
# median_ms CMD...: the median wall time of RUNS runs, in ms; the command must exit 0
median_ms() {
  k=0
  : > "$TMP/times"
  while [ "$k" -lt "$RUNS" ]; do
    t0=$(now)
    "$@" > "$TMP/out" 2>&1 || { cat "$TMP/out" >&2; echo "runner_bench: failed: $*" >&2; exit 1; }
    t1=$(now)
    echo $(((t1 - t0) / 1000)) >> "$TMP/times"
    k=$((k + 1))
  done
  sort -n "$TMP/times" | awk '{a[NR] = $1} END {printf "%.2f", a[int((NR + 1) / 2)] / 1000}'
}

tm=$(median_ms "$TYCHO" test "$TMP/many")
grep -q "^$N passed, 0 failed" "$TMP/out" || { echo "runner_bench: tycho test did not pass $N" >&2; exit 1; }
t0=$(median_ms "$TYCHO" test "$TMP/none")
bm=$(median_ms busted --lua=lua5.4 "$TMP/many")
grep -q "^$N success" "$TMP/out" || { echo "runner_bench: busted did not pass $N" >&2; cat "$TMP/out" >&2; exit 1; }
b0=$(median_ms busted --lua=lua5.4 "$TMP/none")
echo "runner_bench: $N empty tests, median of $RUNS runs"
awk -v tm="$tm" -v t0="$t0" -v bm="$bm" -v b0="$b0" -v n="$N" 'BEGIN {
  tp = (tm - t0) * 1000 / n; bp = (bm - b0) * 1000 / n
  printf "  tycho test        %8.2f ms (no tests: %7.2f ms)  %6.2f us per test\n", tm, t0, tp
  printf "  busted, lua5.4    %8.2f ms (no tests: %7.2f ms)  %6.2f us per test\n", bm, b0, bp
  printf "  ratio tycho/busted per test %.2fx, start-up %.2fx\n", (bp > 0 ? tp / bp : 0), (b0 > 0 ? t0 / b0 : 0)
}'
