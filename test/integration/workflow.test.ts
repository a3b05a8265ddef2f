/**
 * Durable questions end to end: the real `ask_user_question` tool over `TemporalUserInteraction`, the question
 * workflow on a real Temporal dev server, and the ways a human (or a script) answers, declines or ignores it.
 * Everything is asserted as a user sees it: the tool's result text or error, the workflow's status in
 * `describe()`, its history, the `getQuestion` query and the ops client's list.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inspect } from 'node:util';

import {
  Client,
  Connection,
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';

import { QuestionOperationError, UserInteractionError } from '../../src/interaction';
import { QuestionClient } from '../../src/ops';
import { TemporalUserInteraction, type TemporalUserInteractionOptions } from '../../src/provider';
import { workflowsPath } from '../../src/worker';
import { createAskUserQuestionTool } from '../../src/tool';
import type { QuestionRecord } from '../../src/types';
import { getQuestionQuery } from '../../src/question/definitions';
import { expectFailure } from '../helpers/interaction';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { deployTargetArgs as ARGS, deployTargetAnswer as GOOD_ANSWER } from '../helpers/questions';
import { startTestEnvironment } from '../helpers/temporal';
import { eventually } from '../helpers/wait';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `workflow-test-${process.pid}`;
const AGENT_ID = 'deploy-bot';

// ARGS: what the model sends, a single-select question with a recommended option and a free-form one;
// GOOD_ANSWER: an answer that fits it (see test/helpers/questions.ts).
const GOOD_RESULT =
  '{"answers":[{"id":"env","selected":["staging (Recommended)"]},{"id":"note","selected":[],"custom":"ship it"}]}';
/** Breaks the `unknown-label` rule: `prod` is not offered. */
const UNKNOWN_LABEL_ANSWER = {
  answers: [
    { id: 'env', selected: ['prod'] },
    { id: 'note', selected: [] },
  ],
};
const UNKNOWN_LABEL_REASON = 'answers[0].selected: "prod" is not an option of question "env"';

let env: TestWorkflowEnvironment;
let client: Client;
let questions: QuestionClient;
let bundle: WorkflowBundle;
let mainWorker: RunningWorkers;

before(async () => {
  env = await startTestEnvironment();
  client = env.client;
  questions = new QuestionClient(client);
  bundle = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
  mainWorker = runWorkers([
    await createAskUserTestWorker(env.nativeConnection, { taskQueue: TASK_QUEUE, workflowBundle: bundle }),
  ]);
});

after(async () => {
  try {
    await mainWorker?.stop();
  } finally {
    await env?.teardown();
  }
});

let callCount = 0;

/** A tool call in flight, as {@link ask} returns it. */
interface ToolCall {
  workflowId: string;
  toolCallId: string;
  sessionId: string;
  result: Promise<string>;
  /** Whether `result` has settled by now. */
  settled(): boolean;
}

/** A fresh tool call on the real tool: its ids, its workflow id and the pending `execute` promise. */
function ask(
  options: Omit<TemporalUserInteractionOptions, 'client'> & {
    /** The provider's client; default: the test server's. */
    client?: Client;
    signal?: AbortSignal;
    toolCallId?: string;
    sessionId?: string;
  } = {},
): ToolCall {
  const {
    client: givenClient,
    signal,
    toolCallId: givenToolCallId,
    sessionId: givenSessionId,
    ...providerOptions
  } = options;
  callCount += 1;
  const sessionId = givenSessionId ?? `session-${callCount}`;
  const toolCallId = givenToolCallId ?? `call-${callCount}`;
  const tool = createAskUserQuestionTool({
    userInteraction: new TemporalUserInteraction({
      client: givenClient ?? client,
      taskQueue: TASK_QUEUE,
      ...providerOptions,
    }),
  });
  const result = tool.execute(ARGS, {
    toolCallId,
    agent: { id: AGENT_ID, sessionId },
    ...(signal === undefined ? {} : { signal }),
  });
  // Tests await `result` (or assert its failure) later; never let an early rejection count as unhandled.
  let settled = false;
  result.then(
    () => (settled = true),
    () => (settled = true),
  );
  return {
    workflowId: `ask-user-question/${AGENT_ID}/${sessionId}/${toolCallId}`,
    toolCallId,
    sessionId,
    result,
    settled: () => settled,
  };
}

