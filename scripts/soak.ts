/**
 * The soak: many agent processes ask durable questions while another process answers them, and the worker and
 * the Temporal server are killed and restarted under them. At the end, the server's histories and what every
 * process printed are checked: every question answered exactly once, every agent got exactly its own answer,
 * no false `ASK_UNAVAILABLE` while the server was up, nothing left pending.
 *
 *   npm run soak                                   1,000 questions from 10 agents; the worker SIGKILLed and
 *                                                  restarted twice, the dev server restarted once
 *   npm run soak -- --questions 200 --agents 4     smaller
 *   npm run soak -- --scale-out                    two workers on one task queue, one SIGKILLed mid-run
 *   npm run soak -- --out bench/results/soak.json  also write the report as JSON
 *   npm run soak -- --keep                         keep the server's SQLite file to read the histories after
 *   npm run soak -- --toxic latency|reset|bandwidth|blackhole|all --out bench/results/chaos-{toxic}.json
 *                                                  the chaos soak: every client through one Toxiproxy proxy, the
 *                                                  toxic switched on and off mid-run, no kills (scripts/chaos/)
 *
 * What runs: a dev server on a SQLite file in a temporary directory (`journal_mode=WAL`), ask-user worker
 * processes (test/fixtures/worker-process.ts), agent processes (test/fixtures/soak-agent.ts) that ask at a
 * steady pace, with a bounded number of tool calls outstanding, and never ask again after an error, and one
 * answerer process (test/fixtures/soak-answerer.ts) that lists pending questions and answers them through
 * `QuestionClient`. The faults are triggered by progress (a share of the questions asked), so they land while
 * agents are both starting questions and waiting on them, at any speed.
 *
 * In the chaos soak, agents that get `ASK_UNAVAILABLE` ask again with the same tool call id 2 s later (until
 * another outcome comes), and each such error is judged by when it came: inside the blackhole (or up to
 * {@link RECOVERY_SLACK_MS} after it) it is due, anywhere else it is a false one.
 *
 * Exits 0 when every check holds, 1 when one does not (the report says which), 2 when the soak could not run.
 * Every process it starts is stopped by its PID; one left running when this process ends is SIGKILLed.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client, Connection, type WorkflowExecutionInfo } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';

import { startDevServer, type DevServer } from '../src/dev-server';
import { questionSummaryOf } from '../src/ops/question-rows';
import type { AskUserQuestionAnswer, AskUserQuestionWorkflowResult, QuestionStatus } from '../src/types';
import { ASK_USER_QUESTION_WORKFLOW_TYPE } from '../src/question/definitions';
import { questionWorkflowId } from '../src/question/workflow-id';
import { jsonLines, type ChildExit, type RunningChild } from '../test/fixtures/child-process';
import { SOAK_ANSWERER, startSoakAnswerer } from '../test/fixtures/soak-answerer';
import { startSoakAgent } from '../test/fixtures/soak-agent';
import { soakAnswer, soakResultText, soakToolCallId } from '../test/fixtures/soak-questions';
import { startWorkerProcess } from '../test/fixtures/worker-process';
import { trackProcess } from '../test/helpers/processes';
import { freePort } from '../test/helpers/temporal';
import { startToxiproxy, type Toxiproxy } from '../test/helpers/toxiproxy';
import { ChaosController, parseToxicNames, toxicPlan, type ToxicName } from './chaos/chaos-plan';

/** Options of {@link runSoak}. */
export interface SoakOptions {
  /** Questions in total, shared out among the agents. Default 1,000. */
  questions?: number;
  /** Agent processes. Default 10. */
  agents?: number;
  /** Two workers on one task queue, one SIGKILLed (and not restarted) halfway; no server restart. */
  scaleOut?: boolean;
  /** Without `scaleOut`: how often the worker is SIGKILLed and restarted. Default 2. */
  workerRestarts?: number;
  /** Without `scaleOut`: how often the dev server is stopped and restarted on its database file. Default 1. */
  serverRestarts?: number;
  /** Each agent asks its question N no earlier than N intervals after its start. Default 500 ms. */
  askIntervalMs?: number;
  /** Tool calls each agent keeps outstanding at most. Default 100. */
  concurrency?: number;
  /**
   * The agents' `maxLongPolls`. Default 25, below `concurrency`, so that both ways of waiting (a long poll, and
   * the visibility scan for the questions beyond the long polls) are exercised.
   */
  maxLongPolls?: number;
  /**
   * The agents' `unavailableTimeoutMs`. Default 60 s: far longer than the server is down, so any
   * `ASK_UNAVAILABLE` is a false one.
   */
  unavailableTimeoutMs?: number;
  /** Answers the answerer keeps in flight. Default 16. */
  answerConcurrency?: number;
  /**
   * The answerer answers a question this long after it started at the earliest, as a person would take a
   * while: so the faults always find questions waiting, however fast the machine. Default 10 s.
   */
  answerDelayMs?: number;
  /** How long the server stays stopped before it is started again. Default 2 s. */
  downtimeMs?: number;
  /** After this, agents still running are killed and their questions count as lost. Default 30 min. */
  timeoutMs?: number;
  /**
   * Keep the temporary directory with the server's SQLite file, to look into the histories afterwards
   * (`temporal server start-dev --db-filename <file>`). Default false.
   */
  keep?: boolean;
  /**
   * The chaos soak: every client reaches the server through Toxiproxy, and this toxic is switched on and off
   * mid-run (scripts/chaos/chaos-plan.ts); no kills, no restarts. Agents ask again after `ASK_UNAVAILABLE`.
   */
  toxic?: ToxicName;
  /** Progress lines (faults, counts). Default: none. */
  log?: (line: string) => void;
}

