// tests/bench/host_bench/load.js: the load generator of tests/bench/host_bench.sh, a process
// apart from the server it measures. It connects N clients into R crafty rooms (tycho serve's
// /crafty, or the Colyseus peer in colyseus_server.js), lets them sit idle, then has every
// client send transforms at HZ while one client per room places and breaks a block EDIT_HZ
// times a second. It reads the server's CPU time and RSS from /proc/PID and prints one JSON
// line of results:
//   node load.js tycho|colyseus PORT SERVER_PID [clients=1000] [rooms=50] [seconds=20] [hz=20]
// Latency is from the editor's send to each other room member's receipt of the block_edit,
// both clocks being this process's (so the generator's own event-loop delay is included).
'use strict';
const fs = require('fs');
const os = require('os');
const WebSocket = require('ws');

const [kind, portArg, pidArg, clientsArg, roomsArg, secondsArg, hzArg] = process.argv.slice(2);
const PORT = Number(portArg);
const PID = Number(pidArg);
const CLIENTS = Number(clientsArg || 1000);
const ROOMS = Number(roomsArg || 50);
const SECONDS = Number(secondsArg || 20);
const HZ = Number(hzArg || 20);
const EDIT_HZ = 2;
const WARMUP_MS = 2000;
const IDLE_MS = 3000;
const CLK_TCK = 100; // USER_HZ: /proc/PID/stat counts in 1/100 s on Linux

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => Number(process.hrtime.bigint()) / 1e6; // ms

function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK; // utime, stime (fields 14, 15)
}

function rssBytes(pid) {
  const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(m[1]) * 1024;
}

function percentile(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

const stats = { sent: 0, received: 0, edits: 0, errors: 0, latencies: [], measuring: false };
const editSentAt = new Map(); // room:type -> ms

function onEdit(client, m) {
  if (m.author === client.playerId) return;
  const at = editSentAt.get(`${client.room}:${m.type}`);
  if (at !== undefined && stats.measuring) stats.latencies.push(now() - at);
}

// ---- tycho serve /crafty: raw ws, JSON text frames ----

function tychoOpen() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${PORT}/crafty`, { perMessageDeflate: false });
    const c = { ws, waiters: [] };
    ws.on('message', (data) => {
      stats.received++;
      // Only edits, welcomes and lists are parsed: transforms are counted, not read.
      if (c.waiters.length) {
        const m = JSON.parse(data);
        const w = c.waiters[0];
        if (m.t === w.t || m.t === 'error') { c.waiters.shift(); w.resolve(m); }
        return;
      }
      if (data.includes('"block_edit"')) onEdit(c, JSON.parse(data));
      else if (data.includes('"error"')) stats.errors++;
    });
    ws.on('open', () => resolve(c));
    ws.on('error', reject);
  });
}

function tychoNext(c, t) { return new Promise((resolve) => c.waiters.push({ t, resolve })); }
function tychoSend(c, m) { c.ws.send(JSON.stringify(m)); }

async function tychoSetup() {
  const admin = await tychoOpen();
  tychoSend(admin, { t: 'hello', playerKey: 'bench-admin', name: 'admin', version: 1 });
  await tychoNext(admin, 'world_list');
  let list;
  for (let i = 0; i < ROOMS; i++) {
    tychoSend(admin, { t: 'create_world', name: `bench-${i}`, seed: i, gameMode: 'creative' });
    list = await tychoNext(admin, 'world_list');
  }
  admin.ws.close();
  return list.worlds.slice(0, ROOMS).map((w) => w.id);
}

async function tychoJoin(i, worlds) {
  const c = await tychoOpen();
  c.room = i % ROOMS;
  tychoSend(c, { t: 'hello', playerKey: `bench-${i}`, name: `p${i}`, version: 1 });
  await tychoNext(c, 'world_list');
  tychoSend(c, { t: 'join_world', worldId: worlds[c.room] });
  const welcome = await tychoNext(c, 'welcome');
  if (welcome.t !== 'welcome') throw new Error(`join refused: ${JSON.stringify(welcome)}`);
  c.playerId = welcome.playerId;
  c.send = (m) => tychoSend(c, m);
  return c;
}

// ---- Colyseus: its own client library (matchmaking over HTTP, then its binary protocol) ----

let Colyseus;
async function colyseusJoin(i) {
  Colyseus = Colyseus || require('colyseus.js');
  const client = new Colyseus.Client(`ws://127.0.0.1:${PORT}`);
  const room = await client.joinOrCreate('crafty', { world: i % ROOMS });
  const c = { room: i % ROOMS, playerId: room.sessionId };
  room.onMessage('*', (type, m) => {
    stats.received++;
    if (type === 'block_edit') onEdit(c, m);
  });
  c.send = (m) => room.send(m.t, m);
  c.close = () => room.leave();
  return c;
}

// ---- the run ----

async function inBatches(n, size, fn) {
  const out = [];
  for (let i = 0; i < n; i += size) {
    const batch = [];
    for (let j = i; j < Math.min(n, i + size); j++) batch.push(fn(j));
    out.push(...(await Promise.all(batch)));
  }
  return out;
}

