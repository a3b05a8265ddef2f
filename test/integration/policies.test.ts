/**
 * Question policies end to end, on a real Temporal dev server with short real durations (one to a few seconds):
 * the deadline and its two outcomes, reminders and escalation counted by a loopback webhook receiver, and the
 * deadline moved by ops through the ops client, `ask-user extend` and the inbox API. Policies come from the
 * provider (`policy` on `TemporalUserInteraction`) and from the worker (`policy` on `createAskUserWorker`,
 * per agent id), the two places an operator sets them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import type { InboxServer } from '../../src/inbox';
import { QuestionOperationError } from '../../src/interaction';
import { QuestionClient } from '../../src/ops';
import { TemporalUserInteraction } from '../../src/provider';
import { createAskUserQuestionTool } from '../../src/tool';
import type { QuestionPolicies, QuestionRecord } from '../../src/types';
import { killChildren, startChild } from '../fixtures/child-process';
import { bearer, questionPath, request, startTestInbox } from '../helpers/inbox';
import { expectFailure } from '../helpers/interaction';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { deployTargetArgs as ARGS, deployTargetAnswer as ANSWER } from '../helpers/questions';
import { startTestEnvironment } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { startReceiver, type Delivery, type Receiver } from '../helpers/webhook-receiver';
import {
  bundleAskUserWorkflows,
  createAskUserTestWorker,
  runWorkers,
  type RunningWorkers,
} from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `policies-${process.pid}`;

/** The tool's text for {@link ANSWER}: what a human's answer gives. */
const ANSWER_TEXT =
  '{"answers":[{"id":"env","selected":["staging (Recommended)"]},{"id":"note","selected":[],"custom":"ship it"}]}';
/** The tool's text for the recommended-answer expiry of {@link ARGS}: the Recommended label, the free-form question skipped. */
const RECOMMENDED_TEXT =
  '{"answers":[{"id":"env","selected":["staging (Recommended)"]},{"id":"note","selected":[]}]}';

let env: TestWorkflowEnvironment;
let client: Client;
let questions: QuestionClient;
let receiver: Receiver;
let workers: RunningWorkers;

/** The worker's policies: by agent id, so that other agents' questions on the same worker get none. */
function workerPolicy(): QuestionPolicies {
  return {
    agents: {
      'reminded-bot': { remindEvery: '1s', maxReminders: 3 },
      'escalated-bot': {
        remindEvery: '1s',
        maxReminders: 10,
        escalateAfter: '2500ms',
        escalateTo: [receiver.url('/escalation')],
      },
    },
  };
}

before(async () => {
  receiver = await startReceiver();
  env = await startTestEnvironment();
  client = env.client;
  questions = new QuestionClient(client);
  const bundle = await bundleAskUserWorkflows({ workerDefaults: true });
  workers = runWorkers([
    await createAskUserTestWorker(env.nativeConnection, {
      taskQueue: TASK_QUEUE,
      workflowBundle: bundle,
      policy: workerPolicy(),
    }),
  ]);
});

after(async () => {
  try {
    await killChildren();
    await workers?.stop();
    await env?.teardown();
  } finally {
    await receiver?.close();
  }
});

/** A tool call in flight: its question's workflow id and the tool's settled text (or error). */
interface ToolCall {
  workflowId: string;
  result: Promise<string>;
}

/** Asks through the real tool and a provider with `policy`, as `agentId`; notifications go to `/hooks`. */
function ask(agentId: string, toolCallId: string, policy?: QuestionPolicies): ToolCall {
  const tool = createAskUserQuestionTool({
    userInteraction: new TemporalUserInteraction({
      client,
      taskQueue: TASK_QUEUE,
      webhookUrls: [receiver.url('/hooks')],
      ...(policy === undefined ? {} : { policy }),
    }),
  });
  const result = tool.execute(ARGS, { agent: { id: agentId }, toolCallId });
  result.catch(() => undefined); // awaited by the tests that need it
  return { workflowId: `ask-user-question/${agentId}/${toolCallId}`, result };
}

/** The question's history, as event type names (`timerStarted`, `workflowExecutionUpdateAccepted`, ...). */
async function eventTypes(workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map((event) => {
    const attributes = Object.keys(event).find(
      (key) => key.endsWith('EventAttributes') && event[key as keyof typeof event],
    );
    return attributes === undefined ? 'unknown' : attributes.replace(/EventAttributes$/, '');
  });
}

