#!/bin/sh
# tests/busted/check.sh: busted suites run by `tycho test` with busted's own counts.
# Each folder here is a library beside its busted spec/ folder: four MIT libraries' suites as
# their authors wrote them (middleclass, inspect.lua, tween.lua, semver.lua, each with its
# licence), `features` (a queue exercising what busted users use: a .busted file with a
# helper and tasks, hooks, finally, insulate/expose, spies, stubs, mocks, matchers, custom
# assertions, tags, pending) and `failures` (each kind of failure and error). `tycho test`,
# run in the folder with no arguments as busted would be, must end on the closing line in
# expected.txt; where the `busted` command and lua5.4 are installed (.ci/deps installs both),
# busted's own summary must give the same counts.
# The libraries are copied as they are (module, spec/, licence) from their authors' repositories
# (kikito/middleclass aa8f88b, kikito/inspect.lua a8ca312, kikito/tween.lua 9cdcd39,
# kikito/semver.lua a4b708b).
# usage: sh tests/busted/check.sh TYCHO
set -u
tycho=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
bad=0
while read -r name line; do
  case "$name" in "" | "#"*) continue ;; esac
  got=$(cd "$here/$name" && "$tycho" test 2>&1 | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
  if [ "$got" != "$line" ]; then
    echo "busted check: $name: tycho test ended on '$got', expected '$line'" >&2
    bad=1
  fi
  if command -v busted >/dev/null 2>&1 && command -v lua5.4 >/dev/null 2>&1; then
    summary=$(cd "$here/$name" && lua5.4 "$(command -v busted)" -o plainTerminal 2>&1 \
      | grep -E '^[0-9]+ success.* / [0-9]+ failure.* / [0-9]+ error.* / [0-9]+ pending' | tail -1)
    ref=$(echo "$summary" | awk '{ s = $1 " passed, " $4 + $7 " failed"; if ($10 > 0) s = s ", " $10 " skipped"; print s }')
    if [ "$ref" != "$got" ]; then
      echo "busted check: $name: busted 2 under lua5.4 says '$ref' ($summary), tycho test '$got'" >&2
      bad=1
    fi
    echo "busted check: $name: $got (busted: $summary)"
  else
    echo "busted check: $name: $got"
  fi
done < "$here/expected.txt"
[ "$bad" -eq 0 ] && echo "busted check: every suite gives busted's counts"
exit "$bad"
