/**
 * A free TCP port of 127.0.0.1 for a server that must be told its port (the Temporal dev server, the cluster's
 * services, the inbox in tests).
 *
 * Ports are picked below the system's ephemeral range (32768 to 60999 by default on Linux), by trying random ones, instead
 * of asking the system for one with port 0. A port the system hands out is from that range, which is also where
 * every outgoing connection takes its local port: on a busy machine, between the moment the port is picked and
 * the moment the server binds it, a client connection elsewhere can take the very same number, and the server
 * fails with "address already in use" (seen in CI: a dev server's gRPC listener, with a dozen test files
 * connecting at once). No connection takes a port below the range, so only another picker can, and two
 * random picks from 12,768 ports rarely meet.
 */
'use strict';

const net = require('node:net');

const HOST = '127.0.0.1';
const PICK_FROM = 20_000;
const PICK_TO = 32_767;
const ATTEMPTS = 200;

/**
 * True when `port` of 127.0.0.1 can be bound now.
 *
 * @param {number} port
 * @returns {Promise<boolean>}
 */
function canBind(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

/**
 * A port of 127.0.0.1 from 20000 to 32767 that was free a moment ago and is not in `exclude`. Another picker
 * could still take it before it is used; the server's start then fails with "address already in use", naming it.
 *
 * @param {Set<number>} [exclude]  ports already handed out
 * @returns {Promise<number>}
 */
async function freePort(exclude = new Set()) {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = PICK_FROM + Math.floor(Math.random() * (PICK_TO - PICK_FROM + 1));
    if (!exclude.has(port) && (await canBind(port))) return port;
  }
  throw new Error(`found no free port of ${HOST} from ${PICK_FROM} to ${PICK_TO} in ${ATTEMPTS} tries`);
}

module.exports = { HOST, freePort };
