/**
 * A rolling deploy of a changed question workflow under pending questions, black-box: a real dev server, the
 * workers and the agents as child processes.
 *
 * 1. The old worker (test/fixtures/worker-process.ts, `createAskUserWorker` from the current code) runs while two
 *    agents (test/fixtures/rolling-deploy-agent.ts, `TemporalUserInteraction`) ask 100 questions each, every one
 *    with its own tool call id and a deadline days away. The test waits until every question has opened.
 * 2. The new worker (test/fixtures/rolling-deploy-worker.ts) starts beside it: its question workflow stamps the
 *    memo at both ends of a question, behind `patched()` (test/fixtures/rolling-deploy-change.ts). While both
 *    poll, a fifth of the questions are answered: either worker may take them.
 * 3. The old worker is stopped (SIGTERM, by PID), the rest are answered through `QuestionClient.answer`, and an
 *    agent asks a few questions that only the new worker ever runs.
 *
 * Then: every agent received exactly its own answer (0 lost, 0 doubled, 0 wrong); each history holds the patch
 * marker exactly where the new worker ran the question live (the task that took the answer, or the first task of a
 * question it opened), and nowhere else; every history replays on the patched code; the same change without
 * `patched()` fails the replay of the questions that were pending at the deploy, so the patch is what made it safe;
 * and the old code, as a rollback would run it, fails to replay exactly the questions that took the new path.
 * docs/design.md, "Upgrading under pending questions", draws the practice from it.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import type { Client, HistoryAndWorkflowId } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode, type ReplayResult } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';

import { soakWorkflowId } from '../../scripts/soak';
import type { QuestionClient } from '../../src/ops';
import { payloadConverterPath, workflowsPath } from '../../src/worker';
import { jsonLines, killChildren, type RunningChild } from '../fixtures/child-process';
import { startRollingDeployAgent } from '../fixtures/rolling-deploy-agent';
import { REVISION, ROLLING_DEPLOY_PATCH } from '../fixtures/rolling-deploy-change';
import { traceQuestion, type QuestionTrace } from '../fixtures/rolling-deploy-trace';
import { startRollingDeployWorker } from '../fixtures/rolling-deploy-worker';
import { soakAnswer, soakResultText } from '../fixtures/soak-questions';
import { startWorkerProcess } from '../fixtures/worker-process';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

// Replaying the unpatched change makes core warn about the failing task; the test reads the results instead.
Runtime.install({
  logger: new DefaultLogger('ERROR'),
  telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
});

const TASK_QUEUE = `rolling-deploy-${process.pid}`;
/** The agents whose questions are pending across the deploy, and how many each asks. */
const AGENTS = ['agent-a', 'agent-b'];
const QUESTIONS_PER_AGENT = 100;
/** Of each agent's questions, those numbered below this are answered while both workers poll. */
const ANSWERED_DURING_OVERLAP = 20;
/** An agent that asks only once the old worker is gone. */
const LATE_AGENT = 'agent-late';
const LATE_QUESTIONS = 4;
/** Answers in flight at once, as a few people and scripts answering together. */
const ANSWER_CONCURRENCY = 16;

interface Asked {
  agentId: string;
  index: number;
  workflowId: string;
}

function askedBy(agentId: string, count: number): Asked[] {
  return Array.from({ length: count }, (_, index) => ({
    agentId,
    index,
    workflowId: soakWorkflowId(agentId, index),
  }));
}

/** Runs `run` on every item, at most `concurrency` at once. */
async function inTurns<T>(
  items: readonly T[],
  concurrency: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const runInTurn = async (): Promise<void> => {
    while (next < items.length) await run(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, runInTurn));
}

/**
 * Resolves once every question has opened: its first task is complete and its deadline's timer started, so a
 * worker has written the part of its history that a new worker must replay.
 */
