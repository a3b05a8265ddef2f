/**
 * The cost of waiting: one agent process (`waiting-agent.ts`, a child, so that its CPU and memory are its own)
 * holds N questions pending while nothing else happens. Over a fixed window the benchmark counts every gRPC
 * call the agent makes and reads the CPU time and memory of the agent, the worker and the server from `/proc`.
 * Then, with the questions still pending, it times the inbox's first page and count and `ask-user list` from
 * `dist/`; then it answers every question from this process and waits until the agent has received all of
 * them, each checked to be exactly its own answer.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

import { submitAnswerUpdate } from '../src';
import { QuestionClient } from '../src/ops';
import { floorAnswerSignal } from './floor-workflows';
import { diffCounts, type CallCounts } from './grpc-calls';
import { median } from './measure';
import { cpuShare, forkScript, nextMessage, sampleProcess, stopChild, type ProcessSample } from './processes';
import type { AgentMessage } from './waiting-agent';
import { answerFor } from './workloads';

const PROJECT_ROOT = path.resolve(__dirname, '..');
const ANSWERED_BY = 'bench-answerer';

/**
 * One agent holding questions of `kind`: it asks up to each count in `pending` in turn (1,000, then 10,000),
 * is measured at each, and then every question is answered.
 */
export interface WaitingPhase {
  kind: 'ours' | 'floor';
  pending: number[];
}

/** How the waiting part runs. */
export interface WaitingSettings {
  phases: WaitingPhase[];
  /** How long calls and CPU are counted while the questions wait. */
  windowSeconds: number;
  /** How many answers are in flight at once when answering them all. */
  answerConcurrency: number;
}

/** Where the waiting part runs. */
export interface WaitingTarget {
  address: string;
  serverPid: number | undefined;
  workers: Record<WaitingPhase['kind'], { pid: number | undefined; taskQueue: string }>;
}

/** Timing of one read, cold (first) and warm (median of the next three). */
export interface ReadTiming {
  firstMs: number;
  warmMs: number;
}

/** What was measured with `pending` questions waiting. */
export interface WaitingCheckpoint {
  kind: WaitingPhase['kind'];
  pending: number;
  /** How long the agent took to start the questions added for this count (at most 64 starts in flight). */
  askSeconds: number;
  /**
   * How long the worker took to go quiet after the last start was acknowledged (it may still be running the
   * questions' first workflow tasks): the window starts after that.
   */
  settleSeconds: number;
  startFailures: Record<string, number>;
  window: {
    seconds: number;
    calls: CallCounts;
    callsPerMinutePerQuestion: number;
    /** Share of one core over the window. */
    cpu: { agent: number; worker: number; server: number };
  };
  memory: {
    agentBefore?: number;
    agentHolding?: number;
    workerBefore?: number;
    workerHolding?: number;
    serverBefore?: number;
    serverHolding?: number;
  };
  inbox?: {
    source: string;
    firstPage: ReadTiming;
    firstPageSize: number;
    count: ReadTiming;
    counted: number;
  };
  /** `ask-user list`, {@link CLI_LIST_RUNS} cold starts: their median and range, or the first that failed. */
  cli?:
    | {
        ms: number;
        minMs: number;
        maxMs: number;
        runs: number;
        exitCode: number | null;
        lines: number;
        note?: string;
      }
    | { skipped: string };
}

/** One phase: its checkpoints, then every question answered. */
export interface WaitingFigures {
  kind: WaitingPhase['kind'];
  checkpoints: WaitingCheckpoint[];
  /** From the first answer sent to the agent having received the last. */
  answer: {
    pending: number;
    seconds: number;
    /** Answers that failed every attempt, by reason. */
    failures: Record<string, number>;
    /** Answers that failed at first and were sent again, by the first reason. */
    retried: Record<string, number>;
  };
  /** Calls by final status over the whole phase: RESOURCE_EXHAUSTED and DEADLINE_EXCEEDED show up here. */
  statuses: Record<string, number>;
  received: { correct: number; wrong: number; wrongSamples: string[]; failures: Record<string, number> };
}

function rssOf(sample: ProcessSample | undefined): number | undefined {
  return sample?.rss;
}

