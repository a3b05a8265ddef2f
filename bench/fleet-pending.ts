/**
 * A fleet's pending questions (`npm run bench -- --only fleet`, `--fleet N` for the size): several agent
 * processes (`fleet-agent.ts`, the tool over `TemporalUserInteraction`, each its own child) ask N questions
 * between them on a fresh server, one ask-user worker (`fleet-worker.js`, from `dist/`) runs them, and the
 * part reads:
 *
 * - how long the fleet took to start them all, and then how long the worker took to run every first task;
 * - the RSS of every agent, the worker, the Temporal server and PostgreSQL's processes (and PostgreSQL's
 *   database on disk), before asking and while holding;
 * - every gRPC call the agents and the worker make over a window with nothing happening, per question and minute
 *   (the agents' counted by `grpc-calls.ts`, the worker's by its core's metrics);
 * - the inbox's first page and count over its HTTP API, and `ask-user list` from `dist/`;
 * - the time to answer them all (the `submitAnswer` update from this process) until every agent has received
 *   every answer, and whether each ask received exactly its own answer;
 * - then, on another fresh server, the floor: the same fleet of processes starting the same number of bare
 *   signal workflows (`fleet-floor-agent.ts`) on a floor worker, timed the same way.
 */
import path from 'node:path';

import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { ChildProcess } from 'node:child_process';

import { submitAnswerUpdate } from '../src';
import type { FloorAskedMessage } from './fleet-floor-agent';
import {
  directoryBytes,
  sampleTree,
  timeCliList,
  timeInboxFirstPage,
  workerCalls,
  type CliReading,
  type InboxReading,
  type TreeSample,
} from './fleet-probes';
import { addCounts, diffCounts, noCalls, type CallCounts } from './grpc-calls';
import {
  cpuShare,
  forkScript,
  freePort,
  nextMessage,
  sampleProcess,
  stopChild,
  type ProcessSample,
} from './processes';
import { startBenchServer, type BenchServer, type ServerKind } from './servers';
import type { AgentMessage } from './waiting-agent';
import { answerFor } from './workloads';

/** How the fleet part runs. */
export interface FleetSettings {
  server: ServerKind;
  /** Questions held pending by the fleet, in all. */
  questions: number;
  /** Agent processes they are shared among. */
  agents: number;
  /** Bare workflows the floor's fleet starts (0: none). */
  floorQuestions: number;
  /** How long calls and CPU are counted while nothing happens. */
  windowSeconds: number;
  /** Answers in flight at once when answering them all. */
  answerConcurrency: number;
}

/** Memory and CPU of every process at one moment. */
interface Snapshot {
  at: number;
  agents: (ProcessSample | undefined)[];
  worker: ProcessSample | undefined;
  server: ProcessSample | undefined;
  postgres: TreeSample | undefined;
  databaseBytes: number | undefined;
}

/** One process group's memory: before asking and while holding. */
export interface MemoryFigure {
  before: number | undefined;
  holding: number | undefined;
}

/** CPU seconds each process group spent while the questions were being started. */
export interface StartCpu {
  agents: number;
  worker: number;
  server: number;
  postgres: number;
}

/** CPU seconds between two snapshots, by process group. */
function cpuBetween(from: Snapshot, to: Snapshot): StartCpu {
  const spent = (a: ProcessSample | TreeSample | undefined, b: ProcessSample | TreeSample | undefined) =>
    a === undefined || b === undefined ? Number.NaN : b.cpuSeconds - a.cpuSeconds;
  return {
    agents: from.agents.reduce((total, start, index) => total + spent(start, to.agents[index]), 0),
    worker: spent(from.worker, to.worker),
    server: spent(from.server, to.server),
    postgres: spent(from.postgres, to.postgres),
  };
}

export interface FleetFigures {
  settings: FleetSettings;
  server: string;
  ours: {
    startSeconds: number;
    startCpu: StartCpu;
    /** Each agent's own time to start its share. */
    agentStartSeconds: number[];
    startFailures: Record<string, number>;
    /** From the last start to the worker having run every first task and gone quiet. */
    settleSeconds: number;
    window: {
      seconds: number;
      agentCalls: CallCounts;
      workerCalls: Record<string, number>;
      callsPerMinutePerQuestion: { agents: number; worker: number };
      cpu: { agents: number; worker: number; server: number; postgres: number };
    };
    memory: {
      agentsTotal: MemoryFigure;
      agentMax: MemoryFigure;
      worker: MemoryFigure;
      server: MemoryFigure;
      postgresRss: MemoryFigure;
      postgresPss: MemoryFigure;
      postgresProcesses: number;
      database: MemoryFigure;
    };
    inbox: InboxReading;
    cli: CliReading | { failed: string };
    answer: { seconds: number; failures: Record<string, number>; retried: Record<string, number> };
    received: { correct: number; wrong: number; wrongSamples: string[]; failures: Record<string, number> };
    /** The agents' calls by final status over the whole phase. */
    statuses: Record<string, number>;
  };
  floor?: {
    startSeconds: number;
    startCpu: StartCpu;
    agentStartSeconds: number[];
    started: number;
    startFailures: Record<string, number>;
  };
}

