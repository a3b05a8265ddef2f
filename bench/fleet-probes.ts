/**
 * Readings of the fleet part (`fleet-pending.ts`) that the waiting part has no need of: a process tree's CPU
 * time, resident and proportional memory (PostgreSQL runs one process per connection, and its shared buffers
 * are in every one of them: the proportional set size counts each page once), a folder's size on disk, the
 * worker's own gRPC calls read from its core's Prometheus metrics, the inbox's first page and count through
 * its HTTP API, and `ask-user list` from `dist/`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import type { Client } from '@temporalio/client';

import { InboxAuth, QuestionIndex, startInboxServer } from '../src/inbox';
import { median } from './measure';
import { sampleProcess } from './processes';

const PROJECT_ROOT = path.resolve(__dirname, '..');

/** CPU time and memory of a process and all its descendants, summed. */
export interface TreeSample {
  processes: number;
  cpuSeconds: number;
  rss: number;
  /** Proportional set size: shared pages divided among the processes that map them. */
  pss: number;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function pssOf(pid: number): number {
  try {
    const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const match = /^Pss:\s+(\d+)\s+kB$/m.exec(rollup);
    return match === null ? 0 : Number(match[1]) * 1024;
  } catch {
    return 0;
  }
}

/** `root` and every process below it, from `/proc` (Linux); `undefined` when `root` is not running. */
export function sampleTree(root: number | undefined): TreeSample | undefined {
  if (root === undefined || sampleProcess(root) === undefined) return undefined;
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    if (parent === undefined) continue;
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const total: TreeSample = { processes: 0, cpuSeconds: 0, rss: 0, pss: 0 };
  const pending = [root];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    const sample = sampleProcess(pid);
    if (sample !== undefined) {
      total.processes += 1;
      total.cpuSeconds += sample.cpuSeconds;
      total.rss += sample.rss;
      total.pss += pssOf(pid);
    }
    pending.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Bytes of every file under `directory` (0 when it cannot be read). */
export function directoryBytes(directory: string | undefined): number | undefined {
  if (directory === undefined) return undefined;
  let total = 0;
  try {
    for (const entry of fs.readdirSync(directory, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      try {
        total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
      } catch {
        // A file removed between the listing and the stat (a WAL segment recycled) counts for nothing.
      }
    }
  } catch {
    return undefined;
  }
  return total;
}

/**
 * The worker's gRPC calls so far, by operation: the core's `temporal_request` (every call but polls) and
 * `temporal_long_request` (polls) counters, summed over their labels.
 */
export async function workerCalls(metricsPort: number): Promise<Record<string, number>> {
  const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  if (!response.ok) throw new Error(`the worker's metrics endpoint answered ${response.status}`);
  const counts: Record<string, number> = {};
  for (const line of (await response.text()).split('\n')) {
    const match = /^temporal_(?:long_)?request(?:_total)?\{([^}]*)\}\s+(\d+(?:\.\d+)?)/.exec(line);
    if (match === null) continue;
    const operation = /operation="([^"]+)"/.exec(match[1]!)?.[1] ?? 'unknown';
    counts[operation] = (counts[operation] ?? 0) + Number(match[2]);
  }
  return counts;
}

/** Timing of one read: the first (cold) and the median of the next three (warm). */
export interface ReadTiming {
  firstMs: number;
  warmMs: number;
}

async function timeRead<T>(read: () => Promise<T>): Promise<{ timing: ReadTiming; value: T }> {
  let startedAt = performance.now();
  const value = await read();
  const firstMs = performance.now() - startedAt;
  const warm: number[] = [];
  for (let run = 0; run < 3; run += 1) {
    startedAt = performance.now();
    await read();
    warm.push(performance.now() - startedAt);
  }
  return { timing: { firstMs, warmMs: median(warm) }, value };
}

/** What the inbox's first page answered. */
export interface InboxReading {
  timing: ReadTiming;
  pageSize: number;
  pending: number;
  total: number;
}

/**
 * `GET /api/questions?status=pending&pageSize=50` of an inbox served over `client` (the page's first call: one
 * page and the counts of all questions), with a bearer token, timed over HTTP.
 */
export async function timeInboxFirstPage(client: Client): Promise<InboxReading> {
  const token = `fleet-bench-token-${crypto.randomUUID()}`;
  const inbox = await startInboxServer({
    index: new QuestionIndex(client),
    auth: new InboxAuth({ token }),
    port: 0,
  });
  try {
    const read = async () => {
      const response = await fetch(new URL('/api/questions?status=pending&pageSize=50', inbox.url), {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = (await response.json()) as {
        questions?: unknown[];
        counts?: { pending: number; total: number };
      };
      if (!response.ok) throw new Error(`the inbox answered ${response.status}: ${JSON.stringify(body)}`);
      return body;
    };
    const { timing, value } = await timeRead(read);
    return {
      timing,
      pageSize: value.questions?.length ?? 0,
      pending: value.counts?.pending ?? Number.NaN,
      total: value.counts?.total ?? Number.NaN,
    };
  } finally {
    await inbox.close();
  }
}

/** `ask-user list` from `dist/`: the median and range of `runs` cold starts, each timed from spawn to exit. */
export interface CliReading {
  ms: number;
  minMs: number;
  maxMs: number;
  runs: number;
  lines: number;
}

async function runCliList(main: string, address: string): Promise<{ ms: number; lines: number }> {
  const startedAt = performance.now();
  const child = spawn(
    process.execPath,
    ['-e', 'require(process.argv[1]).main(process.argv.slice(2))', main, 'list'],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  let errors = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  clearTimeout(timer);
  if (exitCode !== 0) {
    throw new Error(`ask-user list exited ${exitCode}: ${errors.trim().split('\n')[0]?.slice(0, 200) ?? ''}`);
  }
  return {
    ms: performance.now() - startedAt,
    lines: output.split('\n').filter((line) => line.trim() !== '').length,
  };
}

export async function timeCliList(address: string, runs = 5): Promise<CliReading> {
  const main = path.join(PROJECT_ROOT, 'dist', 'cli', 'main.js');
  if (!fs.existsSync(main)) throw new Error('dist/cli/main.js is missing: run `npm run build` first');
  const times: number[] = [];
  let lines = 0;
  for (let run = 0; run < runs; run += 1) {
    const result = await runCliList(main, address);
    times.push(result.ms);
    lines = result.lines;
  }
  return { ms: median(times), minMs: Math.min(...times), maxMs: Math.max(...times), runs, lines };
}
