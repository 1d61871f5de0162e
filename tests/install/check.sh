#!/bin/sh
# tests/install/check.sh: tycho installed like a tool. Installs the build into a fresh prefix
# (cmake --install) and unpacks the Debian package (cpack -G DEB) into another, then from an
# unrelated folder, with no TYCHO_HOME, runs a game, a spec file and `tycho serve` (with no
# server/modules of its own there) for a moment with each. Every step must find the engine's files in
# its own share/tycho, never in the source tree.
# usage: sh tests/install/check.sh BUILD_DIR
set -eu
BUILD=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
unset TYCHO_HOME

mkdir -p "$TMP/game" "$TMP/spec" "$TMP/elsewhere" "$TMP/font"
printf 'print("font=" .. tycho.font.default(14):getSize())\n' > "$TMP/font/main.lua"
printf 'print("home=" .. tycho.home)\n' > "$TMP/game/main.lua"
printf 'describe("installed", function() it("runs specs", function() assert.equals(2, 1 + 1) end) end)\n' \
  > "$TMP/spec/installed_spec.lua"

check() { # check PREFIX: runs the installed binary from an unrelated folder
  prefix=$1
  home=$(cd "$prefix/share/tycho" && pwd)
  out=$(cd "$TMP/elsewhere" && "$prefix/bin/tycho" run "$TMP/game" --headless --frames 1 --no-watch 2>&1)
  echo "$out"
  [ "$out" = "home=$home" ] || { echo "install check: tycho run did not use $home" >&2; exit 1; }
  out=$(cd "$TMP/elsewhere" && "$prefix/bin/tycho" test "$TMP/spec" 2>&1)
  echo "$out"
  echo "$out" | grep -q "^1 passed, 0 failed" || { echo "install check: tycho test failed" >&2; exit 1; }
  # No server/modules here: tycho serve serves the modules installed with it.
  out=$(cd "$TMP/elsewhere" && timeout 3 "$prefix/bin/tycho" serve --port 0 --data "$TMP/data" --no-watch 2>&1 || true)
  echo "$out"
  echo "$out" | grep -q "listening on .*/crafty.*/sync" || { echo "install check: tycho serve found no modules" >&2; exit 1; }
  echo "$out" | grep -q "modules from $home/server/modules (the ones that come with tycho" ||
    { echo "install check: tycho serve did not say it serves the bundled modules" >&2; exit 1; }
  [ -f "$home/server/monitor.html" ] || { echo "install check: no server/monitor.html (the /_monitor page)" >&2; exit 1; }
  # The font the engine ships, and its licence, installed beside it.
  out=$(cd "$TMP/elsewhere" && "$prefix/bin/tycho" run "$TMP/font" --headless --frames 1 --no-watch 2>&1)
  [ "$out" = "font=14" ] || { echo "install check: tycho.font.default did not load: $out" >&2; exit 1; }
  [ -f "$home/content/fonts/DejaVuSans.LICENSE" ] || { echo "install check: no font licence in $home" >&2; exit 1; }
  # An example of the source tree, run by the installed binary from elsewhere.
  out=$(cd "$TMP/elsewhere" && "$prefix/bin/tycho" run "$ROOT/examples/orbit" --headless --frames 61 --no-watch 2>&1)
  echo "$out" | grep -q "t=1.0s planets=3" || { echo "install check: examples/orbit did not run: $out" >&2; exit 1; }
}

cmake --install "$BUILD" --prefix "$TMP/prefix" >/dev/null
check "$TMP/prefix"

if command -v dpkg-deb >/dev/null 2>&1 && command -v dpkg-shlibdeps >/dev/null 2>&1; then
  (cd "$TMP" && cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$TMP/deb" >/dev/null)
  deb=$(ls "$TMP"/deb/tycho_*.deb)
  dpkg-deb -f "$deb" Depends | grep -q liblua5.4 || { echo "install check: the package declares no dependencies" >&2; exit 1; }
  dpkg-deb -f "$deb" Depends | grep -q libhiredis || { echo "install check: the package does not depend on libhiredis" >&2; exit 1; }
  dpkg-deb -x "$deb" "$TMP/debroot"
  check "$TMP/debroot/usr"
  echo "install check: package $(basename "$deb") unpacked and run"
else
  echo "install check: no dpkg-deb/dpkg-shlibdeps here, the package step is skipped"
fi
echo "install check: passed"