/**
 * A client of the test server that reports the run its first `workflow.start` landed on: a new run, or, for a
 * question already running with that id, the existing one (the provider re-attaches with `USE_EXISTING`).
 */
/** What `startObservingClient` reports for a start the server refused because the question exists. */
const ALREADY_STARTED = 'already started';

function startObservingClient(): { client: Client; startedRunId: Promise<string> } {
  let report: (runId: string) => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const startedRunId = new Promise<string>((resolve, reject) => {
    report = resolve;
    fail = reject;
  });
  // Awaited later by the test; an early failure must not count as unhandled meanwhile.
  startedRunId.catch(() => undefined);
  const observing = new Client({
    connection: env.connection,
    namespace: client.options.namespace,
    interceptors: {
      workflow: [
        {
          async startWithDetails(input, next) {
            try {
              const output = await next(input);
              report(output.runId);
              return output;
            } catch (error) {
              // The question already exists: the provider compares fingerprints and re-attaches to that run.
              if (error instanceof WorkflowExecutionAlreadyStartedError) report(ALREADY_STARTED);
              else fail(error);
              throw error;
            }
          },
        },
      ],
    },
  });
  return { client: observing, startedRunId };
}

/** History events that close a workflow execution, as {@link eventTypes} names them. */
const CLOSE_EVENT_TYPES = [
  'workflowExecutionCompleted',
  'workflowExecutionFailed',
  'workflowExecutionCanceled',
  'workflowExecutionTerminated',
  'workflowExecutionTimedOut',
  'workflowExecutionContinuedAsNew',
];

/**
 * The question is still open, read from the server rather than waited for: its history holds no closing event,
 * `getQuestion` says pending, describe() says RUNNING, and the tool call has not settled.
 */
async function assertStillPending(handle: WorkflowHandle, call: ToolCall): Promise<void> {
  const types = await eventTypes(handle);
  assert.ok(!types.some((type) => CLOSE_EVENT_TYPES.includes(type)), types.join(', '));
  assert.equal((await handle.query(getQuestionQuery)).status, 'pending');
  assert.equal((await handle.describe()).status.name, 'RUNNING');
  assert.equal(call.settled(), false, 'the tool call is still waiting');
}

/** Awaits a rejection and returns what it rejected with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection, but the call resolved');
}

/** Waits until the server has admitted the update `updateId` of `workflowId` (no worker needs to have seen it). */
async function waitForUpdateAdmitted(workflowId: string, updateId: string): Promise<void> {
  // Until the server has it, the poll fails with NOT_FOUND, which `eventually` retries (and reports on timeout).
  await eventually(
    `update ${updateId} admitted`,
    async () =>
      await client.workflowService.pollWorkflowExecutionUpdate({
        namespace: client.options.namespace,
        updateRef: { workflowExecution: { workflowId }, updateId },
        identity: 'workflow.test',
        waitPolicy: {
          lifecycleStage:
            temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage
              .UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED,
        },
      }),
  );
}

async function eventTypes(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).map((event) => {
    const attributes = Object.keys(event).find(
      (key) => key.endsWith('EventAttributes') && (event as Record<string, unknown>)[key] != null,
    );
    return attributes === undefined ? 'unknown' : attributes.replace(/EventAttributes$/, '');
  });
}