/**
 * How long after a blackhole ends an `ASK_UNAVAILABLE` is still its own: a re-ask sent as the network comes
 * back can meet the connection before it is re-established.
 */
export const RECOVERY_SLACK_MS = 10_000;

/** One fault, as it happened. */
export interface SoakFault {
  kind: 'worker-kill' | 'server-restart' | 'toxic';
  /** Share of the questions asked when it was triggered: what triggers it. */
  asked: number;
  /** Share of the questions settled (answer or error received) when it was triggered. */
  settled: number;
  /** Milliseconds since the start of the run. */
  at: number;
  /**
   * When the worker polled again, the server answered again, or the toxic was switched off; absent for a
   * worker that was not restarted.
   */
  recoveredAt?: number;
}

/** A window (ms since the epoch) during which the server was down. */
export interface Downtime {
  from: number;
  to: number;
}

/** What an agent process printed, and how it ended. */
export interface AgentObservation {
  agentId: string;
  /** How many questions it was told to ask. */
  questions: number;
  events: Record<string, unknown>[];
  exit?: ChildExit;
}

/** The `answerId` an answer's payload carries, if it decodes and has one. */
function answerIdOf(payload: Payload | null | undefined): string | undefined {
  if (payload === null || payload === undefined) return undefined;
  try {
    const input: unknown = defaultPayloadConverter.fromPayload(payload);
    const answerId = (input as { answerId?: unknown } | null)?.answerId;
    return typeof answerId === 'string' ? answerId : undefined;
  } catch {
    return undefined;
  }
}

/** A question as the server has it after the run. */
export interface ServerQuestion {
  workflowId: string;
  status: QuestionStatus;
  /** `submitAnswer` updates accepted in its history. */
  acceptedAnswers: number;
  /** `answer` signals in its history. */
  answerSignals: number;
  /**
   * The distinct answers that reached it, by `answerId`, as accepted `submitAnswer` updates or `answer` signals:
   * an answer no worker took in time is sent again as the signal under the same id, and is one answer.
   */
  answerIds: Set<string>;
  /** Workflow task failures and timeouts in its history (worker crashes show up here). */
  taskFailures: number;
  answer?: AskUserQuestionAnswer;
  answeredBy?: string;
}

/** Everything the checks look at. */
export interface SoakObservations {
  agents: AgentObservation[];
  answerer: Record<string, unknown>[];
  server: ServerQuestion[];
  downtimes: Downtime[];
  /** Blackholes: the network dropped everything, so `ASK_UNAVAILABLE` is due (plus {@link RECOVERY_SLACK_MS}). */
  blackholes?: Downtime[];
}

/** The counts the soak is judged by, and the details behind them. */
export interface SoakCounts {
  /** Questions the agents were to ask. */
  planned: number;
  /** Distinct questions the agents asked (one `execute` each). */
  asked: number;
  /** Distinct asked questions the server shows answered by exactly one answer (update or signal, one answerId). */
  answered: number;
  /** Distinct asked questions whose agent received a result. */
  received: number;
  /** Asked, but no result received (an error, or nothing). */
  lost: number;
  /** Questions answered twice on the server, received twice by an agent, or accepted twice by the answerer. */
  doubled: number;
  /** Questions whose agent received, or whose server record holds, an answer that is not this question's. */
  wrong: number;
  /** `ASK_UNAVAILABLE` errors dated outside every server downtime and blackhole. */
  falseUnavailable: number;
  /** The chaos soak's counts; absent from a run with no blackhole and no re-ask. */
  chaos?: ChaosCounts;
  /** Questions still pending after the agents finished, or on the server but asked by no agent. */
  orphaned: number;
  /** Answer attempts that reported a definite refusal (NO_WORKER, BAD_ANSWER) and were recorded all the same. */
  misreported: number;
  /** `ALREADY_RESOLVED` refusals that do not name who answered and when. */
  unexplainedRefusals: number;
  /** Agent errors by code. */
  agentErrors: Record<string, number>;
  /** Answer attempts by outcome: `accepted` or the error's code. */
  answerAttempts: Record<string, number>;
  /** Up to three failed answer attempts per code: `<workflow id> #<attempt> failed at <time>: <message>`. */
  answerErrorSamples: Record<string, string[]>;
  /** Workflow task failures and timeouts over all histories. */
  taskFailures: number;
  /** Asks that began while the server was down (their start had to wait for it). */
  askedWhileDown: number;
  /** Asks that began before a downtime and settled after it: they waited through it. */
  waitingThroughDowntime: number;
  /** Ask → result, in ms, over the received questions. */
  latencyMs: { p50: number; p95: number; max: number };
}

/** What the chaos soak counts besides the rest (its agents ask again after `ASK_UNAVAILABLE`). */
export interface ChaosCounts {
  /** `ASK_UNAVAILABLE` errors inside a blackhole (or its recovery slack), re-asks' included. */
  unavailableInside: number;
  /** Of those, the ones in the recovery slack: after the blackhole ended. */
  unavailableAfter: number;
  /** How long after the blackhole ended the last of those came (ms): how long re-asks still met the outage. */
  lastUnavailableAfterMs?: number;
  /** Questions that got `ASK_UNAVAILABLE` at least once. */
  unavailableQuestions: number;
  /** Of those, the ones asked again with the same tool call id that received their own answer. */
  reattached: number;
  /**
   * From the start of the first blackhole to the first `ASK_UNAVAILABLE` of each question asked before it
   * began: how soon the blackhole was noticed. Absent without a blackhole or such a question.
   */
  noticeMs?: { first: number; last: number };
}

