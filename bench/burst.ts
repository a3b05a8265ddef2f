/**
 * What bounds a burst of asks: N questions started at once (64 starts in flight, as the waiting part's agent
 * does) on a fresh dev server each time, by variants that differ in one thing from the next:
 *
 * - `floor`: the bare signal workflow, started and awaited with `handle.result()` (one long poll each);
 * - `our workflow, bare start`: our question workflow, started with exactly the provider's start request
 *   (input, memo, summary, details from `questionStart`) by the bare client, awaited with `handle.result()`;
 *   and the same with the input only, and with the input and the memo, to tell what each part costs;
 * - `ours, one long poll each`: the tool over `TemporalUserInteraction` with `maxLongPolls` = N, so that no
 *   question waits in the visibility queue;
 * - `ours`: the tool over `TemporalUserInteraction` with its defaults (100 long polls, the rest queued and
 *   looked up in visibility).
 *
 * The floor and ours workers run in their own processes from `dist/` (`npm run build` first), as in the
 * waiting part. Each variant prints how long the starts took and the CPU time each process spent meanwhile.
 *
 *   npx tsx bench/burst.ts              # 1,000 questions per variant
 *   npx tsx bench/burst.ts --count 300
 *   npx tsx bench/burst.ts --server postgres   # on the Temporal server on PostgreSQL (npm run cluster's)
 */
import { setMaxListeners } from 'node:events';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { Client, Connection } from '@temporalio/client';

import { TemporalUserInteraction, createAskUserQuestionTool } from '../src';
import { questionStart } from '../src/question/question-start';
import { parseAskUserQuestionArgs, toAskUserQuestions } from '../src/tool';
import { floorSignalWorkflow } from './floor-workflows';
import { forkScript, nextMessage, sampleProcess, stopChild, type WorkerMessage } from './processes';
import { SERVER_KINDS, startBenchServer, type ServerKind } from './servers';
import { BENCH_AGENT, StartNotices, benchArgs } from './workloads';

const IN_FLIGHT = 64;

type Variant =
  | 'floor'
  | 'our workflow, bare start, input only'
  | 'our workflow, bare start, input and memo'
  | 'our workflow, bare start'
  | 'ours, one long poll each'
  | 'ours';
const VARIANTS: Variant[] = [
  'floor',
  'our workflow, bare start, input only',
  'our workflow, bare start, input and memo',
  'our workflow, bare start',
  'ours, one long poll each',
  'ours',
];

interface BurstFigures {
  variant: Variant;
  startSeconds: number;
  /** CPU seconds spent during the starts, by process. */
  cpu: { bench: number; worker: number; server: number };
}

