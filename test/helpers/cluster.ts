/**
 * The production-like cluster of scripts/cluster (PostgreSQL, and the Temporal server built from source at the
 * version docker-compose.yml pins, with SQL visibility) for the tests under test/cluster/: one per test file, in a
 * data folder of its own under `.data/cluster/`, with a client of it.
 *
 * Its PostgreSQL and server processes are tracked in the shared process registry (test/helpers/processes.ts,
 * kind `cluster`), so neither outlives the test process however it ends; `stop()` stops them by pid, server
 * first, and removes the data folder.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { Client, Connection } from '@temporalio/client';

import { startCluster, type Cluster } from '../../scripts/cluster';
import { QuestionClient } from '../../src/ops';
import { trackProcess } from './processes';

const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/** A cluster and a client of it; see {@link startTestCluster}. */
export interface TestCluster {
  cluster: Cluster;
  /** A client in the cluster's namespace. It reconnects by itself when the server comes back after a restart. */
  client: Client;
  /** The ops client over {@link client}. */
  questions: QuestionClient;
  /** Closes the client's connection, stops the cluster and removes its data folder. */
  stop(): Promise<void>;
}

/**
 * Starts a cluster in `.data/cluster/test-<name>-<pid>` (fresh: whatever an earlier run left there goes) and
 * connects a client to it. If any step fails, what was started is stopped again.
 */
export async function startTestCluster(name: string): Promise<TestCluster> {
  const dataDir = path.join(PROJECT_ROOT, '.data', 'cluster', `test-${name}-${process.pid}`);
  await fs.rm(dataDir, { recursive: true, force: true });
  let cluster: Cluster | undefined;
  let connection: Connection | undefined;
  const stop = async (): Promise<void> => {
    try {
      await connection?.close();
      await cluster?.stop();
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
      if (cluster !== undefined) await fs.rm(cluster.postgresDataDir, { recursive: true, force: true });
    }
  };
  try {
    cluster = await startCluster({
      dataDir,
      // Tracked from the moment each exists, so a test process that dies during start-up leaves none behind.
      onSpawn: (child) => trackProcess(child, { kind: 'cluster' }),
    });
    connection = await Connection.connect({ address: cluster.address });
  } catch (error) {
    await stop();
    throw error;
  }
  const client = new Client({ connection, namespace: cluster.namespace });
  return { cluster, client, questions: new QuestionClient(client), stop };
}
