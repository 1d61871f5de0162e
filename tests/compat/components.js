// tests/compat/components.js: the render components (Transform, MeshRenderer, Material,
// LightSource) written and read by the real @dcl/ecs, for tests/compat/spec/dcl_ecs_spec.lua.
//
//   node components.js write FILE   FILE is JSON: [{transform=, meshRenderer=, material=,
//                                   lightSource=}, ...], each value in @dcl/ecs's own shape
//                                   (PBMaterial, PBLightSource, ...); item i goes on the
//                                   engine's (512 + i - 1)th entity. One engine.update; prints
//                                   "frame HEX" with every message it sent.
//   node components.js read FILE    applies FILE's CRDT messages (one engine.update) and prints
//                                   "entity ID JSON" per entity they named: what the getters
//                                   return, {transform, meshRenderer, material, lightSource},
//                                   a missing component left out.
'use strict'

let ecs
try {
  ecs = require('@dcl/ecs/dist-cjs')
} catch (err) {
  console.error('components.js: cannot load @dcl/ecs (run `npm ci --prefix tests/compat`): ' + err.message)
  process.exit(3)
}
const fs = require('fs')

function makeEngine() {
  const engine = ecs.Engine()
  const sent = []
  const transport = {
    type: 'tycho-compat',
    filter: () => true,
    send: async (message) => {
      if (message.byteLength) sent.push(Uint8Array.from(message))
    }
  }
  engine.addTransport(transport)
  const components = {
    transform: ecs.components.Transform(engine),
    meshRenderer: ecs.components.MeshRenderer(engine),
    material: ecs.components.Material(engine),
    lightSource: ecs.components.LightSource(engine)
  }
  return { engine, components, sent, deliver: (bytes) => transport.onmessage(bytes) }
}

async function write(file) {
  const items = JSON.parse(fs.readFileSync(file, 'utf8'))
  const peer = makeEngine()
  for (let i = 0; i < items.length; i++) {
    const entity = peer.engine.addEntity()
    if (entity !== 512 + i) throw new Error(`expected entity ${512 + i}, got ${entity}`)
    for (const [name, value] of Object.entries(items[i])) {
      if (!peer.components[name]) throw new Error('unknown component ' + name)
      peer.components[name].create(entity, value)
    }
  }
  await peer.engine.update(1)
  const all = Buffer.concat(peer.sent.map((b) => Buffer.from(b)))
  console.log('frame ' + (all.length ? all.toString('hex') : '-'))
}

async function read(file) {
  const bytes = new Uint8Array(fs.readFileSync(file))
  const peer = makeEngine()
  const entities = new Set()
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (let off = 0; off + 12 <= bytes.byteLength; ) {
    const length = view.getUint32(off, true)
    if (length < 8) break
    entities.add(view.getUint32(off + 8, true))
    off += length
  }
  peer.deliver(bytes)
  await peer.engine.update(1)
  for (const entity of [...entities].sort((a, b) => a - b)) {
    const out = {}
    for (const [name, component] of Object.entries(peer.components)) {
      const value = component.getOrNull(entity)
      if (value !== null) out[name] = value
    }
    console.log(`entity ${entity} ${JSON.stringify(out)}`)
  }
}

async function main() {
  const [cmd, file] = process.argv.slice(2)
  if (cmd === 'write' && file) await write(file)
  else if (cmd === 'read' && file) await read(file)
  else {
    console.error('usage: node components.js write FILE | read FILE')
    process.exit(2)
  }
}

main().catch((err) => {
  console.error('components.js: ' + (err && err.stack ? err.stack : err))
  process.exit(1)
})
