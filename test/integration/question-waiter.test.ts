/**
 * The waiting queue of `QuestionWaiter` against a real dev server: past its long polls, a question is found
 * closed by each of the scan's three lookups — by id once as it is queued (it closed before), by the query for
 * recent closes, and by the periodic sweep by id when the recent query misses (visibility lag past the overlap,
 * simulated here with an overlap that puts the horizon in the future).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import { ASK_USER_QUESTION_WORKFLOW_TYPE, submitAnswerUpdate } from '../../src';
import { ConnectionHealth } from '../../src/provider/connection-health';
import { QuestionWaiter, type QuestionWaiterTuning } from '../../src/provider/question-waiter';
import type { AskUserQuestionWorkflowResult } from '../../src/types';
import { questionStart } from '../../src/question/question-start';
import { deployTargetArgs } from '../helpers/questions';
import { startTestEnvironment } from '../helpers/temporal';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = 'question-waiter';
/** Longer than any lookup takes here; a wait still pending then was missed. */
const RECEIVE_WITHIN_MS = 20_000;

function answerSaying(note: string) {
  return {
    answers: [
      { id: 'env', selected: ['staging (Recommended)'] },
      { id: 'note', selected: [], custom: note },
    ],
  };
}

function noteOf(result: AskUserQuestionWorkflowResult): string | undefined {
  assert.equal(result.status, 'answered');
  return result.status === 'answered'
    ? result.answer.answers.find((answer) => answer.id === 'note')?.custom
    : undefined;
}

async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: not received within ${RECEIVE_WITHIN_MS} ms`)),
      RECEIVE_WITHIN_MS,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function sleep(milliseconds: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, milliseconds));
}

describe('a process waiting on more questions than it long-polls', () => {
  let env: TestWorkflowEnvironment;
  let workers: RunningWorkers;

  before(async () => {
    env = await startTestEnvironment();
    workers = runWorkers([await createAskUserTestWorker(env.nativeConnection, { taskQueue: TASK_QUEUE })]);
  });

  after(async () => {
    await workers?.stop();
    await env?.teardown();
  });

  /** Starts a question as the provider does and returns its workflow id. */
  async function startQuestion(name: string): Promise<string> {
    const start = questionStart(
      { questions: deployTargetArgs.questions, toolCallId: `${name}-${randomUUID()}` },
      {},
      randomUUID,
    );
    await env.client.workflow.start(ASK_USER_QUESTION_WORKFLOW_TYPE, {
      taskQueue: TASK_QUEUE,
      workflowId: start.workflowId,
      args: [start.input],
      memo: { ...start.memo },
    });
    return start.workflowId;
  }

  async function answer(workflowId: string, note: string): Promise<void> {
    await env.client.workflow
      .getHandle(workflowId)
      .executeUpdate(submitAnswerUpdate, { args: [{ ...answerSaying(note), answeredBy: 'waiter-test' }] });
  }

  /** A waiter with one long poll, scanning every 100 ms. */
  function waiterWith(tuning: QuestionWaiterTuning): QuestionWaiter {
    const health = new ConnectionHealth(env.client, { unavailableTimeoutMs: 15_000 });
    return new QuestionWaiter(env.client, health, { maxLongPolls: 1, scanIntervalMs: 100 }, tuning);
  }

  test('a question closed before it was queued is found by its lookup by id', async () => {
    const closedEarly = await startQuestion('closed-early');
    await answer(closedEarly, 'before');
    await env.client.workflow.getHandle(closedEarly).result();
    // No overlap and no sweep: the recent query's horizon is each scan's start, after this close.
    const waiter = waiterWith({ recentOverlapMs: 0, sweepEveryScans: Number.MAX_SAFE_INTEGER });
    const holder = await startQuestion('holder');
    const holding = waiter.wait(holder); // takes the only long poll
    const early = waiter.wait(closedEarly);
    assert.equal(noteOf(await within(early, 'the question closed before it was queued')), 'before');

    await answer(holder, 'holder');
    assert.equal(noteOf(await within(holding, 'the long-polled question')), 'holder');
    assert.equal(waiter.size, 0);
  });

  test('a question answered while queued is found by the query for recent closes', async () => {
    const waiter = waiterWith({ sweepEveryScans: Number.MAX_SAFE_INTEGER });
    const holder = await startQuestion('recent-holder');
    const holding = waiter.wait(holder);
    const later = await startQuestion('later');
    const waitingLater = waiter.wait(later);
    await sleep(1_000); // several scans: it has been looked up by id, still open, and is left to the recent query
    await answer(later, 'later');
    assert.equal(noteOf(await within(waitingLater, 'the question answered while queued')), 'later');

    await answer(holder, 'holder');
    await within(holding, 'the long-polled question');
    assert.equal(waiter.size, 0);
  });

  test('when the recent closes miss a question, the sweep by id finds it', async () => {
    // A horizon an hour ahead: the recent query finds nothing, as under visibility lag past the overlap.
    const waiter = waiterWith({ recentOverlapMs: -3_600_000, sweepEveryScans: 5 });
    const holder = await startQuestion('sweep-holder');
    const holding = waiter.wait(holder);
    const missed = await startQuestion('missed');
    const waitingMissed = waiter.wait(missed);
    await sleep(500);
    await answer(missed, 'swept');
    assert.equal(noteOf(await within(waitingMissed, 'the question the recent query missed')), 'swept');

    await answer(holder, 'holder');
    await within(holding, 'the long-polled question');
    assert.equal(waiter.size, 0);
  });
});
