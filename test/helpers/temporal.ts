/**
 * Shared helpers for tests that need a real Temporal server.
 *
 * Two ways to get one:
 * - {@link startTestEnvironment}: the SDK's `TestWorkflowEnvironment` on an in-memory dev server, for
 *   workflow tests that only need a client and a worker;
 * - {@link startDevServerProcess}: the `temporal server start-dev` process itself, on a SQLite file, for
 *   black-box tests that kill and restart the server, or run the CLI and the inbox against it.
 *
 * Both use the binary that `npm test` made sure of (`scripts/ensure-temporal.js`) and register the search
 * attributes the question workflow sets, because the server rejects a workflow that upserts unknown ones.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';

import { findTemporalCli, temporalExecutable } from '../../src/dev-server';

/** Search attribute (Keyword) holding a question's status: `pending`, `answered`, ... */
export const ASK_USER_STATUS_SEARCH_ATTRIBUTE = 'AskUserStatus';
/** Search attribute (Keyword) holding the id of the agent that asked. */
export const ASK_USER_AGENT_SEARCH_ATTRIBUTE = 'AskUserAgent';

/** `temporal server start-dev` arguments that register the search attributes above. */
export const SEARCH_ATTRIBUTE_ARGS: readonly string[] = [
  '--search-attribute',
  `${ASK_USER_STATUS_SEARCH_ATTRIBUTE}=Keyword`,
  '--search-attribute',
  `${ASK_USER_AGENT_SEARCH_ATTRIBUTE}=Keyword`,
];

const LOCALHOST = '127.0.0.1';

/**
 * Starts an in-memory Temporal dev server with the project's search attributes and returns the SDK's test
 * environment around it. Call `await env.teardown()` in `after`/`finally`.
 *
 * @example
 * ```ts
 * const env = await startTestEnvironment();
 * try {
 *   const worker = await Worker.create({ connection: env.nativeConnection, ... });
 * } finally {
 *   await env.teardown();
 * }
 * ```
 */
export async function startTestEnvironment(): Promise<TestWorkflowEnvironment> {
  return await TestWorkflowEnvironment.createLocal({
    server: {
      executable: temporalExecutable(),
      ip: LOCALHOST,
      extraArgs: [...SEARCH_ATTRIBUTE_ARGS],
    },
  });
}

/** Options of {@link startDevServerProcess}. */
export interface DevServerProcessOptions {
  /** SQLite file that keeps the server's state across restarts. */
  dbFile: string;
  /** gRPC port; see {@link freePort}. */
  port: number;
  /** Web UI port. Without it the server runs headless. */
  uiPort?: number;
  /** How long to wait for the server to accept connections. Default 60 s. */
  startTimeoutMs?: number;
}

/** A running `temporal server start-dev` process. */
export interface DevServerProcess {
  /** `127.0.0.1:<port>`, ready for `Connection.connect({ address })`. */
  address: string;
  /** Web UI address, when a `uiPort` was given. */
  uiAddress?: string;
  process: ChildProcess;
  /** The last part of the server's stdout and stderr, for failure messages. */
  output(): string;
  /** Stops the server by PID: SIGTERM, then SIGKILL if it is still running after `timeoutMs` (default 10 s). */
  stop(timeoutMs?: number): Promise<void>;
}

const OUTPUT_LIMIT = 16 * 1024;

/**
 * Starts the real dev server as a child process on a SQLite file (WAL journal, so a killed server loses no
 * committed state) and resolves once it accepts a `Connection.connect` and serves the `default` namespace.
 *
 * @throws Error with the server's output when it exits early or is not ready within `startTimeoutMs`.
 *
 * @example
 * ```ts
 * const server = await startDevServerProcess({ dbFile: path.join(dir, 'temporal.db'), port: await freePort() });
 * try {
 *   const connection = await Connection.connect({ address: server.address });
 * } finally {
 *   await server.stop();
 * }
 * ```
 */
export async function startDevServerProcess(options: DevServerProcessOptions): Promise<DevServerProcess> {
  const binary = findTemporalCli();
  if (binary === undefined) {
    throw new Error(
      'no Temporal CLI binary found: run `node scripts/ensure-temporal.js` or set TEMPORAL_CLI_PATH',
    );
  }
  const address = `${LOCALHOST}:${options.port}`;
  const args = [
    'server',
    'start-dev',
    '--ip',
    LOCALHOST,
    '--port',
    String(options.port),
    ...(options.uiPort === undefined ? ['--headless'] : ['--ui-port', String(options.uiPort)]),
    '--db-filename',
    options.dbFile,
    '--sqlite-pragma',
    'journal_mode=WAL',
    ...SEARCH_ATTRIBUTE_ARGS,
    '--log-level',
    'warn',
  ];

  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const record = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
  };
  child.stdout.on('data', record);
  child.stderr.on('data', record);

  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  const isRunning = (): boolean => child.exitCode === null && child.signalCode === null && !spawnError;

  runningServers.add(child);
  void exited.then(() => runningServers.delete(child));
  watchForTestProcessEnd();

  const stop = async (timeoutMs = 10_000): Promise<void> => {
    if (child.pid === undefined || !isRunning()) return;
    child.kill('SIGTERM');
    const stopped = await Promise.race([exited.then(() => true), sleep(timeoutMs, false)]);
    if (!stopped) {
      child.kill('SIGKILL');
      await exited;
    }
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  for (;;) {
    if (!isRunning()) {
      const reason = spawnError
        ? spawnError.message
        : `exited with ${child.signalCode ?? `code ${String(child.exitCode)}`}`;
      throw new Error(`temporal dev server on ${address} ${reason} before it was ready:\n${output}`);
    }
    if (await acceptsConnection(address)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `temporal dev server on ${address} was not ready after ${options.startTimeoutMs ?? 60_000} ms:\n${output}`,
      );
    }
    await sleep(200);
  }

  return {
    address,
    ...(options.uiPort === undefined ? {} : { uiAddress: `http://${LOCALHOST}:${options.uiPort}` }),
    process: child,
    output: () => output,
    stop,
  };
}

// Servers still running in this test process. A test that fails before `stop()`, or a test file that the
// runner ends on timeout (SIGTERM), must not leave servers behind: nothing else would ever stop them.
const runningServers = new Set<ChildProcess>();
let watchingForTestProcessEnd = false;

function killRunningServers(): void {
  for (const server of runningServers) {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  }
  runningServers.clear();
}

function watchForTestProcessEnd(): void {
  if (watchingForTestProcessEnd) return;
  watchingForTestProcessEnd = true;
  process.once('exit', killRunningServers);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    // Listening replaces the default action, so die by the same signal afterwards, as if nobody listened.
    process.once(signal, () => {
      killRunningServers();
      process.kill(process.pid, signal);
    });
  }
}

async function acceptsConnection(address: string): Promise<boolean> {
  const connection = Connection.lazy({ address, connectTimeout: 1_000 });
  try {
    await connection.ensureConnected();
    await connection.workflowService.describeNamespace({ namespace: 'default' });
    return true;
  } catch {
    return false;
  } finally {
    await connection.close();
  }
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago. Another process could take it before it is used;
 * tests accept that small race rather than retry.
 */
export async function freePort(): Promise<number> {
  return await new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, LOCALHOST, () => {
      const bound = server.address();
      server.close(() => {
        if (bound !== null && typeof bound === 'object') resolve(bound.port);
        else reject(new Error('could not read the port of a probe server'));
      });
    });
  });
}