async function sleep(milliseconds: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** The worker counts as quiet below this share of a core over {@link QUIET_SAMPLE_MS}. */
const QUIET_SHARE = 0.05;
const QUIET_SAMPLE_MS = 2_000;
const QUIET_LIMIT_MS = 60_000;
/** How long the worker may take to run the first workflow task of every question asked. */
const BACKLOG_LIMIT_MS = 20 * 60_000;

/** The server's count of workflow tasks waiting on the task queue (its normal queue: first tasks). */
async function workflowTaskBacklog(client: Client, taskQueue: string): Promise<number> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: 'default',
    taskQueue: { name: taskQueue },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    reportStats: true,
  });
  return Number(response.stats?.approximateBacklogCount ?? 0);
}

/**
 * Waits until the server holds no workflow task for the worker (every question asked has run its first task),
 * then until the worker uses less than 5% of a core over 2 s, so that the window measures waiting and not the
 * tail of the asking. A worker's CPU alone cannot tell: with thousands of first tasks queued, the server is the
 * slower side and the worker idles between them. Returns the seconds waited.
 */
async function workerSettled(
  client: Client,
  taskQueue: string,
  workerPid: number | undefined,
): Promise<number> {
  const startedAt = performance.now();
  while ((await workflowTaskBacklog(client, taskQueue)) > 0) {
    if (performance.now() - startedAt > BACKLOG_LIMIT_MS) {
      throw new Error(
        `the worker did not take every question's first task within ${BACKLOG_LIMIT_MS / 60_000} minutes`,
      );
    }
    await sleep(QUIET_SAMPLE_MS);
  }
  const quietFrom = performance.now();
  let previous = sampleProcess(workerPid);
  while (performance.now() - quietFrom < QUIET_LIMIT_MS) {
    await sleep(QUIET_SAMPLE_MS);
    const current = sampleProcess(workerPid);
    if (!(cpuShare(previous, current, QUIET_SAMPLE_MS / 1000) >= QUIET_SHARE)) break;
    previous = current;
  }
  return (performance.now() - startedAt) / 1000;
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

const PENDING_QUERY = "WorkflowType = 'askUserQuestionWorkflow' AND ExecutionStatus = 'Running'";

/**
 * The inbox's first page of 50 and its count. Through `QuestionIndex` (src/inbox/question-index.ts) when that
 * module is there; otherwise through `QuestionClient.list('pending', 50)` and a visibility count, labelled so.
 */
async function timeInbox(client: Client): Promise<NonNullable<WaitingCheckpoint['inbox']>> {
  const indexModule = path.join(PROJECT_ROOT, 'src', 'inbox', 'question-index.ts');
  if (fs.existsSync(indexModule)) {
    type IndexModule = {
      QuestionIndex: new (client: Client) => {
        list(options: { status: 'pending'; pageSize: number }): Promise<{ questions: unknown[] }>;
        counts(): Promise<{ pending: number }>;
      };
    };
    const { QuestionIndex } = (await import(indexModule)) as IndexModule;
    const index = new QuestionIndex(client);
    const page = await timeRead(() => index.list({ status: 'pending', pageSize: 50 }));
    const count = await timeRead(() => index.counts());
    return {
      source: 'QuestionIndex.list({ status: pending, pageSize: 50 }) and QuestionIndex.counts()',
      firstPage: page.timing,
      firstPageSize: page.value.questions.length,
      count: count.timing,
      counted: count.value.pending,
    };
  }
  const questions = new QuestionClient(client);
  const page = await timeRead(() => questions.list('pending', 50));
  const count = await timeRead(() => client.workflow.count(PENDING_QUERY));
  return {
    source: "no src/inbox/question-index.ts: QuestionClient.list('pending', 50) and workflow.count()",
    firstPage: page.timing,
    firstPageSize: page.value.length,
    count: count.timing,
    counted: count.value.count,
  };
}

/** Cold starts of `ask-user list` timed at each checkpoint: one start alone moves by ±50 ms on a shared machine. */
const CLI_LIST_RUNS = 5;

/** `ask-user list` run from `dist/` in its own Node process, timed from spawn to exit. */
async function runCliList(main: string, address: string) {
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
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  clearTimeout(timer);
  const ms = performance.now() - startedAt;
  const lines = output.split('\n').filter((line) => line.trim() !== '').length;
  return { ms, exitCode, lines, errors };
}

/** `ask-user list` from `dist/`, {@link CLI_LIST_RUNS} cold starts one after the other. */
async function timeCliList(address: string): Promise<NonNullable<WaitingCheckpoint['cli']>> {
  const main = path.join(PROJECT_ROOT, 'dist', 'cli', 'main.js');
  if (!fs.existsSync(main)) return { skipped: 'dist/cli/main.js is missing: run `npm run build` first' };
  const times: number[] = [];
  let lines = 0;
  for (let run = 0; run < CLI_LIST_RUNS; run++) {
    const result = await runCliList(main, address);
    if (result.exitCode !== 0) {
      const note = result.errors.trim().split('\n')[0]?.slice(0, 200) ?? 'no output';
      return {
        ms: result.ms,
        minMs: result.ms,
        maxMs: result.ms,
        runs: run + 1,
        exitCode: result.exitCode,
        lines: result.lines,
        note,
      };
    }
    times.push(result.ms);
    lines = result.lines;
  }
  return {
    ms: median(times),
    minMs: Math.min(...times),
    maxMs: Math.max(...times),
    runs: times.length,
    exitCode: 0,
    lines,
  };
}

/** Attempts per answer: a refused answer is sent again, as an answerer would. */
const ANSWER_ATTEMPTS = 5;

/** What answering them all met: answers that failed for good, and answers that had to be sent again. */
interface AnswerOutcome {
  failures: Record<string, number>;
  retried: Record<string, number>;
}

function failureReason(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\d+/g, 'N').slice(0, 160);
}

