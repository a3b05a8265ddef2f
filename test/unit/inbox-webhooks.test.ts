/**
 * Notifications that point into the inbox: the question's link in every webhook payload once the worker knows
 * the inbox's address, and Slack's incoming-webhook format, chosen per target URL. The activity runs in
 * `MockActivityEnvironment` with a fake `fetch`; what it would POST is asserted whole.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';

import { createActivities, webhookOptionsFromEnv, type Activities } from '../../src/activities';
import { webhookTarget } from '../../src/question/webhook-target';
import { slackMessage } from '../../src/slack-messages';
import { inboxLink } from '../../src/inbox';
import type { WebhookEvent } from '../../src/question/webhook-event';
import type { QuestionRecord } from '../../src/types';

const WORKFLOW_ID = 'ask-user-question/deploy-bot/call_1';
const LINK = 'https://inbox.example.test/#/q/ask-user-question%2Fdeploy-bot%2Fcall_1';

const pendingEvent: WebhookEvent = {
  event: 'question.pending',
  workflowId: WORKFLOW_ID,
  runId: '3f0c1c7e-0000-4000-8000-000000000001',
  occurredAt: '2025-01-02T03:04:05.000Z',
  record: {
    questions: [
      {
        id: 'deploy',
        header: 'Deploy',
        question: 'Deploy build 1.4.2 to <production> & tell <!channel>?',
        options: [{ label: 'Yes (Recommended)', description: 'All checks passed' }, { label: 'No' }],
      },
      { id: 'note', question: 'Anything to tell the on-call engineer?' },
    ],
    status: 'pending',
    agent: { id: 'deploy-bot' },
    askedAt: '2025-01-02T03:04:05.000Z',
    rejectedAnswers: [],
  },
};

const resolvedEvent: WebhookEvent = {
  ...pendingEvent,
  event: 'question.resolved',
  occurredAt: '2025-01-02T03:05:00.000Z',
  record: {
    ...pendingEvent.record,
    status: 'answered',
    resolvedAt: '2025-01-02T03:05:00.000Z',
    answeredBy: 'alice',
    answer: {
      answers: [
        { id: 'deploy', selected: ['Yes (Recommended)'] },
        { id: 'note', selected: [], custom: 'watch <the> error rate' },
      ],
    },
  },
};

interface Posted {
  url: string;
  body: unknown;
}

/** Runs `deliverWebhook` once with a `fetch` that answers 200, and returns what it posted. */
async function deliver(options: { inboxUrl?: string }, url: string, payload: WebhookEvent): Promise<Posted> {
  const posted: Posted[] = [];
  const activities: Activities = createActivities({
    ...options,
    fetch: async (input, init) => {
      posted.push({ url: input as string, body: JSON.parse(init?.body as string) });
      return new Response('ok', { status: 200 });
    },
  });
  const environment = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  await environment.run((input: { url: string; payload: WebhookEvent }) => activities.deliverWebhook(input), {
    url,
    payload,
  });
  assert.equal(posted.length, 1);
  return posted[0]!;
}

describe('the inbox link in webhook payloads', () => {
  test('inboxLink puts the encoded workflow id in the fragment, with or without a trailing slash', () => {
    assert.equal(inboxLink('https://inbox.example.test/', WORKFLOW_ID), LINK);
    assert.equal(inboxLink('https://inbox.example.test', WORKFLOW_ID), LINK);
    assert.equal(
      inboxLink('http://127.0.0.1:8234/ops/#token=abc', 'ask-user-question/a%2Fb/c'),
      'http://127.0.0.1:8234/ops/#/q/ask-user-question%2Fa%252Fb%2Fc',
    );
  });

  test('with an inbox URL the JSON payload carries link; without one it is exactly the event', async () => {
    const withLink = await deliver(
      { inboxUrl: 'https://inbox.example.test/' },
      'https://hooks.example.test/x',
      pendingEvent,
    );
    assert.equal(withLink.url, 'https://hooks.example.test/x');
    assert.deepEqual(withLink.body, { ...pendingEvent, link: LINK });
    const without = await deliver({}, 'https://hooks.example.test/x', pendingEvent);
    assert.deepEqual(without.body, pendingEvent);
  });

  test('ASK_USER_INBOX_URL sets it; a URL that is not http(s) is refused when the worker starts', () => {
    assert.deepEqual(webhookOptionsFromEnv({ ASK_USER_INBOX_URL: ' https://inbox.example.test/ ' }), {
      inboxUrl: 'https://inbox.example.test/',
    });
    assert.throws(() => createActivities({ inboxUrl: 'inbox.example.test' }), {
      message: 'inbox URL "inbox.example.test": not a valid URL',
    });
    assert.throws(() => createActivities({ inboxUrl: 'ftp://inbox.example.test' }), {
      message: 'inbox URL "ftp://inbox.example.test": must use http or https',
    });
  });
});