const ANSWERED_BY = 'bench-fleet-answerer';
const ANSWER_ATTEMPTS = 5;
/** Generous bounds for a 100,000-question fleet on two shared cores. */
const LONG_MS = 4 * 60 * 60_000;
const QUIET_SHARE = 0.05;
const QUIET_SAMPLE_MS = 2_000;

async function sleep(milliseconds: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, milliseconds));
}

function reasonOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\d+/g, 'N').slice(0, 160);
}

function tally(into: Record<string, number>, from: Record<string, number>): void {
  for (const [key, count] of Object.entries(from)) into[key] = (into[key] ?? 0) + count;
}

/** Keys of each agent's share: `fleet-<agent>-<index>`, the shares differing by one at most. */
function shares(questions: number, agents: number): string[][] {
  return Array.from({ length: agents }, (_unused, agent) => {
    const size = Math.floor(questions / agents) + (agent < questions % agents ? 1 : 0);
    return Array.from({ length: size }, (_none, index) => `fleet-${agent}-${index}`);
  });
}

function snapshot(
  agents: readonly ChildProcess[],
  workerPid: number | undefined,
  server: BenchServer,
): Snapshot {
  return {
    at: performance.now(),
    agents: agents.map((agent) => sampleProcess(agent.pid)),
    worker: sampleProcess(workerPid),
    server: sampleProcess(server.pid),
    postgres: sampleTree(server.postgresPid),
    databaseBytes: directoryBytes(server.postgresDataDir),
  };
}

function sum(values: readonly (number | undefined)[]): number | undefined {
  return values.some((value) => value === undefined) ? undefined : values.reduce<number>((a, b) => a + b!, 0);
}

/** The workflow tasks the server holds for the task queue's workers (first tasks not yet taken). */
async function workflowTaskBacklog(client: Client, taskQueue: string): Promise<number> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: 'default',
    taskQueue: { name: taskQueue },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    reportStats: true,
  });
  return Number(response.stats?.approximateBacklogCount ?? 0);
}

/** Waits until no first task is queued and the worker has gone quiet; returns the seconds waited. */
async function workerSettled(
  client: Client,
  taskQueue: string,
  workerPid: number | undefined,
  onProgress: (line: string) => void,
): Promise<number> {
  const startedAt = performance.now();
  let lastReport = startedAt;
  for (;;) {
    const backlog = await workflowTaskBacklog(client, taskQueue);
    if (backlog === 0) break;
    if (performance.now() - lastReport > 60_000) {
      onProgress(`fleet: ${backlog} first tasks still queued for the worker`);
      lastReport = performance.now();
    }
    if (performance.now() - startedAt > LONG_MS) throw new Error('the worker did not take every first task');
    await sleep(QUIET_SAMPLE_MS);
  }
  let previous = sampleProcess(workerPid);
  for (let checks = 0; checks < 60; checks += 1) {
    await sleep(QUIET_SAMPLE_MS);
    const current = sampleProcess(workerPid);
    if (!(cpuShare(previous, current, QUIET_SAMPLE_MS / 1000) >= QUIET_SHARE)) break;
    previous = current;
  }
  return (performance.now() - startedAt) / 1000;
}

/** Prints how many questions have started every minute while `until` is pending. */
function reportStarts(
  client: Client,
  query: string,
  until: Promise<unknown>,
  onProgress: (line: string) => void,
) {
  let done = false;
  until.finally(() => (done = true)).catch(() => undefined);
  const startedAt = performance.now();
  void (async () => {
    while (!done) {
      await sleep(60_000);
      if (done) break;
      try {
        const { count } = await client.workflow.count(query);
        onProgress(`fleet: ${count} started after ${Math.round((performance.now() - startedAt) / 1000)} s`);
      } catch (error) {
        onProgress(`fleet: counting the started failed: ${reasonOf(error)}`);
      }
    }
  })();
}

