/**
 * Durable questions end to end: the real `ask_user_question` tool over `TemporalUserInteraction`, a real
 * Temporal dev server on a temporary SQLite file, and a worker from `createAskUserWorker` in this process.
 * Questions are answered through `QuestionClient.answer` (the `submitAnswer` update), as ops tools do.
 *
 * 1. One question at a time, for each bench call: ask → answer → the tool resolves, and the size of the
 *    question's history once answered.
 * 2. N questions held pending (`BENCH_QUESTIONS`, default 100): memory of this process (worker and agent)
 *    and of the dev server per question. It runs before the next phase, whose garbage would blur RSS readings.
 * 3. N questions asked at once, each answered as soon as its workflow has started: how long a question takes
 *    to become visible, to be answered, and to reach the tool; throughput.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { Client, Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';

import { QuestionClient, TemporalUserInteraction, createAskUserWorker } from '../src/temporal';
import { createAskUserQuestionTool, type AskUserQuestionTool } from '../src/tool';
import type { AskUserAgent, UserInteraction } from '../src/types';
import { getQuestionQuery } from '../src/workflows/definitions';
import { questionWorkflowId } from '../src/workflows/workflow-id';
import { freePort, startDevServerProcess, type DevServerProcess } from '../test/helpers/temporal';
import { benchCalls, singleQuestionCall, type BenchCall } from './fixtures';
import {
  formatBytes,
  formatMs,
  formatNumber,
  formatTable,
  ownMemory,
  percentile,
  residentSetSize,
  since,
  type ProcessMemory,
} from './measure';

/** Default number of questions asked at once; `BENCH_QUESTIONS` overrides it. */
export const DEFAULT_BENCH_QUESTIONS = 100;

const TASK_QUEUE = `ask-user-bench-${process.pid}`;
const AGENT: AskUserAgent = { id: 'bench-agent', sessionId: 'bench' };
const ANSWERED_BY = 'bench';

/** How long a step over `count` questions may take before the benchmark gives up: generous, never measured. */
function stepTimeoutMs(count: number): number {
  return Math.max(120_000, count * 250);
}

/** Reads `BENCH_QUESTIONS`: a positive whole number, else the default. */
export function benchQuestionCount(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BENCH_QUESTIONS;
  if (raw === undefined || raw === '') return DEFAULT_BENCH_QUESTIONS;
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1) {
    throw new Error(`BENCH_QUESTIONS must be a positive whole number, received ${JSON.stringify(raw)}`);
  }
  return count;
}

/**
 * Notes when each question's workflow start has been acknowledged by the server: from then on it exists, can
 * be described and answered. A client interceptor sees it without changing the provider.
 */
class StartTimes {
  private readonly started = new Map<string, { at: Promise<number>; resolve: (at: number) => void }>();

  readonly interceptor: WorkflowClientInterceptor = {
    startWithDetails: async (input, next) => {
      const output = await next(input);
      this.entry(input.options.workflowId).resolve(performance.now());
      return output;
    },
  };

  /** When `workflowId` was started; rejects if the tool call settles first (it would never start). */
  async of(workflowId: string, toolCall: Promise<string>): Promise<number> {
    const settledFirst = toolCall.then(() => {
      throw new Error(`${workflowId}: the tool resolved before the question was started`);
    });
    try {
      return await Promise.race([this.entry(workflowId).at, settledFirst]);
    } finally {
      this.started.delete(workflowId);
    }
  }

  private entry(workflowId: string): { at: Promise<number>; resolve: (at: number) => void } {
    let entry = this.started.get(workflowId);
    if (entry === undefined) {
      let resolve: (at: number) => void = () => {};
      const at = new Promise<number>((done) => (resolve = done));
      entry = { at, resolve };
      this.started.set(workflowId, entry);
    }
    return entry;
  }
}

/** A tool call in progress. */
interface AskedQuestion {
  workflowId: string;
  /** The tool's result text. */
  result: Promise<string>;
}

/**
 * The server, the tool and the ops client, and the bookkeeping that lets a failed benchmark stop cleanly:
 * every tool call and ops call gets its own abort signal (the client adds a listener to a call's signal and
 * never removes it, so one shared signal would hold every call ever made, and blur the memory figures).
 */
