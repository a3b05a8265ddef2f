/**
 * The Temporal server a benchmark part runs on: the dev server (`temporal server start-dev` on a SQLite file, the
 * settings of `ask-user dev`), or the production-like cluster of `npm run cluster` (the Temporal server built at
 * docker-compose.yml's version, on PostgreSQL with SQL visibility). Either way a fresh one, in `directory`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { startCluster } from '../scripts/cluster';
import { startDevServer } from '../src/dev-server';
import { freePort, recordChild } from './processes';

/** Which server. */
export type ServerKind = 'dev' | 'postgres';

export const SERVER_KINDS: readonly ServerKind[] = ['dev', 'postgres'];

/** A running server. */
export interface BenchServer {
  address: string;
  /** The Temporal server's process (PostgreSQL's CPU is not in it). */
  pid: number | undefined;
  /** PostgreSQL's postmaster, parent of its other processes (the cluster only). */
  postgresPid?: number | undefined;
  /** PostgreSQL's database folder, for its size on disk (the cluster only). */
  postgresDataDir?: string;
  /** How it reads in the results. */
  description: string;
  stop(): Promise<void>;
}

/** How a dev server is set up beyond `ask-user dev`'s settings. */
export interface BenchServerOptions {
  /**
   * Partitions of every task queue (the server's default is 4). With more than one, a question's first
   * workflow task is now and then handed to a poll the worker no longer holds, under load at c=64, and waits
   * out its 10 s timeout (docs/benchmarks.md, "Where a slow c=64 phase's time goes").
   */
  taskQueuePartitions?: number;
}

/** Starts a fresh server of `kind` whose files live under `directory`, named by `label`. */
export async function startBenchServer(
  kind: ServerKind,
  directory: string,
  label: string,
  options: BenchServerOptions = {},
): Promise<BenchServer> {
  if (kind === 'dev') {
    const partitions = options.taskQueuePartitions;
    const server = await startDevServer({
      dbFile: path.join(directory, `${label}.sqlite`),
      port: await freePort(),
      uiPort: false,
      ip: '127.0.0.1',
      onSpawn: recordChild,
      ...(partitions === undefined
        ? {}
        : {
            dynamicConfig: {
              'matching.numTaskqueueReadPartitions': partitions,
              'matching.numTaskqueueWritePartitions': partitions,
            },
          }),
    });
    return {
      address: server.address,
      pid: server.process.pid,
      description:
        partitions === undefined
          ? 'dev server (SQLite)'
          : `dev server (SQLite, ${partitions} task queue partition${partitions === 1 ? '' : 's'})`,
      stop: () => server.stop(),
    };
  }
  const cluster = await startCluster({
    dataDir: path.join(directory, `${label}-cluster`),
    onSpawn: recordChild,
  });
  return {
    address: cluster.address,
    pid: cluster.pids.server,
    postgresPid: cluster.pids.postgres,
    postgresDataDir: cluster.postgresDataDir,
    description: `Temporal server ${cluster.temporalVersion} on PostgreSQL ${cluster.postgresMajor}`,
    stop: async () => {
      await cluster.stop();
      // Outside `directory` when PostgreSQL's account cannot reach it (a private temporary folder).
      await fs.rm(cluster.postgresDataDir, { recursive: true, force: true });
    },
  };
}
