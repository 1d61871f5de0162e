// tests/server/monitor/monitor_test.js: /_monitor in a real browser (ctest server.monitor).
// Two `tycho serve --redis` processes over a redis-server started here (as
// tests/server/cluster_test.js does), one world with a player on each; Debian's chromium,
// headless, driven by puppeteer-core, loads http://127.0.0.1:PORT/_monitor from one process and
// must show both processes, the world with its 2 players, and a tick graph that redraws.
// /_monitor/api is checked as JSON too, and a process alone (no --redis) serves the same page.
//   node tests/server/monitor/monitor_test.js build/tycho
// Exit 77 (skipped) when redis-server or chromium is absent.
'use strict';
const fs = require('fs');
const http = require('http');
const clusterLib = require('../cluster_lib.js');

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
if (!clusterLib.hasRedis() || !fs.existsSync(CHROMIUM)) {
  console.log(`SKIP: the monitor test needs redis-server and chromium (${CHROMIUM})`);
  process.exit(77);
}
let puppeteer;
try {
  puppeteer = require('puppeteer-core');
} catch (e) {
  console.log('FAIL: puppeteer-core is not installed: npm ci --prefix tests/server/monitor');
  process.exit(1);
}
const { tmp, sleep, freePort, startRedis, startNode, hello, killAll } = clusterLib(process.argv[2] || 'build/tycho');

function get(port, path) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }));
    }).on('error', reject);
  });
}

const results = [];
async function check(name, fn) {
  try {
    await fn();
    results.push(true);
    console.log(`ok   ${name}`);
  } catch (e) {
    results.push(false);
    console.log(`FAIL ${name}: ${e.stack || e}`);
  }
}
function assert(cond, msg) { if (!cond) throw new Error(msg || 'assertion failed'); }

async function main() {
  const redisPort = await freePort();
  await startRedis(redisPort);
  const a = await startNode('mon-a', redisPort);
  const b = await startNode('mon-b', redisPort);
  assert(a.port && b.port, a.log + b.log);
  const maker = await hello(a.port, 'maker');
  maker.send({ t: 'create_world', name: 'Monitored', seed: 3, gameMode: 'creative' });
  const list = await maker.next((m) => m.t === 'world_list' && m.worlds.length > 0);
  const worldId = list.worlds[0].id;
  const pa = await hello(a.port, 'pa');
  pa.send({ t: 'join_world', worldId });
  await pa.next('welcome', 10000);
  const pb = await hello(b.port, 'pb');
  pb.send({ t: 'join_world', worldId });
  await pb.next('welcome', 10000);

  await check('/_monitor/api lists both processes and the world with 2 players', async () => {
    let api;
    for (let i = 0; i < 30; i++) {
      const res = await get(b.port, '/_monitor/api');
      assert(res.status === 200 && /application\/json/.test(res.type), JSON.stringify(res));
      api = JSON.parse(res.body);
      const rooms = api.processes.flatMap((p) => (p.modules && p.modules.crafty && p.modules.crafty.rooms) || []);
      if (api.processes.length === 2 && rooms.some((r) => r.id === worldId && r.players === 2)) break;
      await sleep(200);
    }
    assert(api.clustered && api.node === 'mon-b', JSON.stringify(api).slice(0, 300));
    assert(api.processes.map((p) => p.node).sort().join() === 'mon-a,mon-b', JSON.stringify(api.processes.map((p) => p.node)));
    const owner = api.processes.find((p) => p.modules.crafty.rooms.some((r) => r.id === worldId));
    assert(owner && owner.modules.crafty.rooms.find((r) => r.id === worldId).players === 2, JSON.stringify(api).slice(0, 600));
    assert(api.processes.every((p) => Array.isArray(p.tickMs)), 'no tick samples');
  });

  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    await check('the page renders the processes and the room, and its graph updates', async () => {
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`http://127.0.0.1:${b.port}/_monitor`, { waitUntil: 'load' });
      await page.waitForFunction((id) => [...document.querySelectorAll('tr.room td')].some((td) => td.textContent === id),
        { timeout: 10000 }, worldId);
      const seen = await page.evaluate(() => ({
        procs: [...document.querySelectorAll('.proc')].map((d) => d.dataset.node).sort(),
        rows: [...document.querySelectorAll('tr.room')].map((tr) => [...tr.children].map((td) => td.textContent)),
        summary: document.getElementById('summary').textContent,
        relay: [...document.querySelectorAll('.proc .relay')].map((s) => s.textContent),
      }));
      assert(seen.procs.join() === 'mon-a,mon-b', JSON.stringify(seen));
      const row = seen.rows.find((r) => r[1] === worldId);
      assert(row && row[2] === 'Monitored' && row[3] === '2', JSON.stringify(seen.rows));
      assert(/cluster of 2 processes/.test(seen.summary), seen.summary);
      assert(seen.relay.length === 2 && seen.relay.every((t) => /^relay sent: link \d+ · redis \d+$/.test(t)), JSON.stringify(seen.relay));
      // The graph: the canvas is redrawn from newer samples.
      const first = await page.evaluate(() => ({ n: Number(document.body.dataset.samples),
        img: document.querySelector('canvas.ticks').toDataURL() }));
      await page.waitForFunction((n) => Number(document.body.dataset.samples) >= n + 3, { timeout: 8000 }, first.n);
      const later = await page.evaluate(() => document.querySelector('canvas.ticks').toDataURL());
      assert(later !== first.img, 'the tick graph did not change in 3 s');
      assert(errors.length === 0, errors.join('\n'));
    });

    await check('a process alone serves the same page for itself', async () => {
      const solo = await startNode('solo', null);
      const res = await get(solo.port, '/_monitor/api');
      const api = JSON.parse(res.body);
      assert(!api.clustered && api.processes.length === 1 && api.processes[0].node === 'solo', res.body);
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${solo.port}/_monitor`, { waitUntil: 'load' });
      await page.waitForFunction(() => /one process/.test(document.getElementById('summary').textContent), { timeout: 8000 });
      assert((await get(solo.port, '/nothing-here')).status === 404);
      solo.proc.kill('SIGTERM');
    });
  } finally {
    await browser.close();
  }
  const failed = results.filter((r) => !r).length;
  if (failed) console.log(a.log.slice(-2000) + '\n' + b.log.slice(-2000));
  console.log(`${results.length - failed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

main().then((code) => { killAll(); fs.rmSync(tmp, { recursive: true, force: true }); process.exit(code); },
  (e) => { console.log(e.stack || e); killAll(); process.exit(1); });
