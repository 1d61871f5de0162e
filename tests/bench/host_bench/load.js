// tests/bench/host_bench/load.js: the load generator of tests/bench/host_bench.sh, apart from
// the server it measures. It connects N clients into R crafty rooms (tycho serve's /crafty, or
// the Colyseus peer in colyseus_server.js) through W worker processes (load_worker.js), each
// holding whole rooms, lets them sit idle, then has every client send transforms at HZ while
// one client per room places and breaks a block EDIT_HZ times a second. It reads the server's
// CPU time and RSS from /proc/PID and prints one JSON line of results:
//   node load.js tycho|colyseus PORT SERVER_PID [clients=1000] [rooms=50] [seconds=20] [hz=20] [workers]
// PORT and SERVER_PID may be comma-separated lists (tycho only): the processes of one cluster
// (tycho serve --redis). The worlds are made on the first; the k-th member of each room joins
// process k % N, so every room spans processes and its traffic is relayed between them. CPU
// and RSS are then summed over the processes, and each process's own figures (its CPU, and the
// WebSocket messages in and out per second that its /_monitor/api counts) are listed.
// RSS per idle connection is measured apart from the rooms' own memory: the RSS once one
// member of each room has joined (the worlds loaded) is the base, and the growth from there to
// every client connected is divided by the clients that joined after the first of their room.
// The idle wait before the idle RSS is read and the warm-up before the measured window are
// TYCHO_BENCH_IDLE_MS (3000) and TYCHO_BENCH_WARMUP_MS (2000): shorter ones only for a quick
// check that the bench still runs (ctest bench.host_bench), not for figures.
// Edit latency is from the editor's send to each other room member's receipt of the
// block_edit, both in the same worker; the worker's own event-loop delay over the window
// (generatorLagMs: each worker's p50/p99/max, and the worst of them) is reported beside it,
// since a receipt can wait that long in the generator before it is timed.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { fork } = require('child_process');
const WebSocket = require('ws');

const [kind, portArg, pidArg, clientsArg, roomsArg, secondsArg, hzArg, workersArg] = process.argv.slice(2);
const PORTS = String(portArg).split(',').map(Number);
const PIDS = String(pidArg).split(',').map(Number);
const PORT = PORTS[0];
const CLIENTS = Number(clientsArg || 1000);
const ROOMS = Number(roomsArg || 50);
const SECONDS = Number(secondsArg || 20);
const HZ = Number(hzArg || 20);
// Enough event loops that none is the bottleneck, and no more rooms' worth than there are.
const WORKERS = Math.max(1, Math.min(ROOMS, Number(workersArg || Math.max(2, os.cpus().length))));
const WARMUP_MS = Number(process.env.TYCHO_BENCH_WARMUP_MS || 2000);
const IDLE_MS = Number(process.env.TYCHO_BENCH_IDLE_MS || 3000);
const CLK_TCK = 100; // USER_HZ: /proc/PID/stat counts in 1/100 s on Linux

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => Number(process.hrtime.bigint()) / 1e6; // ms

// utime and stime (fields 14 and 15) in seconds: the process's own code, and the kernel's
// work for it (on loopback that includes the receiving side of every byte it sends).
function cpuSplitOf(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]) / CLK_TCK, system: Number(f[12]) / CLK_TCK };
}

function cpuSecondsOf(pid) {
  const c = cpuSplitOf(pid);
  return c.user + c.system;
}

function rssBytesOf(pid) {
  const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(m[1]) * 1024;
}

const cpuSeconds = () => PIDS.reduce((n, pid) => n + cpuSecondsOf(pid), 0);
const userSeconds = () => PIDS.reduce((n, pid) => n + cpuSplitOf(pid).user, 0);
const rssBytes = () => PIDS.reduce((n, pid) => n + rssBytesOf(pid), 0);

// A tycho process's own record in its /_monitor/api: its message rates (per second, oldest
// first, one a second) and, in a cluster, the relay messages it sent over links and through Redis.
function monitorRecord(port) {
  return new Promise((resolve) => {
    require('http').get({ host: '127.0.0.1', port, path: '/_monitor/api' }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => {
        try {
          const api = JSON.parse(body);
          resolve(api.processes.find((p) => p.node === api.node) || api.processes[0]);
        } catch (e) { resolve(null); }
      });
    }).on('error', () => resolve(null));
  });
}

