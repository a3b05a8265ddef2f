/**
 * Answering in Slack, end to end: a real dev server and worker whose Slack bot posts to a loopback stand-in of
 * Slack's Web API, and the real inbox serving `/slack/interactions`, to which the stand-in sends signed
 * interactions built from the messages and modals the bot really posted. Every control answers exactly (the
 * agent gets the answer's JSON or the decision), the message is updated to show the winner, a late click and a
 * refusal get an ephemeral message and record nothing, a request that is not Slack's gets 401, reminders
 * go to the first message's thread, a policy's escalation to `slack-bot:<channel>` is a message there that
 * answers, and an edit the agent's hook turns into a denial is shown as that denial, in the modal and after.
 * With no worker on a question's task queue, a click's answer is recorded for a worker to validate, the clicker
 * is told so, and the message keeps its controls.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import {
  TemporalUserInteraction,
  UserInteractionError,
  questionWorkflowId,
  serializeAnswer,
} from '../../src';
import { inputSha256 } from '../../src/answer';
import { QuestionClient } from '../../src/ops';
import { InboxAuth, QuestionIndex, startInboxServer, type InboxServer } from '../../src/inbox';
import { SLACK_ACTIONS, interactiveMessage } from '../../src/slack-messages';
import {
  INPUT_BLOCK,
  REASON_BLOCK,
  STOP_BLOCK,
  STOP_VALUE,
  createSlackInteractions,
  textBlockId,
  type SlackInteractions,
} from '../../src/slack';
import type { ApprovalDecision, AskUserQuestion } from '../../src/types';
import {
  blockAction,
  findElement,
  selectState,
  sendInteraction,
  startSlackStandIn,
  viewSubmission,
  type Json,
  type PostedMessage,
  type SlackStandIn,
} from '../helpers/slack-stand-in';
import { eventTypeName, historyEventTypes } from '../helpers/history';
import { INBOX_TOKEN } from '../helpers/inbox';
import { startTestEnvironment } from '../helpers/temporal';
import { eventually, waitFor } from '../helpers/wait';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = 'slack-interactions';
const SIGNING_SECRET = 'slack-signing-secret-for-tests';
const BOT_TOKEN = 'xoxb-test-bot-token';
const CHANNEL = 'C0OPS';
const ONCALL = 'C0ONCALL';
const ALICE = { id: 'U0ALICE', username: 'alice' };
const BOB = { id: 'U0BOB', username: 'bob' };
const CAROL = { id: 'U0CAROL', username: 'carol' };

let env: TestWorkflowEnvironment;
let slackApi: SlackStandIn;
let workers: RunningWorkers;
let slack: SlackInteractions;
let inbox: InboxServer;
let provider: TemporalUserInteraction;
let questions: QuestionClient;
let interactionsUrl: string;

before(async () => {
  env = await startTestEnvironment();
  slackApi = await startSlackStandIn();
  for (const user of [ALICE, BOB, CAROL]) slackApi.users.set(user.id, user.username);
  workers = runWorkers([
    await createAskUserTestWorker(env.nativeConnection, {
      taskQueue: TASK_QUEUE,
      webhooks: { slack: { botToken: BOT_TOKEN, channel: CHANNEL, apiUrl: slackApi.apiUrl } },
      policy: {
        agents: {
          'reminded-agent': { remindEvery: '1s', maxReminders: 1 },
          'restricted-agent': { audience: { users: ['carol'] } },
          'two-person-agent': { requiredApprovals: 2, forbidSelfApproval: true },
        },
      },
    }),
  ]);
  questions = new QuestionClient(env.client);
  slack = createSlackInteractions({
    signingSecret: SIGNING_SECRET,
    bot: { botToken: BOT_TOKEN, apiUrl: slackApi.apiUrl },
    questions,
    inboxUrl: 'https://inbox.example/',
  });
  inbox = await startInboxServer({
    index: new QuestionIndex(env.client, { pollIntervalMs: 200 }),
    auth: new InboxAuth({ token: INBOX_TOKEN }),
    port: 0,
    extraRoutes: [slack],
  });
  interactionsUrl = new URL(slack.path, inbox.url).href;
  provider = new TemporalUserInteraction({ client: env.client, taskQueue: TASK_QUEUE });
});

after(async () => {
  try {
    await provider?.close();
    await slack?.idle();
    await inbox?.close();
    await workers?.stop();
    await slackApi?.close();
  } finally {
    await env?.teardown();
  }
});

/** Starts a question through the provider: its workflow id, and the agent's wait. */
function ask(questionsAsked: AskUserQuestion[], agentId = 'slack-agent') {
  const agent = { id: agentId };
  const toolCallId = `call-${randomUUID()}`;
  const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
  const answer = provider.ask({ questions: questionsAsked, agent, toolCallId });
  // Rejections are asserted where a test expects one; an unobserved one must not end the process first.
  answer.catch(() => undefined);
  return { workflowId, answer };
}

