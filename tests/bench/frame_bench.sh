#!/bin/sh
# tests/bench/frame_bench.sh: frame time of examples/hello and of a 10k-object scene under
# each preset, rendered for real: in a window where there is a display, else through SDL's
# offscreen driver (Mesa llvmpipe here; NVIDIA's EGL on a GPU machine). Prints the median
# ms/frame over FRAMES frames (after a warm-up) and each preset's ratio against forward,
# the baseline measured in the same run; hello is also run under each preset (deferred
# with SSAO; no TAA, as the 10k scene). Exits 1 when any of the runs failed (its row then reads nan). Per-pass
# times: BENCH_PASSES=1 on one run of tests/bench/frame_bench (see scripts/docs/render.md).
#
# usage: sh tests/bench/frame_bench.sh [BUILD_DIR] [FRAMES] [WIDTH HEIGHT] [OBJECTS]
#   FRAMES > 5 (the first 5 are a warm-up; default 60), 640 x 360, OBJECTS in the scene (10000)
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
frames=${2:-60}
width=${3:-640}
height=${4:-360}
objects=${5:-10000}
tycho="$build/tycho"
[ -x "$tycho" ] || { echo "frame_bench: $tycho not built" >&2; exit 2; }
[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}${SDL_VIDEODRIVER:-}" ] || export SDL_VIDEODRIVER=offscreen

# run GAME PRESET -> median ms
run() {
  out=$(BENCH_GAME="$1" BENCH_PRESET="$2" BENCH_FRAMES="$frames" BENCH_OBJECTS="$objects" \
    "$tycho" run tests/bench/frame_bench --frames "$frames" --dt 0.0166667 --width "$width" --height "$height" 2>&1) || {
    echo "frame_bench: $1 ${2:-as written} failed:" >&2
    echo "$out" | tail -5 >&2
    echo "nan"
    return 0
  }
  ms=$(echo "$out" | sed -n 's/^frame_bench: .* median \([0-9.]*\) ms.*/\1/p' | tail -1)
  if [ -n "$ms" ]; then echo "$ms"; else
    echo "frame_bench: $1 ${2:-as written} printed no median:" >&2
    echo "$out" | tail -5 >&2
    echo "nan"
  fi
}

echo "frame_bench: ${width}x${height}, median of $frames frames, driver ${SDL_VIDEODRIVER:-default}"
hello=$(run "$PWD/examples/hello/main.lua" "")
printf '  %-28s %10s ms/frame\n' "examples/hello (forward)" "$hello"
failed=0
[ "$hello" != nan ] || failed=1
# hello's one sphere under each preset (deferred with SSAO): the per-pixel cost of each.
base=""
for preset in forward forwardPlus deferred; do
  ms=$(run "$PWD/examples/hello/main.lua" "$preset")
  [ "$ms" != nan ] || failed=1
  [ -n "$base" ] || base=$ms
  ratio=$(awk -v a="$ms" -v b="$base" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx forward", a / b; else print "-" }')
  printf '  %-28s %10s ms/frame  %s\n' "examples/hello, $preset" "$ms" "$ratio"
done
base=""
for preset in forward forwardPlus deferred; do
  ms=$(run many "$preset")
  [ "$ms" != nan ] || failed=1
  [ -n "$base" ] || base=$ms
  ratio=$(awk -v a="$ms" -v b="$base" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx forward", a / b; else print "-" }')
  printf '  %-28s %10s ms/frame  %s\n' "$objects objects, $preset" "$ms" "$ratio"
done
exit "$failed"
