/**
 * The workloads the comparison runs, all the same exchange: an agent asks one question, another actor answers
 * it, and the agent receives the answer. Each question gets its own answer text, and the agent checks that it
 * received exactly that text: a mixed-up or lost answer is an error, never a data point.
 *
 * - floor: `floor-workflows.ts` on its own worker and task queue, started, answered (signal or update) and
 *   awaited with the bare `@temporalio/client`;
 * - ours: the `ask_user_question` tool over `TemporalUserInteraction` (worker from `createAskUserWorker`),
 *   answered through `QuestionClient.answer` (the `submitAnswer` update) or a raw `answer` signal;
 * - baseline: the same tool over `InMemoryUserInteraction`, answered by a listener in the same process.
 *
 * The asking and the answering side of a Temporal workload each have their own connection, whose gRPC calls
 * are counted (see `grpc-calls.ts`).
 */
import { randomUUID } from 'node:crypto';

import {
  Client,
  WorkflowUpdateStage,
  type Connection,
  type WorkflowClientInterceptor,
} from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

import {
  InMemoryUserInteraction,
  TemporalUserInteraction,
  answerSignal,
  createAskUserQuestionTool,
  requireApproval,
  submitAnswerUpdate,
  type ApprovalRequiredTool,
  type AskUserAgent,
  type AskUserQuestionAnswer,
  type SubmitAnswerInput,
} from '../src';
import { QuestionClient } from '../src/ops';
import { singleQuestionCall } from './fixtures';
import {
  floorAnswerSignal,
  floorAnswerUpdate,
  floorSignalWorkflow,
  floorUpdateWorkflow,
} from './floor-workflows';
import { CallCounter, countedConnection, type CallCounts } from './grpc-calls';

/**
 * Which group a workload belongs to; ratios are taken against the floor. A control is a floor run again as its
 * own workload: its ratios to the floor show how far two identical workloads read apart in the same run.
 */
export type WorkloadGroup = 'floor' | 'control' | 'ours' | 'baseline' | 'peer';

/** Size of one answered question's history. */
export interface HistorySize {
  events: number;
  /** The history as the server sends it (protobuf-encoded `History`). */
  bytes: number;
  /** The event types in order, for seeing where two histories differ. */
  eventTypes?: string[];
  /** When each event was written (epoch ms), for seeing where a slow question's time went. */
  eventTimes?: number[];
}

/** One way of asking and answering a question. */
export interface Workload {
  /** Row label. */
  readonly name: string;
  readonly group: WorkloadGroup;
  /** Name of the floor workload its ratios are taken against (itself for a floor). */
  readonly floor: string;
  /** What the row measures, in one line, for the notes under the table. */
  readonly description: string;
  /** Process ids whose CPU time and memory count for this workload, besides the benchmark process. */
  readonly processes: { server?: number | undefined; worker?: number | undefined };
  /** Asks one question under `key`, answers it from another actor, and resolves once the asker has it. */
  question(key: string): Promise<void>;
  /**
   * The Temporal connections of its clients (Temporal workloads): the comparison enables their async context
   * storage while this workload runs, and disables it while another does (`focusAsyncContext`).
   */
  readonly connections?: readonly Connection[];
  /** gRPC calls so far, of the asking side and of the answering side (Temporal workloads). */
  calls?(): { agent: CallCounts; answerer: CallCounts };
  /** History of the question asked under `key`, once answered (Temporal workloads). */
  history?(key: string): Promise<HistorySize>;
  /** Has two answerers answer one question at once, then a third answer the finished one, and says what happened. */
  doubleAnswer?(): Promise<DoubleAnswerFinding>;
  close(): Promise<void>;
}

/** What a workload does when two answerers answer the same question, and when one answers a finished one. */
export interface DoubleAnswerFinding {
  /** One line for the notes under the table. */
  summary: string;
  details: Record<string, unknown>;
}

/** The agent the questions are asked for. */
export const BENCH_AGENT: AskUserAgent = { id: 'bench-agent', sessionId: 'bench' };
const ANSWERED_BY = 'bench-answerer';