describe('the Slack format', () => {
  test('chosen for hooks.slack.com and for the slack+ prefix, which is removed before posting', () => {
    assert.deepEqual(webhookTarget('https://hooks.slack.com/services/T0/B0/xyz'), {
      url: 'https://hooks.slack.com/services/T0/B0/xyz',
      format: 'slack',
    });
    assert.deepEqual(webhookTarget('slack+http://127.0.0.1:9000/hook'), {
      url: 'http://127.0.0.1:9000/hook',
      format: 'slack',
    });
    assert.deepEqual(webhookTarget('https://hooks.example.test/x'), {
      url: 'https://hooks.example.test/x',
      format: 'json',
    });
    assert.throws(() => createActivities({ webhookUrls: ['slack+ftp://x'] }), {
      message: 'webhook URL "slack+ftp://x": must use http or https',
    });
  });

  test('a pending question: header, each question with its options, the id, and the inbox button', async () => {
    const posted = await deliver(
      { inboxUrl: 'https://inbox.example.test/' },
      'slack+https://chat.example.test/hooks/ask-user',
      pendingEvent,
    );
    assert.equal(posted.url, 'https://chat.example.test/hooks/ask-user');
    assert.deepEqual(posted.body, {
      text: `Question from deploy-bot: Deploy ${LINK}`,
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Question from deploy-bot' } },
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: [
              '*Deploy*',
              'Deploy build 1.4.2 to &lt;production&gt; &amp; tell &lt;!channel&gt;?',
              '_Choose one:_',
              '• Yes (Recommended) :star: — All checks passed',
              '• No',
            ].join('\n'),
          },
        },
        {
          type: 'section',
          text: { type: 'mrkdwn', text: 'Anything to tell the on-call engineer?\n_Free-form answer_' },
        },
        {
          type: 'context',
          elements: [{ type: 'mrkdwn', text: '`ask-user-question/deploy-bot/call_1` · asked by deploy-bot' }],
        },
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              text: { type: 'plain_text', text: 'Answer in the inbox' },
              url: LINK,
              style: 'primary',
            },
          ],
        },
      ],
    });
  });

  test('a resolved question says who answered and what, escaped; without an inbox URL there is no button', async () => {
    const posted = await deliver({}, 'https://hooks.slack.com/services/T0/B0/xyz', resolvedEvent);
    assert.equal(posted.url, 'https://hooks.slack.com/services/T0/B0/xyz');
    const message = posted.body as ReturnType<typeof slackMessage>;
    assert.equal(message.text, 'Answered by alice: Deploy');
    assert.deepEqual(message.blocks[0], {
      type: 'header',
      text: { type: 'plain_text', text: 'Answered by alice' },
    });
    assert.match(
      (message.blocks[1] as { text: { text: string } }).text.text,
      /\n\*Answer:\* Yes \(Recommended\)$/,
    );
    assert.match(
      (message.blocks[2] as { text: { text: string } }).text.text,
      /\n\*Answer:\* watch &lt;the&gt; error rate$/,
    );
    assert.equal(message.blocks.length, 4, 'header, two questions, context: no button');
    assert.deepEqual(
      slackMessage({
        ...resolvedEvent,
        record: {
          ...pendingEvent.record,
          status: 'declined',
          declinedBy: 'bob',
          declineReason: 'not <today>',
        },
      }).blocks.at(-1),
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: '`ask-user-question/deploy-bot/call_1` · asked by deploy-bot · reason: not &lt;today&gt;',
          },
        ],
      },
    );
  });
});

