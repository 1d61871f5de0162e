#!/bin/sh
# tests/bench/boot_bench.sh: wall time from starting `tycho run GAME --headless --frames 1`
# to its exit (boot, main.lua, the first tick, teardown), median of N runs, against the
# bare `lua5.4 -e ''` interpreter start in the same run. Target: <= 30 ms.
# usage: sh tests/bench/boot_bench.sh [BINARY] [GAME] [N]
set -eu
bin=${1:-build/tycho}
game=${2:-examples/orbit}
n=${3:-41}

median_ms() { # runs "$@" n times, prints the median wall time in ms
  i=0
  while [ $i -lt "$n" ]; do
    s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N)
    echo $(( (e - s) / 1000 ))
    i=$((i + 1))
  done | sort -n | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]/1000}'
}

boot=$(median_ms "$bin" run "$game" --headless --frames 1)
lua=$(median_ms lua5.4 -e '')
echo "headless boot to first tick ($game, median of $n runs)"
echo "  tycho run --headless --frames 1   $boot ms"
echo "  lua5.4 -e ''   (bare interpreter)  $lua ms"
awk -v b="$boot" -v l="$lua" 'BEGIN {printf "  ratio %.1fx the bare interpreter   target: <= 30 ms\n", b / l}'
