/**
 * Edge cases of the durable provider and the ops client against a real dev server: an abort followed at once
 * by `close()` still cancels the workflow, a long wait does not pile listeners onto the caller's signal,
 * re-asking an aborted tool call reports the abort (nobody declined), a terminated question lists as
 * cancelled, an answer with no worker running fails within the bound, and bad provider options are refused.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { after, before, describe, test } from 'node:test';

import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import { TemporalUserInteraction, UserInteractionError, questionWorkflowId } from '../../src';
import { QuestionClient } from '../../src/ops';
import { createAskUserQuestionTool } from '../../src/tool';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { deployTargetArgs } from '../helpers/questions';
import { startTestEnvironment } from '../helpers/temporal';
import { eventually, waitFor } from '../helpers/wait';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = 'durable-edge-cases';
const AGENT = { id: 'edge-agent' };

/** The rejection of `promise` as a `UserInteractionError` (fails the test when it resolves). */
async function failureOf(promise: Promise<unknown>): Promise<UserInteractionError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(
      UserInteractionError.isInstance(error),
      `expected a UserInteractionError, got ${String(error)}`,
    );
    return error;
  }
  assert.fail('expected the call to fail');
}

describe('durable provider edge cases', () => {
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

  test('an abort followed at once by close() still cancels the workflow on the server', async () => {
    // The provider opens and owns its connection, as `ask-user ask` does; close() would end it.
    const address = env.address;
    const provider = new TemporalUserInteraction({ taskQueue: TASK_QUEUE });
    const previous = process.env.TEMPORAL_ADDRESS;
    process.env.TEMPORAL_ADDRESS = address;
    const controller = new AbortController();
    const tool = createAskUserQuestionTool({ userInteraction: provider });
    const toolCallId = 'abort-then-close';
    const workflowId = questionWorkflowId({ agent: AGENT, toolCallId }, randomUUID);
    try {
      const asked = tool.execute(deployTargetArgs, { agent: AGENT, toolCallId, signal: controller.signal });
      asked.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
      await waitForPendingRecord(env.client, workflowId);
      controller.abort();
      const error = await failureOf(asked);
      assert.equal(error.code, 'ASK_ABORTED');
    } finally {
      await provider.close();
      if (previous === undefined) delete process.env.TEMPORAL_ADDRESS;
      else process.env.TEMPORAL_ADDRESS = previous;
    }
    const status = await eventually('the question to end CANCELLED', async () => {
      const description = await env.client.workflow.getHandle(workflowId).describe();
      return description.status.name === 'CANCELLED' ? description.status.name : undefined;
    });
    assert.equal(status, 'CANCELLED');
  });

  test("a long wait adds no listener per poll to the caller's signal", async () => {
    // Its own connection, counting the result polls (GetWorkflowExecutionHistory) that go over it.
    let polls = 0;
    const countPolls: Interceptor = (options, nextCall) => {
      if (options.method_definition.path.endsWith('/GetWorkflowExecutionHistory')) polls += 1;
      return new InterceptingCall(nextCall(options));
    };
    const connection = await Connection.connect({
      address: env.address,
      interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), countPolls],
    });
    try {
      // unavailableTimeoutMs 2 s: a poll window of 1 s, so polls follow each other while the question waits.
      const provider = new TemporalUserInteraction({
        client: new Client({ connection }),
        taskQueue: TASK_QUEUE,
        unavailableTimeoutMs: 2_000,
      });
      const tool = createAskUserQuestionTool({ userInteraction: provider });
      const controller = new AbortController();
      const toolCallId = 'long-wait';
      const workflowId = questionWorkflowId({ agent: AGENT, toolCallId }, randomUUID);
      const asked = tool.execute(deployTargetArgs, { agent: AGENT, toolCallId, signal: controller.signal });
      asked.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
      await waitForPendingRecord(env.client, workflowId);
      const pollsBefore = polls;
      await waitFor('three more result polls', () => (polls >= pollsBefore + 3 ? true : undefined));
      // One listener from the tool's own abort race and one from the provider's ask, however many polls ran.
      assert.equal(getEventListeners(controller.signal, 'abort').length, 2);
      await new QuestionClient(env.client).answer(workflowId, {
        answers: [
          { id: 'env', selected: ['production'] },
          { id: 'note', selected: [] },
        ],
      });
      assert.equal(
        await asked,
        '{"answers":[{"id":"env","selected":["production"]},{"id":"note","selected":[]}]}',
      );
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    } finally {
      await connection.close();
    }
  });

  test('asking again with an aborted tool call id reports the abort, not a decline', async () => {
    const provider = new TemporalUserInteraction({ client: env.client, taskQueue: TASK_QUEUE });
    const tool = createAskUserQuestionTool({ userInteraction: provider });
    const toolCallId = 'aborted-then-asked-again';
    const workflowId = questionWorkflowId({ agent: AGENT, toolCallId }, randomUUID);
    const controller = new AbortController();
    const first = tool.execute(deployTargetArgs, { agent: AGENT, toolCallId, signal: controller.signal });
    first.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
    await waitForPendingRecord(env.client, workflowId);
    controller.abort();
    assert.equal((await failureOf(first)).code, 'ASK_ABORTED');
    await provider.close();
    await eventually('the question to end CANCELLED', async () =>
      (await env.client.workflow.getHandle(workflowId).describe()).status.name === 'CANCELLED'
        ? true
        : undefined,
    );

    const again = await failureOf(tool.execute(deployTargetArgs, { agent: AGENT, toolCallId }));
    assert.equal(again.code, 'ASK_ABORTED');
    assert.equal(again.message, 'ask_user_question was aborted before the user answered');
  });

  test('a terminated question is listed and shown as cancelled', async () => {
    const questions = new QuestionClient(env.client);
    const provider = new TemporalUserInteraction({ client: env.client, taskQueue: TASK_QUEUE });
    const toolCallId = 'terminated';
    const workflowId = questionWorkflowId({ agent: AGENT, toolCallId }, randomUUID);
    const asked = createAskUserQuestionTool({ userInteraction: provider }).execute(deployTargetArgs, {
      agent: AGENT,
      toolCallId,
    });
    const failed = failureOf(asked); // attached now: the rejection comes as soon as the question ends
    await waitForPendingRecord(env.client, workflowId);
    await env.client.workflow.getHandle(workflowId).terminate('operator cleanup');
    assert.equal((await failed).code, 'ASK_ABORTED');

    // Visibility is eventually consistent: wait until the list has caught up with the termination.
    const listed = await eventually('the list to show the terminated question as closed', async () =>
      (await questions.list('all')).find(
        (question) => question.workflowId === workflowId && question.status !== 'pending',
      ),
    );
    assert.equal(listed.status, 'cancelled');
    assert.equal((await questions.get(workflowId)).status, 'cancelled');
  });

  test('an answer with no worker polling the task queue is recorded as the answer signal, for a worker to validate', async () => {
    // A task queue no worker polls: the update can never be processed.
    const provider = new TemporalUserInteraction({ client: env.client, taskQueue: 'no-worker-here' });
    const toolCallId = 'no-worker';
    const workflowId = questionWorkflowId({ agent: AGENT, toolCallId }, randomUUID);
    const asked = createAskUserQuestionTool({ userInteraction: provider }).execute(deployTargetArgs, {
      agent: AGENT,
      toolCallId,
    });
    asked.catch(() => undefined);
    await eventually('the question to be started', async () =>
      (await env.client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING'
        ? true
        : undefined,
    );
    const questions = new QuestionClient(env.client, { callTimeoutMs: 2_000 });
    const answers = [
      { id: 'env', selected: ['production'] },
      { id: 'note', selected: [] },
    ];
    const started = Date.now();
    const outcome = await questions.answer(workflowId, { answers, answeredBy: 'ops' });
    assert.ok(Date.now() - started < 5_000, `answered in ${Date.now() - started} ms`);
    assert.equal(outcome.status, 'pending');
    assert.equal(outcome.awaitingWorker?.taskQueue, 'no-worker-here');
    assert.deepEqual(outcome.noWorker, { taskQueue: 'no-worker-here' });
    const answerId = outcome.awaitingWorker.answerId;
    // Recorded durably as the signal, with its id; no update waits in the server for a worker.
    const { events } = await env.client.workflow.getHandle(workflowId).fetchHistory();
    assert.ok(!(events ?? []).some((event) => event.workflowExecutionUpdateAdmittedEventAttributes));
    const signals = (events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes);
    assert.deepEqual(
      signals.map((event) => event.workflowExecutionSignaledEventAttributes?.signalName),
      ['answer'],
    );
    // The record read from history names it, as waiting for a worker.
    const record = await questions.get(workflowId);
    assert.deepEqual(
      record.unvalidatedAnswers?.map((waiting) => [waiting.answerId, waiting.answeredBy]),
      [[answerId, 'ops']],
    );
    assert.deepEqual(record.noWorker, { taskQueue: 'no-worker-here' });
    await env.client.workflow.getHandle(workflowId).terminate('test cleanup');
  });

  test('bad provider options are refused, naming the option', () => {
    const connection = Connection.lazy({ address: '127.0.0.1:1' });
    const client = new Client({ connection });
    assert.throws(() => new TemporalUserInteraction({ client, questionTimeoutMs: Number.NaN }), {
      message: 'TemporalUserInteraction option questionTimeoutMs: must be a positive number',
    });
    assert.throws(() => new TemporalUserInteraction({ client, unavailableTimeoutMs: -5 }), {
      message: 'TemporalUserInteraction option unavailableTimeoutMs: must be a positive number',
    });
    assert.throws(() => new TemporalUserInteraction({ client, webhookUrls: ['ftp://hooks.example'] }), {
      code: 'INVALID_OPTIONS',
      message:
        'TemporalUserInteraction option webhookUrls: webhook URL "ftp://hooks.example": must use http or https',
    });
  });
});
