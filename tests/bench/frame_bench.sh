#!/bin/sh
# tests/bench/frame_bench.sh: frame time of examples/hello and of a 10k-object scene under
# each preset, rendered for real: in a window where there is a display, else through SDL's
# offscreen driver (Mesa llvmpipe here; NVIDIA's EGL on a GPU machine). Prints the median
# ms/frame over FRAMES frames (after a warm-up) and each preset's ratio against forward,
# the baseline measured in the same run.
#
# usage: sh tests/bench/frame_bench.sh [BUILD_DIR] [FRAMES] [WIDTH HEIGHT]
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
frames=${2:-60}
width=${3:-640}
height=${4:-360}
tycho="$build/tycho"
[ -x "$tycho" ] || { echo "frame_bench: $tycho not built" >&2; exit 2; }
[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}${SDL_VIDEODRIVER:-}" ] || export SDL_VIDEODRIVER=offscreen

# run GAME PRESET -> median ms
run() {
  out=$(BENCH_GAME="$1" BENCH_PRESET="$2" BENCH_FRAMES="$frames" \
    "$tycho" run tests/bench/frame_bench --frames "$frames" --dt 0.0166667 --width "$width" --height "$height" 2>&1) || {
    echo "frame_bench: $1 ${2:-as written} failed:" >&2
    echo "$out" | tail -5 >&2
    echo "nan"
    return 0
  }
  echo "$out" | sed -n 's/^frame_bench: .* median \([0-9.]*\) ms.*/\1/p' | tail -1
}

echo "frame_bench: ${width}x${height}, median of $frames frames, driver ${SDL_VIDEODRIVER:-default}"
hello=$(run "$PWD/examples/hello/main.lua" "")
printf '  %-28s %10s ms/frame\n' "examples/hello (forward)" "$hello"
base=""
for preset in forward forwardPlus deferred; do
  ms=$(run many "$preset")
  [ -n "$base" ] || base=$ms
  ratio=$(awk -v a="$ms" -v b="$base" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx forward", a / b; else print "-" }')
  printf '  %-28s %10s ms/frame  %s\n' "10k objects, $preset" "$ms" "$ratio"
done
