/**
 * Toxiproxy (github.com/Shopify/toxiproxy) between the clients and a Temporal server, for the blackhole test
 * (test/integration/blackhole.test.ts) and the chaos soak (`npm run soak -- --toxic ...`).
 *
 * The server binary comes from scripts/ensure-toxiproxy.js: found in the per-user cache, or built there from
 * its Go module; with no Go toolchain, {@link startToxiproxy} rejects with the message that says what to
 * install. The server process is tracked in the shared process registry (test/helpers/processes.ts) and
 * stopped by its PID. Its REST API is small JSON over HTTP, spoken here with `fetch`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

import { freePort, HOST } from '../../scripts/free-port';
import { isRunning, killProcess, trackProcess } from './processes';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain CommonJS, shared with `node scripts/...`
const { ensureToxiproxy } = require('../../scripts/ensure-toxiproxy.js') as {
  ensureToxiproxy: (env?: NodeJS.ProcessEnv) => string;
};

/** A toxic as Toxiproxy's API takes it (https://github.com/Shopify/toxiproxy#toxics). */
export interface Toxic {
  name: string;
  type: 'latency' | 'bandwidth' | 'slow_close' | 'timeout' | 'reset_peer' | 'slicer' | 'limit_data';
  /** `downstream` (server to client) or `upstream` (client to server). */
  stream: 'upstream' | 'downstream';
  /** Share of connections the toxic applies to, 0 to 1. Default 1. */
  toxicity?: number;
  attributes: Record<string, number>;
}

/** One proxy: clients connect to `address`, which forwards to the upstream while no toxic says otherwise. */
export interface ToxiproxyProxy {
  name: string;
  /** `host:port` for the clients. */
  address: string;
  /** Adds `toxic`; it applies to the proxy's connections, open and new, from now on. */
  addToxic(toxic: Toxic): Promise<void>;
  /** Removes the toxic named `name`. */
  removeToxic(name: string): Promise<void>;
  /** Names of the toxics in place now. */
  toxics(): Promise<string[]>;
}

/** A running Toxiproxy server. */
export interface Toxiproxy {
  /** `http://host:port` of its API. */
  apiUrl: string;
  pid: number;
  /** Client connections the proxies accepted so far (from its log): reconnects show up here. */
  acceptedConnections(): number;
  /** Creates a proxy from a free port of 127.0.0.1 to `upstream` (`host:port`). */
  createProxy(name: string, upstream: string): Promise<ToxiproxyProxy>;
  /** Stops the server by its PID and waits for it to exit. */
  stop(): Promise<void>;
}

async function request(apiUrl: string, method: string, route: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${apiUrl}${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`toxiproxy ${method} ${route}: HTTP ${response.status}: ${text.trim()}`);
  // `/version` answers plain text; everything else JSON.
  return response.headers.get('content-type')?.includes('json') === true
    ? (JSON.parse(text) as unknown)
    : text;
}

function exited(child: ChildProcess): Promise<void> {
  return isRunning(child) ? new Promise((resolve) => child.once('exit', () => resolve())) : Promise.resolve();
}

/**
 * Starts a Toxiproxy server on a free port of 127.0.0.1 and waits until its API answers.
 *
 * @throws when the binary can be neither found nor built (the message says what to install), or when the
 *   server does not answer within 15 s (the message holds what it printed).
 */
export async function startToxiproxy(): Promise<Toxiproxy> {
  const binary = ensureToxiproxy();
  const port = await freePort();
  const child = spawn(binary, ['-host', HOST, '-port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackProcess(child, { kind: 'child' });
  let output = '';
  let accepted = 0;
  // It logs JSON lines on stdout; stderr is read as well, for what it prints when it cannot start.
  const reader = (): ((chunk: Buffer) => void) => {
    let partial = '';
    return (chunk) => {
      const text = chunk.toString();
      // Only the start is kept, for when it fails to come up; the log of every connection is counted.
      if (output.length < 4_000) output += text;
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.includes('"message":"Accepted client"')) accepted += 1;
    };
  };
  child.stdout?.on('data', reader());
  child.stderr?.on('data', reader());
  const apiUrl = `http://${HOST}:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      await request(apiUrl, 'GET', '/version');
      break;
    } catch (error) {
      if (!isRunning(child) || Date.now() > deadline) {
        killProcess(child);
        throw new Error(
          `toxiproxy (${binary}) did not answer on ${apiUrl}: ${(error as Error).message}; it printed: ${output.trim()}`,
          { cause: error },
        );
      }
      await sleep(100);
    }
  }
  const used = new Set([port]);
  return {
    apiUrl,
    pid: child.pid!,
    acceptedConnections: () => accepted,
    async createProxy(name, upstream) {
      const listenPort = await freePort(used);
      used.add(listenPort);
      const address = `${HOST}:${listenPort}`;
      await request(apiUrl, 'POST', '/proxies', { name, listen: address, upstream, enabled: true });
      const route = `/proxies/${encodeURIComponent(name)}/toxics`;
      return {
        name,
        address,
        async addToxic(toxic) {
          await request(apiUrl, 'POST', route, { toxicity: 1, ...toxic });
        },
        async removeToxic(toxicName) {
          await request(apiUrl, 'DELETE', `${route}/${encodeURIComponent(toxicName)}`);
        },
        async toxics() {
          const listed = (await request(apiUrl, 'GET', route)) as { name: string }[];
          return listed.map((toxic) => toxic.name);
        },
      };
    },
    async stop() {
      const gone = exited(child);
      killProcess(child);
      await gone;
    },
  };
}

/**
 * The blackhole: a `timeout` toxic with `timeout: 0` both ways. It delivers nothing and closes nothing: the
 * clients' connections stay open (no reset, no refusal), new ones are accepted and then hear nothing. What it
 * held back is let through once it is removed, on the connections still open.
 */
export function blackholeToxics(): Toxic[] {
  return (['upstream', 'downstream'] as const).map((stream) => ({
    name: `blackhole-${stream}`,
    type: 'timeout',
    stream,
    attributes: { timeout: 0 },
  }));
}