function percentile(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

// ---- tycho serve /crafty: the worlds, made before the workers join ----

// crafty lets one connection make CREATE_BURST worlds at once and then one every 2 s, and a
// server keep at most MAX_WORLDS (server/modules/crafty.lua): the setup opens one admin
// connection per CREATE_BURST worlds, one after the other, so it stays within both limits
// without waiting on the rate.
const CREATE_BURST = 3;
const MAX_WORLDS = 256;

function tychoOpen() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${PORT}/crafty`, { perMessageDeflate: false });
    const c = { ws, waiters: [] };
    ws.on('message', (data) => {
      const m = JSON.parse(data);
      const w = c.waiters[0];
      if (w && (m.t === w.t || m.t === 'error')) { c.waiters.shift(); w.resolve(m); }
    });
    ws.on('open', () => resolve(c));
    ws.on('error', reject);
  });
}

function tychoNext(c, t) { return new Promise((resolve) => c.waiters.push({ t, resolve })); }
function tychoSend(c, m) { c.ws.send(JSON.stringify(m)); }
async function tychoExpect(c, t, what) {
  const m = await tychoNext(c, t);
  if (m.t !== t) throw new Error(`${what} refused: ${JSON.stringify(m)}`);
  return m;
}

async function tychoSetup() {
  if (ROOMS > MAX_WORLDS) throw new Error(`crafty keeps at most ${MAX_WORLDS} worlds: ask for fewer rooms`);
  let list;
  for (let first = 0; first < ROOMS; first += CREATE_BURST) {
    const admin = await tychoOpen();
    tychoSend(admin, { t: 'hello', playerKey: `bench-admin-${first / CREATE_BURST}`, name: 'admin', version: 1 });
    await tychoExpect(admin, 'world_list', 'hello');
    for (let i = first; i < Math.min(ROOMS, first + CREATE_BURST); i++) {
      tychoSend(admin, { t: 'create_world', name: `bench-${i}`, seed: i, gameMode: 'creative' });
      list = await tychoExpect(admin, 'world_list', `create_world bench-${i}`);
    }
    await new Promise((resolve) => { admin.ws.once('close', resolve); admin.ws.close(); });
  }
  if (list.worlds.length < ROOMS) throw new Error(`made ${list.worlds.length} of ${ROOMS} worlds`);
  return list.worlds.slice(0, ROOMS).map((w) => w.id);
}

// ---- the workers ----

const workers = [];

function spawnWorkers() {
  for (let w = 0; w < WORKERS; w++) {
    const child = fork(path.join(__dirname, 'load_worker.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.waiting = null;
    child.on('message', (m) => { if (child.waiting && m.ev === child.waiting.ev) { const r = child.waiting; child.waiting = null; r.resolve(m); } });
    child.on('exit', (code) => {
      if (code && child.waiting) child.waiting.reject(new Error(`load worker ${w} exited with ${code}`));
    });
    workers.push(child);
  }
}

function ask(child, msg, ev) {
  return new Promise((resolve, reject) => { child.waiting = { ev, resolve, reject }; child.send(msg); });
}

async function main() {
  if (kind !== 'tycho' && PORTS.length > 1) throw new Error('several processes: tycho only');
  const rssBase = rssBytes();
  const t0 = now();
  const worlds = kind === 'tycho' ? await tychoSetup() : null;
  spawnWorkers();
  // Client i is in room i % ROOMS, and room r lives in worker r % WORKERS. The first member of
  // every room joins first: the RSS then holds the rooms, and what the rest add is theirs.
  const joinPhase = (first) => Promise.all(workers.map((child, w) => {
    const mine = [];
    for (let i = 0; i < CLIENTS; i++) if ((i % ROOMS) % WORKERS === w && (i < ROOMS) === first) mine.push(i);
    return ask(child, { cmd: 'join', kind, ports: PORTS, hz: HZ, rooms: ROOMS, clients: mine, worlds, workers: WORKERS,
      batch: kind === 'tycho' ? 100 : 50 }, 'joined');
  }));
  const firsts = await joinPhase(true);
  await sleep(IDLE_MS / 3);
  const rssRooms = rssBytes();
  const joined = firsts.concat(await joinPhase(false));
  const clients = joined.reduce((n, m) => n + m.clients, 0);
  const connectMs = now() - t0;
  await sleep(IDLE_MS);
  const rssIdle = rssBytes();
  const later = clients - Math.min(ROOMS, clients); // clients that joined a room already loaded

  for (const child of workers) child.send({ cmd: 'start' });
  await sleep(WARMUP_MS);
  for (const child of workers) child.send({ cmd: 'measure' });
  const cpu0 = cpuSeconds();
  const user0 = userSeconds();
  const cpuEach0 = PIDS.map(cpuSecondsOf);
  const w0 = now();
  await sleep(SECONDS * 1000);
  const cpu1 = cpuSeconds();
  const user1 = userSeconds();
  const cpuEach1 = PIDS.map(cpuSecondsOf);
  const wall = (now() - w0) / 1000;
  const rssLoad = rssBytes();
  // Each process's whole seconds inside the window, from its own counters.
  const records = kind === 'tycho' ? await Promise.all(PORTS.map(monitorRecord)) : PORTS.map(() => null);
  const results = await Promise.all(workers.map((child) => ask(child, { cmd: 'stop' }, 'stats')));

  const sum = (k) => results.reduce((n, r) => n + r[k], 0);
  const sent = sum('sent'), received = sum('received');
  const cpu = cpu1 - cpu0;
  const lat = [].concat(...results.map((r) => r.latencies)).sort((a, b) => a - b);
  const lags = results.map((r) => r.lagMs);
  const worst = (k) => Math.max(...lags.map((l) => l[k]));
  const msgs = sent + received;
  const round2 = (x) => (x == null ? null : +x.toFixed(2));
  const usPerMessage = cpu * 1e6 / sent;
  const processes = PIDS.map((pid, k) => {
    const rec = records[k];
    const r = rec && rec.rates ? rec.rates.slice(-Math.max(1, Math.floor(wall) - 1)) : [];
    const avg = (j) => (r.length ? Math.round(r.reduce((n, x) => n + x[j], 0) / r.length) : null);
    const c = cpuEach1[k] - cpuEach0[k];
    return { pid, port: PORTS[k], cpuShare: +(c / wall).toFixed(3), messagesInPerSec: avg(0), messagesOutPerSec: avg(1),
      relaySentLink: rec ? rec.sentLink : undefined, relaySentRedis: rec ? rec.sentRedis : undefined,
      rssLoadKiB: Math.round(rssBytesOf(pid) / 1024) };
  });
  const out = {
    server: kind, processes: PIDS.length, clients, rooms: ROOMS, hz: HZ, seconds: +wall.toFixed(2), cores: os.cpus().length,
    generatorWorkers: WORKERS,
    connectSeconds: +(connectMs / 1000).toFixed(2),
    sentPerSec: Math.round(sent / wall), receivedPerSec: Math.round(received / wall),
    edits: sum('edits'), errors: sum('errors'),
    cpuSeconds: +cpu.toFixed(2), cpuShare: +(cpu / wall).toFixed(3),
    cpuUsPerClientMessage: round2(usPerMessage),
    userUsPerClientMessage: round2((user1 - user0) * 1e6 / sent),
    systemUsPerClientMessage: round2((cpu - (user1 - user0)) * 1e6 / sent),
    messagesPerCpuSecond: Math.round(msgs / cpu),
    connectionsPerCoreAtHz: Math.round(clients / (cpu / wall)),
    // Each connection sends 20 messages a second, and each costs the CPU measured per client
    // message here (its fan-out to this run's room size included).
    connectionsPerCoreAt20Hz: Math.round(1e6 / (usPerMessage * 20)),
    rssBaseKiB: Math.round(rssBase / 1024), rssRoomsKiB: Math.round(rssRooms / 1024), rssIdleKiB: Math.round(rssIdle / 1024),
    rssLoadKiB: Math.round(rssLoad / 1024),
    idleBytesPerConnection: later > 0 ? Math.round((rssIdle - rssRooms) / later) : null,
    idleBytesPerConnectionRoomsIncluded: Math.round((rssIdle - rssBase) / clients),
    roomBytes: Math.round((rssRooms - rssBase) / Math.min(ROOMS, clients)),
    loadedBytesPerConnection: Math.round((rssLoad - rssBase) / clients),
    editReceipts: lat.length,
    editLatencyMs: { p50: round2(percentile(lat, 0.5)), p99: round2(percentile(lat, 0.99)), max: round2(lat[lat.length - 1]) },
    generatorLagMs: { p50: worst('p50'), p99: worst('p99'), max: worst('max'), perWorker: lags },
    generatorLagMsP99: worst('p99'),
    generatorCpuShare: +(sum('cpuSeconds') / wall).toFixed(3),
    perProcess: processes,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`load.js: ${err && err.stack || err}\n`);
  for (const child of workers) child.kill();
  process.exit(1);
});