async function memoOf(workflowId: string): Promise<Record<string, unknown>> {
  return (await client.workflow.getHandle(workflowId).describe()).memo ?? {};
}

/** Waits until the receiver holds `count` deliveries that `select` picks, and returns them. */
async function deliveriesOf(what: string, select: () => Delivery[], count: number): Promise<Delivery[]> {
  return await waitFor(what, () => {
    const found = select();
    return found.length >= count ? found : undefined;
  });
}

describe('deadlines', () => {
  test('expiry with "error" fails the call with ASK_EXPIRED and the duration; the memo carries the deadline', async () => {
    const call = ask('deadline-bot', 'error-1', { expireAfter: '2s' });
    const pending = await waitForPendingRecord(client, call.workflowId);
    assert.equal(Date.parse(pending.expiresAt ?? '') - Date.parse(pending.askedAt), 2_000);
    // Set by the workflow's first task, which a query may overtake: waited for, not read at once.
    await waitFor('the memo to carry the deadline', async () =>
      (await memoOf(call.workflowId)).expiresAt === pending.expiresAt ? true : undefined,
    );

    await expectFailure(call.result, 'ASK_EXPIRED', 'ask_user_question expired after 2s without an answer');
    const record = await questions.get(call.workflowId);
    assert.equal(record.status, 'expired');
    assert.equal((await client.workflow.getHandle(call.workflowId).describe()).status.name, 'COMPLETED');
  });

  test('expiry with "recommended" answers with the Recommended labels as policy:expired; the tool gives the normal answer text', async () => {
    const call = ask('deadline-bot', 'recommended-1', { expireAfter: '2s', onExpiry: 'recommended' });
    assert.equal(await call.result, RECOMMENDED_TEXT);

    const [resolved] = await deliveriesOf(
      'the resolved notification',
      () => receiver.of(call.workflowId, 'question.resolved'),
      1,
    );
    assert.equal(resolved?.event.record.status, 'answered');
    assert.equal(resolved?.event.record.answeredBy, 'policy:expired');
    assert.deepEqual(resolved?.event.record.answer, {
      answers: [
        { id: 'env', selected: ['staging (Recommended)'] },
        { id: 'note', selected: [] },
      ],
    });
    const record = await questions.get(call.workflowId);
    assert.equal(record.status, 'answered');
    assert.equal(record.answeredBy, 'policy:expired');
    // Answered, so nothing was written to the memo as it closed (nor at the start): lists read it from
    // visibility as answered.
    assert.equal((await memoOf(call.workflowId)).status, undefined);
    await waitFor('the question in the answered list', async () =>
      (await questions.list('answered', 1000)).some((row) => row.workflowId === call.workflowId)
        ? true
        : undefined,
    );

    // A human arriving late is told who answered: the policy, not a person.
    await assert.rejects(questions.answer(call.workflowId, { ...ANSWER, answeredBy: 'alice' }), (error) => {
      assert.ok(QuestionOperationError.isInstance(error));
      assert.equal(error.code, 'ALREADY_RESOLVED');
      assert.equal(
        error.message,
        `the question was already answered by policy:expired at ${record.resolvedAt}`,
      );
      return true;
    });
  });

  test('extending moves the expiry: an answer after the first deadline, before the new one, is taken', async () => {
    const call = ask('deadline-bot', 'extended-1', { expireAfter: '2s' });
    const pending = await waitForPendingRecord(client, call.workflowId);
    const firstDeadline = Date.parse(pending.expiresAt ?? '');

    const outcome = await questions.extendDeadline(call.workflowId, '3s', 'ops');
    const newDeadline = new Date(firstDeadline + 3_000).toISOString();
    assert.equal(outcome.status, 'pending');
    assert.equal(outcome.expiresAt, newDeadline);
    assert.deepEqual(
      outcome.deadlineChanges?.map(({ from, to, extendedBy }) => ({ from, to, extendedBy })),
      [{ from: pending.expiresAt, to: newDeadline, extendedBy: 'ops' }],
    );
    assert.equal((await memoOf(call.workflowId)).expiresAt, newDeadline);

    await waitFor('the first deadline to pass', () => (Date.now() > firstDeadline + 500 ? true : undefined));
    const stillPending = await questions.get(call.workflowId);
    assert.equal(stillPending.status, 'pending');
    const answered = await questions.answer(call.workflowId, { ...ANSWER, answeredBy: 'bob' });
    assert.equal(answered.status, 'answered');
    assert.equal(await call.result, ANSWER_TEXT);
  });

  test('the duration of an expiry counts the extension; a deadline moved into the past expires at once', async () => {
    const extended = ask('deadline-bot', 'extended-2', { expireAfter: '2s' });
    await waitForPendingRecord(client, extended.workflowId);
    await questions.extendDeadline(extended.workflowId, '1s');
    await expectFailure(
      extended.result,
      'ASK_EXPIRED',
      'ask_user_question expired after 3s without an answer',
    );

    const shortened = ask('deadline-bot', 'shortened-1', { expireAfter: '1h' });
    const pending = await waitForPendingRecord(client, shortened.workflowId);
    const outcome = await questions.extendDeadline(shortened.workflowId, '-3599s');
    assert.equal(outcome.expiresAt, new Date(Date.parse(pending.askedAt) + 1_000).toISOString());
    await expectFailure(
      shortened.result,
      'ASK_EXPIRED',
      'ask_user_question expired after 1s without an answer',
    );
  });

  test('a bad duration or a late change is refused, naming the field or who answered', async () => {
    const call = ask('deadline-bot', 'refused-1', { expireAfter: '1h' });
    const pending = await waitForPendingRecord(client, call.workflowId);
    await assert.rejects(questions.extendDeadline(call.workflowId, 'soon'), {
      code: 'INVALID_ARGS',
      message:
        'invalid arguments: extendDeadline.by: must be a duration such as 2h or -30m, or a whole number of milliseconds',
    });
    // Refused by the workflow's validator: nothing is recorded.
    await assert.rejects(questions.extendDeadline(call.workflowId, '-2h'), {
      code: 'INVALID_ARGS',
      message: `invalid arguments: extendDeadline.by: the deadline would be ${new Date(Date.parse(pending.expiresAt ?? '') - 7_200_000).toISOString()}, not after the question was asked (${pending.askedAt})`,
    });
    assert.ok(!(await eventTypes(call.workflowId)).includes('workflowExecutionUpdateAccepted'));

    const answered = await questions.answer(call.workflowId, { ...ANSWER, answeredBy: 'carol' });
    await call.result;
    await assert.rejects(questions.extendDeadline(call.workflowId, '1h'), {
      code: 'ALREADY_RESOLVED',
      message: `the question was already answered by carol at ${answered.resolvedAt}`,
    });
  });
});

