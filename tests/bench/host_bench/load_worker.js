// tests/bench/host_bench/load_worker.js: one process of load.js's generator. It holds whole
// rooms (every member and the room's editor), so an edit's send and its receipts are timed on
// one clock by one event loop, and it measures that loop's own delay over the same window:
// a receipt that waited behind other work here shows up in both figures. load.js forks it
// and drives it over IPC:
//   load.js -> {cmd: 'join', ...config}   worker -> {ev: 'joined', clients} (may come again: more join)
//   load.js -> {cmd: 'start'}             (transforms and edits begin)
//   load.js -> {cmd: 'measure'}           (counters reset, lag histogram on)
//   load.js -> {cmd: 'stop'}              worker -> {ev: 'stats', ...}, then it exits
'use strict';
const { monitorEventLoopDelay } = require('perf_hooks');
const WebSocket = require('ws');

const EDIT_HZ = 2;
// process.hrtime is CLOCK_MONOTONIC: one clock for every process on the machine.
const now = () => Number(process.hrtime.bigint()) / 1e6; // ms

let cfg; // {kind, ports, hz, rooms, clients: [index...], worlds}
const stats = { sent: 0, received: 0, edits: 0, errors: 0, latencies: [], measuring: false };
const editSentAt = new Map(); // room:type -> ms

function onEdit(client, m) {
  if (m.author === client.playerId) return;
  const at = editSentAt.get(`${client.room}:${m.type}`);
  if (at !== undefined && stats.measuring) stats.latencies.push(now() - at);
}

// ---- tycho serve /crafty: raw ws, JSON text frames ----

function tychoOpen(port) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/crafty`, { perMessageDeflate: false });
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
      if (data.includes('"t":"players"')) {
        // One list per world and flush: it counts as the player_transform messages it stands
        // for (one per other player in it), as Colyseus's per-mover broadcasts are counted.
        const m = JSON.parse(data);
        stats.received += m.players.filter((p) => p.playerId !== c.playerId).length - 1;
      } else if (data.includes('"block_edit"')) onEdit(c, JSON.parse(data));
      else if (data.includes('"error"')) stats.errors++;
    });
    ws.on('open', () => resolve(c));
    ws.on('error', reject);
  });
}

function tychoNext(c, t) { return new Promise((resolve) => c.waiters.push({ t, resolve })); }
function tychoSend(c, m) { c.ws.send(JSON.stringify(m)); }

// The k-th member of a room joins the k-th process (of one, or of a cluster's several).
async function tychoJoin(i) {
  const c = await tychoOpen(cfg.ports[Math.floor(i / cfg.rooms) % cfg.ports.length]);
  c.room = i % cfg.rooms;
  tychoSend(c, { t: 'hello', playerKey: `bench-${i}`, name: `p${i}`, version: 1 });
  await tychoNext(c, 'world_list');
  tychoSend(c, { t: 'join_world', worldId: cfg.worlds[c.room] });
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
  const client = new Colyseus.Client(`ws://127.0.0.1:${cfg.ports[0]}`);
  const room = await client.joinOrCreate('crafty', { world: i % cfg.rooms });
  const c = { room: i % cfg.rooms, playerId: room.sessionId };
  room.onMessage('*', (type, m) => {
    stats.received++;
    if (type === 'block_edit') onEdit(c, m);
  });
  c.send = (m) => room.send(m.t, m);
  return c;
}

async function inBatches(list, size, fn) {
  const out = [];
  for (let i = 0; i < list.length; i += size) out.push(...(await Promise.all(list.slice(i, i + size).map(fn))));
  return out;
}

// ---- the run ----

let clients = [];
const timers = [];
const LAG_RESOLUTION_MS = 2;
// Node's histogram holds each interval between its timer's runs: the lag is what is past it.
const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
let cpu0;

async function join() {
  const batch = Math.max(1, Math.ceil(cfg.batch / cfg.workers));
  let more;
  if (cfg.kind === 'tycho') {
    more = await inBatches(cfg.clients, batch, tychoJoin);
  } else {
    // This process's rooms are its own: one join each first, so that the later concurrent
    // joins find the room (not make more).
    const first = cfg.clients.filter((i) => i < cfg.rooms);
    const rest = cfg.clients.filter((i) => i >= cfg.rooms);
    more = (await inBatches(first, 1, colyseusJoin)).concat(await inBatches(rest, batch, colyseusJoin));
  }
  clients = clients.concat(more);
  process.send({ ev: 'joined', clients: more.length });
}

function start() {
  // The editor of each room stands at (0.5, 45, 0.5) and toggles the block at (0, 44, 0):
  // breaks it, puts it back. That cell is natural grass for every seed (engine/terrain's noise
  // is 0 at integer points, so the origin's ground is y = 44, and trees never stand on a
  // chunk's edge), so every edit passes crafty's validation against the terrain.
  const editors = new Set();
  for (const c of clients) if (!editors.has(c.room)) { editors.add(c.room); c.editor = true; }
  for (const c of clients) {
    let n = 0;
    const base = c.editor ? { x: 0.5, y: 45, z: 0.5 } : { x: 64 + Math.random() * 8, y: 80, z: 64 + Math.random() * 8 };
    const tick = () => {
      n++;
      c.send({ t: 'transform', x: base.x + (c.editor ? 0 : Math.sin(n / 10)), y: base.y, z: base.z, yaw: n % 6, pitch: 0 });
      if (stats.measuring) stats.sent++;
    };
    timers.push(setTimeout(() => { tick(); timers.push(setInterval(tick, 1000 / cfg.hz)); }, Math.random() * (1000 / cfg.hz)));
    if (c.editor) {
      let placed = true; // the natural grass block is there
      const edit = () => {
        const type = placed ? 0 : 1;
        placed = !placed;
        editSentAt.set(`${c.room}:${type}`, now());
        c.send({ t: 'block_edit', action: type ? 'place' : 'break', x: 0, y: 44, z: 0, type: type || undefined });
        if (stats.measuring) { stats.sent++; stats.edits++; }
      };
      timers.push(setTimeout(() => timers.push(setInterval(edit, 1000 / EDIT_HZ)), 200 + Math.random() * 500));
    }
  }
}

function measure() {
  stats.sent = stats.received = stats.edits = stats.errors = 0;
  stats.latencies = [];
  stats.measuring = true;
  lag.reset();
  lag.enable();
  cpu0 = process.cpuUsage();
}

function stop() {
  stats.measuring = false;
  lag.disable();
  const cpu = process.cpuUsage(cpu0);
  for (const t of timers) { clearInterval(t); clearTimeout(t); }
  const ms = (ns) => +Math.max(0, ns / 1e6 - LAG_RESOLUTION_MS).toFixed(2);
  process.send({
    ev: 'stats', sent: stats.sent, received: stats.received, edits: stats.edits, errors: stats.errors,
    latencies: stats.latencies, cpuSeconds: (cpu.user + cpu.system) / 1e6,
    lagMs: { p50: ms(lag.percentile(50)), p99: ms(lag.percentile(99)), max: ms(lag.max) },
  }, () => process.exit(0));
}

process.on('message', (msg) => {
  if (msg.cmd === 'join') {
    cfg = msg;
    join().catch((err) => { process.stderr.write(`load_worker: ${err && err.stack || err}\n`); process.exit(1); });
  } else if (msg.cmd === 'start') start();
  else if (msg.cmd === 'measure') measure();
  else if (msg.cmd === 'stop') stop();
});
process.on('disconnect', () => process.exit(0));
