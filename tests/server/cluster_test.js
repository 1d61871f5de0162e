// tests/server/cluster_test.js: three `tycho serve --redis` processes over a real redis-server
// act as one crafty server, driven by plain `ws` clients (ctest server.cluster):
//   node tests/server/cluster_test.js build/tycho
// It starts redis-server on a free loopback port with persistence off, and the processes on
// free ports sharing one --data folder. Exit 77 (ctest: skipped) when redis-server is absent.
'use strict';
const fs = require('fs');
const clusterLib = require('./cluster_lib.js');

const SKIP = 77;
if (!clusterLib.hasRedis()) {
  console.log('SKIP: redis-server (Debian package redis-server) is not installed: the cluster test needs it');
  process.exit(SKIP);
}
const { tmp, sleep, startProxy, freePort, startRedis, redisCli, startNode, hello, listUntil, surface, killAll } =
  clusterLib(process.argv[2] || 'build/tycho');

// ---- the checks ----

const results = [];
async function check(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    results.push([true, name]);
    console.log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    results.push([false, name]);
    console.log(`FAIL ${name}: ${e.stack || e}`);
  }
}
function assert(cond, msg) { if (!cond) throw new Error(msg || 'assertion failed'); }

// The processes' records in Redis, by node name (written every 0.75 s).
function records(redisPort) {
  const out = {};
  for (const k of redisCli(redisPort, 'KEYS', 'tycho:crafty:node:*').split('\n').filter(Boolean)) {
    const text = redisCli(redisPort, 'GET', k);
    if (text) { const r = JSON.parse(text); out[r.node] = r; }
  }
  return out;
}

// Waits until the records in Redis pass pred; returns them.
async function recordsUntil(redisPort, pred, what, ms = 8000) {
  const deadline = Date.now() + ms;
  let rs;
  while (!pred(rs = records(redisPort))) {
    assert(Date.now() < deadline, `${what}: ${JSON.stringify(rs).slice(0, 1500)}`);
    await sleep(100);
  }
  return rs;
}

// Makes a creative world through a client of the process on port; its id.
async function makeWorld(port, name, seed) {
  const maker = await hello(port, 'maker');
  maker.send({ t: 'create_world', name, seed, gameMode: 'creative' });
  const list = await maker.next((m) => m.t === 'world_list' && m.worlds.some((w) => w.name === name));
  maker.close();
  return list.worlds.find((w) => w.name === name).id;
}

// Two joiners' welcomes: each joined the one instance of the world (one lists the other).
function assertOneInstance(wa, wb) {
  const together = wa.players.some((p) => p.playerId === wb.playerId) || wb.players.some((p) => p.playerId === wa.playerId);
  assert(together, 'the two joiners are in two instances: ' + JSON.stringify([wa.players, wb.players]));
}

// Waits until a node's log matches re (what a process logs reaches the test through a pipe,
// not in step with its sockets).
async function logged(node, re, ms = 3000) {
  const deadline = Date.now() + ms;
  while (!re.test(node.log)) {
    assert(Date.now() < deadline, `no ${re} in ${node.name}'s log:\n${node.log.slice(-3000)}`);
    await sleep(50);
  }
}

// One frame of a cluster link (server/link_frames.h): u32 length, u8 channel length, channel, payload.
function linkFrame(channel, payload) {
  const c = Buffer.from(channel), p = Buffer.from(payload);
  const head = Buffer.alloc(5);
  head.writeUInt32BE(1 + c.length + p.length, 0);
  head[4] = c.length;
  return Buffer.concat([head, c, p]);
}

// Connects to a link address, writes bytes, resolves when the process closes the socket.
function linkPoke(address, bytes) {
  const m = /^(.*):(\d+)$/.exec(address);
  return new Promise((resolve, reject) => {
    const sock = require('net').connect(Number(m[2]), m[1], () => sock.write(bytes));
    const timer = setTimeout(() => { sock.destroy(); reject(new Error('the link was not dropped')); }, 8000);
    sock.on('data', () => {});
    sock.on('error', () => {});
    sock.on('close', () => { clearTimeout(timer); resolve(); });
  });
}

