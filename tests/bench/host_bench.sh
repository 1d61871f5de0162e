#!/bin/sh
# tests/bench/host_bench.sh: `tycho serve`'s crafty module under load, and the same room fan-out
# in Colyseus, each driven by the same load generator (tests/bench/host_bench/load.js) in
# processes of their own over loopback: CLIENTS clients in ROOMS rooms sending transforms at HZ
# for SECONDS, one editor per room placing/breaking a block twice a second, spread over WORKERS
# node processes (default: the core count, at least 2) so that the generator's own event loop
# is not what the latency measures. Prints each server's figures (server CPU per client
# message, edit fan-out latency p50/p99 with the generator's event-loop lag beside it, RSS per
# connection idle (rooms apart, and with them) and loaded, connections per core at 20 Hz from
# the CPU per client message) and the ratio of messages per CPU-second. CI only checks that it
# runs, at a tiny size (ctest bench.host_bench).
# Cluster mode (TYCHO_BENCH_CLUSTER=N, N >= 2; 3 is the figure of record): no Colyseus. One
# redis-server on a free port and N `tycho serve --redis ... --node N` processes sharing one
# data folder serve the same load, every room's members spread over the processes (so edits
# and transforms are relayed between them), and one tycho process alone is the baseline. It
# prints each process's messages in and out per second and CPU, the server CPU per client
# message summed over the processes, and the ratio of messages per CPU-second against the one
# process. Where the machine has at least N + 2 cores (and taskset), each server runs on a
# core of its own and the generator on the rest. Exits 77 (skipped) without redis-server
# (ctest bench.host_bench_cluster). TYCHO_BENCH_RELAY=redis runs the processes with `--relay
# redis` (the relay through Redis pub/sub alone) instead of over their direct links.
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
CLUSTER=${TYCHO_BENCH_CLUSTER:-0}
RELAY=${TYCHO_BENCH_RELAY:-direct}
BENCH=$ROOT/tests/bench/host_bench
TYCHO=$BUILD/tycho
case $RELAY in
direct|redis) ;;
*) echo "host_bench: TYCHO_BENCH_RELAY=$RELAY: expected direct or redis" >&2; exit 1 ;;
esac
case $CLUSTER in
''|*[!0-9]*) echo "host_bench: TYCHO_BENCH_CLUSTER=$CLUSTER: expected a process count (0 or 1: off)" >&2; exit 1 ;;
esac
if [ "$CLUSTER" -ge 2 ] && ! command -v redis-server >/dev/null; then
  echo "host_bench: SKIP cluster mode: redis-server (Debian package redis-server) is not installed"
  exit 77
fi
[ -x "$TYCHO" ] || { echo "host_bench: no $TYCHO (build it first)" >&2; exit 1; }
command -v node >/dev/null || { echo "host_bench: needs node and npm" >&2; exit 1; }
# The bench's own npm packages (ws, colyseus, colyseus.js), pinned by package-lock.json.
[ -d "$BENCH/node_modules/colyseus" ] || npm ci --prefix "$BENCH" --no-audit --no-fund >/dev/null
# 1,000 sockets per process on each side: raise the descriptor limit where allowed.
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)" || true

