/**
 * What `ask-user audit export` costs as the count of closed requests grows, on a fresh server with the `ours`
 * worker: requests are started as the tool starts them (`questionStart`, the question workflow, its memo), one
 * in four answered through `QuestionClient`, the rest left to expire; once all are closed, the real CLI
 * (`bin/ask-user.js audit export --since ... --format jsonl`) exports them to a pipe this process counts and
 * drops. Its peak resident set (VmHWM, read from /proc while it runs) and its wall time, at each count, against
 * `ask-user list --limit 1`, the same CLI's floor (Node, tsx, the Temporal client). The export reads a page of
 * the visibility list and its histories at a time, so the peak should stay flat as the count grows tenfold.
 *
 * A part of `npm run bench` (`--skip audit-export` leaves it out), or on its own:
 *
 *   npx tsx bench/audit-export.ts                 # 1,000 then 10,000 closed requests
 *   npx tsx bench/audit-export.ts --counts 200,1000
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { Client, Connection } from '@temporalio/client';

import { QuestionOperationError } from '../src/interaction/question-operation-error';
import { QuestionClient } from '../src/ops';
import { ASK_USER_QUESTION_WORKFLOW_TYPE } from '../src/question/definitions';
import { questionStart } from '../src/question/question-start';
import { RESOLVED_QUESTIONS_QUERY } from '../src/question/visibility-query';
import { formatBytes, formatMs, formatNumber, formatTable } from './measure';
import { forkScript, nextMessage, recordChild, stopChild } from './processes';
import { startBenchServer, type ServerKind } from './servers';

const QUESTION = {
  id: 'deploy',
  question: 'Deploy the release to production now?',
  options: [{ label: 'Yes' }, { label: 'No' }],
};
/** Starts (and answers) in flight at once while seeding. */
const SEED_CONCURRENCY = 32;
/** The deadline of the requests left to expire: past the time to start and answer a batch of them. */
const EXPIRE_AFTER_MS = 20_000;
const PROJECT_ROOT = path.join(__dirname, '..');

/** Settings of {@link runAuditExport}. */
export interface AuditExportSettings {
  /** The counts of closed requests to export at, ascending. */
  counts: number[];
  server: ServerKind;
}

/** One CLI run: its wall time, its peak resident set, and what it wrote. */
interface CliRun {
  ms: number;
  peakRss: number;
  lines: number;
  bytes: number;
}

/** The high-water mark of `pid`'s resident set, from /proc; 0 once it has exited. */
function peakRssOf(pid: number): number {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? 0 : Number(match[1]) * 1024;
  } catch {
    return 0;
  }
}

/** Runs `ask-user <args>` against `address`, counting its stdout lines and sampling its peak RSS. */
async function runCli(address: string, args: string[]): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'bin', 'ask-user.js'), ...args], {
    env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  recordChild(child);
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, peakRssOf(child.pid!))), 20);
  let lines = 0;
  let bytes = 0;
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 10) lines += 1;
    // The high-water mark only grows: a reading taken as output flows is as good as the last.
    peakRss = Math.max(peakRss, peakRssOf(child.pid!));
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(sampler);
  if (code !== 0) throw new Error(`ask-user ${args.join(' ')} exited ${code}: ${stderr}`);
  return { ms: performance.now() - started, peakRss, lines, bytes };
}

