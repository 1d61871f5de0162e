// tests/server/cluster_lib.js: what the cluster test and bench share: a redis-server and
// `tycho serve --redis` processes on free loopback ports (one --data folder), and a `ws`
// client that queues what it receives. Every process started is killed by killAll().
'use strict';
const path = require('path');
const fs = require('fs');
const os = require('os');
const net = require('net');
const { spawn, spawnSync } = require('child_process');
const WebSocket = require('ws');

const ROOT = path.resolve(__dirname, '../..');
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const hasRedis = () => has('redis-server') && has('redis-cli');

module.exports = function clusterLib(tychoPath) {
  const TYCHO = path.resolve(tychoPath);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tycho-cluster-'));
  const data = path.join(tmp, 'shared');
  const children = new Set();
  const killAll = () => { for (const p of children) p.kill('SIGKILL'); };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  // ---- processes ----

  function freePort() {
    return new Promise((resolve, reject) => {
      const srv = net.createServer();
      srv.on('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const { port } = srv.address();
        srv.close(() => resolve(port));
      });
    });
  }

  function canConnect(port) {
    return new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.on('connect', () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    });
  }

  async function startRedis(port) {
    const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
      '--dir', tmp], { stdio: 'ignore' });
    children.add(p);
    p.on('exit', () => children.delete(p));
    for (let i = 0; i < 100 && !(await canConnect(port)); i++) await sleep(50);
    return p;
  }

  function redisCli(port, ...args) {
    const r = spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });
    return r.stdout.trim();
  }

  // A `tycho serve` process: resolves once it listens, with its port and a log of its stderr.
  function startNode(name, redisPort, extra = []) {
    const args = ['serve', '--port', '0', '--data', data, '--modules', path.join(ROOT, 'server/modules'), '--no-watch',
      '--node', name, ...(redisPort ? ['--redis', `redis://127.0.0.1:${redisPort}`] : []), ...extra];
    const p = spawn(TYCHO, args, { env: { ...process.env, CRAFTY_WORLDS_PER_ADDRESS: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const node = { name, proc: p, log: '', port: 0, exited: null };
    children.add(p);
    return new Promise((resolve) => {
      const onData = (d) => {
        node.log += d;
        const m = /listening on 127\.0\.0\.1:(\d+)/.exec(node.log);
        if (m && !node.port) {
          node.port = Number(m[1]);
          resolve(node);
        }
      };
      p.stdout.on('data', onData);
      p.stderr.on('data', onData);
      p.on('exit', (code, signal) => {
        children.delete(p);
        node.exited = { code, signal };
        resolve(node);
      });
    });
  }

  // ---- clients ----

  class Client {
    static open(port, pathName = '/crafty') {
      return new Promise((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}${pathName}`);
        ws.on('open', () => resolve(new Client(ws)));
        ws.on('error', reject);
      });
    }
    constructor(ws) {
      this.ws = ws;
      this.msgs = [];
      this.closed = null;
      this.wake = () => {};
      ws.on('message', (d) => { this.msgs.push(JSON.parse(d.toString())); this.wake(); });
      ws.on('close', (code, reason) => { this.closed = { code, reason: reason.toString() }; this.wake(); });
      ws.on('error', () => {});
    }
    send(o) { this.ws.send(JSON.stringify(o)); }
    // The first message matching pred (a type name or a function), taken out of the queue.
    async next(pred, ms = 5000, what = String(pred)) {
      const match = typeof pred === 'string' ? (m) => m.t === pred : pred;
      const deadline = Date.now() + ms;
      for (;;) {
        const i = this.msgs.findIndex(match);
        if (i >= 0) return this.msgs.splice(i, 1)[0];
        if (this.closed) throw new Error(`closed (${this.closed.code} ${this.closed.reason}) while waiting for ${what}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out waiting for ${what}; queued: ${JSON.stringify(this.msgs).slice(0, 400)}`);
        await new Promise((r) => { this.wake = r; setTimeout(r, Math.min(left, 100)); });
      }
    }
    async waitClosed(ms = 8000) {
      const deadline = Date.now() + ms;
      while (!this.closed) {
        if (Date.now() > deadline) throw new Error('timed out waiting for the close');
        await new Promise((r) => { this.wake = r; setTimeout(r, 100); });
      }
      return this.closed;
    }
    close() { this.ws.close(); }
  }

  async function hello(port, key) {
    const c = await Client.open(port);
    c.send({ t: 'hello', playerKey: key, name: key, version: 1 });
    c.list = await c.next('world_list');
    return c;
  }

  // Asks for the list until pred(list) holds.
  async function listUntil(c, pred, ms = 6000) {
    const deadline = Date.now() + ms;
    for (;;) {
      c.send({ t: 'list_worlds' });
      const list = await c.next('world_list');
      if (pred(list)) return list;
      if (Date.now() > deadline) throw new Error('the world list never showed it: ' + JSON.stringify(list).slice(0, 300));
      await sleep(400);
    }
  }

  function surface(seed, x, z) {
    const file = path.join(tmp, 'surface.lua');
    fs.writeFileSync(file, `local t = tycho.terrain.new(${JSON.stringify(seed)})
  local cx, cz = ${x} // tycho.terrain.CX, ${z} // tycho.terrain.CZ
  print("SURFACE " .. t:chunk(cx, cz):top(${x} - cx * tycho.terrain.CX, ${z} - cz * tycho.terrain.CZ))\n`);
    const r = spawnSync(TYCHO, ['run', file, '--headless', '--frames', '1'], { encoding: 'utf8' });
    return Number(/SURFACE (\d+)/.exec(r.stdout + r.stderr)[1]);
  }
  // A TCP proxy in front of Redis that can misbehave: mode 'pass' forwards, 'garbage' answers
  // the next command with bytes that are no Redis reply, 'hang' forwards nothing either way.
  function startProxy(target) {
    return new Promise((resolve) => {
      // mode: pass, garbage (answers with bytes that are not Redis's), hang (passes nothing);
      // delayMs: in pass mode, Redis's answers are held this long (in order).
      const proxy = { mode: 'pass', port: 0, delayMs: 0 };
      const srv = net.createServer((client) => {
        const upstream = net.connect(target, '127.0.0.1');
        client.on('data', (d) => { if (proxy.mode !== 'hang') upstream.write(d); });
        upstream.on('data', (d) => {
          if (proxy.mode === 'garbage') client.write('?? not redis \x00\r\n');
          else if (proxy.mode === 'pass' && proxy.delayMs > 0) setTimeout(() => client.destroyed || client.write(d), proxy.delayMs);
          else if (proxy.mode === 'pass') client.write(d);
        });
        const end = () => { client.destroy(); upstream.destroy(); };
        client.on('error', end); upstream.on('error', end); client.on('close', end); upstream.on('close', end);
      });
      srv.listen(0, '127.0.0.1', () => { proxy.port = srv.address().port; resolve(proxy); });
      proxy.close = () => srv.close();
    });
  }

  return { tmp, data, sleep, startProxy, freePort, startRedis, redisCli, startNode, Client, hello, listUntil, surface, killAll };
};
module.exports.hasRedis = hasRedis;
