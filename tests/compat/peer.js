// tests/compat/peer.js: a Decentraland peer built on the real @dcl/ecs (pinned in
// package.json) that tests/compat/spec/dcl_ecs_spec.lua talks to through files and stdout.
//
//   node peer.js ids NAME...        component numbers, one "id NAME_HEX NUMBER" line each
//   node peer.js apply FILE...      applies each file as one batch (one engine.update) and
//                                   prints, per batch, the corrections @dcl/ecs computed, its
//                                   state dump and the state of every entity seen so far
//   node peer.js script             two engines A and B make local writes (creates, updates,
//                                   equal-timestamp conflicts, deletes) and exchange them; prints
//                                   every frame they send and both final states
//
// Output is line-based so Lua can read it without a JSON parser; bytes are hex.
'use strict'

let ecs
try {
  ecs = require('@dcl/ecs/dist-cjs')
} catch (err) {
  console.error('peer.js: cannot load @dcl/ecs (run `npm ci --prefix tests/compat`): ' + err.message)
  process.exit(3)
}
const fs = require('fs')
const { componentNumberFromName } = require('@dcl/ecs/dist-cjs/components/component-number')
const { PutComponentOperation, DeleteComponent } = require('@dcl/ecs/dist-cjs/serialization/crdt')
const { ReadWriteByteBuffer } = require('@dcl/ecs/dist-cjs/serialization/ByteBuffer')

const HEALTH = 'tycho::Health'
const hex = (bytes) => (bytes.length ? Buffer.from(bytes).toString('hex') : '-')

// An engine with Transform (built in) and a custom schema component, and a transport whose
// delivery the caller drives: deliver(bytes) queues bytes for the next update, and every
// frame the engine sends is collected in `sent`.
function makePeer() {
  const engine = ecs.Engine()
  const Health = engine.defineComponent(HEALTH, {
    hp: ecs.Schemas.Int,
    label: ecs.Schemas.String,
    speed: ecs.Schemas.Float
  })
  const sent = []
  const transport = {
    type: 'tycho-compat',
    filter: () => true,
    send: async (message) => {
      if (message.byteLength) sent.push(Uint8Array.from(message))
    }
  }
  engine.addTransport(transport)
  // A second transport so that accepted messages are rebroadcast somewhere (as in a real
  // scene with a renderer and comms); its traffic is not looked at.
  engine.addTransport({ type: 'sink', filter: () => true, send: async () => {} })
  // Record each conflict's correction: updateFromCrdt returns it, receiveMessages drops it.
  const corrections = new ReadWriteByteBuffer()
  for (const component of [engine.getComponent(1), Health]) {
    const original = component.updateFromCrdt
    component.updateFromCrdt = (msg) => {
      const result = original(msg)
      const c = result[0]
      if (c && c.type === 1) PutComponentOperation.write(c.entityId, c.timestamp, c.componentId, c.data, corrections)
      else if (c) DeleteComponent.write(c.entityId, c.componentId, c.timestamp, corrections)
      return result
    }
  }
  return {
    engine,
    Transform: ecs.components.Transform(engine),
    Health,
    sent,
    corrections,
    deliver: (bytes) => transport.onmessage(bytes)
  }
}

// Walks a buffer of wire messages.
function* messages(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let off = 0
  while (off + 8 <= bytes.byteLength) {
    const length = view.getUint32(off, true)
    const type = view.getUint32(off + 4, true)
    if (length < 8 || off + length > bytes.byteLength) return
    const u32 = (k) => view.getUint32(off + 8 + 4 * k, true)
    const msg = { type, entity: u32(0) }
    if (type === 1 || type === 2 || type === 4) {
      msg.component = u32(1)
      msg.timestamp = u32(2)
      if (type !== 2) msg.data = bytes.subarray(off + 24, off + length)
    }
    yield msg
    off += length
  }
}

// The state: every component's dump (a PUT per live value, a DELETE_COMPONENT per
// tombstone), one "state COMPONENT ENTITY TIMESTAMP DATA" line each, sorted.
function stateLines(peer) {
  const buf = new ReadWriteByteBuffer()
  for (const component of peer.engine.componentsIter()) component.dumpCrdtStateToBuffer(buf)
  const lines = []
  for (const m of messages(buf.toBinary())) {
    lines.push(['state', m.component, m.entity, m.timestamp, m.data ? hex(m.data) : 'nil'].join(' '))
  }
  return lines.sort()
}