async function main() {
  const rssBase = rssBytes(PID);
  let clients;
  const t0 = now();
  if (kind === 'tycho') {
    const worlds = await tychoSetup();
    clients = await inBatches(CLIENTS, 100, (i) => tychoJoin(i, worlds));
  } else {
    // One join per room first, so that the later concurrent joins find the room (not make more).
    const first = await inBatches(ROOMS, 1, (i) => colyseusJoin(i));
    const rest = await inBatches(CLIENTS - ROOMS, 50, (i) => colyseusJoin(i + ROOMS));
    clients = first.concat(rest);
  }
  const connectMs = now() - t0;
  await sleep(IDLE_MS);
  const rssIdle = rssBytes(PID);

  // The editor of each room stands at (0.5, 66, 0.5) and toggles the block at (0, 65, 0):
  // within reach, on the ground, so every edit passes crafty's validation.
  const editors = new Set();
  for (const c of clients) if (!editors.has(c.room)) { editors.add(c.room); c.editor = true; }
  const timers = [];
  for (const c of clients) {
    let n = 0;
    const base = c.editor ? { x: 0.5, y: 66, z: 0.5 } : { x: 64 + Math.random() * 8, y: 80, z: 64 + Math.random() * 8 };
    const tick = () => {
      n++;
      c.send({ t: 'transform', x: base.x + (c.editor ? 0 : Math.sin(n / 10)), y: base.y, z: base.z, yaw: n % 6, pitch: 0 });
      if (stats.measuring) stats.sent++;
    };
    timers.push(setTimeout(() => { tick(); timers.push(setInterval(tick, 1000 / HZ)); }, Math.random() * (1000 / HZ)));
    if (c.editor) {
      let placed = false;
      const edit = () => {
        const type = placed ? 0 : 1;
        placed = !placed;
        editSentAt.set(`${c.room}:${type}`, now());
        c.send({ t: 'block_edit', action: type ? 'place' : 'break', x: 0, y: 65, z: 0, type: type || undefined });
        if (stats.measuring) { stats.sent++; stats.edits++; }
      };
      timers.push(setTimeout(() => timers.push(setInterval(edit, 1000 / EDIT_HZ)), 200 + Math.random() * 500));
    }
  }
  await sleep(WARMUP_MS);
  stats.sent = stats.received = stats.edits = stats.errors = 0;
  stats.latencies = [];
  stats.measuring = true;
  const cpu0 = cpuSeconds(PID);
  const w0 = now();
  const lag = [];
  const lagTimer = setInterval(() => { const t = now(); setImmediate(() => lag.push(now() - t)); }, 100);
  await sleep(SECONDS * 1000);
  const cpu1 = cpuSeconds(PID);
  const wall = (now() - w0) / 1000;
  stats.measuring = false;
  const rssLoad = rssBytes(PID);
  clearInterval(lagTimer);
  for (const t of timers) { clearInterval(t); clearTimeout(t); }

  const cpu = cpu1 - cpu0;
  const lat = stats.latencies.sort((a, b) => a - b);
  lag.sort((a, b) => a - b);
  const msgs = stats.sent + stats.received;
  const out = {
    server: kind, clients: clients.length, rooms: ROOMS, hz: HZ, seconds: +wall.toFixed(2), cores: os.cpus().length,
    connectSeconds: +(connectMs / 1000).toFixed(2),
    sentPerSec: Math.round(stats.sent / wall), receivedPerSec: Math.round(stats.received / wall),
    edits: stats.edits, errors: stats.errors,
    cpuSeconds: +cpu.toFixed(2), cpuShare: +(cpu / wall).toFixed(3),
    cpuUsPerClientMessage: +(cpu * 1e6 / stats.sent).toFixed(2),
    messagesPerCpuSecond: Math.round(msgs / cpu),
    connectionsPerCoreAtHz: Math.round(clients.length / (cpu / wall)),
    rssBaseKiB: Math.round(rssBase / 1024), rssIdleKiB: Math.round(rssIdle / 1024), rssLoadKiB: Math.round(rssLoad / 1024),
    idleBytesPerConnection: Math.round((rssIdle - rssBase) / clients.length),
    loadedBytesPerConnection: Math.round((rssLoad - rssBase) / clients.length),
    editReceipts: lat.length,
    editLatencyMs: { p50: percentile(lat, 0.5), p99: percentile(lat, 0.99), max: lat[lat.length - 1] || null },
    generatorLagMsP99: percentile(lag, 0.99),
  };
  for (const k of ['p50', 'p99', 'max']) if (out.editLatencyMs[k] != null) out.editLatencyMs[k] = +out.editLatencyMs[k].toFixed(2);
  if (out.generatorLagMsP99 != null) out.generatorLagMsP99 = +out.generatorLagMsP99.toFixed(2);
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(0);
}

main().catch((err) => { process.stderr.write(`load.js: ${err && err.stack || err}\n`); process.exit(1); });
