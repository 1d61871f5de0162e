// tests/server/raw.js: a WebSocket client written on bare TCP (node's net), for what `ws`
// will not do: send unmasked frames, leave pings unanswered, hold many idle sockets. Like
// client.js it runs the steps given as one JSON array and prints one JSON line per
// observation; the Lua spec judges.
//   node raw.js PORT '[{"open":"a","path":"/echo"}, {"send":"a","text":"{}","masked":false}]'
// PORT may be written wss:PORT: the connections then speak TLS and accept any certificate.
// Steps (NAME names a connection):
//   {"open":NAME, "path":"/x", "early":".."}  TCP connect and handshake: {"open":NAME} once the
//                                     answer is 101, else {"refused":NAME,"status":N,"text":...} or
//                                     {"error":...}; early: a text frame written with the request
//   {"send":NAME, "text":"..", "masked":BOOL}  one text frame (masked unless masked is false)
//   {"frames":NAME, "list":[FRAME...], "times":N, "split":K, "bytes":B}  frames (the list N times
//                                     over) written back to back, as one write, or K bytes a write
//                                     with a pause between (split); only their first B bytes when
//                                     bytes is given. FRAME: {"op":N (1),
//                                     "text":".." or "hex":"..", "fin":BOOL (true), "rsv":N (0),
//                                     "masked":BOOL (true), "len":N (the length the header says)}
//   {"end":NAME} / {"reset":NAME}     the client ends its TCP side (FIN) / resets it (RST)
//   {"recv":NAME}                     the next text message or pong: {"recv":NAME,"text":..},
//                                     {"recv":NAME,"pong":HEX} or {"recv":NAME,"closed":..}
//   {"closed":NAME}                   wait for the server's close: {"closed":NAME,"code":N,"reasonHex":..,
//                                     "utf8":BOOL,"pings":N} (code 1006 when the TCP connection ended
//                                     without a close frame)
//   {"state":NAME}                    {"state":NAME,"closed":BOOL,"pings":N,"received":N}: whether the
//                                     server closed it, pings received (never answered), messages queued
//   {"idle":N, "ms":MS}               open N TCP connections that send nothing, hold them MS ms, then
//                                     print {"idle":N,"connected":K,"ended":E} (E: ended by the server)
//   {"sleep":MS}
// Every wait gives up after 5 s and prints {"timeout":STEP}.
'use strict';
const net = require('net');
const tls = require('tls');
const crypto = require('crypto');

const target = String(process.argv[2]);
const secure = target.startsWith('wss:');
const port = Number(secure ? target.slice(4) : target);
const steps = JSON.parse(process.argv[3] || '[]');
const conns = {};
// One whole line per event, written synchronously to fd 1 (as client.js does).
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

function frame(opcode, payload, masked, fin = true, rsv = 0, len = payload.length) {
  const head = [(fin ? 0x80 : 0) | (rsv << 4) | opcode];
  if (len < 126) head.push((masked ? 0x80 : 0) | len);
  else if (len < 65536) head.push((masked ? 0x80 : 0) | 126, len >> 8, len & 0xff);
  else head.push((masked ? 0x80 : 0) | 127, 0, 0, 0, 0, (len >>> 24) & 0xff, (len >> 16) & 0xff, (len >> 8) & 0xff, len & 0xff);
  if (!masked) return Buffer.concat([Buffer.from(head), payload]);
  const key = crypto.randomBytes(4);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] ^= key[i & 3];
  return Buffer.concat([Buffer.from(head), key, body]);
}

function validUtf8(buf) {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf);
    return true;
  } catch (e) {
    return false;
  }
}