/** The answer given to the question asked under `key`: the key itself in the free-form text. */
export function answerFor(key: string): AskUserQuestionAnswer {
  return { answers: [{ id: 'deploy', selected: [], custom: `answer to ${key}` }] };
}

/** The tool's result text for {@link answerFor}. */
export function expectedText(key: string): string {
  return JSON.stringify(answerFor(key));
}

/** The tool arguments every workload asks (the floor and the peers carry the same questions). */
export const benchArgs = singleQuestionCall.args;

/** Throws unless `received` is exactly the answer given under `key`. */
export function checkReceived(key: string, received: string): void {
  const expected = expectedText(key);
  if (received !== expected) {
    throw new Error(`question ${key} received ${received.slice(0, 200)} instead of ${expected}`);
  }
}

/**
 * Tells when the server has acknowledged the start of a question's workflow, and its workflow id: from then on
 * it can be answered. A client interceptor sees every start the provider makes, keyed by the tool call id in
 * the workflow's input, so the benchmark needs no knowledge of how ids are formed.
 */
export class StartNotices {
  private readonly waiting = new Map<
    string,
    { promise: Promise<string>; resolve: (workflowId: string) => void }
  >();

  readonly interceptor: WorkflowClientInterceptor = {
    startWithDetails: async (input, next) => {
      const toolCallId = (input.options.args?.[0] as { toolCallId?: unknown } | undefined)?.toolCallId;
      const started = (): void => {
        if (typeof toolCallId === 'string') this.entry(toolCallId).resolve(input.options.workflowId);
      };
      try {
        const output = await next(input);
        started();
        return output;
      } catch (error) {
        // A start sent again after a timeout under load finds the first one recorded: the provider re-attaches,
        // and the question is started all the same.
        if (error instanceof WorkflowExecutionAlreadyStartedError) started();
        throw error;
      }
    },
  };

  /** The workflow id once the question of `toolCallId` has started; rejects if `settled` settles first. */
  async started(toolCallId: string, settled: Promise<unknown>): Promise<string> {
    const first = settled.then(
      () => {
        throw new Error(`${toolCallId}: the ask resolved before its question was started`);
      },
      (error: unknown) => {
        throw error;
      },
    );
    first.catch(() => undefined);
    try {
      return await Promise.race([this.entry(toolCallId).promise, first]);
    } finally {
      this.waiting.delete(toolCallId);
    }
  }

  private entry(toolCallId: string): { promise: Promise<string>; resolve: (workflowId: string) => void } {
    let entry = this.waiting.get(toolCallId);
    if (entry === undefined) {
      let resolve: (workflowId: string) => void = () => undefined;
      const promise = new Promise<string>((done) => (resolve = done));
      entry = { promise, resolve };
      this.waiting.set(toolCallId, entry);
    }
    return entry;
  }
}

/** Where the Temporal workloads run. */
export interface TemporalTarget {
  address: string;
  serverPid: number | undefined;
}

/** Two counted connections: one for the asking side, one for the answering side. */
async function connectionPair(target: TemporalTarget): Promise<{
  agent: Connection;
  answerer: Connection;
  agentCalls: CallCounter;
  answererCalls: CallCounter;
}> {
  const agentCalls = new CallCounter();
  const answererCalls = new CallCounter();
  const agent = await countedConnection(agentCalls, { address: target.address });
  const answerer = await countedConnection(answererCalls, { address: target.address });
  return { agent, answerer, agentCalls, answererCalls };
}

export async function historyOf(client: Client, workflowId: string): Promise<HistorySize> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return {
    events: history.events?.length ?? 0,
    bytes: temporal.api.history.v1.History.encode(history).finish().length,
    eventTypes: (history.events ?? []).map(
      (event) => temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType),
    ),
    eventTimes: (history.events ?? []).map(
      (event) => Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6,
    ),
  };
}

/**
 * The floor: a bare workflow waiting for one signal or one update. With `again`, the same floor as a control
 * (its own connections and workflow ids), whose ratios are taken against the floor itself.
 */