/** The report of one run. */
export interface SoakReport {
  mode: 'restarts' | 'scale-out' | 'chaos';
  /** The chaos soak's toxic, and when it was on (ms since the start of the run). */
  toxic?: {
    name: ToxicName;
    description: string;
    onAt?: number;
    offAt?: number;
    /** How often the toxics were removed and added again while on (to draw `toxicity` anew). */
    redraws: number;
    /** Client connections Toxiproxy accepted over the run: every reconnect adds one. */
    acceptedConnections: number;
  };
  /** When the agents were started (ISO 8601); fault times count from here. */
  startedAt: string;
  options: Required<Omit<SoakOptions, 'log' | 'scaleOut' | 'keep' | 'toxic'>>;
  /** The server's SQLite file, when `keep` was set. */
  dbFile?: string;
  durationMs: number;
  faults: SoakFault[];
  counts: SoakCounts;
  /** Which checks failed, in words; empty when the soak passed. */
  problems: string[];
}

const DEFAULT_QUESTIONS = 1_000;
/** In the chaos soak, how long an agent waits after `ASK_UNAVAILABLE` before it asks again. */
const REASK_AFTER_MS = 2_000;
const DEFAULT_AGENTS = 10;

function agentsError(agents: number, questions: number): Error {
  return new Error(`--agents: ${agents} agents need at least as many questions (got ${questions})`);
}

/** `answered by X at T`, as every refusal of a late answer says it. */
const NAMES_THE_WINNER = /already answered by \S.* at \d{4}-\d\d-\d\dT/;

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? 0;
}

function sameAnswer(left: AskUserQuestionAnswer | undefined, right: AskUserQuestionAnswer): boolean {
  return left !== undefined && JSON.stringify(left) === JSON.stringify(right);
}

