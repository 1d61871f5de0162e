#!/bin/sh
# tests/busted/check.sh: busted suites run by `tycho test` with busted's own counts.
# Each folder here is a library beside its busted spec/ folder: four MIT libraries' suites as
# their authors wrote them (middleclass, inspect.lua, tween.lua, semver.lua, each with its
# licence), `features` (a queue exercising what busted users use: a .busted file with a
# helper and tasks, hooks, finally, insulate/expose, spies, stubs, mocks, matchers, custom
# assertions, tags, pending) and `failures` (each kind of failure and error). `tycho test`,
# run in the folder with no arguments as busted would be, must end on the closing line in
# expected.txt; where the `busted` command and lua5.4 are installed (.ci/deps installs both),
# busted's own summary must give the same counts. Then, name by name: each run listed in
# compare.txt (these suites and tests/lua/fixtures/runner, with the options busted users
# pass) is given to busted and to `tycho test` with names.lua as their output handler; the
# two lists of outcomes (status, kind, full name, file:line, message) must be the same, in
# the same order, but for the intended differences compare.txt lists under the run, each
# with its reason. `tycho test -o junit` on each run must validate against junit.xsd with
# xmllint (libxml2-utils), and against any further schema named by JUNIT_XSD, with the
# failure, error and skipped counts the names give.
# The libraries are copied as they are (module, spec/, licence) from their authors' repositories
# (kikito/middleclass aa8f88b, kikito/inspect.lua a8ca312, kikito/tween.lua 9cdcd39,
# kikito/semver.lua a4b708b).
# usage: [JUNIT_XSD=junit-10.xsd] sh tests/busted/check.sh TYCHO
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

# Name by name: each run in compare.txt, given to both runners with names.lua as the output
# handler, must give the same outcomes in the same order, but for the differences listed
# under it. `tycho test -o junit` on the same run must validate against junit.xsd (and any
# schema named by JUNIT_XSD, say Jenkins' junit-10.xsd) with xmllint, with the failure,
# error and skipped counts the names give.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
if command -v busted >/dev/null 2>&1 && command -v lua5.4 >/dev/null 2>&1; then
  names=0
  set -f # arguments such as t[wh] are busted's patterns, not file names
  flush() { # compares the run read last with the differences listed under it
    [ -n "$run" ] || return 0
    if ! diff "$tmp/want" "$tmp/got" >/dev/null; then
      echo "busted check: '$run': busted (<) and tycho test (>) differ otherwise than compare.txt says:" >&2
      sed 's/^/    /' "$tmp/got" >&2
      bad=1
    fi
    names=$((names + 1))
  }
  run=""
  while IFS= read -r line; do
    case "$line" in
      "" | "#"*) continue ;;
      "<"* | ">"*) printf '%s\n' "$line" >> "$tmp/want"; continue ;;
    esac
    flush
    run=$line
    dir=${line%% *}
    args=""
    [ "$dir" = "$line" ] || args=${line#* }
    : > "$tmp/want"
    rm -f "$tmp/busted.txt" "$tmp/tycho.txt" "$tmp/junit.xml"
    # shellcheck disable=SC2086 # $args: split on spaces, as compare.txt says
    (
      cd "$here/../$dir" || exit 1
      lua5.4 "$(command -v busted)" -o "$here/names.lua" -Xoutput "$tmp/busted.txt" $args
      "$tycho" test -o "$here/names.lua" -Xoutput "$tmp/tycho.txt" $args
      "$tycho" test -o junit -Xoutput "$tmp/junit.xml" $args
    ) >/dev/null 2>&1
    if ! [ -f "$tmp/busted.txt" ] || ! [ -f "$tmp/tycho.txt" ] || ! [ -f "$tmp/junit.xml" ]; then
      echo "busted check: '$run': a runner wrote nothing" >&2
      bad=1
      touch "$tmp/busted.txt" "$tmp/tycho.txt" "$tmp/junit.xml"
    fi
    diff "$tmp/busted.txt" "$tmp/tycho.txt" | grep '^[<>]' > "$tmp/got"
    if command -v xmllint >/dev/null 2>&1; then
      for xsd in "$here/junit.xsd" ${JUNIT_XSD:-}; do
        xmllint --noout --schema "$xsd" "$tmp/junit.xml" 2> "$tmp/xmllint" \
          || { echo "busted check: '$run': tycho test -o junit does not validate against $xsd:" >&2; cat "$tmp/xmllint" >&2; bad=1; }
      done
      # failures in tests; errors, and failures outside tests; skipped tests
      want=$(awk -F' [|] ' '$1 == "failure" && $2 == "it" { f++ } $1 == "error" || ($1 == "failure" && $2 != "it") { e++ }
        $1 == "pending" { p++ } END { printf "%d %d %d", f, e, p }' "$tmp/tycho.txt")
      got=$(xmllint --xpath 'concat(/testsuites/@failures, " ", /testsuites/@errors, " ", sum(//testsuite/@skipped))' "$tmp/junit.xml")
      [ "$want" = "$got" ] || { echo "busted check: '$run': JUnit counts (failures errors skipped) $got, the names say $want" >&2; bad=1; }
    fi
  done < "$here/compare.txt"
  flush
  set +f
  echo "busted check: $names runs of compare.txt compared with busted name by name, their JUnit validated"
fi
[ "$bad" -eq 0 ] && echo "busted check: every suite gives busted's counts"
exit "$bad"