export async function floorWorkload(
  target: TemporalTarget,
  workerPid: number | undefined,
  taskQueue: string,
  answerVia: 'signal' | 'update',
  again = false,
): Promise<Workload> {
  const connections = await connectionPair(target);
  const agent = new Client({ connection: connections.agent, namespace: 'default' });
  const answerer = new Client({ connection: connections.answerer, namespace: 'default' });
  const floorName = `floor, ${answerVia}`;
  const name = again ? `${floorName}, again` : floorName;
  const workflowIdOf = (key: string): string => `bench-floor-${answerVia}${again ? '-again' : ''}/${key}`;
  const description =
    answerVia === 'signal'
      ? 'minimal workflow waiting on one signal; bare client: start, signal, result()'
      : 'minimal workflow waiting on one update; bare client: start, executeUpdate, result()';
  return {
    name,
    group: again ? 'control' : 'floor',
    floor: floorName,
    description: again
      ? `the ${floorName} workload again, as its own workload: the spread of its ratios is the noise of this run`
      : description,
    processes: { server: target.serverPid, worker: workerPid },
    async question(key) {
      const workflowId = workflowIdOf(key);
      const handle = await agent.workflow.start(
        answerVia === 'signal' ? floorSignalWorkflow : floorUpdateWorkflow,
        {
          workflowId,
          taskQueue,
          args: [{ questions: benchArgs.questions }],
        },
      );
      // The agent waits from the start, as an agent loop would; the answer comes from the other connection.
      const result = handle.result();
      result.catch(() => undefined);
      const answer = { ...answerFor(key), answeredBy: ANSWERED_BY };
      const answering = answerer.workflow.getHandle(workflowId);
      if (answerVia === 'signal') await answering.signal(floorAnswerSignal, answer);
      else await answering.executeUpdate(floorAnswerUpdate, { args: [answer] });
      const received = (await result) as { answers: unknown };
      checkReceived(key, JSON.stringify({ answers: received.answers }));
    },
    connections: [connections.agent, connections.answerer],
    calls: () => ({ agent: connections.agentCalls.read(), answerer: connections.answererCalls.read() }),
    history: async (key) => await historyOf(answerer, workflowIdOf(key)),
    async close() {
      await connections.agent.close();
      await connections.answerer.close();
    },
  };
}

/**
 * How ours is answered: `QuestionClient.answer` (what `ask-user answer`, the inbox, Slack and MCP use: the
 * `submitAnswer` update with its answer id and 3 s for a worker to take it, nothing read first); the update as
 * `QuestionClient.answer` sends it (the answer id as the update id, waiting for the worker to accept it, within
 * a deadline) without the client around it (its bound, the question's lane, the admission's timers and looks);
 * the bare `submitAnswer` update through a workflow handle (the workflow's own cost); or the raw `answer` signal.
 */
export type OursAnswerPath = 'update' | 'update as sent' | 'bare update' | 'signal';

/** How long `update as sent` lets the worker take to accept the update: `QuestionClient.answer`'s, half its bound. */
const AS_SENT_DEADLINE_MS = 15_000;

/**
 * The two sides of an `ours` workload, each on its own counted connection: the agent's provider (its starts
 * noticed) and the answerer's client.
 */
export async function oursSides(
  target: TemporalTarget,
  taskQueue: string,
): Promise<{
  connections: Awaited<ReturnType<typeof connectionPair>>;
  starts: StartNotices;
  provider: TemporalUserInteraction;
  answerer: Client;
  questions: QuestionClient;
}> {
  const connections = await connectionPair(target);
  const starts = new StartNotices();
  const agentClient = new Client({
    connection: connections.agent,
    namespace: 'default',
    interceptors: { workflow: [starts.interceptor] },
  });
  const provider = new TemporalUserInteraction({ client: agentClient, taskQueue });
  const answerer = new Client({ connection: connections.answerer, namespace: 'default' });
  return { connections, starts, provider, answerer, questions: new QuestionClient(answerer) };
}