async function waitUntilOpened(client: Client, asked: readonly Asked[]): Promise<void> {
  let waiting = [...asked];
  await waitFor(
    `${asked.length} questions to open`,
    async () => {
      const stillWaiting: Asked[] = [];
      await inTurns(waiting, 8, async (question) => {
        const opened = await client.workflow
          .getHandle(question.workflowId)
          .fetchHistory()
          .then((history) => (history.events ?? []).some((event) => event.timerStartedEventAttributes))
          .catch(() => false);
        if (!opened) stillWaiting.push(question);
      });
      waiting = stillWaiting;
      return waiting.length === 0 ? true : undefined;
    },
    120_000,
  );
}

async function answerAll(questions: QuestionClient, asked: readonly Asked[]): Promise<void> {
  await inTurns(asked, ANSWER_CONCURRENCY, async ({ agentId, index, workflowId }) => {
    const outcome = await questions.answer(workflowId, { ...soakAnswer(agentId, index), answeredBy: 'ops' });
    assert.equal(outcome.status, 'answered', `${workflowId}: ${JSON.stringify(outcome)}`);
  });
}

/** Replays `histories` against the workflows module `workflows`, one result per history, in order. */
async function replay(workflows: string, histories: HistoryAndWorkflowId[]): Promise<ReplayResult[]> {
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: workflows,
    payloadConverterPath,
    logger: new DefaultLogger('WARN'),
  });
  const results: ReplayResult[] = [];
  for await (const result of Worker.runReplayHistories(
    { workflowBundle, dataConverter: { payloadConverterPath }, replayName: 'rolling-deploy' },
    histories,
  ))
    results.push(result);
  assert.equal(results.length, histories.length);
  return results;
}

const FIXTURES = path.join(__dirname, '..', 'fixtures');

let stack: DevServerWithClient;
let oldIdentity: string;
let newIdentity: string;
/** Every question asked, before the deploy (pending across it) and after it (late). */
let pendingAcross: Asked[];
let late: Asked[];
/** Histories of questions as they were at the deploy: opened by the old worker, not answered yet. */
let historiesAtDeploy: HistoryAndWorkflowId[];
/** Each agent's events, once it has received every answer. */
const agentEvents = new Map<string, Record<string, unknown>[]>();
const traces = new Map<string, QuestionTrace>();
/** When each phase of the deploy ended, from the start of the old worker. */
const phases: string[] = [];
/** Every question's history once answered. */
const finals: HistoryAndWorkflowId[] = [];

async function finish(agentId: string, agent: RunningChild): Promise<void> {
  const exit = await agent.waitForExit(120_000);
  assert.deepEqual(exit, { code: 0, signal: null }, `${agentId}: ${agent.stderr()}`);
  agentEvents.set(agentId, jsonLines(agent.stdout()));
}

