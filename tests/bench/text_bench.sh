#!/bin/sh
# tests/bench/text_bench.sh: tests/bench/text_bench.lua (tycho.draw.text) and, where LÖVE is
# installed (apt-get install love), tests/bench/text_love (love.graphics.print) in the same
# run, same window size, same font file and strings; prints both figures and the ratios.
# Both render offscreen (SDL_VIDEODRIVER=offscreen, Mesa's llvmpipe unless a GPU is there).
# Target: tycho's frame no slower than LÖVE's.
# usage: sh tests/bench/text_bench.sh [BUILD_DIR] [N] [FRAMES]
set -eu
build=${1:-build}
n=${2:-10000}
frames=${3:-60}
here=$(cd "$(dirname "$0")" && pwd)
export SDL_VIDEODRIVER=${SDL_VIDEODRIVER:-offscreen} TYCHO_BENCH_N=$n TYCHO_BENCH_FRAMES=$frames
export TYCHO_BENCH_FONT="$here/../../content/fonts/DejaVuSans.ttf"

tycho_line=$("$build/tycho" run "$here/text_bench.lua" --no-watch --width 800 --height 600 --frames $((frames + 2)) 2>&1 |
  grep '^tycho text_bench:' | tail -1)
[ -n "$tycho_line" ] || { echo "text_bench: tycho printed no figures" >&2; exit 1; }
echo "$tycho_line"
if ! command -v love >/dev/null; then
  echo "text_bench: love is not installed (apt-get install love): no baseline this run"
  exit 0
fi
love_line=$(timeout 300 love "$here/text_love" 2>&1 | grep '^love text_bench:' | tail -1 || true)
if [ -z "$love_line" ]; then
  echo "text_bench: LÖVE ran but printed no figures (no display it can use?): no baseline this run"
  exit 0
fi
echo "$love_line"
printf '%s\n%s\n' "$tycho_line" "$love_line" | awk '
  { for (i = 1; i <= NF; i++) { if ($i == "calls") c[NR] = $(i + 1); if ($i == "frame") f[NR] = $(i + 1) } }
  END { printf "ratio tycho/love: calls %.2fx, frame %.2fx (below 1: tycho is faster)\n", c[1] / c[2], f[1] / f[2] }'