/** Ours: the tool over `TemporalUserInteraction`, answered along `answerVia`. */
export async function oursWorkload(
  target: TemporalTarget,
  workerPid: number | undefined,
  taskQueue: string,
  answerVia: OursAnswerPath,
): Promise<Workload> {
  const { connections, starts, provider, answerer, questions } = await oursSides(target, taskQueue);
  const tool = createAskUserQuestionTool({ userInteraction: provider });
  const workflowIds = new Map<string, string>();
  const answerQuestion = async (workflowId: string, answer: SubmitAnswerInput): Promise<void> => {
    switch (answerVia) {
      case 'update':
        await questions.answer(workflowId, answer);
        break;
      case 'update as sent': {
        const answerId = randomUUID();
        const handle = answerer.workflow.getHandle(workflowId);
        const started = await answerer.withDeadline(Date.now() + AS_SENT_DEADLINE_MS, () =>
          handle.startUpdate(submitAnswerUpdate, {
            args: [{ ...answer, answerId }],
            updateId: answerId,
            waitForStage: WorkflowUpdateStage.ACCEPTED,
          }),
        );
        await started.result();
        break;
      }
      case 'bare update':
        await answerer.workflow.getHandle(workflowId).executeUpdate(submitAnswerUpdate, { args: [answer] });
        break;
      case 'signal':
        await answerer.workflow.getHandle(workflowId).signal(answerSignal, answer);
        break;
    }
  };
  const descriptions: Record<OursAnswerPath, string> = {
    update:
      'tool + TemporalUserInteraction; answered with QuestionClient.answer (the submitAnswer update under an answer id, nothing read first)',
    'update as sent':
      'tool + TemporalUserInteraction; answered with the submitAnswer update as QuestionClient.answer sends it (answer id as update id, wait for ACCEPTED, a 15 s deadline), no ops client',
    'bare update':
      'tool + TemporalUserInteraction; answered with the submitAnswer update on a workflow handle, no ops client',
    signal: 'tool + TemporalUserInteraction; answered with a raw `answer` signal',
  };
  return {
    name: `ours, ${answerVia}`,
    group: 'ours',
    floor: answerVia === 'signal' ? 'floor, signal' : 'floor, update',
    description: descriptions[answerVia],
    processes: { server: target.serverPid, worker: workerPid },
    async question(key) {
      const received = tool.execute(benchArgs, { toolCallId: key, agent: BENCH_AGENT });
      received.catch(() => undefined);
      const workflowId = await starts.started(key, received);
      workflowIds.set(key, workflowId);
      await answerQuestion(workflowId, { ...answerFor(key), answeredBy: ANSWERED_BY });
      checkReceived(key, await received);
    },
    connections: [connections.agent, connections.answerer],
    calls: () => ({ agent: connections.agentCalls.read(), answerer: connections.answererCalls.read() }),
    history: async (key) => await historyOf(answerer, workflowIds.get(key) ?? key),
    async doubleAnswer() {
      const key = `double-answer-${answerVia.replace(/ /g, '-')}`;
      const received = tool.execute(benchArgs, { toolCallId: key, agent: BENCH_AGENT });
      received.catch(() => undefined);
      const workflowId = await starts.started(key, received);
      const answerAs = async (who: string): Promise<string> => {
        const answer = { ...answerFor(who), answeredBy: who };
        try {
          await answerQuestion(workflowId, answer);
          return 'accepted';
        } catch (error) {
          const cause =
            error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
          return `refused: ${error instanceof Error ? error.message : String(error)}${cause}`;
        }
      };
      const [first, second] = await Promise.all([answerAs('answerer A'), answerAs('answerer B')]);
      const text = await received;
      const late = await answerAs('answerer C');
      const details = { answererA: first, answererB: second, agentReceived: text, answerAfterFinish: late };
      const winner = text.includes('answerer A') ? 'A' : 'B';
      const refusals = [first, second].filter((outcome) => outcome !== 'accepted');
      const summary =
        answerVia !== 'signal'
          ? `two concurrent submitAnswer updates: ${winner} was recorded, and ` +
            (refusals.length === 1
              ? `the other was ${refusals[0]}`
              : `the outcomes were ${first} / ${second}`) +
            `; a late update was ${late}`
          : `two concurrent signals were both accepted by the server (a signal has no reply); the workflow kept the ` +
            `first (${winner}) and the agent received only it; a late signal was ${late}`;
      return { summary, details };
    },
    async close() {
      await provider.close();
      await connections.agent.close();
      await connections.answerer.close();
    },
  };
}

