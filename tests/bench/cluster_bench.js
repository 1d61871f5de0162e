// tests/bench/cluster_bench.js: what the relay of `tycho serve --redis` adds to a message
// (scripts/docs/server.md "Past one process"). Two processes over one redis-server (started
// here on a free loopback port); one world runs on process a. Client L, on a, and client R, on
// b (relayed to a over Redis pub/sub), each send N messages one at a time that the world's
// process answers at once (an unknown type: its error reply), and time each round trip. L's
// round trip is the baseline; R's crosses the relay twice (there and back).
//   node tests/bench/cluster_bench.js build/tycho [N]
'use strict';
const clusterLib = require('../server/cluster_lib.js');

if (!clusterLib.hasRedis()) {
  console.log('SKIP: redis-server is not installed');
  process.exit(77);
}
const N = Number(process.argv[3] || 2000);
const { startRedis, freePort, startNode, hello, killAll, tmp } = clusterLib(process.argv[2] || 'build/tycho');

const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))];

async function roundTrips(c) {
  const times = [];
  for (let i = 0; i < N; i++) {
    const t0 = process.hrtime.bigint();
    c.send({ t: 'ping_unknown' });
    await c.next((m) => m.t === 'error' && m.code === 'unknown_type');
    times.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
  return times.sort((a, b) => a - b);
}

async function main() {
  const redisPort = await freePort();
  await startRedis(redisPort);
  const a = await startNode('a', redisPort);
  const b = await startNode('b', redisPort);
  const maker = await hello(a.port, 'maker');
  maker.send({ t: 'create_world', name: 'bench', seed: 1, gameMode: 'creative' });
  const list = await maker.next((m) => m.t === 'world_list' && m.worlds.length > 0);
  const worldId = list.worlds[0].id;
  const L = await hello(a.port, 'local');
  L.send({ t: 'join_world', worldId });
  await L.next('welcome', 10000);
  const R = await hello(b.port, 'relayed');
  R.send({ t: 'join_world', worldId });
  await R.next('welcome', 10000);
  await roundTrips(L); // warm both paths
  const local = await roundTrips(L);
  const relayed = await roundTrips(R);
  const p50 = [pct(local, 0.5), pct(relayed, 0.5)];
  const p99 = [pct(local, 0.99), pct(relayed, 0.99)];
  console.log(`cluster_bench: ${N} round trips each, message answered by the world's process`);
  console.log(`client on the world's process (baseline)  p50 ${p50[0].toFixed(0)} us  p99 ${p99[0].toFixed(0)} us`);
  console.log(`client relayed through another process     p50 ${p50[1].toFixed(0)} us  p99 ${p99[1].toFixed(0)} us`);
  console.log(`added by the relay, one way (p50)          ${((p50[1] - p50[0]) / 2).toFixed(0)} us`);
  console.log(`ratio relayed/local round trip (p50)       ${(p50[1] / p50[0]).toFixed(2)}x`);
}

main().then(() => { killAll(); require('fs').rmSync(tmp, { recursive: true, force: true }); process.exit(0); },
  (e) => { console.log(e.stack || e); killAll(); process.exit(1); });