class Bench {
  readonly client: Client;
  readonly questions: QuestionClient;
  readonly starts = new StartTimes();
  private readonly tool: AskUserQuestionTool;
  private readonly controllers = new Set<AbortController>();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    readonly server: DevServerProcess,
    private readonly connection: Connection,
    private readonly workerStopped: Promise<never>,
  ) {
    const toolClient = new Client({
      connection,
      namespace: 'default',
      interceptors: { workflow: [this.starts.interceptor] },
    });
    const provider = new TemporalUserInteraction({ client: toolClient, taskQueue: TASK_QUEUE });
    // An aborted tool call settles at once, but the provider goes on to cancel its workflow: that must finish
    // before the connection closes, so the provider's calls are kept too.
    const userInteraction: UserInteraction = {
      ask: (request) => {
        const asking = provider.ask(request);
        this.keep(asking);
        return asking;
      },
    };
    this.tool = createAskUserQuestionTool({ userInteraction });
    this.client = new Client({ connection, namespace: 'default' });
    this.questions = new QuestionClient(this.client);
  }

  /** Calls the tool as an agent loop would, with this question's own abort signal. */
  ask(call: BenchCall, toolCallId: string): AskedQuestion {
    const controller = this.controller();
    const result = this.tool.execute(call.args, { toolCallId, agent: AGENT, signal: controller.signal });
    const done = (): void => void this.controllers.delete(controller);
    result.then(done, done);
    result.catch(() => undefined); // awaited by the caller; must not surface as unhandled meanwhile
    return { workflowId: questionWorkflowId({ agent: AGENT, toolCallId }), result };
  }

  /** Runs server calls under their own abort signal, aborted if the benchmark stops early. */
  async call<T>(run: () => Promise<T>): Promise<T> {
    const controller = this.controller();
    try {
      return await this.connection.withAbortSignal(controller.signal, run);
    } finally {
      this.controllers.delete(controller);
    }
  }

  /** Answers a question through the `submitAnswer` update, as `ask-user answer` does. */
  async answer(workflowId: string, call: BenchCall): Promise<void> {
    await this.call(() => this.questions.answer(workflowId, { ...call.answer, answeredBy: ANSWERED_BY }));
  }

  /**
   * Races `promise` against the worker stopping and against `timeoutMs`, so that nothing can hang. The
   * promise is kept until it settles: after a failure, `stop()` waits for it before connections close.
   */
  async guard<T>(promise: Promise<T>, what: string, timeoutMs = 120_000): Promise<T> {
    this.keep(promise);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
    });
    try {
      return await Promise.race([promise, this.workerStopped, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Aborts whatever is still running and waits (boundedly) for it to settle. */
  async stop(): Promise<void> {
    for (const controller of this.controllers) controller.abort();
    let giveUp: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((resolve) => (giveUp = setTimeout(resolve, 20_000))),
    ]);
    clearTimeout(giveUp);
  }

  private controller(): AbortController {
    const controller = new AbortController();
    this.controllers.add(controller);
    return controller;
  }

  private keep(promise: Promise<unknown>): void {
    this.inFlight.add(promise);
    const done = (): void => void this.inFlight.delete(promise);
    promise.then(done, done);
  }
}

/** Timings of one question, in milliseconds from the tool call unless said otherwise. */
interface QuestionTiming {
  /** Until the server acknowledged the workflow start: the question exists and can be answered. */
  started: number;
  /** The `submitAnswer` update's round trip, from sending it to the recorded answer coming back. */
  answerRoundTrip: number;
  /** From the recorded answer coming back to the tool resolving. */
  recordedToResolved: number;
  /** From the tool call to the tool resolving with the answer text. */
  resolved: number;
}

/** Asks `call` through the tool, answers it via the update as soon as it has started, and times each step. */
async function askAndAnswer(bench: Bench, call: BenchCall, toolCallId: string): Promise<QuestionTiming> {
  const askedAt = performance.now();
  const { workflowId, result } = bench.ask(call, toolCallId);
  const startedAt = await bench.starts.of(workflowId, result);
  const answerSentAt = performance.now();
  await bench.answer(workflowId, call);
  const recordedAt = performance.now();
  const text = await result;
  const resolvedAt = performance.now();
  if (text !== call.resultText) throw new Error(`${workflowId}: unexpected result ${text.slice(0, 200)}`);
  return {
    started: startedAt - askedAt,
    answerRoundTrip: recordedAt - answerSentAt,
    recordedToResolved: resolvedAt - recordedAt,
    resolved: resolvedAt - askedAt,
  };
}

