/**
 * Which question a tool call gets, against a real dev server: re-asking a tool call with other questions is
 * refused (`ASK_CONFLICT`) and records nothing, the same questions re-attach; ids of different agents, sessions
 * and tool calls never collide; an id past the server's limit is `INVALID_ARGS` before anything is sent; and 50
 * answers racing on one question: exactly one is recorded and every refusal names the winner.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';

import { status as grpcStatus } from '@grpc/grpc-js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import {
  ASK_USER_QUESTION_WORKFLOW_TYPE,
  TemporalUserInteraction,
  UserInteractionError,
  createAskUserQuestionTool,
  questionWorkflowId,
} from '../../src';
import { QuestionClient } from '../../src/ops';
import { raceAnswers } from '../helpers/answer-race';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startTestEnvironment } from '../helpers/temporal';
import { connectRecordingUpdates } from '../helpers/update-calls';
import { waitFor } from '../helpers/wait';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = 'question-identity';

function deployArgs(question: string): unknown {
  return { questions: [{ id: 'q1', question, options: [{ label: 'Yes' }, { label: 'No' }] }] };
}
const YES = { answers: [{ id: 'q1', selected: ['Yes'] }] };
const YES_TEXT = '{"answers":[{"id":"q1","selected":["Yes"]}]}';

async function failure(promise: Promise<unknown>): Promise<UserInteractionError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(
      UserInteractionError.isInstance(error),
      `expected a UserInteractionError, got ${inspect(error)}`,
    );
    return error;
  }
  assert.fail('expected the call to fail');
}

describe('which question a tool call gets', () => {
  let env: TestWorkflowEnvironment;
  let workers: RunningWorkers;
  let questions: QuestionClient;
  let tool: ReturnType<typeof createAskUserQuestionTool>;

  before(async () => {
    env = await startTestEnvironment();
    workers = runWorkers([await createAskUserTestWorker(env.nativeConnection, { taskQueue: TASK_QUEUE })]);
    questions = new QuestionClient(env.client);
    tool = createAskUserQuestionTool({
      userInteraction: new TemporalUserInteraction({ client: env.client, taskQueue: TASK_QUEUE }),
    });
  });

  after(async () => {
    await workers?.stop();
    await env?.teardown();
  });

  /**
   * The history's length once the workflow has nothing left to do (no workflow task pending, the same length on
   * two reads in a row), so that any event after it can only come from what the test does next.
   */
  async function historyLength(workflowId: string): Promise<number> {
    const handle = env.client.workflow.getHandle(workflowId);
    let previous = -1;
    return waitFor(`${workflowId} to settle`, async () => {
      const length = (await handle.fetchHistory()).events?.length ?? 0;
      const idle = (await handle.describe()).raw.pendingWorkflowTask == null;
      const settled = idle && length === previous;
      previous = length;
      if (!settled) await new Promise((resolve) => setTimeout(resolve, 200));
      return settled ? length : undefined;
    });
  }

  test('re-asking a tool call with other questions fails ASK_CONFLICT and records nothing', async () => {
    const agent = { id: 'conflict-bot' };
    const toolCallId = 'reuse-1';
    const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
    const first = tool.execute(deployArgs('Deploy to staging?'), { agent, toolCallId });
    first.catch(() => undefined);
    await waitForPendingRecord(env.client, workflowId);

    // While it is pending, and again once it is answered: refused with the contract's text, history untouched.
    const pendingLength = await historyLength(workflowId);
    const whilePending = await failure(
      tool.execute(deployArgs('Drop the production database?'), { agent, toolCallId }),
    );
    assert.equal(whilePending.code, 'ASK_CONFLICT');
    assert.equal(
      whilePending.message,
      'ask_user_question tool call reuse-1 was already used for different questions',
    );
    assert.equal(await historyLength(workflowId), pendingLength);

    await questions.answer(workflowId, { ...YES, answeredBy: 'alice' });
    assert.equal(await first, YES_TEXT);
    const closedLength = await historyLength(workflowId);
    const afterAnswer = await failure(
      tool.execute(deployArgs('Drop the production database?'), { agent, toolCallId }),
    );
    assert.equal(afterAnswer.code, 'ASK_CONFLICT');
    assert.equal(await historyLength(workflowId), closedLength);

    // The same questions re-attach and get the stored answer at once.
    assert.equal(await tool.execute(deployArgs('Deploy to staging?'), { agent, toolCallId }), YES_TEXT);
    assert.equal(await historyLength(workflowId), closedLength);
  });

  test('a question started by other means under the tool call id (no fingerprint in its memo) is ASK_CONFLICT', async () => {
    const agent = { id: 'by-hand-bot' };
    const toolCallId = 'by-hand-1';
    const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
    // As the stock Temporal CLI would start it: the same questions, but no memo.
    const args = deployArgs('Deploy to staging?') as { questions: unknown[] };
    await env.client.workflow.start(ASK_USER_QUESTION_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: TASK_QUEUE,
      args: [{ questions: args.questions, agent, toolCallId }],
    });
    await waitForPendingRecord(env.client, workflowId);
    const length = await historyLength(workflowId);
    const refused = await failure(tool.execute(args, { agent, toolCallId }));
    assert.equal(refused.code, 'ASK_CONFLICT');
    assert.equal(await historyLength(workflowId), length);
    await env.client.workflow.getHandle(workflowId).terminate('test over');
  });

  test('different agents, sessions and tool calls never share a question', async () => {
    const calls = [
      { agent: { id: 'a/b' }, toolCallId: 'c' },
      { agent: { id: 'a' }, toolCallId: 'b/c' },
      { toolCallId: 'probe/zz' },
      { agent: { id: 'probe' }, toolCallId: 'zz' },
      { agent: { id: 'x', sessionId: 'y' }, toolCallId: 'z' },
      { agent: { id: 'y' }, toolCallId: 'z' },
      { agent: { id: "quote'%" }, toolCallId: 'z' },
    ];
    const ids = calls.map((call) => questionWorkflowId(call, randomUUID));
    assert.equal(new Set(ids).size, calls.length, ids.join('\n'));
    assert.deepEqual(ids, [
      'ask-user-question/a%2Fb/c',
      'ask-user-question/a/b%2Fc',
      'ask-user-question/probe%2Fzz',
      'ask-user-question/probe/zz',
      'ask-user-question/x/y/z',
      'ask-user-question/y/z',
      'ask-user-question/quote%27%25/z',
    ]);

    // Each call asks its own question and receives exactly its own answer.
    const asked = calls.map((call, index) =>
      tool.execute(deployArgs(`Question number ${index}?`), {
        toolCallId: call.toolCallId,
        ...(call.agent === undefined ? {} : { agent: call.agent }),
      }),
    );
    for (const promise of asked) promise.catch(() => undefined);
    for (const id of ids) await waitForPendingRecord(env.client, id);
    for (const [index, id] of ids.entries()) {
      const record = await questions.get(id);
      assert.equal(record.questions[0]?.question, `Question number ${index}?`);
      await questions.answer(id, { answers: [{ id: 'q1', selected: [], custom: `answer ${index}` }] });
    }
    for (const [index, promise] of asked.entries()) {
      assert.equal(await promise, `{"answers":[{"id":"q1","selected":[],"custom":"answer ${index}"}]}`);
    }
  });

  test('a tool call id that would pass the server id limit is INVALID_ARGS, and nothing is started', async () => {
    const toolCallId = 'x'.repeat(1_000);
    const error = await failure(tool.execute(deployArgs('Too long?'), { agent: { id: 'long' }, toolCallId }));
    assert.equal(error.code, 'INVALID_ARGS');
    assert.equal(
      error.message,
      "invalid arguments: toolCallId: the question id would be 1023 characters, over the server's 1000-character limit",
    );
    const listed = await env.client.workflow.count(`WorkflowId STARTS_WITH 'ask-user-question/long/'`);
    assert.equal(listed.count, 0);
  });

  test('50 answers at once: exactly one is recorded and each of the 49 refusals names the winner', async () => {
    const agent = { id: 'race-bot' };
    const toolCallId = 'race-1';
    const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
    const asked = tool.execute(deployArgs('Who answers first?'), { agent, toolCallId });
    asked.catch(() => undefined);
    await waitForPendingRecord(env.client, workflowId);

    // The answers go through a connection of their own that records each update call's status.
    const { client, connection, statuses } = await connectRecordingUpdates(env.address);
    try {
      const { winnerIndex } = await raceAnswers(new QuestionClient(client), workflowId, 50, (index) => [
        { id: 'q1', selected: [], custom: `from answerer ${index}` },
      ]);
      assert.equal(
        await asked,
        `{"answers":[{"id":"q1","selected":[],"custom":"from answerer ${winnerIndex}"}]}`,
      );
    } finally {
      await connection.close();
    }
    // At most 5 of one client's updates are in flight on a question: the server's limit of 10 is never reached,
    // so no answer waits out the connection's backoff (nor leaves a retry scheduled on the closed connection).
    assert.ok(statuses.length >= 50, `${statuses.length} update calls recorded`);
    assert.ok(!statuses.includes(grpcStatus.RESOURCE_EXHAUSTED), inspect(statuses));
  });
});
