#!/bin/sh
# tests/bench/smoke.sh: how ctest (label bench) starts a benchmark at a tiny size, so that
# none stops running unnoticed when the code under it changes. Runs COMMAND, prints all it
# wrote, and passes only when it exited 0 and its output (stdout and stderr) has a line
# matching each PATTERN (grep -E): the figures it prints. The figures themselves are not
# judged; at these sizes they mean nothing. Exit 77 (skipped) passes through.
# usage: sh tests/bench/smoke.sh PATTERN... -- COMMAND [ARG...]
set -u
n=0
while [ $# -gt 0 ] && [ "$1" != "--" ]; do n=$((n + 1)); eval "pattern_$n=\$1"; shift; done
[ $# -gt 1 ] || { echo "usage: smoke.sh PATTERN... -- COMMAND [ARG...]" >&2; exit 2; }
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
# 77: the bench cannot run on this machine (a service it needs is not installed); ctest
# reports it skipped where the test sets SKIP_RETURN_CODE 77.
[ "$rc" -eq 77 ] && exit 77
if [ "$rc" -ne 0 ]; then
  echo "bench smoke: exited $rc: $*" >&2
  exit 1
fi
i=1
while [ "$i" -le "$n" ]; do
  eval "pattern=\$pattern_$i"
  if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
    echo "bench smoke: no line matches /$pattern/: $*" >&2
    exit 1
  fi
  i=$((i + 1))
done