describe('reminders and escalation', () => {
  test("the worker's policy for an agent reminds every period and stops at maxReminders; other agents get none", async () => {
    const reminded = ask('reminded-bot', 'reminded-1');
    const plain = ask('plain-bot', 'plain-1');
    const reminders = await deliveriesOf(
      'three reminders',
      () => receiver.of(reminded.workflowId, 'question.reminder'),
      3,
    );
    assert.deepEqual(
      reminders.map((delivery) => delivery.event.reminder),
      [1, 2, 3],
    );
    assert.deepEqual(
      reminders.map((delivery) => delivery.headers['x-ask-user-delivery']),
      [1, 2, 3].map((number) => `${reminded.workflowId}#question.reminder#${number}`),
    );
    // Each a period (1 s) or more after the question was asked or the reminder before.
    const times = [
      reminders[0]!.event.record.askedAt,
      ...reminders.map((delivery) => delivery.event.occurredAt),
    ];
    for (let index = 1; index < times.length; index++) {
      const gap = Date.parse(times[index]!) - Date.parse(times[index - 1]!);
      assert.ok(gap >= 1_000, `reminder ${index} came ${gap} ms after the one before`);
    }
    assert.ok(reminders.every((delivery) => delivery.path === '/hooks'));

    // After the third, no timer is left: the question waits for its answer alone.
    const record = await waitFor('the third reminder recorded', async () => {
      const current = await questions.get(reminded.workflowId);
      return current.remindersSent === 3 ? current : undefined;
    });
    assert.equal(record.status, 'pending');
    const types = await eventTypes(reminded.workflowId);
    assert.equal(types.filter((type) => type === 'timerStarted').length, 3);
    assert.equal(types.filter((type) => type === 'timerFired').length, 3);

    await questions.answer(reminded.workflowId, { ...ANSWER, answeredBy: 'dana' });
    assert.equal(await reminded.result, ANSWER_TEXT);
    await deliveriesOf(
      'the resolved notification',
      () => receiver.of(reminded.workflowId, 'question.resolved'),
      1,
    );
    assert.equal(receiver.of(reminded.workflowId, 'question.reminder').length, 3);

    // The same worker, another agent: no policy, no reminder, no timer.
    const plainRecord = await questions.get(plain.workflowId);
    assert.equal(plainRecord.remindersSent, undefined);
    assert.equal(receiver.of(plain.workflowId, 'question.reminder').length, 0);
    assert.ok(!(await eventTypes(plain.workflowId)).includes('timerStarted'));
    await questions.decline(plain.workflowId);
  });

  test('reminders go out every period until the question is answered', async () => {
    const call = ask('provider-reminded-bot', 'until-answered-1', { remindEvery: '1s' });
    await deliveriesOf('two reminders', () => receiver.of(call.workflowId, 'question.reminder'), 2);
    await questions.answer(call.workflowId, { ...ANSWER, answeredBy: 'erin' });
    assert.equal(await call.result, ANSWER_TEXT);

    const [resolved] = await deliveriesOf(
      'the resolved notification',
      () => receiver.of(call.workflowId, 'question.resolved'),
      1,
    );
    const sent = resolved?.event.record.remindersSent ?? 0;
    assert.ok(sent >= 2, `${sent} reminders recorded`);
    assert.deepEqual(
      receiver.of(call.workflowId, 'question.reminder').map((delivery) => delivery.event.reminder),
      Array.from({ length: sent }, (_, index) => index + 1),
    );
    // The answer cancelled the timer of the next reminder; nothing was started after it but the resolved delivery.
    const types = await eventTypes(call.workflowId);
    const answeredAt = types.indexOf('workflowExecutionUpdateAccepted');
    const after = types.slice(answeredAt);
    assert.ok(after.includes('timerCanceled'), after.join(', '));
    assert.equal(after.filter((type) => type === 'startChildWorkflowExecutionInitiated').length, 1);
  });

  test('the escalation goes once, after reminders started, to the escalation URLs only', async () => {
    const call = ask('escalated-bot', 'escalated-1');
    const [escalation] = await deliveriesOf(
      'the escalation',
      () => receiver.of(call.workflowId, 'question.escalated'),
      1,
    );
    // A reminder after the escalation shows the question went on, and did not escalate again.
    await deliveriesOf(
      'a reminder after the escalation',
      () =>
        receiver
          .of(call.workflowId, 'question.reminder')
          .filter((delivery) => delivery.event.occurredAt > (escalation?.event.occurredAt ?? '')),
      1,
    );
    await questions.answer(call.workflowId, { ...ANSWER, answeredBy: 'frank' });
    assert.equal(await call.result, ANSWER_TEXT);
    const [resolved] = await deliveriesOf(
      'the resolved notification',
      () => receiver.of(call.workflowId, 'question.resolved'),
      1,
    );

    assert.equal(receiver.of(call.workflowId, 'question.escalated').length, 1);
    assert.equal(escalation?.path, '/escalation');
    assert.equal(escalation?.headers['x-ask-user-delivery'], `${call.workflowId}#question.escalated`);
    assert.equal(escalation?.event.record.status, 'pending');
    // Nothing else goes to the escalation URL, and the escalation goes nowhere else.
    assert.deepEqual(
      receiver.of(call.workflowId, undefined, '/escalation').map((delivery) => delivery.event.event),
      ['question.escalated'],
    );
    assert.equal(receiver.of(call.workflowId, 'question.escalated', '/hooks').length, 0);
    const [firstReminder] = receiver.of(call.workflowId, 'question.reminder');
    assert.ok((firstReminder?.event.occurredAt ?? '') < (escalation?.event.occurredAt ?? ''));
    assert.equal(
      Date.parse(escalation?.event.occurredAt ?? '') - Date.parse(escalation?.event.record.askedAt ?? '') >=
        2_500,
      true,
    );
    assert.equal(resolved?.event.record.escalatedAt, escalation?.event.occurredAt);
  });
});