/** The deploy itself (steps 1 to 3 above); the tests read what it left. */
async function deploy(): Promise<void> {
  const { client, questions, server } = stack;
  const since = Date.now();
  const mark = (phase: string): number =>
    phases.push(`${phase} ${((Date.now() - since) / 1000).toFixed(1)} s`);
  const oldWorker = await startWorkerProcess(server.address, TASK_QUEUE);
  mark('old worker polling');
  oldIdentity = `${oldWorker.pid}@${os.hostname()}`;
  const agents = AGENTS.map((agentId) =>
    startRollingDeployAgent(server.address, TASK_QUEUE, agentId, QUESTIONS_PER_AGENT),
  );
  pendingAcross = AGENTS.flatMap((agentId) => askedBy(agentId, QUESTIONS_PER_AGENT));
  await waitUntilOpened(client, pendingAcross);
  mark('200 opened');
  historiesAtDeploy = await Promise.all(
    pendingAcross.slice(-3).map(async ({ workflowId }) => ({
      workflowId,
      history: await client.workflow.getHandle(workflowId).fetchHistory(),
    })),
  );

  const newWorker = await startRollingDeployWorker(server.address, TASK_QUEUE);
  newIdentity = String(jsonLines(newWorker.stdout()).find((event) => event.event === 'running')?.identity);
  mark('new worker polling');
  await answerAll(
    questions,
    pendingAcross.filter((question) => question.index < ANSWERED_DURING_OVERLAP),
  );
  assert.deepEqual(await oldWorker.kill('SIGTERM'), { code: 0, signal: null }, oldWorker.stderr());
  assert.match(oldWorker.stdout(), /"event":"stopped"/);
  mark('40 answered, old worker stopped');

  await answerAll(
    questions,
    pendingAcross.filter((question) => question.index >= ANSWERED_DURING_OVERLAP),
  );
  mark('160 answered');
  const lateAgent = startRollingDeployAgent(server.address, TASK_QUEUE, LATE_AGENT, LATE_QUESTIONS);
  late = askedBy(LATE_AGENT, LATE_QUESTIONS);
  await waitUntilOpened(client, late);
  await answerAll(questions, late);

  await Promise.all([
    ...AGENTS.map((agentId, position) => finish(agentId, agents[position]!)),
    finish(LATE_AGENT, lateAgent),
  ]);
  mark('late questions answered, agents done');
  await inTurns([...pendingAcross, ...late], 8, async ({ workflowId }) => {
    const { trace, history } = await traceQuestion(client, workflowId, ROLLING_DEPLOY_PATCH);
    traces.set(workflowId, trace);
    finals.push({ workflowId, history });
  });
  mark('histories read');
  await newWorker.kill('SIGTERM');
}

before(async () => {
  stack = await startDevServerWithClient('rolling-deploy');
  await deploy();
});

after(async () => {
  try {
    await killChildren();
  } finally {
    await stack?.stop();
  }
});

/** The memo fields the change writes, as found. */
function revisionFields(memo: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(memo).filter(([key]) => key === 'openedByRevision' || key === 'resolvedByRevision'),
  );
}