/** The tool call the approval workload asks to run: the same size of input as the question's arguments. */
export const APPROVAL_SCHEMA = {
  type: 'object',
  properties: { service: { type: 'string' }, version: { type: 'string' } },
  required: ['service', 'version'],
} as const;

/** The input of the `deploy` tool the approval workloads run. */
export interface DeployInput {
  service: string;
  version: string;
}

/** The input the approval workloads send for call `key`. */
export function deployInput(key: string): DeployInput {
  return { service: `checkout-${key}`, version: '1.4.2' };
}

/** The tool both approval workloads run: `deploy`, wrapped in `requireApproval` over `provider`. */
export function deployTool(provider: TemporalUserInteraction): ApprovalRequiredTool<DeployInput, string> {
  return requireApproval(
    {
      name: 'deploy',
      execute: (input: DeployInput) => `deployed ${input.service} ${input.version}`,
    },
    { userInteraction: provider, description: 'Roll out a build', inputSchema: APPROVAL_SCHEMA },
  );
}

/** Throws unless `text` is what the `deploy` tool returns for `input`: the approval ran the tool. */
export function checkDeployed(key: string, input: DeployInput, text: string): void {
  const expected = `deployed ${input.service} ${input.version}`;
  if (text !== expected) throw new Error(`approval ${key} returned ${text} instead of ${expected}`);
}

/**
 * Ours, an approval: a tool wrapped in `requireApproval` over `TemporalUserInteraction`, approved with
 * `QuestionClient.decide` (its checks, then the decide update), and the tool run. Its ratios are taken against
 * `ours, update`, the question answered the same way, so they read what an approval costs beyond a question.
 */
export async function approvalWorkload(
  target: TemporalTarget,
  workerPid: number | undefined,
  taskQueue: string,
): Promise<Workload> {
  const { connections, starts, provider, answerer, questions } = await oursSides(target, taskQueue);
  const deploy = deployTool(provider);
  const workflowIds = new Map<string, string>();
  return {
    name: 'ours, approval',
    group: 'ours',
    floor: 'ours, update',
    description:
      'requireApproval + TemporalUserInteraction; approved with QuestionClient.decide (its checks, then the decide update); ratios against ours, update',
    processes: { server: target.serverPid, worker: workerPid },
    async question(key) {
      const input = deployInput(key);
      const result = deploy.execute(input, { toolCallId: key, agent: BENCH_AGENT });
      result.catch(() => undefined);
      const workflowId = await starts.started(key, result);
      workflowIds.set(key, workflowId);
      await questions.decide(workflowId, { type: 'approve', decidedBy: ANSWERED_BY });
      checkDeployed(key, input, await result);
    },
    connections: [connections.agent, connections.answerer],
    calls: () => ({ agent: connections.agentCalls.read(), answerer: connections.answererCalls.read() }),
    history: async (key) => await historyOf(answerer, workflowIds.get(key) ?? key),
    async close() {
      await provider.close();
      await connections.agent.close();
      await connections.answerer.close();
    },
  };
}

/** Baseline: the tool over the in-memory provider, answered by a listener as soon as a question appears. */
export function inMemoryWorkload(): Workload {
  const provider = new InMemoryUserInteraction();
  const tool = createAskUserQuestionTool({ userInteraction: provider });
  provider.onQuestion((pending) => {
    // Another actor: the answer comes in a later turn of the event loop, not inside the ask.
    setImmediate(() => provider.answer(pending.id, answerFor(pending.request.toolCallId ?? '')));
  });
  return {
    name: 'in-memory provider',
    group: 'baseline',
    floor: 'floor, signal',
    description:
      'tool + InMemoryUserInteraction (nothing durable); answered by a listener in the same process',
    processes: {},
    async question(key) {
      checkReceived(key, await tool.execute(benchArgs, { toolCallId: key, agent: BENCH_AGENT }));
    },
    async close() {},
  };
}