/** The bot's first message about `workflowId`: top level, in `channel` (default the configured one). */
async function postedFor(workflowId: string, channel = CHANNEL): Promise<PostedMessage> {
  return await waitFor(`the bot's message for ${workflowId} in ${channel}`, () =>
    [...slackApi.messages.values()].find(
      (message) =>
        message.threadTs === undefined &&
        message.channel === channel &&
        JSON.stringify(message.blocks).includes(JSON.stringify(workflowId).slice(1, -1)),
    ),
  );
}

/**
 * A question's history (event type names) once its first post has settled (the delivery finished and reported the
 * message back): from then on, only an answer or a timer adds events.
 */
async function settledHistory(workflowId: string): Promise<string[]> {
  return await eventually(`the history of ${workflowId} to settle`, async () => {
    const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const reported = events.findIndex(
      (event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'notificationPosted',
    );
    const delivered = events.findIndex((event) => event.childWorkflowExecutionCompletedEventAttributes);
    // The last event a workflow task that saw both: nothing is left for the question to do.
    const last = events.length - 1;
    const idle = events[last]?.workflowTaskCompletedEventAttributes !== undefined;
    const startedAfterBoth = events.findLastIndex(
      (event, index) => index > Math.max(reported, delivered) && event.workflowTaskStartedEventAttributes,
    );
    return reported >= 0 && delivered >= 0 && idle && startedAfterBoth >= 0
      ? events.map(eventTypeName)
      : undefined;
  });
}

/**
 * Nothing reached the question since `before` (its settled history): no signal and no update in its history.
 * Other events (a workflow task of the server's own) are named in the log, not failed on.
 */
async function assertNothingRecorded(workflowId: string, before: string[]): Promise<void> {
  const now = await historyEventTypes(env.client, workflowId);
  const messages = (types: string[]) => types.filter((type) => /_SIGNALED$|_UPDATE_/.test(type));
  assert.deepEqual(messages(now), messages(before), `${workflowId}: ${now.slice(before.length).join(', ')}`);
  if (now.length !== before.length) {
    console.log(
      `${workflowId}: events after it settled, none a message: ${now.slice(before.length).join(', ')}`,
    );
  }
}

/** Sends a signed interaction and waits until the route has handled it. */
async function interact(payload: Json): Promise<{ status: number; text: string }> {
  const response = await sendInteraction(interactionsUrl, payload, { signingSecret: SIGNING_SECRET });
  await slack.idle();
  return response;
}

/** Clicks the element `actionId` of `message` as `user`. */
async function click(
  message: PostedMessage,
  user: typeof ALICE,
  actionId: string,
  state: Record<string, Record<string, Json>> = {},
  match?: (element: Json) => boolean,
): Promise<void> {
  const response = await interact(blockAction(message, user, findElement(message, actionId, match), state));
  assert.equal(response.status, 200);
}

/** The modal the bot opened last, after the click that opened it. */
function lastView(): (typeof slackApi.views)[number] {
  const view = slackApi.views.at(-1);
  assert.ok(view !== undefined, 'no modal was opened');
  return view;
}

/** The ephemeral messages sent to `user`. */
function ephemeralsTo(user: typeof ALICE): string[] {
  return slackApi
    .callsOf('chat.postEphemeral')
    .filter((call) => call.args.user === user.id)
    .map((call) => String(call.args.text));
}

/** The header of a message as it stands now. */
function headerOf(message: PostedMessage): string {
  const header = message.blocks.find((block) => block.type === 'header');
  const text = (header?.text as Json | undefined)?.text;
  return typeof text === 'string' ? text : '';
}

const DEPLOY: AskUserQuestion = {
  id: 'deploy',
  header: 'Deploy',
  question: 'Deploy build 1.4.2 to production?',
  options: [{ label: 'Yes (Recommended)' }, { label: 'No' }],
};

/** Alice submits the Edit… modal `view` with version 1.4.3: Slack gets an empty reply, the agent that edit. */
async function submitEditTo143(
  view: (typeof slackApi.views)[number],
  decision: Promise<ApprovalDecision>,
): Promise<void> {
  const edited = await interact(viewSubmission(view, ALICE, { [INPUT_BLOCK]: '{"version": "1.4.3"}' }));
  assert.equal(edited.text, '');
  const decided = await decision;
  assert.deepEqual(
    { ...decided, decidedAt: undefined },
    {
      type: 'edit',
      input: { version: '1.4.3' },
      decidedBy: 'alice',
      decidedAt: undefined,
      requestedInputSha256: inputSha256({ version: '1.4.2' }),
      inputSha256: inputSha256({ version: '1.4.3' }),
    },
  );
}

describe('Slack interactions', () => {
  test('a button answers a single-select question; the message shows the winner; a late click is told who won', async () => {
    const { workflowId, answer } = ask([DEPLOY]);
    const message = await postedFor(workflowId);
    const post = slackApi
      .callsOf('chat.postMessage')
      .find((call) => JSON.stringify(call.args.blocks).includes(`${SLACK_ACTIONS.answer}.1`));
    assert.equal(post?.token, BOT_TOKEN);
    const yes = findElement(message, `${SLACK_ACTIONS.answer}.0`);
    await click(message, ALICE, `${SLACK_ACTIONS.answer}.1`);
    assert.equal(serializeAnswer(await answer), '{"answers":[{"id":"deploy","selected":["No"]}]}');
    assert.equal(headerOf(message), 'Answered by alice');
    assert.match(JSON.stringify(message.blocks), /\*Answer:\* No/);
    assert.ok(
      !JSON.stringify(message.blocks).includes(SLACK_ACTIONS.answer),
      'the updated message has no answer buttons',
    );

    // Bob still sees the message as it was posted, and clicks its other button.
    const before = await questions.get(workflowId);
    assert.equal((await interact(blockAction(message, BOB, yes))).status, 200);
    const told = ephemeralsTo(BOB).at(-1) ?? '';
    assert.match(told, /^The question was already answered by alice at \d{4}-\d\d-\d\dT[\d:.]+Z\.$/);
    assert.deepEqual(await questions.get(workflowId), before);
  });

  test('checkboxes and a select of a two-question message, sent with Submit', async () => {
    const { workflowId, answer } = ask([
      {
        id: 'regions',
        question: 'Which regions?',
        multiSelect: true,
        options: [{ label: 'eu-west' }, { label: 'us-east' }, { label: 'ap-south' }],
      },
      { id: 'when', question: 'When?', options: [{ label: 'Now' }, { label: 'Tonight' }] },
    ]);
    const message = await postedFor(workflowId);
    const boxes = findElement(message, SLACK_ACTIONS.check);
    assert.equal(boxes.element.type, 'checkboxes');
    const menu = findElement(message, SLACK_ACTIONS.select);
    assert.equal(menu.element.type, 'static_select');
    const state = {
      [boxes.blockId]: { [SLACK_ACTIONS.check]: selectState(boxes.element, ['0', '2']) },
      [menu.blockId]: { [SLACK_ACTIONS.select]: selectState(menu.element, ['1']) },
    };
    // Ticking a box only changes the message's state: nothing is recorded until Submit.
    await click(message, ALICE, SLACK_ACTIONS.check, state);
    assert.equal((await questions.get(workflowId)).status, 'pending');
    await click(message, ALICE, SLACK_ACTIONS.submit, state);
    assert.equal(
      serializeAnswer(await answer),
      '{"answers":[{"id":"regions","selected":["eu-west","ap-south"]},{"id":"when","selected":["Tonight"]}]}',
    );
    assert.equal(headerOf(message), 'Answered by alice');
  });

  test('Other… opens a modal whose text is the answer', async () => {
    const { workflowId, answer } = ask([DEPLOY]);
    const message = await postedFor(workflowId);
    const opened = slackApi.views.length;
    await click(message, ALICE, SLACK_ACTIONS.other);
    assert.equal(slackApi.views.length, opened + 1);
    const view = lastView();
    const response = await interact(viewSubmission(view, ALICE, { [textBlockId(0)]: 'Ship it on Friday' }));
    assert.deepEqual({ status: response.status, text: response.text }, { status: 200, text: '' });
    assert.equal(
      serializeAnswer(await answer),
      '{"answers":[{"id":"deploy","selected":[],"custom":"Ship it on Friday"}]}',
    );
    assert.equal(headerOf(message), 'Answered by alice');
  });

  test('Decline… declines with the reason from its modal', async () => {
    const { workflowId, answer } = ask([DEPLOY]);
    const message = await postedFor(workflowId);
    await click(message, ALICE, SLACK_ACTIONS.decline);
    await interact(viewSubmission(lastView(), ALICE, { [REASON_BLOCK]: 'Freeze until Monday' }));
    await assert.rejects(answer, (error: unknown) => {
      assert.ok(UserInteractionError.isInstance(error));
      assert.equal(error.code, 'ASK_CANCELLED');
      assert.match(error.message, /Freeze until Monday/);
      return true;
    });
    const record = await questions.get(workflowId);
    assert.deepEqual(
      [record.status, record.declinedBy, record.declineReason],
      ['declined', 'alice', 'Freeze until Monday'],
    );
    assert.equal(headerOf(message), 'Declined by alice');
  });

  test('a select on a single-select question with two options chosen is refused by the rules: ephemeral, nothing recorded', async () => {
    const { workflowId } = ask([
      {
        id: 'size',
        question: 'Size?',
        options: ['XS', 'S', 'M', 'L', 'XL', 'XXL'].map((label) => ({ label })),
      },
    ]);
    const message = await postedFor(workflowId);
    const menu = findElement(message, SLACK_ACTIONS.select);
    // Slack's menu holds one option; a forged state holds two, and the workflow's validator refuses it.
    const forged = {
      [menu.blockId]: {
        [SLACK_ACTIONS.select]: {
          type: 'static_select',
          selected_options: (menu.element.options as Json[]).slice(0, 2),
        },
      },
    };
    await click(message, ALICE, SLACK_ACTIONS.submit, forged);
    assert.equal(
      ephemeralsTo(ALICE).at(-1),
      'Not recorded: ask_user_question received an invalid answer: answers[0].selected: question "size" allows one label, received 2.',
    );
    assert.equal((await questions.get(workflowId)).status, 'pending');
    const honest = { [menu.blockId]: { [SLACK_ACTIONS.select]: selectState(menu.element, ['5']) } };
    await click(message, ALICE, SLACK_ACTIONS.submit, honest);
    assert.deepEqual((await questions.get(workflowId)).answer?.answers, [{ id: 'size', selected: ['XXL'] }]);
  });

  test('someone outside the audience gets an ephemeral refusal and nothing is recorded', async () => {
    const { workflowId, answer } = ask([DEPLOY], 'restricted-agent');
    const message = await postedFor(workflowId);
    const history = await settledHistory(workflowId);
    await click(message, BOB, `${SLACK_ACTIONS.answer}.0`);
    assert.equal(
      ephemeralsTo(BOB).at(-1),
      'Not recorded: "bob" (no groups) may not answer this: it is assigned to users carol.',
    );
    assert.equal((await questions.get(workflowId)).status, 'pending');
    await assertNothingRecorded(workflowId, history);
    await click(message, CAROL, `${SLACK_ACTIONS.answer}.0`);
    assert.equal(
      serializeAnswer(await answer),
      '{"answers":[{"id":"deploy","selected":["Yes (Recommended)"]}]}',
    );
    assert.equal(headerOf(message), 'Answered by carol');
  });

  test('a wrong signature or a stale timestamp gets 401 and records nothing', async () => {
    const { workflowId } = ask([DEPLOY]);
    const message = await postedFor(workflowId);
    const payload = blockAction(message, ALICE, findElement(message, `${SLACK_ACTIONS.answer}.0`));
    const history = await settledHistory(workflowId);
    const calls = slackApi.calls.length;
    const forged = await sendInteraction(interactionsUrl, payload, { signingSecret: 'not-the-secret' });
    const stale = await sendInteraction(interactionsUrl, payload, {
      signingSecret: SIGNING_SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 6 * 60,
    });
    const unsigned = await sendInteraction(interactionsUrl, payload, {
      signingSecret: SIGNING_SECRET,
      signature: '',
    });
    await slack.idle();
    assert.deepEqual([forged.status, stale.status, unsigned.status], [401, 401, 401]);
    assert.equal(forged.text, 'invalid Slack signature\n');
    assert.equal((await questions.get(workflowId)).status, 'pending');
    await assertNothingRecorded(workflowId, history);
    assert.equal(slackApi.calls.length, calls, 'no Slack call was made for a request that is not Slack’s');
    await click(message, ALICE, `${SLACK_ACTIONS.answer}.0`);
    assert.equal((await questions.get(workflowId)).answeredBy, 'alice');
  });

  test('a reminder goes to the first message’s thread, and the resolution updates that message', async () => {
    const { workflowId, answer } = ask([DEPLOY], 'reminded-agent');
    const message = await postedFor(workflowId);
    const reminder = await waitFor('the reminder in the thread', () =>
      slackApi
        .callsOf('chat.postMessage')
        .find((call) => call.args.thread_ts !== undefined && String(call.args.text).includes('Reminder')),
    );
    assert.equal(reminder.args.thread_ts, message.ts);
    assert.equal(reminder.args.channel, CHANNEL);
    // Answered elsewhere (the CLI, the inbox): the question's own resolved notification updates the message.
    await questions.answer(workflowId, { answers: [{ id: 'deploy', selected: ['No'] }], answeredBy: 'dave' });
    await answer;
    await eventually('the message updated by the resolution', () =>
      headerOf(message) === 'Answered by dave' ? true : undefined,
    );
    const update = slackApi.callsOf('chat.update').find((call) => call.args.ts === message.ts);
    assert.equal(update?.args.channel, CHANNEL);
  });
});

describe('Slack interactions: escalation to a slack-bot: channel', () => {
  test('a policy whose escalateTo is slack-bot:<channel> is accepted; the escalation is posted there and answers', async () => {
    // Accepted where a policy is checked: this provider's constructor, and the question's start.
    const escalating = new TemporalUserInteraction({
      client: env.client,
      taskQueue: TASK_QUEUE,
      policy: { escalateAfter: '1s', escalateTo: [`slack-bot:${ONCALL}`] },
    });
    try {
      const agent = { id: 'slack-agent' };
      const toolCallId = `escalated-${randomUUID()}`;
      const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
      const answer = escalating.ask({ questions: [DEPLOY], agent, toolCallId });
      answer.catch(() => undefined);
      const first = await postedFor(workflowId);
      const escalation = await postedFor(workflowId, ONCALL);
      assert.equal(headerOf(escalation), 'Escalated: question from slack-agent is waiting');
      assert.notEqual(escalation.ts, first.ts);
      const post = slackApi.callsOf('chat.postMessage').find((call) => call.args.channel === ONCALL);
      assert.equal(post?.token, BOT_TOKEN);
      assert.equal(
        post?.args.thread_ts,
        undefined,
        'the escalation starts the on-call channel’s own message',
      );
      assert.match((await questions.get(workflowId)).escalatedAt ?? '', /^\d{4}-\d\d-\d\dT/);

      // The on-call person answers in the escalation itself.
      await click(escalation, BOB, `${SLACK_ACTIONS.answer}.0`);
      assert.equal(
        serializeAnswer(await answer),
        '{"answers":[{"id":"deploy","selected":["Yes (Recommended)"]}]}',
      );
      assert.equal(headerOf(escalation), 'Answered by bob');
      assert.equal((await questions.get(workflowId)).answeredBy, 'bob');
    } finally {
      await escalating.close();
    }
  });
});

describe('Slack interactions: approvals', () => {
  const SCHEMA = {
    type: 'object',
    properties: { version: { type: 'string' } },
    required: ['version'],
    additionalProperties: false,
  };

  /** Asks to approve a `deploy` call; `onEdit` as the agent's hook would set it. */
  function requestApproval(onEdit?: 'suggest') {
    const agent = { id: 'slack-agent' };
    const toolCallId = `approval-${randomUUID()}`;
    const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
    const decision = provider.requestApproval({
      toolName: 'deploy',
      toolCallId,
      agent,
      description: 'Deploy to production',
      input: { version: '1.4.2' },
      inputSchema: SCHEMA,
      ...(onEdit === undefined ? {} : { onEdit }),
    });
    decision.catch(() => undefined);
    return { workflowId, decision };
  }

  test('Approve approves', async () => {
    const { workflowId, decision } = requestApproval();
    const message = await postedFor(workflowId);
    await click(message, ALICE, SLACK_ACTIONS.approve);
    const decided = await decision;
    assert.deepEqual(
      { ...decided, decidedAt: undefined },
      {
        type: 'approve',
        decidedBy: 'alice',
        decidedAt: undefined,
        requestedInputSha256: inputSha256({ version: '1.4.2' }),
        inputSha256: inputSha256({ version: '1.4.2' }),
      },
    );
    assert.equal(headerOf(message), 'Approved by alice: deploy');
  });

  test("under the worker's two-person rule, Approve records 1 of 2: the clicker is told, the message shows it with its controls; the requester is refused; a second Approve decides", async () => {
    const agent = { id: 'two-person-agent' };
    const toolCallId = `approval-${randomUUID()}`;
    const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
    const input = { version: '1.4.2' };
    const decision = provider.requestApproval({
      toolName: 'deploy',
      toolCallId,
      agent,
      input,
      requestedBy: 'carol',
    });
    decision.catch(() => undefined);
    const message = await postedFor(workflowId);
    // The message's ts reaches the question by a signal after the post; a notification sent before that (a click
    // within moments of the post) posts a fresh message instead of rewriting this one. Click once it knows.
    await settledHistory(workflowId);
    assert.match(JSON.stringify(message.blocks), /\*Requested by:\* carol/);
    assert.match(JSON.stringify(message.blocks), /\*Decisions:\* 0 of 2 approvals/);

    await click(message, ALICE, SLACK_ACTIONS.approve);
    assert.equal(
      ephemeralsTo(ALICE).at(-1),
      'Recorded your decision: 1 of 2 approvals (alice). The call waits for the rest.',
    );
    // The approval.progress notification rewrites the message: the count and who, the controls kept.
    await waitFor('the message to show 1 of 2', () =>
      headerOf(message) === '1 of 2 approvals: deploy from two-person-agent waits for more'
        ? true
        : undefined,
    );
    assert.match(JSON.stringify(message.blocks), /\*Decisions:\* 1 of 2 approvals \(alice\)/);
    findElement(message, SLACK_ACTIONS.approve);

    await click(message, CAROL, SLACK_ACTIONS.approve);
    assert.equal(
      ephemeralsTo(CAROL).at(-1),
      'Not recorded: forbidSelfApproval: carol asked for this call of deploy, so carol may not decide it; someone else must.',
    );
    await click(message, ALICE, SLACK_ACTIONS.approve);
    assert.match(
      ephemeralsTo(ALICE).at(-1) ?? '',
      /^Not recorded: requiredApprovals: alice already approved this call at /,
    );
    assert.equal((await questions.get(workflowId)).status, 'pending');

    await click(message, BOB, SLACK_ACTIONS.approve);
    const decided = await decision;
    assert.equal(decided.type, 'approve');
    assert.equal(decided.decidedBy, 'bob');
    assert.equal(headerOf(message), 'Approved by bob: deploy');
    assert.deepEqual(
      (await questions.get(workflowId)).approvals?.map((given) => given.decidedBy),
      ['alice', 'bob'],
    );
  });

  test('Deny… rejects with the reason from its modal', async () => {
    const { workflowId, decision } = requestApproval();
    const message = await postedFor(workflowId);
    await click(message, ALICE, SLACK_ACTIONS.deny);
    await interact(viewSubmission(lastView(), ALICE, { [REASON_BLOCK]: 'Not during the incident' }));
    const decided = await decision;
    assert.deepEqual(
      { ...decided, decidedAt: undefined },
      {
        type: 'reject',
        reason: 'Not during the incident',
        decidedBy: 'alice',
        decidedAt: undefined,
        requestedInputSha256: inputSha256({ version: '1.4.2' }),
      },
    );
    assert.match(headerOf(message), /by alice: deploy$/);
  });

  test("Deny… with its stop box ticked rejects and stops the agent's run; the message says so", async () => {
    const { workflowId, decision } = requestApproval();
    const message = await postedFor(workflowId);
    await click(message, ALICE, SLACK_ACTIONS.deny);
    const view = lastView();
    await interact(
      viewSubmission(view, ALICE, { [REASON_BLOCK]: 'Wrong cluster', [STOP_BLOCK]: [STOP_VALUE] }),
    );
    const decided = await decision;
    assert.deepEqual(
      {
        type: decided.type,
        stop: decided.type === 'reject' ? decided.stop : undefined,
        by: decided.decidedBy,
      },
      { type: 'reject', stop: true, by: 'alice' },
    );
    assert.match(headerOf(message), /by alice: deploy$/);
    assert.match(JSON.stringify(message.blocks), /The agent's run was stopped too/);
  });

  test('Edit… shows the input as JSON; text that is not JSON or breaks the schema stays in the modal, recorded nothing', async () => {
    const { workflowId, decision } = requestApproval();
    const message = await postedFor(workflowId);
    await click(message, ALICE, SLACK_ACTIONS.edit);
    const view = lastView();
    const input = (view.view.blocks as Json[]).find((block) => block.block_id === INPUT_BLOCK);
    assert.equal((input?.element as Json | undefined)?.initial_value, '{\n  "version": "1.4.2"\n}');

    const notJson = await interact(viewSubmission(view, ALICE, { [INPUT_BLOCK]: '{"version": ' }));
    const notJsonReply = JSON.parse(notJson.text) as {
      response_action: string;
      errors: Record<string, string>;
    };
    assert.equal(notJsonReply.response_action, 'errors');
    assert.match(notJsonReply.errors[INPUT_BLOCK] ?? '', /^Not valid JSON: /);

    const outside = await interact(viewSubmission(view, ALICE, { [INPUT_BLOCK]: '{"version": 2}' }));
    assert.deepEqual(JSON.parse(outside.text), {
      response_action: 'errors',
      errors: {
        [INPUT_BLOCK]:
          'invalid decision: input.version: Instance type "number" is invalid. Expected "string"',
      },
    });
    assert.equal((await questions.get(workflowId)).status, 'pending');

    await submitEditTo143(view, decision);
  });
  test("Edit… of an approval whose agent runs only its model's input says, before and after, that the edit is a denial", async () => {
    const effect =
      'deploy does not run: this agent runs a call only with the input its model gave, so it receives a denial ' +
      'that suggests calling deploy again with the edited input.';
    const { workflowId, decision } = requestApproval('suggest');
    const message = await postedFor(workflowId);
    await click(message, ALICE, SLACK_ACTIONS.edit);
    const view = lastView();
    assert.equal((view.view.title as Json).text, 'Suggest an input');
    assert.equal((view.view.submit as Json).text, 'Deny and suggest');
    const lead = (view.view.blocks as Json[]).find((block) => block.type === 'section');
    assert.equal((lead?.text as Json | undefined)?.text, `*An edit does not approve this call.* ${effect}`);

    await submitEditTo143(view, decision);
    assert.equal(headerOf(message), 'Denied with a suggested input by alice: deploy');
    const sections = message.blocks
      .filter((block) => block.type === 'section')
      .map((block) => (block.text as Json).text);
    assert.deepEqual(sections.slice(1), [
      '*Suggested input:*\n```{\n  "version": "1.4.3"\n}```',
      `*What the agent receives:* ${effect}`,
    ]);
  });

  test('with no worker on the task queue, a click records the answer for a worker: the clicker is told so, the message is left as it was', async () => {
    const taskQueue = 'slack-no-worker';
    const noWorker = new TemporalUserInteraction({ client: env.client, taskQueue });
    try {
      const agent = { id: 'slack-agent' };
      const toolCallId = `call-${randomUUID()}`;
      const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
      noWorker.ask({ questions: [DEPLOY], agent, toolCallId }).catch(() => undefined);
      const record = await eventually('the question to be started', async () =>
        questions.get(workflowId).catch(() => undefined),
      );
      // No worker posts it either: the message is the one the bot would have posted.
      const posted = interactiveMessage({ event: 'question.pending', workflowId, record });
      const message: PostedMessage = {
        channel: CHANNEL,
        ts: '1800000000.000100',
        text: posted.text,
        blocks: posted.blocks as unknown as Json[],
      };
      slackApi.messages.set(message.ts, message);
      const shown = JSON.stringify(message.blocks);
      const updates = slackApi.callsOf('chat.update').length;

      await click(message, ALICE, `${SLACK_ACTIONS.answer}.1`);
      const told = ephemeralsTo(ALICE).at(-1) ?? '';
      const answerId =
        /^Recorded your answer \(answer ([0-9a-f-]{36})\), but no worker took it: it waits for a worker on task queue slack-no-worker to validate it\./.exec(
          told,
        )?.[1];
      assert.ok(answerId !== undefined, told);
      assert.equal(slackApi.callsOf('chat.update').length, updates);
      assert.equal(JSON.stringify(message.blocks), shown);
      const waiting = await questions.get(workflowId);
      assert.equal(waiting.status, 'pending');
      assert.deepEqual(
        waiting.unvalidatedAnswers?.map((answer) => [answer.answerId, answer.answeredBy]),
        [[answerId, 'alice']],
      );
      await env.client.workflow.getHandle(workflowId).terminate('test cleanup');
    } finally {
      await noWorker.close();
    }
  });
});