function countBy(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

/** The workflow id of question `index` of `agentId`. */
export function soakWorkflowId(agentId: string, index: number): string {
  return questionWorkflowId({ agent: { id: agentId }, toolCallId: soakToolCallId(index) }, () => {
    throw new Error('a soak question always has a tool call id');
  });
}

/** Applies every check of the soak to what was observed. Pure: the test of the checks feeds it by hand. */
export function tallySoak(observations: SoakObservations): SoakCounts {
  // The questions the agents were to ask, by workflow id.
  const planned = new Map<string, { agentId: string; index: number }>();
  for (const agent of observations.agents) {
    for (let index = 0; index < agent.questions; index++) {
      planned.set(soakWorkflowId(agent.agentId, index), { agentId: agent.agentId, index });
    }
  }
  const asked = new Set<string>();
  const received = new Set<string>();
  const doubled = new Set<string>();
  const wrong = new Set<string>();
  const agentErrors: Record<string, number> = {};
  const latencies: number[] = [];
  let falseUnavailable = 0;
  let unavailableInside = 0;
  let unavailableAfter = 0;
  let lastUnavailableAfterMs: number | undefined;
  const unavailableQuestions = new Set<string>();
  const notices: number[] = [];
  const blackholes = observations.blackholes ?? [];
  const blackholeAt = (at: number): boolean =>
    blackholes.some((blackhole) => at >= blackhole.from && at <= blackhole.to + RECOVERY_SLACK_MS);
  let askedWhileDown = 0;
  let waitingThroughDowntime = 0;
  const downAt = (at: number): boolean =>
    observations.downtimes.some((downtime) => at >= downtime.from && at <= downtime.to);

  for (const agent of observations.agents) {
    const askedAt = new Map<number, number>();
    const settled = new Map<number, number>();
    for (const event of agent.events) {
      const index = event.index;
      if (typeof index !== 'number') continue;
      const workflowId = soakWorkflowId(agent.agentId, index);
      if (event.event === 'ask') {
        if (askedAt.has(index)) doubled.add(workflowId);
        askedAt.set(index, Number(event.at));
        asked.add(workflowId);
      } else if (event.event === 'result' || event.event === 'error') {
        settled.set(index, (settled.get(index) ?? 0) + 1);
        if (settled.get(index)! > 1) doubled.add(workflowId);
      }
      if (event.event === 'result' || event.event === 'error') {
        const started = askedAt.get(index) ?? Number.NaN;
        const ended = Number(event.at);
        if (downAt(started)) askedWhileDown += 1;
        if (observations.downtimes.some((downtime) => started < downtime.from && ended > downtime.to)) {
          waitingThroughDowntime += 1;
        }
      }
      if (event.event === 'result') {
        received.add(workflowId);
        if (event.text !== soakResultText(agent.agentId, index)) wrong.add(workflowId);
        const started = askedAt.get(index);
        if (started !== undefined) latencies.push(Number(event.at) - started);
      } else if (event.event === 'error') {
        const code = String(event.code);
        countBy(agentErrors, code);
        if (code === 'ASK_UNAVAILABLE' && !downAt(Number(event.at)) && !blackholeAt(Number(event.at)))
          falseUnavailable += 1;
      } else if (event.event === 'unavailable') {
        // An ASK_UNAVAILABLE the agent answered by asking again: judged the same way, and not a settlement.
        const at = Number(event.at);
        if (downAt(at) || blackholeAt(at)) unavailableInside += 1;
        else falseUnavailable += 1;
        const ended = blackholes.filter((blackhole) => at > blackhole.to).at(-1);
        if (blackholeAt(at) && ended !== undefined && blackholes.every((blackhole) => at > blackhole.to)) {
          unavailableAfter += 1;
          lastUnavailableAfterMs = Math.max(lastUnavailableAfterMs ?? 0, at - ended.to);
        }
        const first = blackholes[0];
        const started = askedAt.get(index);
        if (
          !unavailableQuestions.has(workflowId) &&
          first !== undefined &&
          started !== undefined &&
          started < first.from
        ) {
          notices.push(at - first.from);
        }
        unavailableQuestions.add(workflowId);
      }
    }
  }

  // The answerer's side: accepted twice, refusals that explain nothing, refusals that were recorded anyway.
  const answerAttempts: Record<string, number> = {};
  const answerErrorSamples: Record<string, string[]> = {};
  const acceptedBy = new Map<string, number>();
  const definiteRefusals = new Set<string>();
  let unexplainedRefusals = 0;
  for (const event of observations.answerer) {
    const workflowId = String(event.workflowId);
    if (event.event === 'answered') {
      countBy(answerAttempts, 'accepted');
      acceptedBy.set(workflowId, (acceptedBy.get(workflowId) ?? 0) + 1);
      if (acceptedBy.get(workflowId)! > 1) doubled.add(workflowId);
    } else if (event.event === 'answer-error') {
      const code = String(event.code);
      countBy(answerAttempts, code);
      const samples = (answerErrorSamples[code] ??= []);
      if (samples.length < 3) {
        const failedAt = new Date(Number(event.at)).toISOString();
        samples.push(
          `${workflowId} #${String(event.attempt)} failed at ${failedAt}: ${String(event.message)}`,
        );
      }
      if (code === 'ALREADY_RESOLVED' && !NAMES_THE_WINNER.test(String(event.message)))
        unexplainedRefusals += 1;
      if (code === 'NO_WORKER' || code === 'BAD_ANSWER') {
        definiteRefusals.add(`${workflowId}\n${SOAK_ANSWERER}#${String(event.attempt)}`);
      }
    }
  }

  let answered = 0;
  let orphaned = 0;
  let misreported = 0;
  let taskFailures = 0;
  const runs = new Set<string>();
  for (const question of observations.server) {
    taskFailures += question.taskFailures;
    // A second run under one workflow id is a question asked twice.
    if (runs.has(question.workflowId)) doubled.add(question.workflowId);
    runs.add(question.workflowId);
    const asker = planned.get(question.workflowId);
    if (asker === undefined || !asked.has(question.workflowId)) {
      orphaned += 1; // on the server, but no agent asked it
      continue;
    }
    if (question.status === 'pending') orphaned += 1;
    if (question.answerIds.size > 1) doubled.add(question.workflowId);
    if (question.status === 'answered' && question.answerIds.size === 1) answered += 1;
    if (
      question.status === 'answered' &&
      !sameAnswer(question.answer, soakAnswer(asker.agentId, asker.index))
    ) {
      wrong.add(question.workflowId);
    }
    if (definiteRefusals.has(`${question.workflowId}\n${question.answeredBy ?? ''}`)) misreported += 1;
  }

  latencies.sort((left, right) => left - right);
  notices.sort((left, right) => left - right);
  return {
    planned: planned.size,
    asked: asked.size,
    answered,
    received: received.size,
    lost: [...asked].filter((workflowId) => !received.has(workflowId)).length,
    doubled: doubled.size,
    wrong: wrong.size,
    falseUnavailable,
    ...(observations.blackholes === undefined && unavailableQuestions.size === 0
      ? {}
      : {
          chaos: {
            unavailableInside,
            unavailableAfter,
            ...(lastUnavailableAfterMs === undefined ? {} : { lastUnavailableAfterMs }),
            unavailableQuestions: unavailableQuestions.size,
            reattached: [...unavailableQuestions].filter(
              (workflowId) => received.has(workflowId) && !wrong.has(workflowId),
            ).length,
            ...(notices.length === 0 ? {} : { noticeMs: { first: notices[0]!, last: notices.at(-1)! } }),
          },
        }),
    orphaned,
    misreported,
    unexplainedRefusals,
    agentErrors,
    answerAttempts,
    answerErrorSamples,
    taskFailures,
    askedWhileDown,
    waitingThroughDowntime,
    latencyMs: {
      p50: percentile(latencies, 0.5),
      p95: percentile(latencies, 0.95),
      max: latencies.at(-1) ?? 0,
    },
  };
}

/** The checks that failed, in words. */
export function soakProblems(counts: SoakCounts): string[] {
  const problems: string[] = [];
  if (counts.asked !== counts.planned) problems.push(`asked ${counts.asked} of ${counts.planned} questions`);
  if (counts.answered !== counts.asked) {
    problems.push(`${counts.answered} of ${counts.asked} asked questions answered exactly once`);
  }
  for (const [name, value] of [
    ['lost', counts.lost],
    ['doubled', counts.doubled],
    ['wrong', counts.wrong],
    ['false-unavailable', counts.falseUnavailable],
    ['orphaned', counts.orphaned],
    ['misreported', counts.misreported],
    ['unexplained refusals', counts.unexplainedRefusals],
  ] as const) {
    if (value !== 0) problems.push(`${name}: ${value}`);
  }
  return problems;
}

/** Shares `total` questions out among `agents`, the first ones taking one more when it does not divide. */
function shares(total: number, agents: number): number[] {
  return Array.from(
    { length: agents },
    (_, index) => Math.floor(total / agents) + (index < total % agents ? 1 : 0),
  );
}

interface PlannedFault {
  kind: SoakFault['kind'];
  /** Share of the questions asked that triggers it. */
  asked: number;
  restart: boolean;
}

/**
 * The faults and the share of settled questions that triggers each: worker kills and server restarts
 * alternate, spread between 20 % and 70 % of the run; with `scaleOut`, one worker killed at 50 %.
 */
function planFaults(scaleOut: boolean, workerRestarts: number, serverRestarts: number): PlannedFault[] {
  if (scaleOut) return [{ kind: 'worker-kill', asked: 0.5, restart: false }];
  const kinds: SoakFault['kind'][] = [];
  for (let worker = workerRestarts, server = serverRestarts; worker + server > 0;) {
    if (server > 0 && (worker === 0 || kinds.at(-1) === 'worker-kill')) {
      kinds.push('server-restart');
      server -= 1;
    } else {
      kinds.push('worker-kill');
      worker -= 1;
    }
  }
  return kinds.map((kind, position) => ({
    kind,
    asked: kinds.length === 1 ? 0.4 : 0.2 + (0.5 * position) / (kinds.length - 1),
    restart: true,
  }));
}

function parsePositive(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw new Error(`${name}: must be a positive integer, got ${String(value)}`);
  }
  return value;
}