async function runVariant(
  serverKind: ServerKind,
  variant: Variant,
  count: number,
  directory: string,
): Promise<BurstFigures> {
  const server = await startBenchServer(serverKind, directory, variant.replace(/\W+/g, '-'));
  const kind = variant === 'floor' ? 'floor' : 'ours';
  const taskQueue = `bench-burst-${process.pid}`;
  const worker = forkScript(
    path.join(__dirname, 'worker-process.js'),
    [kind, server.address, taskQueue],
    kind,
    {
      ...process.env,
      MALLOC_ARENA_MAX: '2',
    },
  );
  const connection = await Connection.connect({ address: server.address });
  try {
    await nextMessage<WorkerMessage>(worker, 'ready', 120_000);
    const starts = new StartNotices();
    const client = new Client({
      connection,
      namespace: 'default',
      interceptors: { workflow: [starts.interceptor] },
    });
    const provider = new TemporalUserInteraction({
      client,
      taskQueue,
      ...(variant === 'ours, one long poll each' ? { maxLongPolls: count } : {}),
    });
    const tool = createAskUserQuestionTool({ userInteraction: provider });
    // The long polls of the bare variants; the tool's asks are the provider's to end (`close`).
    const waits: Promise<unknown>[] = [];
    // The bare variants wait as the floor does, one long poll each; aborted once the starts are measured.
    const polls = new AbortController();
    setMaxListeners(count + IN_FLIGHT, polls.signal);
    const awaitResult = (handle: { result(): Promise<unknown> }): void => {
      const result = connection.withAbortSignal(polls.signal, () => handle.result());
      result.catch(() => undefined);
      waits.push(result);
    };
    const startOne = async (index: number): Promise<void> => {
      const key = `burst-${index}`;
      if (variant === 'floor') {
        const handle = await client.workflow.start(floorSignalWorkflow, {
          workflowId: `bench-burst-floor/${key}`,
          taskQueue,
          args: [{ questions: benchArgs.questions }],
        });
        awaitResult(handle);
      } else if (variant.startsWith('our workflow, bare start')) {
        const start = questionStart(
          {
            questions: toAskUserQuestions(parseAskUserQuestionArgs(benchArgs)),
            agent: BENCH_AGENT,
            toolCallId: key,
          },
          {},
          () => crypto.randomUUID(),
        );
        const handle = await client.workflow.start('askUserQuestionWorkflow', {
          workflowId: start.workflowId,
          taskQueue,
          args: [start.input],
          ...(variant === 'our workflow, bare start, input only' ? {} : { memo: { ...start.memo } }),
          ...(variant === 'our workflow, bare start'
            ? { staticSummary: start.staticSummary, staticDetails: start.staticDetails }
            : {}),
        });
        awaitResult(handle);
      } else {
        // The tool resolves only when answered: it has started once the provider has a pending question.
        const asked = tool.execute(benchArgs, { toolCallId: key, agent: BENCH_AGENT });
        asked.catch(() => undefined);
        await starts.started(key, asked);
      }
    };
    const before = {
      bench: process.cpuUsage(),
      worker: sampleProcess(worker.pid),
      server: sampleProcess(server.pid),
    };
    const startedAt = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < count) {
          const index = next;
          next += 1;
          await startOne(index);
        }
      }),
    );
    const startSeconds = (performance.now() - startedAt) / 1000;
    const bench = process.cpuUsage(before.bench);
    const workerAfter = sampleProcess(worker.pid);
    const serverAfter = sampleProcess(server.pid);
    polls.abort();
    await provider.close();
    await Promise.allSettled(waits);
    return {
      variant,
      startSeconds,
      cpu: {
        bench: (bench.user + bench.system) / 1e6,
        worker: (workerAfter?.cpuSeconds ?? Number.NaN) - (before.worker?.cpuSeconds ?? Number.NaN),
        server: (serverAfter?.cpuSeconds ?? Number.NaN) - (before.server?.cpuSeconds ?? Number.NaN),
      },
    };
  } finally {
    await connection.close();
    await stopChild(worker);
    await server.stop();
  }
}

async function main(): Promise<void> {
  const serverArg = process.argv.indexOf('--server');
  const serverKind = (serverArg === -1 ? 'dev' : process.argv[serverArg + 1]) as ServerKind;
  if (!SERVER_KINDS.includes(serverKind)) throw new Error(`--server: choose from ${SERVER_KINDS.join(', ')}`);
  const countArg = process.argv.indexOf('--count');
  const count = countArg === -1 ? 1_000 : Number(process.argv[countArg + 1]);
  if (!Number.isInteger(count) || count < 1) throw new Error('--count: a whole number of questions');
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'ask-user-burst-'));
  try {
    const figures: BurstFigures[] = [];
    for (const variant of VARIANTS) {
      const result = await runVariant(serverKind, variant, count, directory);
      figures.push(result);
      process.stdout.write(
        `${variant}: ${count} started in ${result.startSeconds.toFixed(1)} s; CPU meanwhile: bench ${result.cpu.bench.toFixed(1)} s, ` +
          `worker ${result.cpu.worker.toFixed(1)} s, server ${result.cpu.server.toFixed(1)} s\n`,
      );
    }
    const floor = figures[0]!.startSeconds;
    process.stdout.write(
      `\n| variant | ${count} started in | ×floor | bench CPU | worker CPU | server CPU |\n| --- | ---: | ---: | ---: | ---: | ---: |\n` +
        figures
          .map(
            (f) =>
              `| ${f.variant} | ${f.startSeconds.toFixed(1)} s | ${(f.startSeconds / floor).toFixed(2)}× | ${f.cpu.bench.toFixed(1)} s | ${f.cpu.worker.toFixed(1)} s | ${f.cpu.server.toFixed(1)} s |`,
          )
          .join('\n') +
        '\n',
    );
  } finally {
    await fs.rm(directory, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`burst failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
