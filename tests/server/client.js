// tests/server/client.js: the outside WebSocket client tests/server/spec drives. It runs
// the steps given as one JSON array argument against ws://127.0.0.1:PORT and prints one
// JSON line per observation; it never judges, the Lua spec does.
//   node client.js PORT '[{"open":"a","path":"/echo"}, {"send":"a","json":{...}}, {"recv":"a"}]'
// PORT may be written wss:PORT: every connection then speaks TLS and accepts any certificate
// (the tests make a self-signed one).
// Steps (NAME names a connection):
//   {"open":NAME, "path":"/x"}        connect; prints {"open":NAME} or {"error":...}
//   {"send":NAME, "json":VALUE}       send JSON.stringify(VALUE) as a text frame
//   {"send":NAME, "text":"..."}       send raw text
//   {"send":NAME, "bytes":N}          send N bytes (binary frame, all 0x61)
//   {"send":NAME, "textBytes":N}      send N bytes of "a" as one text frame
//   {"send":NAME, ..., "times":N}     any of these N times over
//   {"recv":NAME}                     print the next message: {"recv":NAME,"json":..} or {"recv":NAME,"binary":hex}
//   {"recv":NAME, "t":"x"}            the next message whose t is "x", dropping the others before it
//   {"drain":NAME, "ms":N}            everything that arrives within N ms: {"drained":NAME,"msgs":[json...]}
//   {"closed":NAME}                   wait for the close: {"closed":NAME,"code":N,"reason":".."}
//   {"close":NAME}                    close from the client side (1000)
//   {"pause":NAME} / {"resume":NAME}  stop / restart reading the socket
//   {"count":NAME}                    count what is queued unread: {"counted":NAME,"n":N,"inOrder":bool}
//                                     (inOrder: the messages' `i` fields run 1, 2, 3, ...)
//   {"collect":NAME}                  crafty: the next welcome's edit log and every `edits` chunk after it,
//                                     until `more` is false: {"collected":NAME,"n":N,"sum":S,"last":EDIT}
//                                     (sum: a checksum of every edit), with "closed" or "timeout" on failure
//   {"sleep":MS}
//   {"wait":true}                     retry connecting to / until it opens (the server is starting)
// Every wait gives up after 5 s and prints {"timeout":STEP}. A connection that failed after
// it opened (a malformed frame, say) carries "error" in its {"closed":...} line.
'use strict';
const WebSocket = require('ws');

const target = String(process.argv[2]);
const [scheme, port] = target.includes(':') ? target.split(':') : ['ws', target];
const steps = JSON.parse(process.argv[3] || '[]');
const conns = {};
// Each event is one whole line, written synchronously to fd 1 (partial writes and EAGAIN on a
// non-blocking pipe are retried), so no line is ever cut, also when the process exits at once.
const fs = require('fs');
const pause = new Int32Array(new SharedArrayBuffer(4));
const out = (o) => {
  const buf = Buffer.from(JSON.stringify(o) + '\n');
  for (let off = 0; off < buf.length;) {
    try {
      off += fs.writeSync(1, buf, off);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function within(promise, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((resolve) => { timer = setTimeout(() => resolve({ timeout: what }), 5000); }),
  ]).finally(() => clearTimeout(timer));
}

function connect(name, path) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${scheme}://127.0.0.1:${port}${path}`,
      { maxPayload: 64 * 1024 * 1024, rejectUnauthorized: false });
    const c = { ws, queue: [], waiters: [], closed: null, closeWaiters: [] };
    ws.on('message', (data, isBinary) => {
      const m = isBinary ? { recv: name, binary: Buffer.from(data).toString('hex') } : { recv: name, json: JSON.parse(data.toString()) };
      if (c.waiters.length) c.waiters.shift()(m); else c.queue.push(m);
    });
    ws.on('close', (code, reason) => {
      c.closed = { closed: name, code, reason: reason.toString() };
      if (c.error) c.closed.error = c.error;
      c.closeWaiters.forEach((w) => w(c.closed));
      c.waiters.forEach((w) => w({ recv: name, closed: c.closed }));
      c.waiters = [];
    });
    ws.on('error', (err) => {
      if (!c.opened) resolve({ error: String(err.message || err), name });
      else c.error = String(err.message || err);
    });
    ws.on('open', () => { c.opened = true; conns[name] = c; resolve({ open: name }); });
  });
}

