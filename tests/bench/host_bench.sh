#!/bin/sh
# tests/bench/host_bench.sh: `tycho serve`'s crafty module under load, and the same room fan-out
# in Colyseus, each driven by the same load generator (tests/bench/host_bench/load.js) in
# processes of their own over loopback: CLIENTS clients in ROOMS rooms sending transforms at HZ
# for SECONDS, one editor per room placing/breaking a block twice a second, spread over WORKERS
# node processes (default: the core count, at least 2) so that the generator's own event loop
# is not what the latency measures. Prints each server's figures (server CPU per client
# message, edit fan-out latency p50/p99 with the generator's event-loop lag beside it, RSS per
# connection idle and loaded, connections per core at HZ) and the ratio of messages per
# CPU-second. CI only checks that it runs, at a tiny size (ctest bench.host_bench).
# Usage: tests/bench/host_bench.sh [BUILD_DIR] [CLIENTS] [ROOMS] [SECONDS] [HZ] [RUNS] [WORKERS]
#   ROOMS <= 256 (the worlds a crafty server keeps); TYCHO_BENCH_IDLE_MS and
#   TYCHO_BENCH_WARMUP_MS shorten load.js's idle and warm-up waits (3 s, 2 s).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
CLIENTS=${2:-1000}
ROOMS=${3:-50}
SECONDS_=${4:-20}
HZ=${5:-20}
RUNS=${6:-1}
WORKERS=${7:-}
BENCH=$ROOT/tests/bench/host_bench
TYCHO=$BUILD/tycho
[ -x "$TYCHO" ] || { echo "host_bench: no $TYCHO (build it first)" >&2; exit 1; }
command -v node >/dev/null || { echo "host_bench: needs node and npm" >&2; exit 1; }
# The bench's own npm packages (ws, colyseus, colyseus.js), pinned by package-lock.json.
[ -d "$BENCH/node_modules/colyseus" ] || npm ci --prefix "$BENCH" --no-audit --no-fund >/dev/null
# 1,000 sockets per process on each side: raise the descriptor limit where allowed.
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)" || true

TMP=$(mktemp -d)
SERVER_PID=
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT INT TERM

free_port() { node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
wait_port() { # waits until something accepts on 127.0.0.1:$1
  for _ in $(seq 1 100); do
    node -e "require('net').connect($1,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))" && return 0
    sleep 0.1
  done
  echo "host_bench: nothing listening on $1" >&2; exit 1
}

run_tycho() {
  port=$(free_port)
  rm -rf "$TMP/data"
  # Every bench client comes from one address: crafty's per-address world quota is lifted.
  CRAFTY_WORLDS_PER_ADDRESS=0 "$TYCHO" serve --port "$port" --modules "$ROOT/server/modules" --data "$TMP/data" --ping 60 2>"$TMP/tycho.log" &
  SERVER_PID=$!
  wait_port "$port"
  (cd "$BENCH" && node load.js tycho "$port" "$SERVER_PID" "$CLIENTS" "$ROOMS" "$SECONDS_" "$HZ" "$WORKERS") >>"$TMP/tycho.jsonl"
  kill "$SERVER_PID"; wait "$SERVER_PID" || true; SERVER_PID=
}

run_colyseus() {
  port=$(free_port)
  (cd "$BENCH" && exec node colyseus_server.js "$port") 2>"$TMP/colyseus.log" &
  SERVER_PID=$!
  wait_port "$port"
  (cd "$BENCH" && node load.js colyseus "$port" "$SERVER_PID" "$CLIENTS" "$ROOMS" "$SECONDS_" "$HZ" "$WORKERS") >>"$TMP/colyseus.jsonl"
  kill "$SERVER_PID"; wait "$SERVER_PID" || true; SERVER_PID=
}

echo "host_bench: $CLIENTS clients, $ROOMS rooms, transforms at $HZ Hz, ${SECONDS_} s measured, $RUNS run(s) each, $(nproc) cores, ${WORKERS:-default} generator workers"
i=0
while [ "$i" -lt "$RUNS" ]; do
  run_tycho
  run_colyseus
  i=$((i + 1))
done
node "$BENCH/report.js" "$TMP/tycho.jsonl" "$TMP/colyseus.jsonl"