/** Stops a child by its PID: SIGTERM, then SIGKILL if it is still there after `graceMs`. */
async function stopChild(child: RunningChild, graceMs = 20_000): Promise<void> {
  try {
    await child.kill('SIGTERM', graceMs);
  } catch {
    await child.kill('SIGKILL');
  }
}

/** Reads every question on the server: status from visibility, answers and their count from its history. */
async function inspectServer(client: Client): Promise<ServerQuestion[]> {
  const infos: WorkflowExecutionInfo[] = [];
  for await (const info of client.workflow.list({
    query: `WorkflowType = '${ASK_USER_QUESTION_WORKFLOW_TYPE}'`,
  })) {
    infos.push(info);
  }
  const questions: ServerQuestion[] = [];
  let next = 0;
  const inspectInTurn = async (): Promise<void> => {
    while (next < infos.length) {
      const info = infos[next++]!;
      const handle = client.workflow.getHandle(info.workflowId, info.runId);
      const history = await handle.fetchHistory();
      const question: ServerQuestion = {
        workflowId: info.workflowId,
        status: questionSummaryOf(info).status,
        acceptedAnswers: 0,
        answerSignals: 0,
        answerIds: new Set(),
        taskFailures: 0,
      };
      for (const [index, event] of (history.events ?? []).entries()) {
        const update = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
        if (update?.name === 'submitAnswer') {
          question.acceptedAnswers += 1;
          question.answerIds.add(answerIdOf(update.args?.payloads?.[0]) ?? `event ${index}`);
        }
        const signal = event.workflowExecutionSignaledEventAttributes;
        if (signal?.signalName === 'answer') {
          question.answerSignals += 1;
          question.answerIds.add(answerIdOf(signal.input?.payloads?.[0]) ?? `event ${index}`);
        }
        if (event.workflowTaskFailedEventAttributes || event.workflowTaskTimedOutEventAttributes) {
          question.taskFailures += 1;
        }
      }
      if (info.status.name === 'COMPLETED') {
        const result = (await handle.result()) as AskUserQuestionWorkflowResult;
        if (result.status === 'answered') {
          question.answer = result.answer;
          if (result.answeredBy !== undefined) question.answeredBy = result.answeredBy;
        }
      }
      questions.push(question);
    }
  };
  await Promise.all(Array.from({ length: 8 }, inspectInTurn));
  return questions;
}