/** Phase 1: each bench call alone, and its history once answered. */
async function singleQuestions(bench: Bench): Promise<void> {
  // The first question pays for the worker's first workflow task and the client's first calls.
  await bench.guard(askAndAnswer(bench, singleQuestionCall, 'warmup'), 'the warmup question');
  const rows: string[][] = [];
  for (const [index, call] of benchCalls.entries()) {
    const toolCallId = `single-${index}`;
    const timing = await bench.guard(askAndAnswer(bench, call, toolCallId), call.name);
    const workflowId = questionWorkflowId({ agent: AGENT, toolCallId });
    const history = await bench.guard(
      bench.call(() => bench.client.workflow.getHandle(workflowId).fetchHistory()),
      `the history of ${workflowId}`,
    );
    rows.push([
      call.name,
      formatMs(timing.started),
      formatMs(timing.resolved),
      String(history.events?.length ?? 0),
      formatBytes(Buffer.byteLength(historyToJSON(history))),
    ]);
  }
  process.stdout.write(
    `\nOne question at a time (ask, answer via update once started, tool resolves); history once answered:\n\n`,
  );
  process.stdout.write(
    `${formatTable(['call', 'ask → started', 'ask → resolved', 'history events', 'history as JSON'], rows)}\n`,
  );
}

/** p50, p95 and max of one timing over all questions. */
function spreadRow(label: string, values: readonly number[]): string[] {
  return [
    label,
    formatMs(percentile(values, 0.5)),
    formatMs(percentile(values, 0.95)),
    formatMs(percentile(values, 1)),
  ];
}

/** Phase 3: `count` questions at once, each answered as soon as it has started. */
async function concurrentQuestions(bench: Bench, count: number): Promise<void> {
  const firstAskAt = performance.now();
  const timings = await bench.guard(
    allSettledOrThrow(
      Array.from({ length: count }, (_unused, index) =>
        askAndAnswer(bench, singleQuestionCall, `concurrent-${index}`),
      ),
    ),
    `${count} concurrent questions`,
    stepTimeoutMs(count),
  );
  const wallMs = since(firstAskAt);
  process.stdout.write(
    `\n${count} questions asked at once (1 question each), each answered via QuestionClient.answer as soon as ` +
      `it has started:\n\n`,
  );
  const rows = [
    spreadRow(
      'ask → started (question visible)',
      timings.map((timing) => timing.started),
    ),
    spreadRow(
      'answer update round trip',
      timings.map((timing) => timing.answerRoundTrip),
    ),
    spreadRow(
      'answer recorded → tool resolves',
      timings.map((timing) => timing.recordedToResolved),
    ),
    spreadRow(
      'ask → tool resolves',
      timings.map((timing) => timing.resolved),
    ),
  ];
  process.stdout.write(`${formatTable(['per question', 'p50', 'p95', 'max'], rows)}\n`);
  process.stdout.write(
    `\n  throughput: ${count} questions asked, answered and resolved in ${formatMs(wallMs)} = ` +
      `${formatNumber((count * 1000) / wallMs, 1)} questions/s\n`,
  );
}

/** Memory of this process and of the dev server at one moment. */
interface MemoryReading {
  own: ProcessMemory;
  serverRss: number | undefined;
}

async function readMemory(bench: Bench): Promise<MemoryReading> {
  const own = await ownMemory();
  return { own, serverRss: residentSetSize(bench.server.process.pid) };
}

/**
 * Waits for every promise to settle, then rejects with the first failure if any: unlike `Promise.all`, no
 * call is left running against a connection that is about to close.
 */
async function allSettledOrThrow<T>(promises: readonly Promise<T>[]): Promise<T[]> {
  const outcomes = await Promise.allSettled(promises);
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}

