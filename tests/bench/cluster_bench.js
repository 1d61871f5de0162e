// tests/bench/cluster_bench.js: what the relay of `tycho serve --redis` adds to a message
// (scripts/docs/server.md "Past one process"), over each of its two ways. Three processes
// over one redis-server (started here on a free loopback port); one world runs on process a.
// Client L is on a; client D on b, relayed to a over the direct link between them; client P
// on c, which runs with `--relay redis`, relayed through Redis pub/sub. Each sends N messages
// one at a time that the world's process answers at once (an unknown type: its error reply),
// and each round trip is timed. L's round trip is the baseline; D's and P's cross the relay
// twice (there and back). Each process's record says how many relay messages it sent each way.
//   node tests/bench/cluster_bench.js build/tycho [N]
'use strict';
const clusterLib = require('../server/cluster_lib.js');

if (!clusterLib.hasRedis()) {
  console.log('SKIP: redis-server is not installed');
  process.exit(77);
}
const N = Number(process.argv[3] || 2000);
const { startRedis, freePort, startNode, hello, killAll, tmp, redisCli } = clusterLib(process.argv[2] || 'build/tycho');

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
  const c = await startNode('c', redisPort, ['--relay', 'redis']);
  const maker = await hello(a.port, 'maker');
  maker.send({ t: 'create_world', name: 'bench', seed: 1, gameMode: 'creative' });
  const list = await maker.next((m) => m.t === 'world_list' && m.worlds.length > 0);
  const worldId = list.worlds[0].id;
  const L = await hello(a.port, 'local');
  L.send({ t: 'join_world', worldId });
  await L.next('welcome', 10000);
  await linksUp(redisPort, ['a', 'b']); // a world's relay picks its way when the client joins
  const D = await hello(b.port, 'direct');
  D.send({ t: 'join_world', worldId });
  await D.next('welcome', 10000);
  const P = await hello(c.port, 'pubsub');
  P.send({ t: 'join_world', worldId });
  await P.next('welcome', 10000);
  for (const cl of [L, D, P]) await roundTrips(cl); // warm every path
  const local = await roundTrips(L);
  const direct = await roundTrips(D);
  const pubsub = await roundTrips(P);
  const sent = await sentEachWay(redisPort);
  const p50 = [local, direct, pubsub].map((t) => pct(t, 0.5));
  const p99 = [local, direct, pubsub].map((t) => pct(t, 0.99));
  const row = (name, i) => console.log(`${name.padEnd(44)} p50 ${p50[i].toFixed(0)} us  p99 ${p99[i].toFixed(0)} us`);
  console.log(`cluster_bench: ${N} round trips each, message answered by the world's process`);
  row("client on the world's process (baseline)", 0);
  row('client relayed over the direct link', 1);
  row('client relayed through Redis pub/sub', 2);
  console.log(`added by the relay, one way (p50): direct ${((p50[1] - p50[0]) / 2).toFixed(0)} us, pub/sub ${((p50[2] - p50[0]) / 2).toFixed(0)} us`);
  console.log(`ratio relayed/local round trip (p50)         direct ${(p50[1] / p50[0]).toFixed(2)}x, pub/sub ${(p50[2] / p50[0]).toFixed(2)}x`);
  console.log(`ratio pub/sub/direct round trip (p50)        ${(p50[2] / p50[1]).toFixed(2)}x`);
  console.log(`relay messages sent (link / redis): ${Object.entries(sent).map(([n, s]) => `${n} ${s}`).join(', ')}`);
  if (!(sent.b && /^[1-9]\d* \/ /.test(sent.b))) throw new Error('b relayed nothing over its link: ' + JSON.stringify(sent));
}

// The node records in Redis, by node name.
function records(redisPort) {
  const keys = redisCli(redisPort, 'KEYS', 'tycho:crafty:node:*').split('\n').filter(Boolean);
  const out = {};
  for (const k of keys) {
    const r = JSON.parse(redisCli(redisPort, 'GET', k));
    out[r.node] = r;
  }
  return out;
}

// Waits until each named process's record shows the relay messages it sent over links, as
// "link / redis". (Records are written every 0.75 s.)
async function sentEachWay(redisPort) {
  await new Promise((r) => setTimeout(r, 1000));
  const out = {};
  for (const [name, r] of Object.entries(records(redisPort))) out[name] = `${r.sentLink} / ${r.sentRedis}`;
  return out;
}

// Waits until the named processes' links to each other are up (their records say so).
async function linksUp(redisPort, names) {
  for (let i = 0; i < 80; i++) {
    const rs = records(redisPort);
    if (names.every((n) => rs[n] && rs[n].linksUp >= names.length - 1)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the links never came up: ' + JSON.stringify(records(redisPort)));
}

main().then(() => { killAll(); require('fs').rmSync(tmp, { recursive: true, force: true }); process.exit(0); },
  (e) => { console.log(e.stack || e); killAll(); process.exit(1); });
