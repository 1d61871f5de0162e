// tests/bench/host_bench/report.js: host_bench.sh's summary. Reads the result lines load.js
// wrote for tycho and for Colyseus, takes the median of each figure over the runs, prints both
// side by side, the ratio of messages per CPU-second, and each target of the host's issue.
//   node report.js tycho.jsonl colyseus.jsonl
// With --cluster, the lines of one tycho process and of a cluster of several instead: both
// side by side, each cluster process's own rates, and the ratio of messages per CPU-second.
//   node report.js --cluster tycho.jsonl cluster.jsonl
'use strict';
const fs = require('fs');

const read = (f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const median = (xs) => {
  const s = xs.filter((x) => x != null).sort((a, b) => a - b);
  if (!s.length) return null;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const get = (o, path) => path.split('.').reduce((v, k) => (v == null ? v : v[k]), o);
const summary = (runs) => {
  const out = {};
  for (const k of ROWS.map((r) => r[0])) out[k] = median(runs.map((r) => get(r, k)));
  return out;
};

const ROWS = [
  ['clients', 'connected clients'],
  ['sentPerSec', 'client messages in / s'],
  ['receivedPerSec', 'messages out / s (received by clients; a players list counts its entries)'],
  ['cpuShare', 'server CPU (cores busy)'],
  ['cpuUsPerClientMessage', 'server CPU per client message (us)'],
  ['userUsPerClientMessage', '... of it in the server\'s own code (us, user time)'],
  ['systemUsPerClientMessage', '... of it in the kernel (us, system time: sockets, both ends on loopback)'],
  ['messagesPerCpuSecond', 'messages in+out per CPU-second'],
  ['connectionsPerCoreAtHz', 'connections per core at this run\'s rate'],
  ['connectionsPerCoreAt20Hz', 'connections per core at 20 Hz (from CPU/message)'],
  ['editLatencyMs.p50', 'edit fan-out p50 (ms, raw)'],
  ['editLatencyMs.p99', 'edit fan-out p99 (ms, raw)'],
  ['generatorLagMs.p50', 'generator event-loop lag p50 (ms, worst worker)'],
  ['generatorLagMsP99', 'generator event-loop lag p99 (ms, worst worker)'],
  ['generatorWorkers', 'generator worker processes'],
  ['generatorCpuShare', 'generator CPU (cores busy)'],
  ['idleBytesPerConnection', 'RSS per idle connection (bytes, rooms apart)'],
  ['roomBytes', 'RSS per room, its first member included (bytes)'],
  ['idleBytesPerConnectionRoomsIncluded', 'RSS per idle connection, rooms included (bytes)'],
  ['loadedBytesPerConnection', 'RSS per connection under load (bytes)'],
  ['errors', 'error replies'],
];

const fmt = (v) => (v == null ? '-' : String(Math.round(v * 100) / 100));
const check = (ok, what) => console.log(`${ok ? 'meets' : 'MISSES'}  ${what}`);
const cores = (v) => `>= 5000 connections per core at 20 Hz: ${fmt(v)} (1e6 / (20 x CPU us per client message))`;

if (process.argv[2] === '--cluster') {
  const one = read(process.argv[3]), many = read(process.argv[4]);
  const a = summary(one), b = summary(many);
  const n = many[0].processes;
  console.log(`medians over ${one.length} run(s) of one tycho process and ${many.length} of a cluster of ${n}`);
  console.log(`${'figure'.padEnd(42)}${'1 process'.padStart(12)}${`cluster`.padStart(12)}`);
  for (const [k, label] of ROWS) console.log(`${label.padEnd(42)}${fmt(a[k]).padStart(12)}${fmt(b[k]).padStart(12)}`);
  // Each process of the cluster, from the last run: its own counters and CPU.
  for (const [k, p] of many[many.length - 1].perProcess.entries())
    console.log(`cluster process ${k + 1}: ${fmt(p.messagesInPerSec)} messages in / s, ${fmt(p.messagesOutPerSec)} out / s, ` +
      `CPU ${fmt(p.cpuShare)} cores, relay messages sent over links ${fmt(p.relaySentLink)}, through Redis ${fmt(p.relaySentRedis)}`);
  console.log(`cluster server CPU per client message, summed over ${n} processes: ${fmt(b.cpuUsPerClientMessage)} us`);
  const r = b.messagesPerCpuSecond / a.messagesPerCpuSecond;
  console.log(`ratio cluster/one process, messages per CPU-second: ${r.toFixed(2)}x`);
  check(b.connectionsPerCoreAt20Hz >= 5000, `cluster: ${cores(b.connectionsPerCoreAt20Hz)}`);
  process.exit(0);
}

const ty = read(process.argv[2]);
const co = read(process.argv[3]);
const a = summary(ty), b = summary(co);
console.log(`medians over ${ty.length} tycho run(s) and ${co.length} Colyseus run(s)`);
console.log(`${'figure'.padEnd(42)}${'tycho'.padStart(12)}${'colyseus'.padStart(12)}`);
for (const [k, label] of ROWS) console.log(`${label.padEnd(42)}${fmt(a[k]).padStart(12)}${fmt(b[k]).padStart(12)}`);
const ratio = a.messagesPerCpuSecond / b.messagesPerCpuSecond;
console.log(`ratio tycho/colyseus, messages per CPU-second: ${ratio.toFixed(2)}x`);
check(a.connectionsPerCoreAt20Hz >= 5000, cores(a.connectionsPerCoreAt20Hz));
check(a.idleBytesPerConnection != null && a.idleBytesPerConnection <= 5120,
  `<= 5 KB per idle connection: ${fmt(a.idleBytesPerConnection)} B (rooms apart; ${fmt(a.idleBytesPerConnectionRoomsIncluded)} B with them)`);
// The raw figure holds the generator's own delay too: its lag p99 is printed beside it.
check(a['editLatencyMs.p99'] <= 5,
  `p99 edit fan-out <= 5 ms (${fmt(a['editLatencyMs.p99'])} ms raw; generator lag p99 ${fmt(a.generatorLagMsP99)} ms)`);
check(ratio >= 6, `>= 6x Colyseus messages per CPU-second (${ratio.toFixed(2)}x)`);