describe('ops surfaces', () => {
  test('ask-user extend moves the deadline, and ask-user show prints it with the change', async () => {
    const call = ask('cli-bot', 'cli-1', { expireAfter: '1h' });
    const pending = await waitForPendingRecord(client, call.workflowId);
    const cli = async (
      ...args: string[]
    ): Promise<{ code: number | null; stdout: string; stderr: string }> => {
      const child = startChild(process.execPath, ['./bin/ask-user.js', ...args], {
        TEMPORAL_ADDRESS: env.address,
        TEMPORAL_NAMESPACE: 'default',
        USER: 'cli-tester',
      });
      const exit = await child.waitForExit(60_000);
      return { code: exit.code, stdout: child.stdout(), stderr: child.stderr() };
    };

    const later = await cli('extend', call.workflowId, '90m', '--as', 'alice');
    const afterLater = new Date(Date.parse(pending.expiresAt ?? '') + 5_400_000).toISOString();
    assert.equal(later.code, 0, later.stderr);
    assert.equal(later.stdout, `Deadline of ${call.workflowId} is now ${afterLater}.\n`);
    const earlier = await cli('extend', call.workflowId, '-30m');
    const afterEarlier = new Date(Date.parse(afterLater) - 1_800_000).toISOString();
    assert.equal(earlier.code, 0, earlier.stderr);
    assert.equal(earlier.stdout, `Deadline of ${call.workflowId} is now ${afterEarlier}.\n`);

    const record = await questions.get(call.workflowId);
    const [first, second] = record.deadlineChanges ?? [];
    const show = await cli('show', call.workflowId);
    assert.equal(show.code, 0, show.stderr);
    const lines = show.stdout.split('\n');
    const expires = lines.indexOf(`expires ${afterEarlier}`);
    assert.ok(expires > 0, show.stdout);
    assert.deepEqual(lines.slice(expires + 1, expires + 3), [
      `  moved from ${pending.expiresAt} by alice at ${first?.changedAt}`,
      `  moved from ${afterLater} by cli-tester at ${second?.changedAt}`,
    ]);

    const bad = await cli('extend', call.workflowId, 'soon');
    assert.equal(bad.code, 1);
    assert.equal(
      bad.stderr,
      'ask-user: invalid arguments: extendDeadline.by: must be a duration such as 2h or -30m, or a whole number of milliseconds\n',
    );
    const missing = await cli('extend', call.workflowId);
    assert.equal(missing.code, 2);
    assert.equal(
      missing.stderr,
      'ask-user: extend needs one duration after the id, such as 2h, 90m or -30m\nRun `ask-user extend --help` for usage.\n',
    );
    await questions.decline(call.workflowId);
  });

  test('POST /api/questions/:id/extend moves the deadline as the caller; bad input is 400, a resolved question 409', async () => {
    const inbox: InboxServer = await startTestInbox(client);
    try {
      const call = ask('inbox-bot', 'inbox-1', { expireAfter: '1h' });
      const pending = await waitForPendingRecord(client, call.workflowId);
      const path = `${questionPath(call.workflowId)}/extend`;

      const moved = await request(inbox, 'POST', path, {
        headers: { ...bearer(), 'x-ask-user-name': 'grace' },
        body: JSON.stringify({ by: '2h' }),
      });
      assert.equal(moved.status, 200, moved.text);
      const body = moved.json as QuestionRecord & { workflowId: string };
      assert.equal(body.workflowId, call.workflowId);
      assert.equal(body.expiresAt, new Date(Date.parse(pending.expiresAt ?? '') + 7_200_000).toISOString());
      assert.equal(body.deadlineChanges?.[0]?.extendedBy, 'grace');

      const invalid = await request(inbox, 'POST', path, {
        headers: bearer(),
        body: JSON.stringify({ by: 'soon' }),
      });
      assert.equal(invalid.status, 400);
      // The route's schema refuses text that is no duration (the document's pattern), before any update.
      assert.deepEqual(invalid.json, {
        error: 'BAD_REQUEST',
        message: 'by: must be a duration such as 2h or -30m',
      });
      const spoofed = await request(inbox, 'POST', path, {
        headers: bearer(),
        body: JSON.stringify({ by: '1h', extendedBy: 'mallory' }),
      });
      assert.equal(spoofed.status, 400);
      assert.deepEqual(spoofed.json, {
        error: 'BAD_REQUEST',
        message: 'extendedBy: comes from your login, not from the request body',
      });
      const missing = await request(inbox, 'POST', path, { headers: bearer(), body: '{}' });
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.json, {
        error: 'BAD_REQUEST',
        message: 'by: must be a duration such as 2h or -30m',
      });

      const declined = await questions.decline(call.workflowId, { declinedBy: 'heidi' });
      const late = await request(inbox, 'POST', path, {
        headers: bearer(),
        body: JSON.stringify({ by: '1h' }),
      });
      assert.equal(late.status, 409);
      assert.deepEqual(late.json, {
        error: 'ALREADY_RESOLVED',
        message: `the question was already declined by heidi at ${declined.resolvedAt}`,
      });
    } finally {
      await inbox.close();
    }
  });
});