describe('slackMessage for approvals', () => {
  const approvalRecord: QuestionRecord = {
    questions: [],
    approval: {
      toolName: 'deploy',
      description: 'Roll out <checkout>',
      input: { service: 'checkout', note: '```<!channel>' },
    },
    status: 'pending',
    agent: { id: 'deploy-bot' },
    toolCallId: 'call_9',
    askedAt: '2026-01-01T00:00:00.000Z',
    rejectedAnswers: [],
  };
  const pending: WebhookEvent = {
    event: 'approval.pending',
    workflowId: 'ask-user-question/deploy-bot/call_9',
    runId: 'run-1',
    occurredAt: '2026-01-01T00:00:00.000Z',
    record: approvalRecord,
    link: 'https://inbox.example/#/q/x',
  };

  test('approval.pending shows the tool, its description and its input, escaped, with a decide button', () => {
    const message = slackMessage(pending);
    assert.equal(
      message.text,
      'Approve deploy? Asked by deploy-bot: Roll out <checkout> https://inbox.example/#/q/x',
    );
    assert.deepEqual(message.blocks[0], {
      type: 'header',
      text: { type: 'plain_text', text: 'Approve deploy? Asked by deploy-bot' },
    });
    assert.deepEqual(message.blocks[1], {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: [
          '*deploy* wants to run with this input:',
          'Roll out &lt;checkout&gt;',
          '```{',
          '  "service": "checkout",',
          '  "note": "``\u200b`&lt;!channel&gt;"',
          '}```',
        ].join('\n'),
      },
    });
    const actions = message.blocks.at(-1) as { elements: { text: { text: string }; style?: string }[] };
    assert.equal(actions.elements[0]?.text.text, 'Decide in the inbox');
    assert.equal(actions.elements[0]?.style, 'primary');
  });

  test('approval.decided names the decision and who took it, with the edit, the reason or the response', () => {
    const decided = (decision: NonNullable<QuestionRecord['decision']>): ReturnType<typeof slackMessage> =>
      slackMessage({
        ...pending,
        event: 'approval.decided',
        record: { ...approvalRecord, status: 'answered', decision },
      });
    const at = '2026-01-01T00:05:00.000Z';
    const headers = (message: ReturnType<typeof slackMessage>): string =>
      (message.blocks[0] as { text: { text: string } }).text.text;
    const approved = decided({ type: 'approve', decidedBy: 'alice', decidedAt: at });
    assert.equal(headers(approved), 'Approved by alice: deploy');
    assert.equal(approved.blocks.length, 4, 'header, tool call, context, open button');

    const edited = decided({ type: 'edit', input: { service: 'cart' }, decidedBy: 'alice', decidedAt: at });
    assert.equal(headers(edited), 'Approved with an edited input by alice: deploy');
    assert.deepEqual(edited.blocks[2], {
      type: 'section',
      text: { type: 'mrkdwn', text: '*Edited input:*\n```{\n  "service": "cart"\n}```' },
    });

    const rejected = decided({ type: 'reject', reason: 'freeze <today>', decidedBy: 'bob', decidedAt: at });
    assert.equal(headers(rejected), 'Rejected by bob: deploy');
    assert.deepEqual(rejected.blocks[2], {
      type: 'section',
      text: { type: 'mrkdwn', text: '*Reason:* freeze &lt;today&gt;' },
    });

    const responded = decided({ type: 'respond', text: 'done by hand', decidedBy: 'carol', decidedAt: at });
    assert.equal(headers(responded), 'Answered with a response by carol: deploy');
    assert.deepEqual(responded.blocks[2], {
      type: 'section',
      text: { type: 'mrkdwn', text: '*Response:* done by hand' },
    });

    const expired = slackMessage({
      ...pending,
      event: 'approval.decided',
      record: {
        ...approvalRecord,
        status: 'expired',
        decision: { type: 'reject', reason: 'nobody decided', decidedBy: 'policy:expired', decidedAt: at },
      },
    });
    assert.equal(headers(expired), 'Expired: deploy rejected by its policy');
    const button = expired.blocks.at(-1) as { elements: { text: { text: string } }[] };
    assert.equal(button.elements[0]?.text.text, 'Open in the inbox');
  });
});