TMP=$(mktemp -d)
SERVER_PID=
REDIS_PID=
cleanup() {
  for p in $SERVER_PID $REDIS_PID; do kill "$p" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

free_port() { node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
wait_port() { # waits until something accepts on 127.0.0.1:$1
  for _ in $(seq 1 100); do
    node -e "require('net').connect($1,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))" && return 0
    sleep 0.1
  done
  echo "host_bench: nothing listening on $1" >&2; exit 1
}

# Cores: with TYCHO_BENCH_CLUSTER=N on a machine of at least N + 2 cores, server k runs on
# core k - 1 and the generator on the others; elsewhere nothing is pinned.
PIN=
if [ "$CLUSTER" -ge 2 ] && [ "$(nproc)" -ge $((CLUSTER + 2)) ] && command -v taskset >/dev/null; then PIN=1; fi
on_core() { # on_core K COMMAND... &: COMMAND on core K when pinning; $! is COMMAND's own pid
  k=$1; shift
  if [ -n "$PIN" ]; then exec taskset -c "$k" "$@"; else exec "$@"; fi
}
generator() { # the load generator, on the cores the servers leave
  if [ -n "$PIN" ]; then (cd "$BENCH" && taskset -c "$CLUSTER-$(($(nproc) - 1))" node load.js "$@")
  else (cd "$BENCH" && node load.js "$@"); fi
}
[ -n "$PIN" ] && [ -z "$WORKERS" ] && WORKERS=$(($(nproc) - CLUSTER))

run_tycho() {
  port=$(free_port)
  rm -rf "$TMP/data"
  # Every bench client comes from one address: crafty's per-address world quota is lifted.
  (export CRAFTY_WORLDS_PER_ADDRESS=0; on_core 0 "$TYCHO" serve --port "$port" --modules "$ROOT/server/modules" --data "$TMP/data" --ping 60 2>"$TMP/tycho.log") &
  SERVER_PID=$!
  wait_port "$port"
  generator tycho "$port" "$SERVER_PID" "$CLIENTS" "$ROOMS" "$SECONDS_" "$HZ" "$WORKERS" >>"$TMP/tycho.jsonl"
  kill "$SERVER_PID"; wait "$SERVER_PID" || true; SERVER_PID=
}

# CLUSTER tycho processes over one redis-server: the same load, every room spread over them.
run_cluster() {
  rm -rf "$TMP/data" "$TMP/redis"
  mkdir -p "$TMP/redis"
  rport=$(free_port)
  redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no --dir "$TMP/redis" >"$TMP/redis.log" 2>&1 &
  REDIS_PID=$!
  wait_port "$rport"
  ports= pids=
  k=1
  while [ "$k" -le "$CLUSTER" ]; do
    port=$(free_port)
    (export CRAFTY_WORLDS_PER_ADDRESS=0; on_core $((k - 1)) "$TYCHO" serve --port "$port" --modules "$ROOT/server/modules" \
      --data "$TMP/data" --ping 60 --no-watch --redis "redis://127.0.0.1:$rport" --node "bench$k" --relay "$RELAY" \
      2>"$TMP/cluster$k.log") &
    SERVER_PID="$SERVER_PID $!"
    ports=${ports:+$ports,}$port
    pids=${pids:+$pids,}$!
    wait_port "$port"
    k=$((k + 1))
  done
  sleep 2 # two beats: every process has read the others' records and its links are up before a client joins
  generator tycho "$ports" "$pids" "$CLIENTS" "$ROOMS" "$SECONDS_" "$HZ" "$WORKERS" >>"$TMP/cluster.jsonl" ||
    { cat "$TMP"/cluster*.log >&2; exit 1; }
  for p in $SERVER_PID; do kill "$p"; wait "$p" || true; done
  SERVER_PID=
  # Redis's own CPU, from its start to here (clock ticks of user and system time)
  awk -v hz="$(getconf CLK_TCK)" '{ printf "redis-server CPU over the run (start to stop): %.2f s\n", ($14 + $15) / hz }' \
    "/proc/$REDIS_PID/stat" >>"$TMP/redis_cpu.txt" 2>/dev/null || true
  kill "$REDIS_PID"; wait "$REDIS_PID" || true; REDIS_PID=
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
if [ "$CLUSTER" -ge 2 ]; then
  cores="nothing pinned (fewer than $((CLUSTER + 2)) cores, or no taskset)"
  [ -n "$PIN" ] && cores="each server on a core of its own, the generator on cores $CLUSTER-$(($(nproc) - 1))"
  echo "host_bench: cluster mode, $CLUSTER tycho processes over redis-server against one, relay $RELAY; $cores"
  i=0
  while [ "$i" -lt "$RUNS" ]; do
    run_tycho
    run_cluster
    i=$((i + 1))
  done
  node "$BENCH/report.js" --cluster "$TMP/tycho.jsonl" "$TMP/cluster.jsonl"
  [ -f "$TMP/redis_cpu.txt" ] && cat "$TMP/redis_cpu.txt"
  exit 0
fi
i=0
while [ "$i" -lt "$RUNS" ]; do
  run_tycho
  run_colyseus
  i=$((i + 1))
done
node "$BENCH/report.js" "$TMP/tycho.jsonl" "$TMP/colyseus.jsonl"