async function agentCounts(agents: readonly ChildProcess[]): Promise<CallCounts> {
  const replies = agents.map((agent) => {
    const reply = nextMessage<Extract<AgentMessage, { type: 'counts' }>>(agent, 'counts', 60_000);
    agent.send({ type: 'counts' });
    return reply;
  });
  let total = noCalls();
  for (const reply of await Promise.all(replies)) total = addCounts(total, reply.calls);
  return total;
}

function workerDiff(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const diff: Record<string, number> = {};
  for (const [operation, count] of Object.entries(after)) {
    const delta = count - (before[operation] ?? 0);
    if (delta !== 0) diff[operation] = delta;
  }
  return diff;
}

/**
 * Answers every question through the bare `submitAnswer` update, `concurrency` at a time, the agents' shares
 * interleaved. A failed answer is sent again (up to {@link ANSWER_ATTEMPTS} times, a second apart); a later
 * attempt refused as already answered means an earlier one was recorded after all.
 */
async function answerAll(
  client: Client,
  keys: readonly string[],
  workflowIds: ReadonlyMap<string, string>,
  concurrency: number,
): Promise<{ failures: Record<string, number>; retried: Record<string, number> }> {
  const failures: Record<string, number> = {};
  const retried: Record<string, number> = {};
  const answerOne = async (key: string, workflowId: string): Promise<void> => {
    const handle = client.workflow.getHandle(workflowId);
    for (let attempt = 1; ; attempt += 1) {
      try {
        await handle.executeUpdate(submitAnswerUpdate, {
          args: [{ ...answerFor(key), answeredBy: ANSWERED_BY }],
        });
        return;
      } catch (error) {
        const reason = reasonOf(error);
        if (attempt > 1 && /already (answered|completed)/.test(reason)) return;
        if (attempt === ANSWER_ATTEMPTS) {
          failures[reason] = (failures[reason] ?? 0) + 1;
          return;
        }
        if (attempt === 1) retried[reason] = (retried[reason] ?? 0) + 1;
        await sleep(1_000);
      }
    }
  };
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < keys.length) {
      const key = keys[next]!;
      next += 1;
      const workflowId = workflowIds.get(key);
      if (workflowId !== undefined) await answerOne(key, workflowId);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { failures, retried };
}

/** Every key of every share, taken in turn from each agent's share. */
function interleave(keysByAgent: readonly string[][]): string[] {
  const keys: string[] = [];
  const longest = Math.max(...keysByAgent.map((share) => share.length));
  for (let index = 0; index < longest; index += 1) {
    for (const share of keysByAgent) if (index < share.length) keys.push(share[index]!);
  }
  return keys;
}

function memoryOf(before: number | undefined, holding: number | undefined): MemoryFigure {
  return { before, holding };
}