describe('askUserQuestionWorkflow through the ask_user_question tool', () => {
  test('an answer sent as the `answer` signal is the exact result text of the tool call', async () => {
    const call = ask();
    await waitForPendingRecord(client, call.workflowId);
    const handle = client.workflow.getHandle(call.workflowId);
    await handle.signal('answer', { ...GOOD_ANSWER, answeredBy: 'alice' });

    assert.equal(await call.result, GOOD_RESULT);
    const description = await handle.describe();
    assert.equal(description.status.name, 'COMPLETED');
    assert.equal(description.type, 'askUserQuestionWorkflow');
    assert.equal(description.taskQueue, TASK_QUEUE);
    const record = await handle.query(getQuestionQuery);
    assert.equal(record.status, 'answered');
    assert.equal(record.answeredBy, 'alice');
    assert.deepEqual(record.agent, { id: AGENT_ID, sessionId: call.sessionId });
    assert.equal(record.toolCallId, call.toolCallId);
    assert.deepEqual(record.answer, GOOD_ANSWER);
  });

  test('an answer sent as the `submitAnswer` update is recorded, returned to the sender and to the tool', async () => {
    const call = ask();
    await waitForPendingRecord(client, call.workflowId);
    const handle = client.workflow.getHandle(call.workflowId);

    const record = await handle.executeUpdate<QuestionRecord, [unknown]>('submitAnswer', {
      args: [{ ...GOOD_ANSWER, answeredBy: 'bob' }],
    });
    assert.equal(record.status, 'answered');
    assert.equal(record.answeredBy, 'bob');
    assert.deepEqual(record.answer, GOOD_ANSWER);
    assert.equal(typeof record.resolvedAt, 'string');

    assert.equal(await call.result, GOOD_RESULT);
    assert.equal((await handle.describe()).status.name, 'COMPLETED');
  });

  test('QuestionClient.answer records the answer through the update', async () => {
    const call = ask();
    await waitForPendingRecord(client, call.workflowId);

    const record = await questions.answer(call.workflowId, { ...GOOD_ANSWER, answeredBy: 'carol' });
    assert.equal(record.status, 'answered');
    assert.equal(record.answeredBy, 'carol');

    assert.equal(await call.result, GOOD_RESULT);
  });

  test('an invalid update is refused with the reason and the rule, and the question stays pending', async () => {
    const call = ask();
    await waitForPendingRecord(client, call.workflowId);
    const handle = client.workflow.getHandle(call.workflowId);

    // Through the ops client: its BAD_ANSWER error, with the broken rule.
    const refused = await rejection(questions.answer(call.workflowId, UNKNOWN_LABEL_ANSWER));
    assert.ok(
      QuestionOperationError.isInstance(refused),
      `expected a QuestionOperationError, got ${inspect(refused)}`,
    );
    assert.equal(refused.code, 'BAD_ANSWER');
    assert.equal(refused.message, `ask_user_question received an invalid answer: ${UNKNOWN_LABEL_REASON}`);
    assert.equal(refused.rule, 'unknown-label');

    // Through the raw update, as any Temporal client sees it: the validator's application failure.
    const raw = await rejection(handle.executeUpdate('submitAnswer', { args: [UNKNOWN_LABEL_ANSWER] }));
    assert.ok(
      raw instanceof WorkflowUpdateFailedError,
      `expected WorkflowUpdateFailedError, got ${inspect(raw)}`,
    );
    assert.ok(
      raw.cause instanceof ApplicationFailure,
      `expected an ApplicationFailure, got ${inspect(raw.cause)}`,
    );
    assert.equal(raw.cause.type, 'BAD_ANSWER');
    assert.equal(raw.cause.message, UNKNOWN_LABEL_REASON);
    assert.deepEqual(raw.cause.details, ['unknown-label']);

    // Nothing was recorded (both updates were refused before this point): still pending, no answer, no
    // update in the history, and the tool call still waits.
    const record = await handle.query(getQuestionQuery);
    assert.equal(record.status, 'pending');
    assert.equal(record.answer, undefined);
    await assertStillPending(handle, call);
    assert.ok(!(await eventTypes(handle)).some((type) => type.startsWith('workflowExecutionUpdate')));

    await questions.answer(call.workflowId, GOOD_ANSWER);
    assert.equal(await call.result, GOOD_RESULT);
  });

  test('an invalid signal is recorded in rejectedAnswers and ignored; the question keeps waiting', async () => {
    const call = ask();
    await waitForPendingRecord(client, call.workflowId);
    const handle = client.workflow.getHandle(call.workflowId);

    await handle.signal('answer', {
      answers: [{ id: 'env', selected: ['production'] }],
      answeredBy: 'mallory',
    });
    // The rejected answer in rejectedAnswers proves the signal was handled; only then is "still pending" news.
    const record = await eventually('the rejected signal in getQuestion', async () => {
      const current = await handle.query(getQuestionQuery);
      return current.rejectedAnswers.length > 0 ? current : undefined;
    });
    assert.equal(record.status, 'pending');
    assert.equal(record.answer, undefined);
    assert.equal(record.rejectedAnswers.length, 1);
    const [rejected] = record.rejectedAnswers;
    assert.equal(rejected?.answeredBy, 'mallory');
    assert.equal(rejected?.reason, 'expected 2 answers (one per question, in order), received 1');
    assert.equal(typeof rejected?.receivedAt, 'string');
    await assertStillPending(handle, call);

    await handle.signal('answer', { ...GOOD_ANSWER, answeredBy: 'alice' });
    assert.equal(await call.result, GOOD_RESULT);
    const final = await handle.query(getQuestionQuery);
    assert.equal(final.answeredBy, 'alice');
    assert.equal(final.rejectedAnswers.length, 1);
  });

  test('the first valid answer wins, exactly once; a second one is refused naming who answered and when', async () => {
    const call = ask();
    await waitForPendingRecord(client, call.workflowId);
    const handle = client.workflow.getHandle(call.workflowId);

    const first = await questions.answer(call.workflowId, { ...GOOD_ANSWER, answeredBy: 'alice' });
    assert.equal(await call.result, GOOD_RESULT);
    assert.equal(first.resolvedAt !== undefined, true);

    const late = await rejection(
      questions.answer(call.workflowId, {
        answers: [
          { id: 'env', selected: ['production'] },
          { id: 'note', selected: [] },
        ],
        answeredBy: 'bob',
      }),
    );
    assert.ok(
      late instanceof QuestionOperationError,
      `expected QuestionOperationError, got ${inspect(late)}`,
    );
    assert.equal(late.code, 'ALREADY_RESOLVED');
    assert.equal(late.message, `the question was already answered by alice at ${first.resolvedAt}`);
    assert.equal(late.record?.answeredBy, 'alice');
    assert.deepEqual(late.record?.answer, GOOD_ANSWER);

    // A late decline is refused the same way.
    const lateDecline = await rejection(
      questions.decline(call.workflowId, { reason: 'too late', declinedBy: 'bob' }),
    );
    assert.ok(lateDecline instanceof QuestionOperationError);
    assert.equal(lateDecline.code, 'ALREADY_RESOLVED');
    assert.equal(lateDecline.message, `the question was already answered by alice at ${first.resolvedAt}`);

    // Exactly once: one accepted and completed update in the history, and the record still holds alice's answer.
    const types = await eventTypes(handle);
    assert.equal(types.filter((type) => type === 'workflowExecutionUpdateAccepted').length, 1);
    assert.equal(types.filter((type) => type === 'workflowExecutionUpdateCompleted').length, 1);
    assert.equal(types.filter((type) => type === 'workflowExecutionCompleted').length, 1);
    const record = await questions.get(call.workflowId);
    assert.equal(record.answeredBy, 'alice');
    assert.deepEqual(record.answer, GOOD_ANSWER);
  });

  test('two answers sent at the same time: exactly one is recorded, the other is refused', async () => {
    const call = ask();
    await waitForPendingRecord(client, call.workflowId);
    const production = {
      answers: [
        { id: 'env', selected: ['production'] },
        { id: 'note', selected: [] },
      ],
    };

    const outcomes = await Promise.allSettled([
      questions.answer(call.workflowId, { ...GOOD_ANSWER, answeredBy: 'alice' }),
      questions.answer(call.workflowId, { ...production, answeredBy: 'bob' }),
    ]);
    const recorded = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    assert.equal(recorded.length, 1, inspect(outcomes));
    assert.equal(refused.length, 1, inspect(outcomes));
    const winner = recorded[0]!.value;
    const loser = refused[0]!.reason as unknown;
    assert.ok(
      loser instanceof QuestionOperationError,
      `expected QuestionOperationError, got ${inspect(loser)}`,
    );
    assert.equal(loser.code, 'ALREADY_RESOLVED');
    assert.equal(
      loser.message,
      `the question was already answered by ${winner.answeredBy} at ${winner.resolvedAt}`,
    );

    // The tool call gets the winner's answer, and the history holds exactly one accepted update.
    const expected =
      winner.answeredBy === 'alice'
        ? GOOD_RESULT
        : '{"answers":[{"id":"env","selected":["production"]},{"id":"note","selected":[]}]}';
    assert.equal(await call.result, expected);
    const types = await eventTypes(client.workflow.getHandle(call.workflowId));
    assert.equal(types.filter((type) => type === 'workflowExecutionUpdateAccepted').length, 1);
  });

  test('a decline fails the tool call with ASK_CANCELLED and the reason', async () => {
    const call = ask();
    await waitForPendingRecord(client, call.workflowId);

    const record = await questions.decline(call.workflowId, {
      reason: 'deploys are frozen today',
      declinedBy: 'ops',
    });
    assert.equal(record.status, 'declined');
    assert.equal(record.declinedBy, 'ops');

    await expectFailure(
      call.result,
      'ASK_CANCELLED',
      'the user cancelled ask_user_question: deploys are frozen today',
    );
    assert.equal((await client.workflow.getHandle(call.workflowId).describe()).status.name, 'COMPLETED');
  });

  test('an unanswered question expires after questionTimeoutMs with ASK_EXPIRED and the duration', async () => {
    const call = ask({ questionTimeoutMs: 2_000 });
    const pending = await waitForPendingRecord(client, call.workflowId);
    assert.equal(typeof pending.expiresAt, 'string');

    await expectFailure(call.result, 'ASK_EXPIRED', 'ask_user_question expired after 2s without an answer');
    const record = await questions.get(call.workflowId);
    assert.equal(record.status, 'expired');
    assert.equal((await client.workflow.getHandle(call.workflowId).describe()).status.name, 'COMPLETED');
  });

  test("aborting the agent's signal fails the call with ASK_ABORTED and cancels the workflow", async () => {
    const controller = new AbortController();
    const call = ask({ signal: controller.signal });
    await waitForPendingRecord(client, call.workflowId);
    const handle = client.workflow.getHandle(call.workflowId);

    controller.abort();
    await expectFailure(call.result, 'ASK_ABORTED', 'ask_user_question was aborted before the user answered');

    await eventually('the question ending CANCELLED', async () => {
      const description = await handle.describe();
      return description.status.name === 'CANCELLED' ? description : undefined;
    });
    const types = await eventTypes(handle);
    assert.ok(types.includes('workflowExecutionCancelRequested'), types.join(', '));
    assert.equal(types.at(-1), 'workflowExecutionCanceled');
    const record = await questions.get(call.workflowId);
    assert.equal(record.status, 'cancelled');
  });

  // The timeout bounds every wait below, the third call's included: a call that started a duplicate question
  // instead of reading the stored answer would wait for an answer that never comes.
  test(
    'asking again with the same toolCallId re-attaches to the pending question instead of duplicating it',
    {
      timeout: 60_000,
    },
    async () => {
      const first = ask({ toolCallId: 'call-reattach' });
      await waitForPendingRecord(client, first.workflowId);
      const handle = client.workflow.getHandle(first.workflowId);
      const firstRunId = (await handle.describe()).runId;

      // Same session and tool call, as an agent that crashed and replays its turn would send. Its start call lands
      // on the run that is already there.
      const observed = startObservingClient();
      const second = ask({
        toolCallId: 'call-reattach',
        sessionId: first.sessionId,
        client: observed.client,
      });
      assert.equal(second.workflowId, first.workflowId);
      // The start is refused as already started, and the call re-attaches to the run that is there.
      assert.equal(await observed.startedRunId, ALREADY_STARTED);
      await assertStillPending(handle, second);
      assert.equal(
        (await eventTypes(handle)).filter((type) => type === 'workflowExecutionStarted').length,
        1,
      );

      await questions.answer(first.workflowId, GOOD_ANSWER);
      assert.equal(await first.result, GOOD_RESULT);
      assert.equal(await second.result, GOOD_RESULT);

      // A caller that comes back after the answer was given gets the stored answer, and no new run is started:
      // the workflow id still names the first run, and its history holds the one start and the one completion.
      const third = ask({ toolCallId: 'call-reattach', sessionId: first.sessionId });
      assert.equal(await third.result, GOOD_RESULT);
      const description = await handle.describe();
      assert.equal(description.runId, firstRunId);
      assert.equal(description.status.name, 'COMPLETED');
      const types = await eventTypes(handle);
      assert.equal(types.filter((type) => type === 'workflowExecutionStarted').length, 1);
      assert.equal(types.at(-1), 'workflowExecutionCompleted');
    },
  );

  test('an answered question writes nothing to its memo as it closes; a declined one records how it ended', async () => {
    const answered = ask();
    await waitForPendingRecord(client, answered.workflowId);
    const answeredHandle = client.workflow.getHandle(answered.workflowId);
    await answeredHandle.signal('answer', { ...GOOD_ANSWER, answeredBy: 'alice' });
    assert.equal(await answered.result, GOOD_RESULT);
    // One history event and one visibility write less than a question that records its end: what a bare
    // signal wait costs.
    assert.ok(!(await eventTypes(answeredHandle)).includes('workflowPropertiesModified'));
    const answeredDescription = await answeredHandle.describe();
    // Nor at the start: the execution's status tells a pending and an answered question apart.
    assert.equal(answeredDescription.memo?.status, undefined);
    assert.equal(answeredDescription.memo?.askedAt, undefined);

    const declined = ask();
    await waitForPendingRecord(client, declined.workflowId);
    await questions.decline(declined.workflowId, { reason: 'not today', declinedBy: 'ops' });
    await expectFailure(declined.result, 'ASK_CANCELLED', 'the user cancelled ask_user_question: not today');
    const declinedHandle = client.workflow.getHandle(declined.workflowId);
    assert.ok((await eventTypes(declinedHandle)).includes('workflowPropertiesModified'));
    const declinedRecord = await questions.get(declined.workflowId);
    const declinedMemo = (await declinedHandle.describe()).memo;
    assert.equal(declinedMemo?.status, 'declined');
    assert.equal(declinedMemo?.resolvedAt, declinedRecord.resolvedAt);

    // Both read right from visibility alone: the answered one from its execution status and close time.
    const listed = await eventually('both questions in the resolved list', async () => {
      const summaries = await questions.list('all', 1000);
      const rows = [answered.workflowId, declined.workflowId].map((id) =>
        summaries.find((summary) => summary.workflowId === id),
      );
      return rows.every((row) => row !== undefined && row.status !== 'pending') ? rows : undefined;
    });
    assert.equal(listed[0]?.status, 'answered');
    assert.equal(listed[0]?.resolvedAt, answeredDescription.closeTime?.toISOString());
    assert.equal(listed[1]?.status, 'declined');
    assert.equal(listed[1]?.resolvedAt, declinedRecord.resolvedAt);
  });

  // An answer sent as soon as the question starts reaches the worker with the question's first task, so its
  // handler runs before the workflow's wait begins, and the reply is still on its way as the question closes.
  test('answers sent before any worker ran the question are recorded, replied to and replayed', async () => {
    // No worker polls this queue until every answer (and a cancellation) waits on the server.
    const taskQueue = `${TASK_QUEUE}-first-task`;
    const bySignal = ask({ taskQueue });
    const byUpdate = ask({ taskQueue });
    const declined = ask({ taskQueue });
    const cancelledToo = ask({ taskQueue });
    const calls = [bySignal, byUpdate, declined, cancelledToo];
    for (const call of calls) {
      await eventually(
        `question ${call.workflowId} started`,
        async () => await client.workflow.getHandle(call.workflowId).describe(),
      );
    }
    const handleOf = (call: ToolCall): WorkflowHandle => client.workflow.getHandle(call.workflowId);

    await handleOf(bySignal).signal('answer', GOOD_ANSWER);
    const update = (call: ToolCall, name: string, arg: unknown): Promise<QuestionRecord> => {
      const reply = handleOf(call).executeUpdate<QuestionRecord, [unknown]>(name, {
        args: [arg],
        updateId: `${call.toolCallId}-${name}`,
      });
      reply.catch(() => undefined);
      return reply;
    };
    const updateReply = update(byUpdate, 'submitAnswer', GOOD_ANSWER);
    const declineReply = update(declined, 'decline', { reason: 'not now' });
    const racingReply = update(cancelledToo, 'submitAnswer', GOOD_ANSWER);
    for (const [call, name] of [
      [byUpdate, 'submitAnswer'],
      [declined, 'decline'],
      [cancelledToo, 'submitAnswer'],
    ] as const) {
      await waitForUpdateAdmitted(call.workflowId, `${call.toolCallId}-${name}`);
    }
    await handleOf(cancelledToo).cancel();

    const worker = runWorkers([
      await createAskUserTestWorker(env.nativeConnection, { taskQueue, workflowBundle: bundle }),
    ]);
    try {
      assert.equal(await bySignal.result, GOOD_RESULT);
      assert.equal((await updateReply).status, 'answered');
      assert.equal(await byUpdate.result, GOOD_RESULT);
      assert.equal((await declineReply).status, 'declined');
      await expectFailure(declined.result, 'ASK_CANCELLED', 'the user cancelled ask_user_question: not now');

      // The answer and the cancellation came in one task: either the answer was recorded first and stands, or
      // the question ended cancelled first and refused the answer. The reply and the outcome always agree.
      const racing = await racingReply.then(
        (record) => record.status,
        (error: unknown) => error,
      );
      const racingEnd = await eventually('the racing question closed', async () => {
        const status = (await handleOf(cancelledToo).describe()).status.name;
        return status === 'RUNNING' ? undefined : status;
      });
      if (racing === 'answered') {
        assert.equal(racingEnd, 'COMPLETED');
        assert.equal(await cancelledToo.result, GOOD_RESULT);
      } else {
        assert.ok(racing instanceof WorkflowUpdateFailedError, inspect(racing));
        assert.equal(racingEnd, 'CANCELLED');
        await expectFailure(
          cancelledToo.result,
          'ASK_ABORTED',
          'ask_user_question was aborted before the user answered',
        );
      }

      for (const call of calls) {
        const types = await eventTypes(handleOf(call));
        // The first task carried the answer, and the question closed in it, with no failed task.
        assert.equal(types.filter((type) => type === 'workflowTaskCompleted').length, 1, types.join(', '));
        assert.ok(!types.includes('workflowTaskFailed'), types.join(', '));
        const history = await handleOf(call).fetchHistory();
        await Worker.runReplayHistory({ workflowBundle: bundle }, history, call.workflowId);
      }
    } finally {
      await worker.stop();
    }
  });

  test('the Web UI shows the question: static summary and details carry its text', async () => {
    const call = ask();
    await waitForPendingRecord(client, call.workflowId);
    const description = await client.workflow.getHandle(call.workflowId).describe();

    assert.equal(typeof description.staticSummary, 'function');
    assert.equal(await description.staticSummary(), 'Target (+1 more)');
    const details = await description.staticDetails();
    assert.ok(details !== undefined);
    assert.ok(details.includes('Where should I deploy build 1.4.2?'), details);
    assert.ok(details.includes('Anything to tell the on-call engineer?'), details);
    assert.ok(details.includes('- staging (Recommended) ⭐'), details);
    assert.ok(
      details.includes(`temporal workflow signal --workflow-id '${call.workflowId}' --name answer`),
      details,
    );

    await questions.decline(call.workflowId);
    await expectFailure(call.result, 'ASK_CANCELLED', 'the user cancelled ask_user_question');
  });
});