/** Starts `count` requests; one in four is answered, the others expire after {@link EXPIRE_AFTER_MS}. */
async function seed(client: Client, taskQueue: string, from: number, count: number): Promise<void> {
  const questions = new QuestionClient(client);
  let next = from;
  let failed = false;
  const work = async (): Promise<void> => {
    while (next < from + count && !failed) {
      const index = next++;
      const start = questionStart(
        { questions: [QUESTION], agent: { id: `bench-agent-${index % 10}` }, toolCallId: `audit-${index}` },
        { timeoutMs: EXPIRE_AFTER_MS },
        () => `audit-${index}`,
      );
      await client.workflow.start(ASK_USER_QUESTION_WORKFLOW_TYPE, {
        workflowId: start.workflowId,
        taskQueue,
        args: [start.input],
        memo: { ...start.memo },
        staticSummary: start.staticSummary,
        staticDetails: start.staticDetails,
      });
      if (index % 4 === 0) {
        await questions
          .answer(start.workflowId, {
            answers: [{ id: 'deploy', selected: ['Yes'] }],
            answeredBy: `reviewer-${index % 7}`,
          })
          .catch((error: unknown) => {
            // An update resent after its reply was lost under load finds its own answer recorded: one answer.
            if (!(QuestionOperationError.isInstance(error) && error.code === 'ALREADY_RESOLVED')) throw error;
          });
      }
    }
  };
  // One failure stops the others before the connection closes under them.
  const stopOnFailure = (): Promise<void> =>
    work().catch((error: unknown) => {
      if (!failed)
        process.stderr.write(`seeding failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      failed = true;
      throw error;
    });
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, stopOnFailure));
}

/** Waits until visibility counts `count` closed requests. */
async function closed(client: Client, count: number): Promise<void> {
  for (;;) {
    if ((await client.workflow.count(RESOLVED_QUESTIONS_QUERY)).count >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** Runs the part on a server of its own; returns its section of the report. */
export async function runAuditExport(settings: AuditExportSettings): Promise<string> {
  const directory = await fsp.mkdtemp(path.join(os.tmpdir(), 'bench-audit-'));
  const server = await startBenchServer(settings.server, directory, 'audit-export');
  const taskQueue = `bench-audit-${process.pid}`;
  const worker = forkScript(
    path.join(__dirname, 'worker-process.js'),
    ['ours', server.address, taskQueue],
    'worker',
  );
  const connection = await Connection.connect({ address: server.address });
  try {
    await nextMessage(worker, 'ready', 120_000);
    const client = new Client({ connection });
    const since = new Date(Date.now() - 60_000).toISOString();
    const floor = await runCli(server.address, ['list', '--limit', '1']);
    const rows: string[][] = [
      ['`ask-user list --limit 1` (floor)', '–', formatMs(floor.ms), formatBytes(floor.peakRss), '–'],
    ];
    let seeded = 0;
    let seedSeconds = 0;
    for (const count of settings.counts) {
      const seedStart = performance.now();
      await seed(client, taskQueue, seeded, count - seeded);
      await closed(client, count);
      seedSeconds += (performance.now() - seedStart) / 1000;
      seeded = count;
      const run = await runCli(server.address, ['audit', 'export', '--since', since, '--format', 'jsonl']);
      if (run.lines !== count) throw new Error(`the export wrote ${run.lines} lines for ${count} requests`);
      rows.push([
        `\`ask-user audit export\`, ${formatNumber(count)} closed requests`,
        formatNumber(run.lines),
        formatMs(run.ms),
        formatBytes(run.peakRss),
        `${formatNumber(run.lines / (run.ms / 1000))} /s (${formatBytes(run.bytes)})`,
      ]);
    }
    return (
      `## Audit export\n\n` +
      `Closed requests (one in four answered, the rest expired) on ${server.description}, exported as JSON lines ` +
      `by the CLI to a pipe; peak RSS is the process's high-water mark (VmHWM). Seeding took ` +
      `${formatNumber(seedSeconds, 0)} s.\n\n` +
      formatTable(['', 'lines', 'time', 'peak RSS', 'rate (written)'], rows) +
      '\n'
    );
  } finally {
    await connection.close().catch(() => undefined);
    await stopChild(worker);
    await server.stop();
    await fsp.rm(directory, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const index = process.argv.indexOf('--counts');
  const counts = index === -1 ? [1_000, 10_000] : (process.argv[index + 1] ?? '').split(',').map(Number);
  runAuditExport({ counts, server: 'dev' }).then(
    (section) => process.stdout.write(`\n${section}`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
