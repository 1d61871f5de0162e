// tests/bench/host_bench/colyseus_server.js: the peer tycho serve's crafty fan-out is compared
// with: a minimal Colyseus 0.15 room doing the same work as server/modules/crafty.lua's hot
// path, without its validation (so the comparison favours Colyseus). Transforms are kept
// (latest per client) and broadcast at 15 Hz to the others, only for clients that moved; block
// edits are broadcast at once to the whole room. Rooms are picked by the `world` join option.
//   node colyseus_server.js PORT
'use strict';
const { Server, Room } = require('colyseus');
const { WebSocketTransport } = require('@colyseus/ws-transport');

class CraftyRoom extends Room {
  onCreate() {
    this.maxClients = 1000;
    this.moved = new Map(); // sessionId -> {client, transform}
    this.onMessage('transform', (client, m) => {
      this.moved.set(client.sessionId, { client, m });
    });
    this.onMessage('block_edit', (client, m) => {
      this.broadcast('block_edit', { t: 'block_edit', x: m.x, y: m.y, z: m.z, type: m.type || 0, author: client.sessionId });
    });
    this.setSimulationInterval(() => {
      for (const [id, { client, m }] of this.moved) {
        this.broadcast('player_transform', { t: 'player_transform', playerId: id, x: m.x, y: m.y, z: m.z, yaw: m.yaw,
          pitch: m.pitch }, { except: client });
      }
      this.moved.clear();
    }, 1000 / 15);
  }

  onLeave(client) { this.moved.delete(client.sessionId); }
}

const port = Number(process.argv[2] || 2567);
const server = new Server({ transport: new WebSocketTransport({ perMessageDeflate: false }), greet: false });
server.define('crafty', CraftyRoom).filterBy(['world']);
server.listen(port, '127.0.0.1').then(() => process.stderr.write(`colyseus listening on ${port}\n`));
