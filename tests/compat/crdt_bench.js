// tests/compat/crdt_bench.js: the workload of tests/bench/crdt_bench.c run by the real
// @dcl/ecs: 1,000 synced entities (numbers 512..1511) with a Transform; each frame is one
// buffer of inbound Transform puts handed to a transport, then one engine.update, which is
// where @dcl/ecs applies received messages. crdt_bench.c runs this and prints the ratio.
//
//   node crdt_bench.js moving|all FRAMES
'use strict'

let ecs
try {
  ecs = require('@dcl/ecs/dist-cjs')
} catch (err) {
  console.error('crdt_bench.js: cannot load @dcl/ecs (run `npm ci --prefix tests/compat`): ' + err.message)
  process.exit(3)
}
const { PutComponentOperation } = require('@dcl/ecs/dist-cjs/serialization/crdt')
const { ReadWriteByteBuffer } = require('@dcl/ecs/dist-cjs/serialization/ByteBuffer')

const ENTITIES = 1000
const FIRST = 512
const WARMUP = 50

function transformBytes(x, y, z) {
  const bytes = new Uint8Array(44)
  const v = new DataView(bytes.buffer)
  v.setFloat32(0, x, true)
  v.setFloat32(4, y, true)
  v.setFloat32(8, z, true)
  v.setFloat32(24, 1, true) // rotation w
  v.setFloat32(28, 1, true)
  v.setFloat32(32, 1, true)
  v.setFloat32(36, 1, true)
  return bytes
}

// Frame f: entity k of the frame is FIRST + (f * puts + k) % ENTITIES, with its next timestamp.
function makeFrame(stamps, f, puts) {
  const buf = new ReadWriteByteBuffer()
  for (let k = 0; k < puts; k++) {
    const i = (f * puts + k) % ENTITIES
    stamps[i]++
    PutComponentOperation.write(FIRST + i, stamps[i], 1, transformBytes(f, k * 0.5, i), buf)
  }
  return buf.toCopiedBinary()
}

async function main() {
  const [workload, framesArg] = process.argv.slice(2)
  const puts = workload === 'all' ? ENTITIES : 100
  const frames = Math.max(1, parseInt(framesArg || '2000', 10))
  const engine = ecs.Engine()
  const transport = { type: 'bench', filter: () => true, send: async () => {} }
  engine.addTransport(transport)
  const stamps = new Array(ENTITIES).fill(0)
  transport.onmessage(makeFrame(stamps, 0, ENTITIES))
  await engine.update(0)
  const all = []
  for (let f = 0; f < WARMUP + frames; f++) all.push(makeFrame(stamps, f + 1, puts))
  const times = []
  for (let f = 0; f < all.length; f++) {
    const t0 = process.hrtime.bigint()
    transport.onmessage(all[f])
    await engine.update(0)
    const t1 = process.hrtime.bigint()
    if (f >= WARMUP) times.push(Number(t1 - t0) / 1000)
  }
  times.sort((a, b) => a - b)
  const n = times.length
  const median = n % 2 ? times[(n - 1) / 2] : (times[n / 2 - 1] + times[n / 2]) / 2
  const Transform = engine.getComponent(1)
  const check = Transform.get(FIRST + ((frames + WARMUP) * puts - 1) % ENTITIES)
  if (!check) throw new Error('Transform not applied')
  console.log(
    `dcl/ecs ${workload.padEnd(7)} ${String(puts).padStart(5)} puts/frame: median ${median.toFixed(2).padStart(9)} us/frame  ` +
      `${Math.round((puts / median) * 1e6).toString().padStart(12)} puts/s  (node ${process.version}, @dcl/ecs ${require('@dcl/ecs/package.json').version})`
  )
}

main().catch((err) => {
  console.error('crdt_bench.js: ' + (err && err.stack ? err.stack : err))
  process.exit(1)
})