/**
 * Answers every question, `concurrency` at a time. An answer that fails is sent again (up to
 * {@link ANSWER_ATTEMPTS} times, a second apart), as an ops person would; a later attempt refused because the
 * question is already answered or closed means an earlier one was recorded after all. Both are counted.
 */
async function answerAll(
  client: Client,
  kind: WaitingPhase['kind'],
  keys: readonly string[],
  workflowIds: readonly string[],
  concurrency: number,
): Promise<AnswerOutcome> {
  const outcome: AnswerOutcome = { failures: {}, retried: {} };
  const answerOne = async (workflowId: string, key: string): Promise<void> => {
    const input = { ...answerFor(key), answeredBy: ANSWERED_BY };
    const handle = client.workflow.getHandle(workflowId);
    for (let attempt = 1; ; attempt += 1) {
      try {
        if (kind === 'ours') await handle.executeUpdate(submitAnswerUpdate, { args: [input] });
        else await handle.signal(floorAnswerSignal, input);
        return;
      } catch (error) {
        const reason = failureReason(error);
        if (attempt > 1 && /already (answered|completed)/.test(reason)) return;
        if (attempt === ANSWER_ATTEMPTS) {
          outcome.failures[reason] = (outcome.failures[reason] ?? 0) + 1;
          return;
        }
        if (attempt === 1) outcome.retried[reason] = (outcome.retried[reason] ?? 0) + 1;
        await sleep(1_000);
      }
    }
  };
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < keys.length) {
      const index = next;
      next += 1;
      const workflowId = workflowIds[index]!;
      if (workflowId === '') continue; // never started; counted by the agent
      await answerOne(workflowId, keys[index]!);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return outcome;
}

async function askCounts(agent: ReturnType<typeof forkScript>): Promise<CallCounts> {
  const reply = nextMessage<Extract<AgentMessage, { type: 'counts' }>>(agent, 'counts', 30_000);
  agent.send({ type: 'counts' });
  return (await reply).calls;
}

function sampleAll(
  agentPid: number | undefined,
  workerPid: number | undefined,
  serverPid: number | undefined,
) {
  return {
    agent: sampleProcess(agentPid),
    worker: sampleProcess(workerPid),
    server: sampleProcess(serverPid),
  };
}

