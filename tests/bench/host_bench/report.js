// tests/bench/host_bench/report.js: host_bench.sh's summary. Reads the result lines load.js
// wrote for tycho and for Colyseus, takes the median of each figure over the runs, prints both
// side by side, the ratio of messages per CPU-second, and each target of the host's issue.
//   node report.js tycho.jsonl colyseus.jsonl
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
  ['messagesPerCpuSecond', 'messages in+out per CPU-second'],
  ['connectionsPerCoreAtHz', 'connections per core at this rate'],
  ['editLatencyMs.p50', 'edit fan-out p50 (ms, raw)'],
  ['editLatencyMs.p99', 'edit fan-out p99 (ms, raw)'],
  ['generatorLagMs.p50', 'generator event-loop lag p50 (ms, worst worker)'],
  ['generatorLagMsP99', 'generator event-loop lag p99 (ms, worst worker)'],
  ['generatorWorkers', 'generator worker processes'],
  ['generatorCpuShare', 'generator CPU (cores busy)'],
  ['idleBytesPerConnection', 'RSS per idle connection (bytes)'],
  ['loadedBytesPerConnection', 'RSS per connection under load (bytes)'],
  ['errors', 'error replies'],
];

const ty = read(process.argv[2]);
const co = read(process.argv[3]);
const a = summary(ty), b = summary(co);
const fmt = (v) => (v == null ? '-' : String(Math.round(v * 100) / 100));
console.log(`medians over ${ty.length} tycho run(s) and ${co.length} Colyseus run(s)`);
console.log(`${'figure'.padEnd(42)}${'tycho'.padStart(12)}${'colyseus'.padStart(12)}`);
for (const [k, label] of ROWS) console.log(`${label.padEnd(42)}${fmt(a[k]).padStart(12)}${fmt(b[k]).padStart(12)}`);
const ratio = a.messagesPerCpuSecond / b.messagesPerCpuSecond;
console.log(`ratio tycho/colyseus, messages per CPU-second: ${ratio.toFixed(2)}x`);
const check = (ok, what) => console.log(`${ok ? 'meets' : 'MISSES'}  ${what}`);
check(a.connectionsPerCoreAtHz >= 5000, `>= 5000 connections per core at 20 Hz (${fmt(a.connectionsPerCoreAtHz)})`);
check(a.idleBytesPerConnection <= 5120, `<= 5 KB per idle connection (${fmt(a.idleBytesPerConnection)} B)`);
// The raw figure holds the generator's own delay too: its lag p99 is printed beside it.
check(a['editLatencyMs.p99'] <= 5,
  `p99 edit fan-out <= 5 ms (${fmt(a['editLatencyMs.p99'])} ms raw; generator lag p99 ${fmt(a.generatorLagMsP99)} ms)`);
check(ratio >= 3, `>= 3x Colyseus messages per CPU-second (${ratio.toFixed(2)}x)`);