/** Runs `task` over `items` with at most `limit` running at a time; stops taking new items after a failure. */
async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (next < items.length && !failed) {
      const item = items[next]!;
      next += 1;
      try {
        await task(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await allSettledOrThrow(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** Polls `check` every 50 ms until it is true. */
async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Phase 2: `count` questions held pending, then answered. */
async function pendingQuestions(bench: Bench, count: number): Promise<void> {
  const before = await readMemory(bench);
  const askedAt = performance.now();
  const asked = Array.from({ length: count }, (_unused, index) =>
    bench.ask(singleQuestionCall, `pending-${index}`),
  );
  await bench.guard(
    allSettledOrThrow(asked.map(({ workflowId, result }) => bench.starts.of(workflowId, result))),
    `${count} questions to start`,
    stepTimeoutMs(count),
  );
  const allStartedMs = since(askedAt);
  await bench.guard(
    waitUntil(async () => (await bench.call(() => bench.questions.list('pending', count))).length >= count),
    `${count} questions to be listed`,
    stepTimeoutMs(count),
  );
  const allListedMs = since(askedAt);
  // A query is answered by the worker: once every question has answered one, all are loaded in the worker.
  // A few at a time, as an inbox page would: a thousand at once overrun the server's query forwarding.
  await bench.guard(
    forEachLimited(asked, 20, ({ workflowId }) =>
      bench.call(() => bench.client.workflow.getHandle(workflowId).query(getQuestionQuery)),
    ),
    `${count} questions to answer a query`,
    stepTimeoutMs(count),
  );
  const allLoadedMs = since(askedAt);
  const holding = await readMemory(bench);

  await bench.guard(
    allSettledOrThrow(
      asked.map(async ({ workflowId, result }) => {
        await bench.answer(workflowId, singleQuestionCall);
        const text = await result;
        if (text !== singleQuestionCall.resultText)
          throw new Error(`${workflowId}: unexpected result ${text}`);
      }),
    ),
    `${count} pending questions to be answered`,
    stepTimeoutMs(count),
  );
  const after = await readMemory(bench);

  process.stdout.write(
    `\n${count} questions held pending (asked at once, answered only after measuring):\n\n`,
  );
  process.stdout.write(
    `  all started after ${formatMs(allStartedMs)}; all listed (visibility) after ${formatMs(allListedMs)}; ` +
      `all loaded in the worker (getQuestion query) after ${formatMs(allLoadedMs)}\n\n`,
  );
  const row = (label: string, read: (reading: MemoryReading) => number | undefined): string[] => {
    const start = read(before);
    const held = read(holding);
    const end = read(after);
    const perQuestion = start === undefined || held === undefined ? undefined : (held - start) / count;
    return [label, formatBytes(start), formatBytes(held), formatBytes(perQuestion, true), formatBytes(end)];
  };
  const rows = [
    row('bench process RSS (worker + agent)', (reading) => reading.own.rss),
    row('bench process heap used (main thread)', (reading) => reading.own.heapUsed),
    row('bench process external', (reading) => reading.own.external),
    row('dev server RSS', (reading) => reading.serverRss),
  ];
  process.stdout.write(
    `${formatTable(['memory (after GC)', 'before', `${count} pending`, 'per question', 'after answering'], rows)}\n`,
  );
  process.stdout.write(
    '\n  Workflow code runs in the worker\'s workflow thread: its heap counts in RSS, not in "heap used".\n',
  );
}

/** Runs the end-to-end benchmark and prints its figures. Stops everything it started, by process id. */
export async function runEndToEndBench(count: number = benchQuestionCount()): Promise<void> {
  process.stdout.write('\n## End to end (real dev server on SQLite, in-process worker)\n');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'ask-user-bench-'));
  let server: DevServerProcess | undefined;
  let nativeConnection: NativeConnection | undefined;
  let connection: Connection | undefined;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let bench: Bench | undefined;
  try {
    const serverStartedAt = performance.now();
    server = await startDevServerProcess({
      dbFile: path.join(directory, 'temporal.sqlite'),
      port: await freePort(),
    });
    const serverReadyMs = since(serverStartedAt);

    const workerStartedAt = performance.now();
    nativeConnection = await NativeConnection.connect({ address: server.address });
    worker = await createAskUserWorker({
      connection: nativeConnection,
      namespace: 'default',
      taskQueue: TASK_QUEUE,
      shutdownForceTime: '5s',
      webhooks: {},
    });
    const workerReadyMs = since(workerStartedAt);
    running = worker.run();
    const workerStopped = running.then(
      () => Promise.reject(new Error('the worker stopped during the benchmark')),
      (error: unknown) =>
        Promise.reject(new Error('the worker failed during the benchmark', { cause: error })),
    );
    workerStopped.catch(() => undefined); // raced in `guard`; otherwise it only matters at shutdown

    connection = await Connection.connect({ address: server.address });
    bench = new Bench(server, connection, workerStopped);
    process.stdout.write(
      `\n  dev server ready in ${formatMs(serverReadyMs)}; worker created in ${formatMs(workerReadyMs)} ` +
        `(bundles the workflow code); worker cache ${worker.options.maxCachedWorkflows} workflows\n`,
    );
    await singleQuestions(bench);
    await pendingQuestions(bench, count);
    await concurrentQuestions(bench, count);
  } finally {
    await bench?.stop();
    if (worker !== undefined && worker.getState() === 'RUNNING') worker.shutdown();
    await running?.catch(() => undefined);
    await connection?.close();
    await nativeConnection?.close();
    await server?.stop();
    await fs.rm(directory, { recursive: true, force: true });
  }
}