/** Runs the soak and reports what it found; rejects only when the soak itself could not run. */
export async function runSoak(options: SoakOptions = {}): Promise<SoakReport> {
  const scaleOut = options.scaleOut ?? false;
  const toxic = options.toxic === undefined ? undefined : toxicPlan(options.toxic);
  const settings = {
    questions: parsePositive('--questions', options.questions ?? DEFAULT_QUESTIONS),
    agents: parsePositive('--agents', options.agents ?? DEFAULT_AGENTS),
    workerRestarts: scaleOut || toxic !== undefined ? 0 : (options.workerRestarts ?? 2),
    serverRestarts: scaleOut || toxic !== undefined ? 0 : (options.serverRestarts ?? 1),
    askIntervalMs: parsePositive('askIntervalMs', options.askIntervalMs ?? 500),
    concurrency: parsePositive('concurrency', options.concurrency ?? 100),
    maxLongPolls: parsePositive('maxLongPolls', options.maxLongPolls ?? 25),
    unavailableTimeoutMs: parsePositive(
      'unavailableTimeoutMs',
      options.unavailableTimeoutMs ?? toxic?.unavailableTimeoutMs ?? 60_000,
    ),
    answerConcurrency: parsePositive('answerConcurrency', options.answerConcurrency ?? 16),
    answerDelayMs: options.answerDelayMs ?? 10_000,
    downtimeMs: options.downtimeMs ?? 2_000,
    timeoutMs: parsePositive('timeoutMs', options.timeoutMs ?? 30 * 60_000),
  };
  if (settings.agents > settings.questions) throw agentsError(settings.agents, settings.questions);
  const log = options.log ?? ((): void => undefined);
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'ask-user-soak-'));
  const dbFile = path.join(directory, 'temporal.sqlite');
  const port = await freePort();
  const taskQueue = `soak-${process.pid}-${Date.now()}`;
  const startServer = (): Promise<DevServer> =>
    startDevServer({
      dbFile,
      port,
      uiPort: false,
      ip: '127.0.0.1',
      onSpawn: (child) => trackProcess(child, { kind: 'dev-server' }),
    });

  let server: DevServer | undefined;
  let toxiproxy: Toxiproxy | undefined;
  let chaos: ChaosController | undefined;
  const workers: RunningChild[] = [];
  let answerer: RunningChild | undefined;
  const agents: { agentId: string; questions: number; child: RunningChild }[] = [];
  const faults: SoakFault[] = [];
  const downtimes: Downtime[] = [];
  try {
    server = await startServer();
    const address = server.address;
    log(`dev server on ${address}, database ${dbFile}`);
    // The chaos soak: every client goes through the proxy; the checks at the end read the server directly.
    let clientAddress = address;
    if (toxic !== undefined) {
      toxiproxy = await startToxiproxy();
      const proxy = await toxiproxy.createProxy('temporal', address);
      chaos = new ChaosController(proxy, toxic);
      clientAddress = proxy.address;
      log(
        `toxiproxy (pid ${toxiproxy.pid}) on ${clientAddress} in front of the server; toxic: ${toxic.description}`,
      );
    }
    for (let count = scaleOut || toxic !== undefined ? 2 : 1; count > 0; count--)
      workers.push(await startWorkerProcess(clientAddress, taskQueue));
    log(`${workers.length} worker(s) polling ${taskQueue}`);
    answerer = startSoakAnswerer(clientAddress, settings.answerConcurrency, settings.answerDelayMs);

    const startedAt = Date.now();
    shares(settings.questions, settings.agents).forEach((questions, position) => {
      const agentId = `soak-agent-${position + 1}`;
      const child = startSoakAgent({
        address: clientAddress,
        taskQueue,
        agentId,
        questions,
        askIntervalMs: settings.askIntervalMs,
        concurrency: settings.concurrency,
        unavailableTimeoutMs: settings.unavailableTimeoutMs,
        maxLongPolls: settings.maxLongPolls,
        ...(toxic === undefined ? {} : { reaskAfterMs: REASK_AFTER_MS }),
      });
      agents.push({ agentId, questions, child });
    });
    log(`${settings.agents} agents asking ${settings.questions} questions`);

    // How many questions the agents asked, and how many of those settled (an answer or an error came back).
    const tally = (): { asked: number; settled: number } => {
      let asked = 0;
      let settled = 0;
      for (const agent of agents) {
        for (const event of jsonLines(agent.child.stdout())) {
          if (event.event === 'ask') asked += 1;
          else if (event.event === 'result' || event.event === 'error') settled += 1;
        }
      }
      return { asked, settled };
    };
    const elapsed = (): string => `${((Date.now() - startedAt) / 1000).toFixed(1)} s`;
    const plan = planFaults(scaleOut, settings.workerRestarts, settings.serverRestarts);
    let lastProgressLog = Date.now();
    for (;;) {
      const running = agents.filter(
        (agent) => agent.child.process.exitCode === null && agent.child.process.signalCode === null,
      );
      if (running.length === 0) break;
      if (Date.now() - startedAt > settings.timeoutMs) {
        log(`${elapsed()}: timed out; killing ${running.length} agent(s) still waiting`);
        for (const agent of running) await agent.child.kill('SIGKILL');
        break;
      }
      const now = tally();
      const toxicDue = chaos?.due(now.asked / settings.questions);
      if (chaos !== undefined && toxicDue !== undefined) {
        const progress = `${now.asked} asked, ${now.settled} settled`;
        if (toxicDue === 'on') {
          await chaos.switchOn();
          faults.push({
            kind: 'toxic',
            asked: now.asked / settings.questions,
            settled: now.settled / settings.questions,
            at: Date.now() - startedAt,
          });
          log(`${elapsed()}: toxic ${chaos.plan.name} on (${progress})`);
        } else {
          await chaos.switchOff();
          const fault = faults.find((each) => each.kind === 'toxic');
          if (fault !== undefined) fault.recoveredAt = Date.now() - startedAt;
          log(`${elapsed()}: toxic ${chaos.plan.name} off (${progress})`);
        }
        continue;
      }
      const due = plan[0];
      if (due !== undefined && now.asked >= due.asked * settings.questions) {
        plan.shift();
        const fault: SoakFault = {
          kind: due.kind,
          asked: now.asked / settings.questions,
          settled: now.settled / settings.questions,
          at: Date.now() - startedAt,
        };
        faults.push(fault);
        const progress = `${now.asked} asked, ${now.settled} settled`;
        if (due.kind === 'worker-kill') {
          const victim = workers.shift()!;
          await victim.kill('SIGKILL');
          log(`${elapsed()}: worker ${victim.pid} SIGKILLed (${progress})`);
          if (due.restart) {
            workers.push(await startWorkerProcess(address, taskQueue));
            fault.recoveredAt = Date.now() - startedAt;
            log(`${elapsed()}: a new worker polls`);
          }
        } else {
          const from = Date.now();
          await server.stop();
          log(`${elapsed()}: dev server stopped (${progress})`);
          await sleep(settings.downtimeMs);
          server = await startServer();
          downtimes.push({ from, to: Date.now() });
          fault.recoveredAt = Date.now() - startedAt;
          log(
            `${elapsed()}: dev server answers again on the same file and port (down ${((Date.now() - from) / 1000).toFixed(1)} s)`,
          );
        }
        continue;
      }
      if (Date.now() - lastProgressLog >= 10_000) {
        lastProgressLog = Date.now();
        const { asked, settled } = tally();
        log(`${elapsed()}: ${asked}/${settings.questions} asked, ${settled} settled`);
      }
      await sleep(250);
    }
    const durationMs = Date.now() - startedAt;
    log(`${elapsed()}: every agent finished`);
    if (chaos !== undefined && chaos.due(1) === 'off') {
      await chaos.switchOff();
      log(`${elapsed()}: toxic ${chaos.plan.name} off after the run`);
    }

    await stopChild(answerer);
    const connection = await Connection.connect({ address });
    let serverQuestions: ServerQuestion[];
    try {
      serverQuestions = await inspectServer(new Client({ connection, namespace: 'default' }));
    } finally {
      await connection.close();
    }

    const observations: SoakObservations = {
      agents: await Promise.all(
        agents.map(async (agent) => ({
          agentId: agent.agentId,
          questions: agent.questions,
          events: jsonLines(agent.child.stdout()),
          exit: await agent.child.waitForExit(),
        })),
      ),
      answerer: jsonLines(answerer.stdout()),
      server: serverQuestions,
      downtimes,
      ...(chaos === undefined
        ? {}
        : {
            blackholes: chaos.plan.name === 'blackhole' && chaos.window !== undefined ? [chaos.window] : [],
          }),
    };
    const counts = tallySoak(observations);
    const problems = soakProblems(counts);
    // A fault proves something only while questions are outstanding.
    for (const fault of faults) {
      if (fault.settled >= 1)
        problems.push(`the ${fault.kind} at ${fault.at} ms found no question outstanding`);
    }
    for (const missed of plan)
      problems.push(`the ${missed.kind} planned at ${missed.asked * 100} % asked never happened`);
    if (chaos !== undefined && chaos.window === undefined)
      problems.push(`the toxic ${chaos.plan.name} was never switched on and off`);
    if (chaos?.plan.name === 'blackhole' && counts.chaos?.noticeMs === undefined)
      problems.push('no question waiting when the blackhole began reported ASK_UNAVAILABLE');
    if (counts.chaos !== undefined && counts.chaos.reattached !== counts.chaos.unavailableQuestions) {
      problems.push(
        `${counts.chaos.unavailableQuestions - counts.chaos.reattached} of ${counts.chaos.unavailableQuestions} questions that got ASK_UNAVAILABLE were not re-attached`,
      );
    }
    for (const agent of observations.agents) {
      if (agent.exit?.code !== 0) {
        problems.push(
          `agent ${agent.agentId} exited with ${agent.exit?.signal ?? `code ${agent.exit?.code}`}`,
        );
      }
    }
    const { workerRestarts, serverRestarts, ...rest } = settings;
    const window = chaos?.window;
    return {
      ...(options.keep === true ? { dbFile } : {}),
      mode: chaos !== undefined ? 'chaos' : scaleOut ? 'scale-out' : 'restarts',
      ...(chaos === undefined
        ? {}
        : {
            toxic: {
              name: chaos.plan.name,
              description: chaos.plan.description,
              ...(window === undefined
                ? {}
                : { onAt: window.from - startedAt, offAt: window.to - startedAt }),
              redraws: chaos.redraws,
              acceptedConnections: toxiproxy?.acceptedConnections() ?? 0,
            },
          }),
      startedAt: new Date(startedAt).toISOString(),
      options: { ...rest, workerRestarts, serverRestarts },
      durationMs,
      faults,
      counts,
      problems,
    };
  } finally {
    for (const agent of agents) await agent.child.kill('SIGKILL');
    if (answerer !== undefined) await answerer.kill('SIGKILL');
    for (const worker of workers) await stopChild(worker);
    await server?.stop();
    await toxiproxy?.stop();
    if (options.keep !== true) await fs.rm(directory, { recursive: true, force: true });
  }
}