describe('with no worker running', () => {
  test('the pending list comes from the memo, and get() rebuilds records from history', async () => {
    const taskQueue = `${TASK_QUEUE}-stopped`;
    const worker = await createAskUserTestWorker(env.nativeConnection, { taskQueue, workflowBundle: bundle });
    const running = runWorkers([worker]);
    const controller = new AbortController();
    let pending: ReturnType<typeof ask> | undefined;
    try {
      const answered = ask({ taskQueue });
      await waitForPendingRecord(client, answered.workflowId);
      const recordAnswered = await questions.answer(answered.workflowId, {
        ...GOOD_ANSWER,
        answeredBy: 'alice',
      });
      assert.equal(await answered.result, GOOD_RESULT);

      pending = ask({ taskQueue, signal: controller.signal });
      await waitForPendingRecord(client, pending.workflowId);
      await running.stop();
      assert.equal(worker.getState(), 'STOPPED');

      const pendingId = pending.workflowId;
      const listed = await eventually('the question in the pending list', async () => {
        const summaries = await questions.list('pending');
        return summaries.find((summary) => summary.workflowId === pendingId);
      });
      assert.deepEqual(
        { ...listed, askedAt: typeof listed.askedAt },
        {
          workflowId: pending.workflowId,
          title: 'Target (+1 more)',
          status: 'pending',
          questionCount: 2,
          askedAt: 'string',
          agentId: AGENT_ID,
          sessionId: pending.sessionId,
          toolCallId: pending.toolCallId,
        },
      );
      const answeredList = await eventually('the answered question in the answered list', async () => {
        const summaries = await questions.list('answered');
        return summaries.find((summary) => summary.workflowId === answered.workflowId);
      });
      assert.equal(answeredList.status, 'answered');
      // An answered question writes nothing to its memo as it closes: the list's time is its close time, the
      // end of the workflow task that took the answer, and the record's the start of that task.
      const answeredDescription = await client.workflow.getHandle(answered.workflowId).describe();
      assert.equal(answeredList.resolvedAt, answeredDescription.closeTime?.toISOString());
      const lag = Date.parse(answeredList.resolvedAt ?? '') - Date.parse(recordAnswered.resolvedAt ?? '');
      assert.ok(lag >= 0 && lag < 10_000, `close time ${lag} ms after the answer`);
      // Visibility has caught up with the answer (above): the answered question is no longer pending.
      const pendingList = await questions.list('pending');
      assert.ok(!pendingList.some((summary) => summary.workflowId === answered.workflowId));

      const fromHistory = await questions.get(pending.workflowId);
      assert.equal(fromHistory.status, 'pending');
      assert.equal(fromHistory.toolCallId, pending.toolCallId);
      assert.deepEqual(fromHistory.agent, { id: AGENT_ID, sessionId: pending.sessionId });
      assert.deepEqual(
        fromHistory.questions.map((question) => question.question),
        ['Where should I deploy build 1.4.2?', 'Anything to tell the on-call engineer?'],
      );
      assert.equal(fromHistory.answer, undefined);

      const answeredFromHistory = await questions.get(answered.workflowId);
      assert.equal(answeredFromHistory.status, 'answered');
      assert.equal(answeredFromHistory.answeredBy, 'alice');
      assert.equal(answeredFromHistory.resolvedAt, recordAnswered.resolvedAt);
      assert.deepEqual(answeredFromHistory.answer, GOOD_ANSWER);
    } finally {
      controller.abort();
      await running.stop();
    }
    await expectFailure(
      pending.result,
      'ASK_ABORTED',
      'ask_user_question was aborted before the user answered',
    );
  });
});

