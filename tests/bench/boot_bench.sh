#!/bin/sh
# tests/bench/boot_bench.sh: wall time from starting `tycho run GAME --headless --frames 1`
# to its exit (boot, main.lua, the first tick, teardown), median of N runs, against the
# bare `lua5.4 -e ''` interpreter start in the same run (Debian's lua5.4 package). Target: <= 30 ms.
# Each command runs once untimed first: the bench exits 1, with its output, when one fails.
# usage: sh tests/bench/boot_bench.sh [BINARY] [GAME] [N]
set -eu
bin=${1:-build/tycho}
game=${2:-examples/orbit}
n=${3:-41}

median_ms() { # runs "$@" n times, prints the median wall time in ms
  i=0
  if ! out=$("$@" 2>&1); then
    echo "boot_bench: \`$*\` failed:" >&2
    echo "$out" | tail -5 >&2
    exit 1
  fi
  while [ $i -lt "$n" ]; do
    s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N)
    echo $(( (e - s) / 1000 ))
    i=$((i + 1))
  done | sort -n | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]/1000}'
}

command -v lua5.4 >/dev/null || { echo "boot_bench: the baseline needs lua5.4 (apt-get install lua5.4)" >&2; exit 1; }
boot=$(median_ms "$bin" run "$game" --headless --frames 1)
lua=$(median_ms lua5.4 -e '')
echo "headless boot to first tick ($game, median of $n runs)"
echo "  tycho run --headless --frames 1   $boot ms"
echo "  lua5.4 -e ''   (bare interpreter)  $lua ms"
awk -v b="$boot" -v l="$lua" 'BEGIN {printf "  ratio %.1fx the bare interpreter   target: <= 30 ms\n", b / l}'
