#!/bin/sh
# tests/bench/crafty_bench.sh: examples/crafty's frame rate at 12- and 16-chunk view
# distances (offscreen: Mesa llvmpipe on a machine with no GPU), with a 4-chunk view as the
# baseline measured in the same run, then the Lua benchmarks (generation + meshing, loading
# and saving; their sizes are crafty_bench.lua's TYCHO_BENCH_N and TYCHO_BENCH_REPS).
# Usage: sh tests/bench/crafty_bench.sh [BUILD_DIR] [FRAMES] [VIEWS] [WIDTH HEIGHT]
#   FRAMES timed per view (60), VIEWS the view distances in chunks, baseline first ("4 12 16"),
#   WIDTH x HEIGHT the window (1280 x 720).
set -e
build=${1:-build}
frames=${2:-60}
views=${3:-4 12 16}
width=${4:-1280}
height=${5:-720}
root=$(cd "$(dirname "$0")/../.." && pwd)
saves=$(mktemp -d)
trap 'rm -rf "$saves"' EXIT
for view in $views; do
  SDL_VIDEODRIVER=${SDL_VIDEODRIVER:-offscreen} CRAFTY_SAVES="$saves/w$view.sqlite" CRAFTY_AUTOSTART=1234 \
    CRAFTY_VIEW=$view CRAFTY_BENCH=$frames "$build/tycho" run "$root/examples/crafty" --width "$width" --height "$height" \
    --frames 100000 --no-watch
done
"$build/tycho" run "$root/tests/bench/crafty_bench.lua" --headless --frames 0 --no-watch