/** The report as a table, and a last line that says whether the soak passed. */
export function formatSoakReport(report: SoakReport): string {
  const { counts } = report;
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const percent = (share: number): string => `${Math.round(share * 100)} %`;
  const breakdown = (map: Record<string, number>): string =>
    Object.keys(map).length === 0
      ? 'none'
      : Object.entries(map)
          .sort(([, left], [, right]) => right - left)
          .map(([key, value]) => `${key} ${value}`)
          .join(', ');
  const setup =
    report.toxic !== undefined
      ? `two workers; every client through Toxiproxy; ${report.toxic.description}; agents ask again 2 s after ASK_UNAVAILABLE`
      : report.mode === 'scale-out'
        ? 'two workers on one task queue, one SIGKILLed mid-run'
        : `worker SIGKILLed and restarted ${report.options.workerRestarts}×, dev server restarted ${report.options.serverRestarts}×`;
  const rows: [string, string][] = [
    ['started', report.startedAt],
    ['duration', seconds(report.durationMs)],
    ['asked', String(counts.asked)],
    ['answered', String(counts.answered)],
    ['received', String(counts.received)],
    ['lost', String(counts.lost)],
    ['doubled', String(counts.doubled)],
    ['wrong', String(counts.wrong)],
    ['false-unavailable', String(counts.falseUnavailable)],
    ['orphaned', String(counts.orphaned)],
    ['misreported answers', String(counts.misreported)],
    ['unexplained refusals', String(counts.unexplainedRefusals)],
    [
      'ask → answer received',
      `p50 ${seconds(counts.latencyMs.p50)}, p95 ${seconds(counts.latencyMs.p95)}, max ${seconds(counts.latencyMs.max)}`,
    ],
    ['answer attempts', breakdown(counts.answerAttempts)],
    ['agent errors', breakdown(counts.agentErrors)],
    ...Object.entries(counts.answerErrorSamples).flatMap(([code, samples]) =>
      samples.map((sample): [string, string] => [`  e.g. ${code}`, sample]),
    ),
    ['workflow task failures/timeouts', String(counts.taskFailures)],
    ['asked while the server was down', String(counts.askedWhileDown)],
    ['waiting through the downtime', String(counts.waitingThroughDowntime)],
  ];
  if (counts.chaos !== undefined) {
    const { noticeMs } = counts.chaos;
    rows.push(
      [
        'unavailable inside the blackhole',
        `${counts.chaos.unavailableInside} (${counts.chaos.unavailableAfter} of them after it, the last ${seconds(counts.chaos.lastUnavailableAfterMs ?? 0)} after)`,
      ],
      [
        're-attached after ASK_UNAVAILABLE',
        `${counts.chaos.reattached} of ${counts.chaos.unavailableQuestions} questions`,
      ],
      [
        'blackhole noticed',
        noticeMs === undefined ? 'n/a' : `after ${seconds(noticeMs.first)} to ${seconds(noticeMs.last)}`,
      ],
    );
  }
  if (report.toxic !== undefined) {
    rows.push(
      ['connections accepted by the proxy', String(report.toxic.acceptedConnections)],
      ['toxic redrawn', `${report.toxic.redraws}×`],
    );
  }
  for (const fault of report.faults) {
    const what = { 'worker-kill': 'worker SIGKILL', 'server-restart': 'server restart', toxic: 'toxic on' }[
      fault.kind
    ];
    const recoveredAs = { 'worker-kill': 'new worker polling', 'server-restart': 'server up', toxic: 'off' }[
      fault.kind
    ];
    const recovery =
      fault.recoveredAt === undefined ? 'not restarted' : `${recoveredAs} at ${seconds(fault.recoveredAt)}`;
    rows.push([
      what,
      `at ${seconds(fault.at)} (${percent(fault.asked)} asked, ${percent(fault.settled)} settled), ${recovery}`,
    ]);
  }
  const width = Math.max(...rows.map(([name]) => name.length));
  const lines = [
    `soak: ${report.options.questions} questions from ${report.options.agents} agents (one every ${report.options.askIntervalMs} ms each, at most ${report.options.concurrency} outstanding, maxLongPolls ${report.options.maxLongPolls}, unavailableTimeoutMs ${report.options.unavailableTimeoutMs}), answered ${report.options.answerDelayMs / 1000} s or more after asking; ${setup}`,
    ...rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`),
    report.problems.length === 0 ? 'PASS' : `FAIL: ${report.problems.join('; ')}`,
  ];
  return lines.join('\n');
}

/**
 * Parses `--questions N --agents M --scale-out --out FILE --keep --toxic NAME|all`. With several toxics, `--out`
 * must hold `{toxic}`, which each run replaces with its toxic's name.
 */
export function parseSoakArgs(args: readonly string[]): {
  options: SoakOptions;
  out?: string;
  toxics?: ToxicName[];
} {
  const options: SoakOptions = {};
  let out: string | undefined;
  let toxics: ToxicName[] | undefined;
  for (let position = 0; position < args.length; position++) {
    const arg = args[position]!;
    const value = (): string => {
      const next = args[++position];
      if (next === undefined || next.startsWith('--')) throw new Error(`${arg}: needs a value`);
      return next;
    };
    const count = (): number => {
      const text = value();
      const parsed = Number(text);
      if (!/^\d+$/.test(text) || parsed <= 0)
        throw new Error(`${arg}: must be a positive integer, got "${text}"`);
      return parsed;
    };
    if (arg === '--questions') options.questions = count();
    else if (arg === '--agents') options.agents = count();
    else if (arg === '--scale-out') options.scaleOut = true;
    else if (arg === '--out') out = value();
    else if (arg === '--keep') options.keep = true;
    else if (arg === '--toxic') toxics = parseToxicNames(value());
    else
      throw new Error(
        // --toxic is left out of this list: its own errors name its values, and this message is pinned as it was.
        `${arg}: unknown option (known: --questions N, --agents M, --scale-out, --out FILE, --keep)`,
      );
  }
  const questions = options.questions ?? DEFAULT_QUESTIONS;
  const agents = options.agents ?? DEFAULT_AGENTS;
  if (agents > questions) throw agentsError(agents, questions);
  if (toxics !== undefined && options.scaleOut === true) throw new Error('--toxic: runs without --scale-out');
  if (toxics !== undefined && toxics.length > 1 && out !== undefined && !out.includes('{toxic}')) {
    throw new Error(`--out: with several toxics it must hold {toxic}, got "${out}"`);
  }
  return {
    options,
    ...(out === undefined ? {} : { out }),
    ...(toxics === undefined ? {} : { toxics }),
  };
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parseSoakArgs>;
  try {
    parsed = parseSoakArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`soak: ${(error as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  let failed = false;
  for (const toxic of parsed.toxics ?? [undefined]) {
    const report = await runSoak({
      ...parsed.options,
      ...(toxic === undefined ? {} : { toxic }),
      log: (line) => process.stderr.write(`soak: ${line}\n`),
    });
    process.stdout.write(`${formatSoakReport(report)}\n`);
    if (parsed.out !== undefined) {
      const out = parsed.out.replaceAll('{toxic}', toxic ?? 'none');
      await fs.mkdir(path.dirname(path.resolve(out)), { recursive: true });
      await fs.writeFile(
        out,
        `${JSON.stringify({ ...report, finishedAt: new Date().toISOString() }, null, 2)}\n`,
      );
    }
    if (report.problems.length > 0) failed = true;
  }
  process.exitCode = failed ? 1 : 0;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `soak: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 2;
  });
}
