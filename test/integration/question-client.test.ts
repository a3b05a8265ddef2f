/**
 * `QuestionClient.answer` against a real dev server and worker: an answer is the `submitAnswer` update and
 * nothing else (no describe, no query, no poller check first), and what a read used to tell is still told from
 * the update's own refusal: a late answer names who answered and when, an id that names no workflow, or a
 * workflow of another type, is `NOT_FOUND`, a wrong answer is `BAD_ANSWER` with its rule.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import { type Interceptor, InterceptingCall } from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';

import { TemporalUserInteraction, createAskUserQuestionTool, questionWorkflowId } from '../../src';
import { QuestionOperationError } from '../../src/interaction/question-operation-error';
import { QuestionClient } from '../../src/ops';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startTestEnvironment } from '../helpers/temporal';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = 'question-client';
const OTHER_TASK_QUEUE = 'question-client-other-type';
const AGENT = { id: 'question-client-agent' };
const ARGS = {
  questions: [{ id: 'q1', question: 'Ship it?', options: [{ label: 'Yes' }, { label: 'No' }] }],
};
const YES = [{ id: 'q1', selected: ['Yes'] }];

/** The gRPC methods a connection called, in order. */
function recordingInterceptor(calls: string[]): Interceptor {
  return (options, nextCall) => {
    const path = options.method_definition.path;
    calls.push(path.slice(path.lastIndexOf('/') + 1));
    return new InterceptingCall(nextCall(options));
  };
}

async function refusal(promise: Promise<unknown>): Promise<QuestionOperationError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(
      error instanceof QuestionOperationError,
      `expected a QuestionOperationError, got ${String(error)}`,
    );
    return error;
  }
  assert.fail('expected the answer to be refused');
}

describe('QuestionClient.answer', () => {
  let env: TestWorkflowEnvironment;
  let workers: RunningWorkers;
  let connection: Connection;
  let questions: QuestionClient;
  let tool: ReturnType<typeof createAskUserQuestionTool>;
  const calls: string[] = [];

  before(async () => {
    env = await startTestEnvironment();
    const otherType = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: OTHER_TASK_QUEUE,
      workflowsPath: require.resolve('../../bench/floor-workflows'),
    });
    workers = runWorkers([
      await createAskUserTestWorker(env.nativeConnection, { taskQueue: TASK_QUEUE }),
      otherType,
    ]);
    connection = await Connection.connect({
      address: env.address,
      interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), recordingInterceptor(calls)],
    });
    questions = new QuestionClient(new Client({ connection, namespace: 'default' }));
    const provider = new TemporalUserInteraction({ client: env.client, taskQueue: TASK_QUEUE });
    tool = createAskUserQuestionTool({ userInteraction: provider });
  });

  after(async () => {
    await connection?.close();
    await workers?.stop();
    await env?.teardown();
  });

  /** Asks a question as `toolCallId`; its workflow id once it is pending, and the agent's result. */
  async function ask(toolCallId: string): Promise<{ workflowId: string; received: Promise<string> }> {
    const received = tool.execute(ARGS, { toolCallId, agent: AGENT });
    received.catch(() => undefined);
    const workflowId = questionWorkflowId({ agent: AGENT, toolCallId }, randomUUID);
    await waitForPendingRecord(env.client, workflowId);
    return { workflowId, received };
  }

  test('an answer is one update call, nothing read first', async () => {
    const { workflowId, received } = await ask('one-call');
    calls.length = 0;
    const outcome = await questions.answer(workflowId, { answers: YES, answeredBy: 'alice' });
    assert.deepEqual(calls, ['UpdateWorkflowExecution']);
    assert.equal(outcome.status, 'answered');
    assert.equal(outcome.answeredBy, 'alice');
    assert.equal(outcome.awaitingWorker, undefined);
    assert.equal(await received, JSON.stringify({ answers: YES }));
  });

  test('a late answer is refused naming who answered and when', async () => {
    const { workflowId, received } = await ask('late');
    await questions.answer(workflowId, { answers: YES, answeredBy: 'alice' });
    await received;
    const error = await refusal(questions.answer(workflowId, { answers: YES, answeredBy: 'bob' }));
    const record = await questions.get(workflowId);
    assert.equal(error.code, 'ALREADY_RESOLVED');
    assert.equal(error.message, `the question was already answered by alice at ${record.resolvedAt}`);
  });

  test('a wrong answer is BAD_ANSWER with its rule, and records nothing', async () => {
    const { workflowId } = await ask('wrong');
    const error = await refusal(
      questions.answer(workflowId, { answers: [{ id: 'q1', selected: ['Maybe'] }], answeredBy: 'alice' }),
    );
    assert.equal(error.code, 'BAD_ANSWER');
    assert.match(error.message, /"Maybe" is not an option of question "q1"/);
    assert.equal((await questions.get(workflowId)).status, 'pending');
  });

  test('an id that names no workflow, or a workflow of another type, is NOT_FOUND', async () => {
    const missing = await refusal(questions.answer('nobody/nothing', { answers: YES }));
    assert.equal(missing.code, 'NOT_FOUND');
    assert.match(missing.message, /ask-user-question\/nobody\/nothing/);

    const workflowId = 'ask-user-question/other-type/1';
    const other = await env.client.workflow.start('floorSignalWorkflow', {
      workflowId,
      taskQueue: OTHER_TASK_QUEUE,
      args: [ARGS],
    });
    const error = await refusal(questions.answer(workflowId, { answers: YES }));
    assert.equal(error.code, 'NOT_FOUND');
    assert.match(error.message, /ask-user-question\/other-type\/1/);
    await other.terminate('test cleanup');
  });
});