async function main() {
  const redisPort = await freePort();
  let redis = await startRedis(redisPort);
  const nodes = {};
  for (const n of ['a', 'b', 'c']) nodes[n] = await startNode(n, redisPort);
  for (const n of Object.values(nodes)) assert(n.port, `node ${n.name} did not start:\n${n.log}`);
  const seed = 'abc';
  const ground = surface(seed, 10, 11);
  const at = { x: 10.5, y: ground + 1, z: 11.5, yaw: 0, pitch: 0 };
  let worldId;
  const ctx = {};

  await check('Redis unreachable at start: a clear error and exit 1, or alone when asked', async () => {
    const dead = await freePort();
    const n = await startNode('x', dead);
    assert(n.exited && n.exited.code === 1, 'exit: ' + JSON.stringify(n.exited));
    assert(/cannot reach redis at 127\.0\.0\.1:\d+/.test(n.log), n.log);
    const bad = await startNode('y', null, ['--redis', 'http://nowhere']);
    assert(bad.exited && bad.exited.code === 1 && /expected redis:\/\/HOST/.test(bad.log), bad.log);
    const alone = await startNode('z', dead, ['--redis-optional']);
    assert(alone.port && !alone.exited && /serve_alone: cannot reach redis/.test(alone.log), alone.log);
    const z = await hello(alone.port, 'pz'); // crafty serves, alone
    assert(Array.isArray(z.list.worlds));
    z.close();
    alone.proc.kill('SIGTERM');
  });

  await check('each process publishes a link address and token, and its links to the others come up', async () => {
    const rs = await recordsUntil(redisPort, (r) => ['a', 'b', 'c'].every((n) => r[n] && r[n].linksUp === 2),
      'links not all up');
    for (const n of ['a', 'b', 'c']) assert(/^127\.0\.0\.1:\d+$/.test(rs[n].link) && /^[0-9a-f]{32}$/.test(rs[n].linkToken), JSON.stringify(rs[n]));
  });

  await check('a world made on one process is listed by every other', async () => {
    ctx.a = await hello(nodes.a.port, 'pa');
    ctx.a.send({ t: 'create_world', name: 'shared world', seed, gameMode: 'creative' });
    const list = await ctx.a.next((m) => m.t === 'world_list' && m.worlds.some((w) => w.name === 'shared world'));
    worldId = list.worlds.find((w) => w.name === 'shared world').id;
    ctx.b = await hello(nodes.b.port, 'pb');
    assert(ctx.b.list.worlds.some((w) => w.id === worldId), 'b does not list it');
  });

  await check('cross-process join: players on two processes see each other', async () => {
    ctx.a.send({ t: 'join_world', worldId });
    ctx.aw = await ctx.a.next('welcome');
    ctx.b.send({ t: 'join_world', worldId });
    ctx.bw = await ctx.b.next('welcome', 8000);
    assert(ctx.bw.players.some((p) => p.playerId === ctx.aw.playerId), 'b\'s welcome does not list a');
    const join = await ctx.a.next('player_join');
    assert(join.playerId === ctx.bw.playerId && join.name === 'pb', JSON.stringify(join));
  });

  await check('presence: a third process lists the world with its 2 players', async () => {
    ctx.c = await hello(nodes.c.port, 'pc');
    await listUntil(ctx.c, (l) => l.worlds.some((w) => w.id === worldId && w.online === 2));
  });

  await check('transforms cross processes both ways', async () => {
    ctx.b.send({ t: 'transform', ...at });
    const seen = await ctx.a.next((m) => m.t === 'players' && m.players.some((p) => p.playerId === ctx.bw.playerId));
    assert(seen.players.find((p) => p.playerId === ctx.bw.playerId).y === at.y);
    ctx.a.send({ t: 'transform', ...at, x: at.x + 1 });
    await ctx.b.next((m) => m.t === 'players' && m.players.some((p) => p.playerId === ctx.aw.playerId && p.x === at.x + 1));
  });

  await check('edits and chat cross processes', async () => {
    ctx.b.send({ t: 'block_edit', action: 'place', x: 10, y: ground + 1, z: 11, type: 3 });
    const e1 = await ctx.a.next('block_edit');
    const e2 = await ctx.b.next('block_edit');
    assert(e1.author === ctx.bw.playerId && e2.x === 10 && e2.y === ground + 1 && e2.type === 3, JSON.stringify([e1, e2]));
    ctx.a.send({ t: 'chat', message: 'hello from a' });
    const chat = await ctx.b.next('chat');
    assert(chat.message === 'hello from a' && chat.from === 'pa', JSON.stringify(chat));
    ctx.b.send({ t: 'chat', message: 'and from b' });
    await ctx.a.next((m) => m.t === 'chat' && m.message === 'and from b' && m.from === 'pb');
  });

  await check('the relay between a and b went over their direct link, both ways', async () => {
    const rs = await recordsUntil(redisPort, (r) => r.a.sentLink > 0 && r.b.sentLink > 0, 'nothing sent over the links');
    assert(rs.a.sentRedis === 0 && rs.b.sentRedis === 0, 'a and b relayed through redis too: ' + JSON.stringify([rs.a, rs.b]));
  });

  await check('a process with --relay redis plays with the others through Redis pub/sub', async () => {
    nodes.r = await startNode('r', redisPort, ['--relay', 'redis']);
    assert(nodes.r.port, nodes.r.log);
    const r = await hello(nodes.r.port, 'pr');
    await listUntil(r, (l) => l.worlds.some((w) => w.id === worldId));
    r.send({ t: 'join_world', worldId });
    const rw = await r.next('welcome', 8000);
    await ctx.a.next((m) => m.t === 'player_join' && m.playerId === rw.playerId);
    r.send({ t: 'transform', ...at, z: at.z + 1 });
    await ctx.a.next((m) => m.t === 'players' && m.players.some((p) => p.playerId === rw.playerId && p.z === at.z + 1));
    ctx.a.send({ t: 'chat', message: 'to the pub/sub one' });
    await r.next((m) => m.t === 'chat' && m.message === 'to the pub/sub one');
    r.close();
    await ctx.a.next((m) => m.t === 'player_leave' && m.playerId === rw.playerId);
    const rec = (await recordsUntil(redisPort, (rs) => rs.r && rs.r.sentRedis > 0, 'r relayed nothing')).r;
    assert(rec.link === undefined && rec.sentLink === 0 && rec.linksUp === 0, JSON.stringify(rec));
  });

  await check('a link that presents a wrong token, sends garbage or stays silent is dropped and logged; the relay goes on', async () => {
    const rs = records(redisPort);
    const silent = linkPoke(rs.b.link, Buffer.alloc(0)); // says nothing: dropped once its 5 s to be up have passed
    await linkPoke(rs.b.link, linkFrame('', `HELLO ${rs.b.id} ${'0'.repeat(32)} x/1`));
    await linkPoke(rs.b.link, Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 1, 2, 3]));
    await linkPoke(rs.b.link, linkFrame('tycho:crafty:to:' + rs.b.id, `msg 1 ${rs.a.id}\n{}`)); // a frame before HELLO
    await logged(nodes.b, /cluster_link_dropped: link from \?: a bad HELLO/);
    await logged(nodes.b, /cluster_link_dropped: link from \?: frame length out of bounds/);
    await logged(nodes.b, /cluster_link_dropped: link from \?: a frame before the link was up/);
    ctx.a.send({ t: 'chat', message: 'links still fine' });
    await ctx.b.next((m) => m.t === 'chat' && m.message === 'links still fine');
    await silent;
    await logged(nodes.b, /cluster_link_dropped: link from \?: not up in time/);
  });

  await check('--link-port: the links listen on the port asked for', async () => {
    const want = await freePort();
    nodes.l = await startNode('l', redisPort, ['--link-port', String(want)]);
    const rec = (await recordsUntil(redisPort, (rs) => rs.l, 'no record of l')).l;
    assert(rec.link === `127.0.0.1:${want}`, JSON.stringify(rec));
  });

  await check('a relayed player leaves and joins again through its own process', async () => {
    ctx.b.send({ t: 'leave_world' });
    await ctx.b.next('world_list');
    const left = await ctx.a.next('player_leave');
    assert(left.playerId === ctx.bw.playerId);
    ctx.b.send({ t: 'join_world', worldId });
    ctx.bw = await ctx.b.next('welcome', 8000);
    const edits = ctx.bw.world.edits;
    assert(edits.some((e) => e.x === 10 && e.y === ground + 1 && e.z === 11 && e.type === 3), JSON.stringify(edits));
    await ctx.a.next('player_join');
  });

  await check('two processes racing to load one world: exactly one runs it', async () => {
    const raceId = await makeWorld(nodes.a.port, 'race', 7);
    const b2 = await hello(nodes.b.port, 'rb');
    const c2 = await hello(nodes.c.port, 'rc');
    await listUntil(b2, (l) => l.worlds.some((w) => w.id === raceId));
    await listUntil(c2, (l) => l.worlds.some((w) => w.id === raceId));
    b2.send({ t: 'join_world', worldId: raceId });
    c2.send({ t: 'join_world', worldId: raceId });
    const [wb, wc] = [await b2.next('welcome', 8000), await c2.next('welcome', 8000)];
    assertOneInstance(wb, wc);
    const owners = redisCli(redisPort, 'KEYS', 'tycho:crafty:lease:*').split('\n').filter(Boolean);
    assert(owners.length === 2, 'leases: ' + owners.join(' '));
    b2.close();
    c2.close();
  });

  await check('a relayed join that reaches the world\'s process before its own claim\'s answer waits for it and joins', async () => {
    // w reaches Redis through a proxy that holds Redis's answers: w's claim is in Redis, its
    // answer not yet at w, when b (whose own claim says w holds the world) relays its join.
    const proxy = await startProxy(redisPort);
    nodes.w = await startNode('w', proxy.port);
    assert(nodes.w.port, nodes.w.log);
    await recordsUntil(redisPort, (r) => r.w && ['w', 'b'].every((n) =>
      r[n].linksUp === Object.values(r).filter((x) => x.link).length - 1), 'w and b are not linked to every process');
    const lateId = await makeWorld(nodes.b.port, 'late answer', 9);
    const cw = await hello(nodes.w.port, 'lw');
    const cb = await hello(nodes.b.port, 'lb');
    await listUntil(cw, (l) => l.worlds.some((w) => w.id === lateId));
    proxy.delayMs = 600;
    cw.send({ t: 'join_world', worldId: lateId });
    const claimed = Date.now() + 2000;
    while (!/^w\//.test(redisCli(redisPort, 'GET', `tycho:crafty:lease:${lateId}`))) {
      assert(Date.now() < claimed, 'w never claimed the world');
      await sleep(10);
    }
    cb.send({ t: 'join_world', worldId: lateId });
    const [ww, wb] = [await cw.next('welcome', 8000), await cb.next('welcome', 8000)];
    assertOneInstance(ww, wb);
    proxy.delayMs = 0;
    cw.close();
    cb.close();
  });

  await check('kill -9 of the owner: its clients are told, the world comes back elsewhere with every edit', async () => {
    // c joins through its own process (relayed to a), then b places a block and sees it.
    ctx.c.send({ t: 'join_world', worldId });
    ctx.cw = await ctx.c.next('welcome', 8000);
    ctx.b.send({ t: 'transform', ...at });
    ctx.b.send({ t: 'block_edit', action: 'place', x: 10, y: ground + 2, z: 11, type: 5 });
    await ctx.b.next((m) => m.t === 'block_edit' && m.y === ground + 2);
    nodes.a.proc.kill('SIGKILL');
    const direct = await ctx.a.waitClosed();
    assert(direct.code === 1006, 'a: ' + JSON.stringify(direct));
    const relayedB = await ctx.b.waitClosed(8000);
    const relayedC = await ctx.c.waitClosed(8000);
    for (const r of [relayedB, relayedC]) assert(r.code === 4012 && /world_moved/.test(r.reason), JSON.stringify(r));
    await logged(nodes.b, /cluster_link_down a\//);
    // Everyone reconnects through a live process and joins again.
    ctx.b = await hello(nodes.b.port, 'pb');
    ctx.b.send({ t: 'join_world', worldId });
    ctx.bw = await ctx.b.next('welcome', 12000);
    const edits = ctx.bw.world.edits;
    for (const y of [ground + 1, ground + 2])
      assert(edits.some((e) => e.x === 10 && e.y === y && e.z === 11), `edit at y=${y} lost: ${JSON.stringify(edits)}`);
    ctx.c = await hello(nodes.c.port, 'pc');
    ctx.c.send({ t: 'join_world', worldId });
    ctx.cw = await ctx.c.next('welcome', 8000);
    assert(ctx.cw.players.some((p) => p.playerId === ctx.bw.playerId), 'b and c are not in one instance');
    const lease = redisCli(redisPort, 'GET', `tycho:crafty:lease:${worldId}`);
    assert(/^b\//.test(lease), 'lease: ' + lease);
    await listUntil(ctx.c, (l) => l.worlds.some((w) => w.id === worldId && w.online === 2));
  });

  await check('a forged lease: the owner stops running the world, joins wait for it to go', async () => {
    redisCli(redisPort, 'SET', `tycho:crafty:lease:${worldId}`, 'forged/1', 'PX', '2500');
    const closed = await ctx.c.waitClosed(6000); // relayed to b, which lost the world
    assert(closed.code === 4012, JSON.stringify(closed));
    await ctx.b.waitClosed(6000);
    ctx.b = await hello(nodes.b.port, 'pb');
    ctx.b.send({ t: 'join_world', worldId }); // waits out the forged lease (its holder is no live process)
    ctx.bw = await ctx.b.next('welcome', 12000);
    assert(ctx.bw.world.edits.some((e) => e.y === ground + 2), 'edits lost');
  });

  await check('Redis restarts: worlds keep running, processes re-register, one owner after', async () => {
    ctx.c = await hello(nodes.c.port, 'pc');
    ctx.c.send({ t: 'join_world', worldId });
    ctx.cw = await ctx.c.next('welcome', 8000);
    await ctx.b.next('player_join');
    redis.kill('SIGKILL');
    await sleep(300);
    ctx.b.send({ t: 'chat', message: 'while redis is down' }); // b's own process runs the world
    assert((await ctx.b.next('chat')).message === 'while redis is down');
    redis = await startRedis(redisPort);
    // c, relayed to b, stays in the world through it all.
    await sleep(4000);
    ctx.c.send({ t: 'chat', message: 'after the restart' });
    assert((await ctx.b.next((m) => m.t === 'chat' && m.message === 'after the restart', 6000)).from === 'pc');
    const deadline = Date.now() + 8000;
    while (!/^b\//.test(redisCli(redisPort, 'GET', `tycho:crafty:lease:${worldId}`))) {
      assert(Date.now() < deadline, 'b never claimed its world again');
      await sleep(200);
    }
    const d = await hello(nodes.c.port, 'pd');
    d.send({ t: 'join_world', worldId });
    const dw = await d.next('welcome', 12000);
    assert(dw.players.some((p) => p.playerId === ctx.bw.playerId), 'a second instance of the world: ' + JSON.stringify(dw.players));
    d.close();
    assert(/redis_disconnected/.test(nodes.b.log) && /redis_connected/.test(nodes.b.log));
  });

  await check('Redis sends garbage, then stops answering: logged, reconnected, serving after', async () => {
    const proxy = await startProxy(redisPort);
    const g = await startNode('g', proxy.port);
    nodes.g = g;
    assert(g.port, JSON.stringify(g.exited) + "\n" + g.log);
    const waitLog = async (re, ms) => {
      const deadline = Date.now() + ms;
      while (!re.test(g.log)) {
        assert(Date.now() < deadline && !g.exited, `no ${re} in the log:\n${g.log}`);
        await sleep(100);
      }
    };
    await waitLog(/commands connection\) is up/, 3000);
    proxy.mode = 'garbage';
    await waitLog(/redis_disconnected: .*commands connection.*[Pp]rotocol error/, 5000);
    proxy.mode = 'pass';
    const ups = () => (g.log.match(/commands connection\) is up/g) || []).length;
    await waitLog(/commands connection\) is up[^]*commands connection\) is up/, 5000);
    proxy.mode = 'hang';
    await waitLog(/redis_stalled/, 9000);
    proxy.mode = 'pass';
    const before = ups();
    const deadline = Date.now() + 8000;
    while (ups() === before) { assert(Date.now() < deadline, g.log); await sleep(100); }
    const e = await hello(g.port, 'pg');
    e.send({ t: 'join_world', worldId });
    const ew = await e.next('welcome', 12000);
    assert(ew.players.some((p) => p.playerId === ctx.bw.playerId), 'g joined another instance of the world');
    e.close();
    proxy.close();
  });

  await check('garbage published on the relay channels is logged and dropped', async () => {
    const ids = redisCli(redisPort, 'SMEMBERS', 'tycho:crafty:nodes').split('\n').filter(Boolean);
    assert(ids.length >= 3, 'processes: ' + ids.join(' '));
    const junk = ['garbage', 'open 1 x\n{not json', 'open 2 x\n{"msg":{"t":"join_world"}}', 'msg 99 nobody\n{}',
      'send 5 b/1\nhi', 'kick 7 z\n[', 'leave abc x\n', `open 12 x\n{"key":1,"name":{},"msg":{"t":"join_world","worldId":"${worldId}"}}`];
    for (const id of ids) for (const j of junk) redisCli(redisPort, 'PUBLISH', `tycho:crafty:to:${id}`, j);
    await sleep(500);
    ctx.c.send({ t: 'chat', message: 'still here' });
    await ctx.b.next((m) => m.t === 'chat' && m.message === 'still here');
    assert(/cluster_bad_message/.test(nodes.b.log), nodes.b.log);
  });

  await check('processes that stay up never crashed', async () => {
    for (const n of [nodes.b, nodes.c, nodes.g, nodes.r, nodes.l, nodes.w]) assert(!n.exited, `${n.name} exited: ${JSON.stringify(n.exited)}\n${n.log}`);
  });

  await check('SIGTERM: every process left stops cleanly (exit 0, nothing from a sanitizer)', async () => {
    const live = Object.values(nodes).filter((n) => !n.exited);
    for (const n of live) n.proc.kill('SIGTERM');
    const deadline = Date.now() + 15000;
    while (live.some((n) => !n.exited)) {
      assert(Date.now() < deadline, 'still running: ' + live.filter((n) => !n.exited).map((n) => n.name).join());
      await sleep(100);
    }
    for (const n of live) {
      assert(n.exited.code === 0, `${n.name}: ${JSON.stringify(n.exited)}\n${n.log.slice(-3000)}`);
      assert(!/Sanitizer|runtime error/.test(n.log), `${n.name}:\n${n.log.slice(-3000)}`);
    }
  });
  const failed = results.filter((r) => !r[0]);
  if (failed.length) {
    for (const n of Object.values(nodes)) console.log(`---- node ${n.name} log ----\n${n.log.slice(-4000)}`);
  }
  console.log(`${results.length - failed.length} passed, ${failed.length} failed`);
  return failed.length ? 1 : 0;
}

main().then((code) => {
  killAll();
  fs.rmSync(tmp, { recursive: true, force: true });
  process.exit(code);
}, (e) => {
  console.log(e.stack || e);
  killAll();
  process.exit(1);
});