describe(`a changed question workflow deployed under ${AGENTS.length * QUESTIONS_PER_AGENT} pending questions, behind patched()`, () => {
  test('every agent receives exactly its own answer, and each question took exactly one: 0 lost, 0 doubled, 0 wrong', (t) => {
    t.diagnostic(`deploy: ${phases.join(', ')}`);
    const counts = { asked: 0, received: 0, lost: 0, doubled: 0, wrong: 0 };
    const problems: string[] = [];
    for (const { agentId, index, workflowId } of [...pendingAcross, ...late]) {
      counts.asked += 1;
      const settled = (agentEvents.get(agentId) ?? []).filter(
        (event) => event.index === index && (event.event === 'result' || event.event === 'error'),
      );
      const trace = traces.get(workflowId);
      if (settled.length === 0) counts.lost += 1;
      else counts.received += 1;
      if (settled.length > 1 || (trace?.acceptedAnswers ?? 0) > 1) counts.doubled += 1;
      const expected = soakResultText(agentId, index);
      const own =
        trace?.result.status === 'answered' &&
        JSON.stringify(trace.result.answer) === JSON.stringify(soakAnswer(agentId, index));
      if (settled.some((event) => event.text !== expected) || !own) {
        counts.wrong += 1;
        problems.push(`${workflowId}: ${JSON.stringify({ settled, result: trace?.result })}`);
      }
    }
    const total = AGENTS.length * QUESTIONS_PER_AGENT + LATE_QUESTIONS;
    assert.deepEqual(counts, { asked: total, received: total, lost: 0, doubled: 0, wrong: 0 });
    assert.deepEqual(problems, []);
    for (const agentId of [...AGENTS, LATE_AGENT])
      assert.deepEqual(agentEvents.get(agentId)?.at(-1), { event: 'done' });
  });

  test('each history holds the patch marker exactly where the new worker ran the question live', (t) => {
    const overlap = { old: 0, new: 0 };
    // The deploy's risk is a task that fails to replay; a task that failed or timed out for another reason (a
    // loaded machine) is retried by the server, and shown.
    const taskProblems = [...traces].flatMap(([workflowId, trace]) =>
      trace.taskProblems.map((problem) => `${workflowId}: ${problem}`),
    );
    assert.deepEqual(
      taskProblems.filter((problem) => problem.includes('NON_DETERMINISTIC')),
      [],
    );
    if (taskProblems.length > 0) t.diagnostic(`workflow tasks retried: ${taskProblems.join('; ')}`);
    for (const { index, workflowId } of pendingAcross) {
      const trace = traces.get(workflowId)!;
      const shown = `${workflowId}: ${JSON.stringify(trace)}`;
      assert.equal(trace.firstTaskBy, oldIdentity, shown);
      if (index >= ANSWERED_DURING_OVERLAP) assert.equal(trace.answerTaskBy, newIdentity, shown);
      const byNew = trace.answerTaskBy === newIdentity;
      if (!byNew) assert.equal(trace.answerTaskBy, oldIdentity, shown);
      if (index < ANSWERED_DURING_OVERLAP) overlap[byNew ? 'new' : 'old'] += 1;
      // The new worker replayed the first task on the old path (no marker in the history there) and ran the
      // answer's task live, on the new one; a question the old worker answered never met the new code.
      assert.deepEqual(trace.markers, byNew ? [{ task: 'answer', by: newIdentity }] : [], shown);
      assert.deepEqual(revisionFields(trace.memo), byNew ? { resolvedByRevision: REVISION } : {}, shown);
    }
    for (const { workflowId } of late) {
      const trace = traces.get(workflowId)!;
      const shown = `${workflowId}: ${JSON.stringify(trace)}`;
      assert.equal(trace.firstTaskBy, newIdentity, shown);
      assert.deepEqual(trace.markers, [{ task: 'first', by: newIdentity }], shown);
      assert.deepEqual(
        revisionFields(trace.memo),
        { openedByRevision: REVISION, resolvedByRevision: REVISION },
        shown,
      );
    }
    t.diagnostic(
      `answered while both workers polled: ${overlap.old} by the old one, ${overlap.new} by the new one`,
    );
  });

  test('every history replays on the patched code; without patched() the questions pending at the deploy fail to replay', async () => {
    const patchedResults = await replay(path.join(FIXTURES, 'rolling-deploy-workflows.ts'), [
      ...historiesAtDeploy,
      ...finals,
    ]);
    assert.deepEqual(
      patchedResults
        .filter((result) => result.error !== undefined)
        .map((result) => `${result.workflowId}: ${String(result.error)}`),
      [],
    );

    const unpatchedResults = await replay(
      path.join(FIXTURES, 'rolling-deploy-unpatched-workflows.ts'),
      historiesAtDeploy,
    );
    for (const result of unpatchedResults) {
      assert.ok(
        result.error instanceof DeterminismViolationError,
        `${result.workflowId}: expected a DeterminismViolationError, got ${String(result.error)}`,
      );
      // Its first command, the memo stamp, meets what the old code recorded there: the deadline's memo and timer.
      assert.match(result.error.message, /Nondeterminism/);
    }
  });
  test('a rollback to the old code fails to replay exactly the questions that took the new path', async () => {
    const results = await replay(workflowsPath, finals);
    const failing = results
      .filter((result) => result.error instanceof DeterminismViolationError)
      .map((result) => result.workflowId)
      .sort();
    const newPath = finals
      .filter(({ workflowId }) => (traces.get(workflowId)?.markers.length ?? 0) > 0)
      .map(({ workflowId }) => workflowId)
      .sort();
    // At least every question answered after the old worker stopped, and every late one.
    const answeredAfterStop = finals.length - AGENTS.length * ANSWERED_DURING_OVERLAP;
    assert.ok(newPath.length >= answeredAfterStop, `${newPath.length} questions took the new path`);
    assert.deepEqual(failing, newPath);
    // The others replay: a question the new worker never ran live holds nothing the old code does not make.
    assert.deepEqual(
      results.filter(
        (result) => result.error !== undefined && !(result.error instanceof DeterminismViolationError),
      ),
      [],
    );
  });
});
