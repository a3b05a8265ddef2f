/**
 * Shared helpers for tests that need a real Temporal server.
 *
 * Two ways to get one:
 * - {@link startTestEnvironment}: the SDK's `TestWorkflowEnvironment` on an in-memory dev server, for
 *   workflow tests that only need a client and a worker;
 * - {@link startDevServerProcess}: the `temporal server start-dev` process itself (the same launcher as
 *   `ask-user dev`), on a SQLite file, for black-box tests that kill and restart the server or run the CLI.
 *
 * Both use the binary that `npm test` made sure of (`scripts/ensure-temporal.js`). Server processes are tracked
 * in the shared process registry (test/helpers/processes.ts): one still running when the test process ends,
 * however it ends, is killed, so a failing or timed-out test file never leaves one behind.
 *
 * {@link startDevServerWithClient} adds what most black-box tests want around the process: a temporary
 * directory for its database and a client of it; {@link withQuestionClient} is a client for a few calls.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';

import {
  startDevServer,
  temporalExecutable,
  type DevServer,
  type DevServerOptions,
} from '../../src/dev-server';
import { QuestionClient } from '../../src/ops';
import { freePort } from '../../scripts/free-port';
import { trackProcess } from './processes';

const LOCALHOST = '127.0.0.1';

/** An in-memory dev server with a client, for workflow tests. */
export async function startTestEnvironment(): Promise<TestWorkflowEnvironment> {
  return await TestWorkflowEnvironment.createLocal({
    server: { executable: temporalExecutable(), ip: LOCALHOST },
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
  /** Dynamic config values the server starts with. */
  dynamicConfig?: DevServerOptions['dynamicConfig'];
}

/** A dev server process, as `startDevServer` returns it. */
export type DevServerProcess = DevServer;

/** Starts `temporal server start-dev` on a SQLite file and registers it to be killed with the test process. */
export async function startDevServerProcess(options: DevServerProcessOptions): Promise<DevServerProcess> {
  const server = await startDevServer({
    dbFile: options.dbFile,
    port: options.port,
    uiPort: options.uiPort ?? false,
    ip: LOCALHOST,
    // Tracked from the moment it exists, so a test process that dies during start-up leaves no server.
    onSpawn: (child) => trackProcess(child, { kind: 'dev-server' }),
    ...(options.dynamicConfig === undefined ? {} : { dynamicConfig: options.dynamicConfig }),
  });
  return server;
}

/** A dev server process in its own temporary directory, and a client of it; see {@link startDevServerWithClient}. */
export interface DevServerWithClient {
  /** Temporary directory that holds the server's SQLite file; tests may put their own files in it. */
  directory: string;
  server: DevServerProcess;
  /** A client in the `default` namespace. */
  client: Client;
  /** The ops client over {@link client}. */
  questions: QuestionClient;
  /** Closes the client's connection, stops the server and removes the directory. */
  stop(): Promise<void>;
}

/**
 * Starts a dev server process on a SQLite file in a fresh temporary directory (`ask-user-<name>-*`, on a free
 * port) and connects a client to it. If any step fails, what was started is stopped again.
 */
export async function startDevServerWithClient(name: string): Promise<DevServerWithClient> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), `ask-user-${name}-`));
  let server: DevServerProcess | undefined;
  let connection: Connection | undefined;
  const stop = async (): Promise<void> => {
    try {
      await connection?.close();
      await server?.stop();
    } finally {
      await fs.rm(directory, { recursive: true, force: true });
    }
  };
  try {
    server = await startDevServerProcess({
      dbFile: path.join(directory, 'temporal.sqlite'),
      port: await freePort(),
    });
    connection = await Connection.connect({ address: server.address });
  } catch (error) {
    await stop();
    throw error;
  }
  const client = new Client({ connection, namespace: 'default' });
  return { directory, server, client, questions: new QuestionClient(client), stop };
}

/**
 * Connects to the server at `address`, hands `use` an ops client (and its client) in `namespace`, and closes
 * the connection.
 */
export async function withQuestionClient<T>(
  address: string,
  use: (questions: QuestionClient, client: Client) => Promise<T>,
  namespace = 'default',
): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace });
    return await use(new QuestionClient(client), client);
  } finally {
    await connection.close();
  }
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, picked below the system's ephemeral range so that no
 * outgoing connection can take it before the server binds it (scripts/free-port.js says why).
 */
export { freePort };