const STATES = ['unknown', 'used', 'removed', 'reserved']
function entityLines(peer, entities) {
  return [...entities].sort((a, b) => a - b).map((e) => `entity ${e} ${STATES[peer.engine.getEntityState(e)]}`)
}

async function apply(files) {
  const peer = makePeer()
  const seen = new Set()
  for (let i = 0; i < files.length; i++) {
    const bytes = new Uint8Array(fs.readFileSync(files[i]))
    for (const m of messages(bytes)) seen.add(m.entity)
    peer.corrections.resetBuffer()
    peer.deliver(bytes)
    await peer.engine.update(1)
    console.log(`batch ${i + 1}`)
    console.log(`corrections ${hex(peer.corrections.toBinary())}`)
    for (const line of stateLines(peer)) console.log(line)
    for (const line of entityLines(peer, seen)) console.log(line)
    console.log('end')
  }
}

// Two engines writing concurrently. Frames are printed in the order they are made.
async function script() {
  const a = makePeer()
  const b = makePeer()
  const frames = []
  const seen = new Set()
  async function frame(name, peer) {
    peer.sent.length = 0
    await peer.engine.update(1)
    const bytes = peer.sent.length ? Buffer.concat(peer.sent.map((s) => Buffer.from(s))) : Buffer.alloc(0)
    for (const m of messages(bytes)) seen.add(m.entity)
    frames.push({ name, bytes })
    console.log(`frame ${name} ${hex(bytes)}`)
    return bytes
  }

  // A1: two entities with a Transform, one with Health too.
  const e1 = a.engine.addEntity()
  const e2 = a.engine.addEntity()
  a.Transform.create(e1, { position: { x: 1, y: 2, z: 3 } })
  a.Health.create(e1, { hp: 10, label: 'a', speed: 1.5 })
  a.Transform.create(e2, { scale: { x: 2, y: 2, z: 2 }, parent: e1 })
  const a1 = await frame('A1', a)
  b.deliver(a1)
  await frame('B0', b) // B takes A1 in; it rebroadcasts nothing to A's side
  // B1: B changes e1's Health (timestamp 2) and writes the player's Transform.
  b.Health.getMutable(e1).hp = 20
  b.Transform.createOrReplace(b.engine.PlayerEntity, { position: { x: 8, y: 0, z: 8 } })
  const b1 = await frame('B1', b)
  // A2, concurrent with B1: Health e1 also at timestamp 2 with a longer label, so A's wins
  // everywhere; e2's Transform deleted (timestamp 2).
  const h = a.Health.getMutable(e1)
  h.hp = 30
  h.label = 'longer label'
  a.Transform.deleteFrom(e2)
  const a2 = await frame('A2', a)
  // B2, concurrent with A2: B moves e2 (timestamp 2): at equal timestamps a put beats
  // a delete, so B's Transform on e2 wins.
  b.Transform.getMutable(e2).position = { x: 5, y: 5, z: 5 }
  const b2 = await frame('B2', b)
  // A3: A deletes e2 altogether after hearing B; B then gets it too.
  a.deliver(b1)
  a.deliver(b2)
  await frame('A2x', a)
  a.engine.removeEntity(e2)
  const a3 = await frame('A3', a)
  b.deliver(a2)
  b.deliver(a3)
  await frame('B3', b)
  // A4: a fresh entity that reuses nothing, and a stale-making burst on e1.
  const e3 = a.engine.addEntity()
  a.Health.create(e3, { hp: 1, label: 'three', speed: -0.5 })
  a.Transform.getMutable(e1).position.x = 4
  const a4 = await frame('A4', a)
  a.Transform.getMutable(e1).position.x = 5
  const a5 = await frame('A5', a)
  b.deliver(a4)
  b.deliver(a5)
  await frame('B4', b)
  for (const line of stateLines(a)) console.log('A ' + line)
  for (const line of entityLines(a, seen)) console.log('A ' + line)
  for (const line of stateLines(b)) console.log('B ' + line)
  for (const line of entityLines(b, seen)) console.log('B ' + line)
  console.log('done')
}

async function main() {
  const [cmd, ...args] = process.argv.slice(2)
  if (cmd === 'ids') {
    for (const name of args) console.log(`id ${hex(Buffer.from(name, 'utf8'))} ${componentNumberFromName(name)}`)
  } else if (cmd === 'apply') {
    await apply(args)
  } else if (cmd === 'script') {
    await script()
  } else {
    console.error('usage: node peer.js ids NAME... | apply FILE... | script')
    process.exit(2)
  }
}

main().catch((err) => {
  console.error('peer.js: ' + (err && err.stack ? err.stack : err))
  process.exit(1)
})
