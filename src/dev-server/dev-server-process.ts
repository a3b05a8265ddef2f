/**
 * Runs the Temporal dev server as a child process on a persisted SQLite file: the embedded default behind
 * `ask-user dev`. Node-only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { findTemporalCli } from './temporal-cli';

/** Options of `startDevServer`. */
export interface DevServerOptions {
  /** SQLite file that keeps questions across restarts. Its folder is created if missing. */
  dbFile: string;
  /** gRPC port. Default 7233. */
  port?: number;
  /** Web UI port; `false` runs headless. Default port + 1000. */
  uiPort?: number | false;
  /** Interface to bind. Default 127.0.0.1. */
  ip?: string;
  /** Namespace created at start. Default `default`. */
  namespace?: string;
  /** Binary to run. Default: `findTemporalCli()`. */
  binary?: string;
  /** How long to wait for the server to accept connections. Default 60 s. */
  readyTimeoutMs?: number;
  /**
   * Called with the server process as soon as it is spawned, before it is ready: lets a supervisor (a test
   * harness, say) take charge of it even if the caller dies while the server is still starting.
   */
  onSpawn?: (child: ChildProcess) => void;
  /** Where the server's own output goes besides the tail kept for `output()`. Default: nowhere else. */
  log?: 'inherit' | NodeJS.WritableStream;
  /** Dynamic config values (`--dynamic-config-value KEY=JSON`), such as `matching.numTaskqueueReadPartitions`. */
  dynamicConfig?: Readonly<Record<string, string | number | boolean>>;
}

/** A running dev server. */
export interface DevServer {
  /** `host:port` for `TEMPORAL_ADDRESS`. */
  address: string;
  /** Web UI URL, when not headless. */
  uiUrl?: string;
  process: ChildProcess;
  /** The last 16 KiB of the server's stdout and stderr, for failure messages. */
  output(): string;
  /** Stops the server by its process id (SIGTERM, then SIGKILL after `graceMs`) and waits for it to exit. */
  stop(graceMs?: number): Promise<void>;
}

const OUTPUT_TAIL = 16 * 1024;

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1_000, () => done(false));
  });
}

/** True once the namespace can be described: the port alone opens before the server is ready. */
async function namespaceReady(address: string, namespace: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 2_000 });
    await connection.withDeadline(Date.now() + 2_000, () =>
      connection!.workflowService.describeNamespace({ namespace }),
    );
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close();
  }
}

/** Resolves when the child exits (at once if it already has). */
function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve()); // never spawned: there is nothing to wait for
  });
}

/**
 * Starts `temporal server start-dev` and resolves once its gRPC port accepts connections.
 *
 * @throws Error when no binary is found, the port is taken, or the server exits or stalls before it is ready.
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const binary = options.binary ?? findTemporalCli();
  if (binary === undefined) {
    throw new Error('no Temporal CLI binary found: run `npm run ensure-temporal` or set TEMPORAL_CLI_PATH');
  }
  const ip = options.ip ?? '127.0.0.1';
  const port = options.port ?? 7233;
  const uiPort = options.uiPort ?? port + 1000;
  if (await canConnect(ip, port)) throw new Error(`port ${ip}:${port} is already in use`);
  fs.mkdirSync(path.dirname(path.resolve(options.dbFile)), { recursive: true });

  const args = [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(port),
    '--db-filename',
    options.dbFile,
    '--sqlite-pragma',
    'journal_mode=WAL',
    '--namespace',
    options.namespace ?? 'default',
    '--log-level',
    'warn',
  ];
  for (const [key, value] of Object.entries(options.dynamicConfig ?? {})) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  if (uiPort === false) args.push('--headless');
  else args.push('--ui-port', String(uiPort), '--ui-ip', ip);

  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  options.onSpawn?.(child);
  let output = '';
  const record = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL);
  };
  child.stdout.on('data', record);
  child.stderr.on('data', record);
  if (options.log === 'inherit') {
    child.stdout.pipe(process.stdout);
    child.stderr.pipe(process.stderr);
  } else if (options.log !== undefined) {
    child.stdout.pipe(options.log);
    child.stderr.pipe(options.log);
  }
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  const exit = exited(child);

  const stop = async (graceMs = 10_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null || spawnError !== undefined) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exit;
    clearTimeout(timer);
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let ended = false;
  void exit.then(() => (ended = true));
  const namespace = options.namespace ?? 'default';
  while (!((await canConnect(ip, port)) && (await namespaceReady(`${ip}:${port}`, namespace)))) {
    if (ended || spawnError !== undefined) {
      const reason = spawnError?.message ?? `exited with ${child.signalCode ?? `code ${child.exitCode}`}`;
      throw new Error(`the Temporal dev server ${reason} before it was ready:\n${output}`);
    }
    if (Date.now() > deadline) {
      await stop(1_000);
      throw new Error(
        `the Temporal dev server did not accept connections on ${ip}:${port} in time:\n${output}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const server: DevServer = { address: `${ip}:${port}`, process: child, output: () => output, stop };
  if (uiPort !== false) server.uiUrl = `http://${ip}:${uiPort}`;
  return server;
}
