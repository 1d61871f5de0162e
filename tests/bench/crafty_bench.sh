#!/bin/sh
# tests/bench/crafty_bench.sh: examples/crafty's frame rate at 12- and 16-chunk view
# distances (offscreen: Mesa llvmpipe on a machine with no GPU), with a 4-chunk view as the
# baseline measured in the same run, then the Lua benchmarks (generation + meshing, loading
# and saving). Usage: sh tests/bench/crafty_bench.sh [BUILD_DIR]
set -e
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
saves=$(mktemp -d)
for view in 4 12 16; do
  SDL_VIDEODRIVER=${SDL_VIDEODRIVER:-offscreen} CRAFTY_SAVES="$saves/w$view.sqlite" CRAFTY_AUTOSTART=1234 \
    CRAFTY_VIEW=$view CRAFTY_BENCH=60 "$build/tycho" run "$root/examples/crafty" --width 1280 --height 720 \
    --frames 100000 --no-watch
done
rm -rf "$saves"
"$build/tycho" run "$root/tests/bench/crafty_bench.lua" --headless --frames 0 --no-watch