async function runPhase(
  target: WaitingTarget,
  phase: WaitingPhase,
  settings: WaitingSettings,
  onProgress: (line: string) => void,
): Promise<WaitingFigures> {
  const worker = target.workers[phase.kind];
  const agent = forkScript(
    path.join(__dirname, 'waiting-agent.ts'),
    [phase.kind, target.address, worker.taskQueue],
    `${phase.kind}-agent`,
  );
  const connection = await Connection.connect({ address: target.address });
  try {
    const client = new Client({ connection, namespace: 'default' });
    await nextMessage(agent, 'ready', 60_000);
    const before = sampleAll(agent.pid, worker.pid, target.serverPid);
    const total = Math.max(...phase.pending);
    const generous = 120_000 + total * 100;
    const settledReply = nextMessage<Extract<AgentMessage, { type: 'settled' }>>(
      agent,
      'settled',
      3 * generous,
    );
    settledReply.catch(() => undefined);
    const keys: string[] = [];
    const workflowIds: string[] = [];
    const checkpoints: WaitingCheckpoint[] = [];
    for (const pending of [...phase.pending].sort((a, b) => a - b)) {
      const batch = Array.from(
        { length: pending - keys.length },
        (_unused, index) => `wait-${phase.kind}-${keys.length + index}`,
      );
      const askedReply = nextMessage<Extract<AgentMessage, { type: 'asked' }>>(agent, 'asked', generous);
      agent.send({ type: 'ask', keys: batch });
      const asked = await askedReply;
      keys.push(...batch);
      workflowIds.push(...asked.workflowIds);
      onProgress(
        `${phase.kind}: ${pending} questions pending (the last ${batch.length} started in ${Math.round(asked.startMs / 1000)} s)`,
      );

      const settleSeconds = await workerSettled(client, worker.taskQueue, worker.pid);
      const countsBefore = await askCounts(agent);
      const windowStartedAt = performance.now();
      const windowStart = sampleAll(agent.pid, worker.pid, target.serverPid);
      await sleep(settings.windowSeconds * 1000);
      const countsAfter = await askCounts(agent);
      const seconds = (performance.now() - windowStartedAt) / 1000;
      const windowEnd = sampleAll(agent.pid, worker.pid, target.serverPid);
      const calls = diffCounts(countsBefore, countsAfter);
      onProgress(`${phase.kind}: ${calls.total} calls in the ${Math.round(seconds)} s window`);
      const checkpoint: WaitingCheckpoint = {
        kind: phase.kind,
        pending,
        askSeconds: asked.startMs / 1000,
        settleSeconds,
        startFailures: asked.startFailures,
        window: {
          seconds,
          calls,
          callsPerMinutePerQuestion: calls.total / pending / (seconds / 60),
          cpu: {
            agent: cpuShare(windowStart.agent, windowEnd.agent, seconds),
            worker: cpuShare(windowStart.worker, windowEnd.worker, seconds),
            server: cpuShare(windowStart.server, windowEnd.server, seconds),
          },
        },
        memory: {},
      };
      const memory = {
        agentBefore: rssOf(before.agent),
        agentHolding: rssOf(windowEnd.agent),
        workerBefore: rssOf(before.worker),
        workerHolding: rssOf(windowEnd.worker),
        serverBefore: rssOf(before.server),
        serverHolding: rssOf(windowEnd.server),
      };
      for (const [key, value] of Object.entries(memory)) {
        if (value !== undefined) checkpoint.memory[key as keyof typeof memory] = value;
      }
      if (phase.kind === 'ours') {
        checkpoint.inbox = await timeInbox(client);
        checkpoint.cli = await timeCliList(target.address);
      }
      checkpoints.push(checkpoint);
    }

    const answeringAt = Date.now();
    const answered = await answerAll(client, phase.kind, keys, workflowIds, settings.answerConcurrency);
    const unanswered = Object.values(answered.failures).reduce((sum, count) => sum + count, 0);
    // A question whose answer failed for good keeps its ask waiting: say so instead of waiting for it.
    const settled =
      unanswered === 0
        ? await settledReply
        : await Promise.race([
            settledReply,
            sleep(60_000).then(() => {
              throw new Error(
                `${unanswered} answers failed and their asks still wait: ${JSON.stringify(answered.failures)}`,
              );
            }),
          ]);
    const figures: WaitingFigures = {
      kind: phase.kind,
      checkpoints,
      answer: {
        pending: keys.length,
        seconds: (settled.settledAt - answeringAt) / 1000,
        failures: answered.failures,
        retried: answered.retried,
      },
      statuses: (await askCounts(agent)).byStatus,
      received: {
        correct: settled.correct,
        wrong: settled.wrong,
        wrongSamples: settled.wrongSamples,
        failures: settled.failures,
      },
    };
    onProgress(
      `${phase.kind}: all ${keys.length} answered and received in ${Math.round(figures.answer.seconds)} s`,
    );
    return figures;
  } finally {
    await stopChild(agent);
    await connection.close();
  }
}

/** Runs the phases one after another; a phase that fails is reported and the next one still runs. */
export async function runWaiting(
  target: WaitingTarget,
  settings: WaitingSettings,
  onProgress: (line: string) => void,
): Promise<{ figures: WaitingFigures[]; failed: string[] }> {
  const figures: WaitingFigures[] = [];
  const failed: string[] = [];
  for (const phase of settings.phases) {
    try {
      figures.push(await runPhase(target, phase, settings, onProgress));
    } catch (error) {
      failed.push(
        `${phase.kind} with ${phase.pending.join(', then ')} pending: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return { figures, failed };
}