async function runOurs(
  settings: FleetSettings,
  directory: string,
  onProgress: (line: string) => void,
): Promise<{ server: string; ours: FleetFigures['ours'] }> {
  const server = await startBenchServer(settings.server, directory, 'fleet-ours');
  const children: ChildProcess[] = [];
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const taskQueue = `bench-fleet-${process.pid}`;
    const metricsPort = await freePort();
    const worker = forkScript(
      path.join(__dirname, 'fleet-worker.js'),
      [server.address, taskQueue, String(metricsPort)],
      'fleet-worker',
      { ...process.env, MALLOC_ARENA_MAX: '2' },
    );
    children.push(worker);
    await nextMessage(worker, 'ready', 120_000);
    const agents = Array.from({ length: settings.agents }, (_unused, index) =>
      forkScript(
        path.join(__dirname, 'fleet-agent.ts'),
        [String(index), server.address, taskQueue],
        `fleet-agent-${index}`,
      ),
    );
    children.push(...agents);
    await Promise.all(agents.map((agent) => nextMessage(agent, 'ready', 120_000)));
    onProgress(`fleet: ${server.description} at ${server.address}, worker and ${agents.length} agents ready`);

    const before = snapshot(agents, worker.pid, server);
    const keysByAgent = shares(settings.questions, settings.agents);
    const settledReplies = agents.map((agent) => {
      const reply = nextMessage<Extract<AgentMessage, { type: 'settled' }>>(agent, 'settled', LONG_MS);
      reply.catch(() => undefined);
      return reply;
    });
    const startedAt = performance.now();
    const askedReplies = agents.map((agent, index) => {
      const reply = nextMessage<Extract<AgentMessage, { type: 'asked' }>>(agent, 'asked', LONG_MS);
      agent.send({ type: 'ask', keys: keysByAgent[index] });
      return reply;
    });
    const allAsked = Promise.all(askedReplies);
    reportStarts(client, "WorkflowType = 'askUserQuestionWorkflow'", allAsked, onProgress);
    const asked = await allAsked;
    const startSeconds = (performance.now() - startedAt) / 1000;
    const startCpu = cpuBetween(before, snapshot(agents, worker.pid, server));
    const startFailures: Record<string, number> = {};
    const workflowIds = new Map<string, string>();
    asked.forEach((reply, agent) => {
      tally(startFailures, reply.startFailures);
      reply.workflowIds.forEach((id, index) => {
        if (id !== '') workflowIds.set(keysByAgent[agent]![index]!, id);
      });
    });
    onProgress(
      `fleet: ${workflowIds.size} of ${settings.questions} started in ${Math.round(startSeconds)} s`,
    );

    const settleSeconds = await workerSettled(client, taskQueue, worker.pid, onProgress);
    onProgress(`fleet: the worker ran every first task and went quiet ${Math.round(settleSeconds)} s later`);
    const countsBefore = await agentCounts(agents);
    const workerBefore = await workerCalls(metricsPort);
    const windowStart = snapshot(agents, worker.pid, server);
    await sleep(settings.windowSeconds * 1000);
    const agentCalls = diffCounts(countsBefore, await agentCounts(agents));
    const workerWindow = workerDiff(workerBefore, await workerCalls(metricsPort));
    const windowEnd = snapshot(agents, worker.pid, server);
    const seconds = (windowEnd.at - windowStart.at) / 1000;
    const workerTotal = Object.values(workerWindow).reduce((a, b) => a + b, 0);
    const perMinute = (calls: number) => calls / settings.questions / (seconds / 60);
    const window = {
      seconds,
      agentCalls,
      workerCalls: workerWindow,
      callsPerMinutePerQuestion: { agents: perMinute(agentCalls.total), worker: perMinute(workerTotal) },
      cpu: {
        agents: windowStart.agents.reduce(
          (total, start, index) => total + cpuShare(start, windowEnd.agents[index], seconds),
          0,
        ),
        worker: cpuShare(windowStart.worker, windowEnd.worker, seconds),
        server: cpuShare(windowStart.server, windowEnd.server, seconds),
        postgres:
          windowStart.postgres === undefined || windowEnd.postgres === undefined
            ? Number.NaN
            : (windowEnd.postgres.cpuSeconds - windowStart.postgres.cpuSeconds) / seconds,
      },
    };
    onProgress(
      `fleet: window of ${Math.round(seconds)} s: agents ${agentCalls.total} calls, worker ${workerTotal}`,
    );
    const agentRss = (sample: Snapshot) => sample.agents.map((agent) => agent?.rss);
    const memory = {
      agentsTotal: memoryOf(sum(agentRss(before)), sum(agentRss(windowEnd))),
      agentMax: memoryOf(
        Math.max(...agentRss(before).map(Number)),
        Math.max(...agentRss(windowEnd).map(Number)),
      ),
      worker: memoryOf(before.worker?.rss, windowEnd.worker?.rss),
      server: memoryOf(before.server?.rss, windowEnd.server?.rss),
      postgresRss: memoryOf(before.postgres?.rss, windowEnd.postgres?.rss),
      postgresPss: memoryOf(before.postgres?.pss, windowEnd.postgres?.pss),
      postgresProcesses: windowEnd.postgres?.processes ?? 0,
      database: memoryOf(before.databaseBytes, windowEnd.databaseBytes),
    };

    const inbox = await timeInboxFirstPage(client);
    onProgress(`fleet: inbox first page ${Math.round(inbox.timing.firstMs)} ms, count ${inbox.pending}`);
    let cli: CliReading | { failed: string };
    try {
      cli = await timeCliList(server.address);
    } catch (error) {
      cli = { failed: reasonOf(error) };
    }

    const answeringAt = Date.now();
    const answered = await answerAll(
      client,
      interleave(keysByAgent),
      workflowIds,
      settings.answerConcurrency,
    );
    const unanswered = Object.values(answered.failures).reduce((a, b) => a + b, 0);
    const settled = await Promise.race([
      Promise.all(settledReplies),
      ...(unanswered === 0
        ? []
        : [
            sleep(60_000).then(() => {
              throw new Error(
                `${unanswered} answers failed and their asks still wait: ${JSON.stringify(answered.failures)}`,
              );
            }),
          ]),
    ]);
    const answerSeconds = (Math.max(...settled.map((reply) => reply.settledAt)) - answeringAt) / 1000;
    onProgress(`fleet: all answered and received in ${Math.round(answerSeconds)} s`);
    const received = {
      correct: 0,
      wrong: 0,
      wrongSamples: [] as string[],
      failures: {} as Record<string, number>,
    };
    for (const reply of settled) {
      received.correct += reply.correct;
      received.wrong += reply.wrong;
      received.wrongSamples.push(...reply.wrongSamples.slice(0, 10 - received.wrongSamples.length));
      tally(received.failures, reply.failures);
    }
    return {
      server: server.description,
      ours: {
        startSeconds,
        startCpu,
        agentStartSeconds: asked.map((reply) => reply.startMs / 1000),
        startFailures,
        settleSeconds,
        window,
        memory,
        inbox,
        cli,
        answer: { seconds: answerSeconds, ...answered },
        received,
        statuses: (await agentCounts(agents)).byStatus,
      },
    };
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    await connection.close();
    await server.stop();
  }
}