async function main() {
  for (const [i, s] of steps.entries()) {
    if (s.wait) {
      const deadline = Date.now() + 10000;
      for (;;) {
        const r = await connect('_wait', '/');
        if (r.open) { conns._wait.ws.terminate(); out({ ready: true }); break; }
        if (Date.now() > deadline) { out({ timeout: i }); break; }
        await sleep(50);
      }
    } else if (s.open) {
      out(await within(connect(s.open, s.path || '/'), i));
    } else if (s.send) {
      const c = conns[s.send];
      for (let k = 0; k < (s.times || 1); k++) {
        if (s.json !== undefined) c.ws.send(JSON.stringify(s.json));
        else if (s.text !== undefined) c.ws.send(s.text);
        else if (s.bytes !== undefined) c.ws.send(Buffer.alloc(s.bytes, 0x61), { binary: true });
        else if (s.textBytes !== undefined) c.ws.send('a'.repeat(s.textBytes));
      }
    } else if (s.recv) {
      const c = conns[s.recv];
      for (;;) {
        let m;
        if (c.queue.length) m = c.queue.shift();
        else if (c.closed) m = { recv: s.recv, closed: c.closed };
        else m = await within(new Promise((r) => c.waiters.push(r)), i);
        if (s.t && m.json && m.json.t !== s.t) continue;
        out(m);
        break;
      }
    } else if (s.drain) {
      const c = conns[s.drain];
      await sleep(s.ms || 0);
      const msgs = c.queue.splice(0).filter((m) => m.json).map((m) => m.json);
      out({ drained: s.drain, msgs });
    } else if (s.closed) {
      const c = conns[s.closed];
      out(c.closed || (await within(new Promise((r) => c.closeWaiters.push(r)), i)));
    } else if (s.close) {
      conns[s.close].ws.close(1000);
    } else if (s.pause) {
      conns[s.pause].ws.pause();
    } else if (s.resume) {
      conns[s.resume].ws.resume();
    } else if (s.count) {
      const msgs = conns[s.count].queue.filter((m) => m.json);
      const inOrder = msgs.every((m, k) => m.json.i === k + 1);
      out({ counted: s.count, n: msgs.length, inOrder });
    } else if (s.collect) {
      const c = conns[s.collect];
      const r = { collected: s.collect, n: 0, sum: 0, last: null };
      for (;;) {
        let m;
        if (c.queue.length) m = c.queue.shift();
        else if (c.closed) m = { closed: c.closed };
        else m = await within(new Promise((res) => c.waiters.push(res)), i);
        if (m.timeout !== undefined || m.closed) { Object.assign(r, m); break; }
        const j = m.json;
        let edits = null, more = false;
        if (j && j.t === 'welcome') { edits = j.world.edits; more = !!j.more; }
        else if (j && j.t === 'edits') { edits = j.edits; more = !!j.more; }
        else continue;
        for (const e of edits) {
          r.n++;
          r.sum = (r.sum + e.x * 3 + e.y * 5 + e.z * 7 + e.type) % 1000000007;
          r.last = e;
        }
        if (!more) break;
      }
      out(r);
    } else if (s.sleep) {
      await sleep(s.sleep);
    }
  }
  for (const c of Object.values(conns)) c.ws.terminate();
}

main().then(() => process.exit(0), (err) => { out({ error: String(err && err.stack || err) }); process.exit(1); });
