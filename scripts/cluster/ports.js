/**
 * The cluster's loopback ports: PostgreSQL's, and the gRPC, HTTP and membership ports of the server's four
 * services. Free ports are picked on a data folder's first start and saved in it (`ports.json`), so a restart,
 * which must come back at the address its clients and its own membership records know, reuses them, while two
 * clusters on two data folders never collide.
 *
 * Free ports come from scripts/free-port.js, below 32768, which the cluster needs for its own reason too: the
 * server records each service's membership port in PostgreSQL, in a `smallint` column
 * (`cluster_membership.rpc_port`), and refuses to start with a larger one ("value is out of range for type
 * smallint").
 */
'use strict';

const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const { HOST, freePort } = require('../free-port');

/**
 * The server's ports, by the name of the environment variable its configuration template reads each from:
 * all of them are set, so that nothing listens on the image's fixed ports (7233, 6933, ...).
 */
const SERVER_PORT_NAMES = [
  'FRONTEND_GRPC_PORT',
  'FRONTEND_HTTP_PORT',
  'FRONTEND_MEMBERSHIP_PORT',
  'HISTORY_GRPC_PORT',
  'HISTORY_MEMBERSHIP_PORT',
  'MATCHING_GRPC_PORT',
  'MATCHING_MEMBERSHIP_PORT',
  'WORKER_GRPC_PORT',
  'WORKER_MEMBERSHIP_PORT',
];
/** Every port the cluster listens on. */
const PORT_NAMES = ['postgres', ...SERVER_PORT_NAMES];

/** True when something accepts connections on `HOST:port`. */
function isListening(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port });
    const done = (listening) => {
      socket.destroy();
      resolve(listening);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1_000, () => done(false));
  });
}

/**
 * The ports of the cluster in `dataDir`: those saved there, else fresh free ones (with `frontendPort` as the
 * frontend's gRPC port when given), saved for the next start.
 *
 * @param {string} dataDir
 * @param {number} [frontendPort]
 * @returns {Promise<Record<string, number>>}
 */
async function clusterPorts(dataDir, frontendPort) {
  const file = path.join(dataDir, 'ports.json');
  let saved = {};
  try {
    saved = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    if (error.code !== 'ENOENT')
      throw new Error(`could not read ${file}: ${error.message}`, { cause: error });
  }
  const ports = {};
  const taken = new Set();
  for (const name of PORT_NAMES) {
    let port = name === 'FRONTEND_GRPC_PORT' && frontendPort !== undefined ? frontendPort : saved[name];
    if (!Number.isInteger(port)) port = await freePort(taken);
    ports[name] = port;
    taken.add(port);
  }
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(ports, null, 2)}\n`);
  return ports;
}

/**
 * Fails, naming the port and what it is for, when something already listens on one of `ports`: most often the
 * same cluster still running from an earlier start.
 *
 * @param {Record<string, number>} ports
 * @param {string[]} names
 * @param {string} dataDir
 */
async function assertPortsFree(ports, names, dataDir) {
  for (const name of names) {
    const port = ports[name];
    if (port !== undefined && (await isListening(port))) {
      throw new Error(
        `port ${HOST}:${port} (${name}) of the cluster in ${dataDir} is already in use: is that cluster still ` +
          `running? Stop it, or remove ${path.join(dataDir, 'ports.json')} to pick new ports`,
      );
    }
  }
}

module.exports = {
  HOST,
  PORT_NAMES,
  SERVER_PORT_NAMES,
  assertPortsFree,
  clusterPorts,
  freePort,
  isListening,
};
