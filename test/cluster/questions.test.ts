/**
 * What a question does on its own, on the production-like cluster (scripts/cluster: the Temporal server built
 * from source, on PostgreSQL): a policy's reminders and deadline (durable timers, with notifications to a
 * loopback webhook receiver), and 50 answers racing on one question, of which exactly one is recorded and every
 * other is refused naming the winner. Everything is asked through the real tool and the durable provider.
 */
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import { QuestionOperationError } from '../../src/interaction';
import { TemporalUserInteraction } from '../../src/provider';
import { createAskUserQuestionTool } from '../../src/tool';
import type { QuestionPolicies } from '../../src/types';
import { startTestCluster, type TestCluster } from '../helpers/cluster';
import { expectFailure } from '../helpers/interaction';
import { raceAnswers } from '../helpers/answer-race';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { deployTargetArgs as ARGS, deployTargetAnswer as ANSWER } from '../helpers/questions';
import { waitFor } from '../helpers/wait';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `cluster-questions-${process.pid}`;
/** The tool's text for the recommended-answer expiry of {@link ARGS}: the Recommended label, the free-form question skipped. */
const RECOMMENDED_TEXT =
  '{"answers":[{"id":"env","selected":["staging (Recommended)"]},{"id":"note","selected":[]}]}';

let stack: TestCluster;
let worker: RunningWorkers;
let receiver: Receiver;
const providers: TemporalUserInteraction[] = [];

before(async () => {
  receiver = await startReceiver();
  stack = await startTestCluster('questions');
  worker = await startAskUserWorker(stack.cluster.address, TASK_QUEUE, stack.cluster.namespace);
});

after(async () => {
  try {
    for (const provider of providers) await provider.close();
    await worker?.stop();
    await stack?.stop();
  } finally {
    await receiver?.close();
  }
});

/** Asks {@link ARGS} as `agentId` through the real tool, with `policy`; notifications go to the receiver. */
function ask(
  agentId: string,
  toolCallId: string,
  policy?: QuestionPolicies,
): { workflowId: string; result: Promise<string> } {
  const userInteraction = new TemporalUserInteraction({
    client: stack.client,
    taskQueue: TASK_QUEUE,
    webhookUrls: [receiver.url('/hooks')],
    ...(policy === undefined ? {} : { policy }),
  });
  providers.push(userInteraction);
  const result = createAskUserQuestionTool({ userInteraction }).execute(ARGS, {
    agent: { id: agentId },
    toolCallId,
  });
  result.catch(() => undefined); // awaited by the test
  return { workflowId: `ask-user-question/${agentId}/${toolCallId}`, result };
}

describe("a policy's reminders and deadline", () => {
  test('reminders stop at maxReminders; the deadline fails the call with ASK_EXPIRED and notifies the expiry', async () => {
    const call = ask('reminded-bot', 'deadline-1', { remindEvery: '1s', maxReminders: 2, expireAfter: '5s' });
    const pending = await waitForPendingRecord(stack.client, call.workflowId);
    assert.equal(Date.parse(pending.expiresAt ?? '') - Date.parse(pending.askedAt), 5_000);

    await expectFailure(call.result, 'ASK_EXPIRED', 'ask_user_question expired after 5s without an answer');
    const record = await stack.questions.get(call.workflowId);
    assert.equal(record.status, 'expired');
    assert.equal(
      (await stack.client.workflow.getHandle(call.workflowId).describe()).status.name,
      'COMPLETED',
    );

    const [resolved] = await waitFor('the resolved notification', () => {
      const found = receiver.of(call.workflowId, 'question.resolved');
      return found.length > 0 ? found : undefined;
    });
    assert.equal(resolved?.event.record.status, 'expired');
    assert.equal(receiver.of(call.workflowId, 'question.pending').length, 1);
    // Both reminders fell before the deadline, and no more than maxReminders came.
    assert.deepEqual(
      receiver.of(call.workflowId, 'question.reminder').map((delivery) => delivery.event.reminder),
      [1, 2],
    );
  });

  test('a deadline with onExpiry "recommended" answers as policy:expired; a late human is told so', async () => {
    const call = ask('deadline-bot', 'recommended-1', { expireAfter: '2s', onExpiry: 'recommended' });
    assert.equal(await call.result, RECOMMENDED_TEXT);
    const record = await stack.questions.get(call.workflowId);
    assert.equal(record.status, 'answered');
    assert.equal(record.answeredBy, 'policy:expired');
    await assert.rejects(
      stack.questions.answer(call.workflowId, { ...ANSWER, answeredBy: 'alice' }),
      (error) => {
        assert.ok(QuestionOperationError.isInstance(error), inspect(error));
        assert.equal(error.code, 'ALREADY_RESOLVED');
        assert.equal(
          error.message,
          `the question was already answered by policy:expired at ${record.resolvedAt}`,
        );
        return true;
      },
    );
  });
});

describe('50 answers racing on one question', () => {
  test('exactly one is recorded, each of the 49 refusals names the winner, the agent gets the winning answer', async () => {
    const call = ask('race-bot', 'race-1');
    await waitForPendingRecord(stack.client, call.workflowId);

    const { winner, winnerIndex } = await raceAnswers(stack.questions, call.workflowId, 50, (index) => [
      { id: 'env', selected: ['production'] },
      { id: 'note', selected: [], custom: `from answerer ${index}` },
    ]);
    assert.equal(
      await call.result,
      `{"answers":[{"id":"env","selected":["production"]},{"id":"note","selected":[],"custom":"from answerer ${winnerIndex}"}]}`,
    );
    const record = await stack.questions.get(call.workflowId);
    assert.equal(record.answeredBy, winner.answeredBy);
    // One answer in the history: the other updates were refused before they were accepted, or by the server.
    const history = await stack.client.workflow.getHandle(call.workflowId).fetchHistory();
    const acceptedUpdates = (history.events ?? []).filter(
      (event) => event.workflowExecutionUpdateAcceptedEventAttributes,
    );
    assert.equal(acceptedUpdates.length, 1);
  });
});