/** The floor: the same fleet of processes starting as many bare signal workflows, on a fresh server. */
async function runFloor(
  settings: FleetSettings,
  directory: string,
  onProgress: (line: string) => void,
): Promise<NonNullable<FleetFigures['floor']>> {
  const questions = settings.floorQuestions;
  const server = await startBenchServer(settings.server, directory, 'fleet-floor');
  const children: ChildProcess[] = [];
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const taskQueue = `bench-fleet-floor-${process.pid}`;
    const worker = forkScript(
      path.join(__dirname, 'worker-process.js'),
      ['floor', server.address, taskQueue],
      'fleet-floor-worker',
      { ...process.env, MALLOC_ARENA_MAX: '2' },
    );
    children.push(worker);
    await nextMessage(worker, 'ready', 120_000);
    const agents = Array.from({ length: settings.agents }, (_unused, index) =>
      forkScript(
        path.join(__dirname, 'fleet-floor-agent.ts'),
        [server.address, taskQueue],
        `fleet-floor-agent-${index}`,
      ),
    );
    children.push(...agents);
    await Promise.all(agents.map((agent) => nextMessage(agent, 'ready', 120_000)));
    const keysByAgent = shares(questions, settings.agents);
    const before = snapshot(agents, worker.pid, server);
    const startedAt = performance.now();
    const allAsked = Promise.all(
      agents.map((agent, index) => {
        const reply = nextMessage<FloorAskedMessage>(agent, 'asked', LONG_MS);
        agent.send({ type: 'ask', keys: keysByAgent[index] });
        return reply;
      }),
    );
    reportStarts(client, "WorkflowType = 'floorSignalWorkflow'", allAsked, onProgress);
    const asked = await allAsked;
    const startSeconds = (performance.now() - startedAt) / 1000;
    const startCpu = cpuBetween(before, snapshot(agents, worker.pid, server));
    const startFailures: Record<string, number> = {};
    for (const reply of asked) tally(startFailures, reply.startFailures);
    const started = asked.reduce((total, reply) => total + reply.started, 0);
    onProgress(`fleet floor: ${started} of ${questions} started in ${Math.round(startSeconds)} s`);
    return {
      startSeconds,
      startCpu,
      agentStartSeconds: asked.map((reply) => reply.startMs / 1000),
      started,
      startFailures,
    };
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    await connection.close();
    await server.stop();
  }
}

/**
 * Runs ours, then the floor; a floor that fails is reported in place of its figures. `onOurs` has ours'
 * figures as soon as they are read, before the floor runs.
 */
export async function runFleetPending(
  settings: FleetSettings,
  directory: string,
  onProgress: (line: string) => void,
  onOurs: (figures: FleetFigures) => void,
): Promise<FleetFigures & { floorFailed?: string }> {
  const { server, ours } = await runOurs(settings, directory, onProgress);
  onOurs({ settings, server, ours });
  if (settings.floorQuestions === 0)
    return { settings, server, ours, floorFailed: 'not asked for (--fleet-floor 0)' };
  try {
    return { settings, server, ours, floor: await runFloor(settings, directory, onProgress) };
  } catch (error) {
    return { settings, server, ours, floorFailed: reasonOf(error) };
  }
}