describe('an unreachable question service', () => {
  /** Nothing ever listens on port 1 (it needs root, and no test binds it): connecting is refused at once. */
  const NOTHING_LISTENING = '127.0.0.1:1';
  /** The calls are bounded by `unavailableTimeoutMs`; a call that ignored it would hang, and fail the test here. */
  const TEST_TIMEOUT_MS = 30_000;

  function assertUnavailable(error: unknown): void {
    assert.ok(
      UserInteractionError.isInstance(error),
      `expected a UserInteractionError, got ${inspect(error)}`,
    );
    assert.equal(error.code, 'ASK_UNAVAILABLE');
    assert.ok(
      error.message.startsWith('ask_user_question could not reach the question service: '),
      error.message,
    );
  }

  test(
    'a client on a port with nothing listening fails with ASK_UNAVAILABLE',
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const connection = Connection.lazy({ address: NOTHING_LISTENING });
      try {
        const unreachable = new Client({ connection, namespace: 'default' });
        const tool = createAskUserQuestionTool({
          userInteraction: new TemporalUserInteraction({
            client: unreachable,
            taskQueue: TASK_QUEUE,
            unavailableTimeoutMs: 1_500,
          }),
        });
        const error = await rejection(tool.execute(ARGS, { toolCallId: 'call-unreachable' }));
        assertUnavailable(error);
      } finally {
        await connection.close();
      }
    },
  );

  test(
    'a provider that connects from TEMPORAL_ADDRESS fails with ASK_UNAVAILABLE naming the address',
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const address = NOTHING_LISTENING;
      const saved = process.env.TEMPORAL_ADDRESS;
      process.env.TEMPORAL_ADDRESS = address;
      const provider = new TemporalUserInteraction({ taskQueue: TASK_QUEUE, unavailableTimeoutMs: 1_500 });
      try {
        const tool = createAskUserQuestionTool({ userInteraction: provider });
        const error = await rejection(tool.execute(ARGS, { toolCallId: 'call-unreachable-env' }));
        assertUnavailable(error);
        assert.ok(
          (error as Error).message.startsWith(
            `ask_user_question could not reach the question service: ${address}: `,
          ),
          (error as Error).message,
        );
      } finally {
        if (saved === undefined) delete process.env.TEMPORAL_ADDRESS;
        else process.env.TEMPORAL_ADDRESS = saved;
        await provider.close();
      }
    },
  );
});