function open(name, path, early) {
  return new Promise((resolve) => {
    const sock = secure ? tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false })
      : net.connect(port, '127.0.0.1');
    const c = { sock, buf: Buffer.alloc(0), upgraded: false, queue: [], waiters: [], closed: null, closeWaiters: [], pings: 0 };
    const finish = (closed) => {
      if (c.closed) return;
      c.closed = closed;
      c.closeWaiters.forEach((w) => w(closed));
      c.waiters.forEach((w) => w({ recv: name, closed }));
      c.waiters = [];
    };
    sock.on(secure ? 'secureConnect' : 'connect', () => {
      const key = crypto.randomBytes(16).toString('base64');
      const head = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\n`
        + `Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      sock.write(early === undefined ? head : Buffer.concat([head, frame(0x1, Buffer.from(early), true)]));
    });
    sock.on('data', (data) => {
      c.buf = Buffer.concat([c.buf, data]);
      if (c.refused) return;
      if (!c.upgraded) {
        const end = c.buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = c.buf.subarray(0, end).toString();
        const status = Number(head.split(' ')[1]);
        if (status !== 101) {
          c.refused = true;
          resolve({ refused: name, status, text: c.buf.toString() });
          return;
        }
        c.upgraded = true;
        c.buf = c.buf.subarray(end + 4);
        conns[name] = c;
        resolve({ open: name });
      }
      for (;;) { // server frames: unmasked, lengths up to 64 bits
        if (c.buf.length < 2) return;
        const op = c.buf[0] & 0x0f;
        let len = c.buf[1] & 0x7f;
        let at = 2;
        if (len === 126) { if (c.buf.length < 4) return; len = c.buf.readUInt16BE(2); at = 4; }
        else if (len === 127) { if (c.buf.length < 10) return; len = Number(c.buf.readBigUInt64BE(2)); at = 10; }
        if (c.buf.length < at + len) return;
        const payload = c.buf.subarray(at, at + len);
        c.buf = c.buf.subarray(at + len);
        if (op === 0x9) c.pings++;
        else if (op === 0xa) {
          const m = { recv: name, pong: payload.toString('hex') };
          if (c.waiters.length) c.waiters.shift()(m); else c.queue.push(m);
        }
        else if (op === 0x8) {
          const reason = payload.subarray(2);
          finish({ closed: name, code: len >= 2 ? payload.readUInt16BE(0) : 1005, reasonHex: reason.toString('hex'),
            reason: reason.toString(), utf8: validUtf8(reason), pings: c.pings });
        } else if (op === 0x1) {
          const m = { recv: name, text: payload.toString() };
          if (c.waiters.length) c.waiters.shift()(m); else c.queue.push(m);
        }
      }
    });
    sock.on('error', (err) => {
      if (!c.upgraded) resolve({ error: String(err.message || err), name });
    });
    sock.on('close', () => {
      if (!c.upgraded && !c.refused) resolve({ refused: name, status: 0, text: c.buf.toString() });
      finish({ closed: name, code: 1006, reasonHex: '', reason: '', utf8: true, pings: c.pings });
    });
  });
}

async function idle(n, ms) {
  const socks = [];
  let connected = 0;
  let ended = 0;
  for (let i = 0; i < n; i++) {
    const s = net.connect(port, '127.0.0.1');
    s.on('connect', () => { connected++; });
    s.on('error', () => {});
    s.on('data', () => {}); // read what the server says, so that its close is seen
    s.on('close', () => { ended++; });
    socks.push(s);
  }
  await sleep(ms);
  const r = { connected, ended };
  socks.forEach((s) => s.destroy());
  return r;
}

async function main() {
  for (const [i, s] of steps.entries()) {
    if (s.open) {
      out(await within(open(s.open, s.path || '/', s.early), i));
    } else if (s.send) {
      conns[s.send].sock.write(frame(0x1, Buffer.from(s.text), s.masked !== false));
    } else if (s.frames) {
      const c = conns[s.frames];
      const list = [].concat(...Array(s.times ?? 1).fill(s.list));
      let bytes = Buffer.concat(list.map((f) => frame(f.op ?? 0x1,
        f.hex !== undefined ? Buffer.from(f.hex, 'hex') : Buffer.from(f.text ?? ''), f.masked !== false, f.fin !== false,
        f.rsv ?? 0, f.len)));
      if (s.bytes !== undefined) bytes = bytes.subarray(0, s.bytes);
      c.sock.setNoDelay(true);
      if (!s.split) c.sock.write(bytes);
      for (let at = 0; s.split && at < bytes.length; at += s.split) {
        c.sock.write(bytes.subarray(at, at + s.split));
        await sleep(2); // each piece its own TCP segment
      }
    } else if (s.end) {
      conns[s.end].sock.end();
    } else if (s.reset) {
      conns[s.reset].sock.resetAndDestroy();
    } else if (s.recv) {
      const c = conns[s.recv];
      let m;
      if (c.queue.length) m = c.queue.shift();
      else if (c.closed) m = { recv: s.recv, closed: c.closed };
      else m = await within(new Promise((r) => c.waiters.push(r)), i);
      out(m);
    } else if (s.closed) {
      const c = conns[s.closed];
      out(c.closed || (await within(new Promise((r) => c.closeWaiters.push(r)), i)));
    } else if (s.state) {
      const c = conns[s.state];
      out({ state: s.state, closed: !!c.closed, pings: c.pings, received: c.queue.length });
    } else if (s.idle) {
      out({ idle: s.idle, ...(await idle(s.idle, s.ms || 0)) });
    } else if (s.sleep) {
      await sleep(s.sleep);
    }
  }
  for (const c of Object.values(conns)) c.sock.destroy();
}

main().then(() => process.exit(0), (err) => { out({ error: String(err && err.stack || err) }); process.exit(1); });
