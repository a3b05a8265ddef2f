/**
 * Question policies without a server: how durations are read, how a policy is checked (every mistake named by
 * its field), how agent overrides and the provider's and worker's policies combine, and what reaches the
 * workflow: the start input from the provider, the start-time local activity's result from the worker.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { slackMessage } from '../../src/slack-messages';
import { createActivities, hasQuestionDefaults } from '../../src/activities/webhook-activities';
import { TemporalUserInteraction } from '../../src/provider';
import { createAskUserWorker } from '../../src/worker';
import type { QuestionPolicies, QuestionRecord } from '../../src/types';
import {
  checkPolicies,
  mergePolicies,
  parseDuration,
  policyFor,
  policyFromEnv,
} from '../../src/question/question-policy';
import { questionStart } from '../../src/question/question-start';
import type { WebhookEvent } from '../../src/question/webhook-event';

const QUESTIONS = [
  { id: 'deploy', question: 'Deploy?', options: [{ label: 'Yes (Recommended)' }, { label: 'No' }] },
];
const ASKED_AT = '2026-01-02T03:04:05.000Z';
const uuid = (): string => '00000000-0000-4000-8000-000000000000';

const POLICIES: QuestionPolicies = {
  expireAfter: '2h',
  onExpiry: 'error',
  agents: {
    'deploy-bot': { onExpiry: 'recommended', remindEvery: '15m', maxReminders: 3 },
    'triage-bot': { escalateAfter: '1h', escalateTo: ['slack+https://chat.example/hook'] },
  },
};

/** The message `fn` throws. */
function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  assert.fail('expected an error');
}

describe('durations', () => {
  test('text with units, or whole milliseconds; signed only where asked', () => {
    assert.equal(parseDuration('90s'), 90_000);
    assert.equal(parseDuration('1h30m'), 5_400_000);
    assert.equal(parseDuration('1d'), 86_400_000);
    assert.equal(parseDuration('1500ms'), 1_500);
    assert.equal(parseDuration(2_000), 2_000);
    assert.equal(parseDuration('-30m'), undefined);
    assert.equal(parseDuration('-30m', { signed: true }), -1_800_000);
    assert.equal(parseDuration(-5, { signed: true }), -5);
    for (const bad of ['2 hours', '2H', '1.5h', 'h', '', '30', 1.5, Number.NaN, null, {}]) {
      assert.equal(parseDuration(bad, { signed: true }), undefined, JSON.stringify(bad));
    }
  });
});

describe('checking policies', () => {
  test("an agent's entry replaces the fields it sets and keeps the others", () => {
    const checked = checkPolicies(POLICIES);
    assert.deepEqual(policyFor(checked, 'deploy-bot'), {
      expireAfterMs: 7_200_000,
      onExpiry: 'recommended',
      remindEveryMs: 900_000,
      maxReminders: 3,
    });
    assert.deepEqual(policyFor(checked, 'triage-bot'), {
      expireAfterMs: 7_200_000,
      onExpiry: 'error',
      escalateAfterMs: 3_600_000,
      escalateTo: ['slack+https://chat.example/hook'],
    });
    assert.deepEqual(policyFor(checked, 'someone-else'), { expireAfterMs: 7_200_000, onExpiry: 'error' });
    assert.deepEqual(policyFor(checked, undefined), { expireAfterMs: 7_200_000, onExpiry: 'error' });
    assert.equal(policyFor(checkPolicies({}), 'deploy-bot'), undefined);
    // An agent id that is also an Object.prototype key is just an id.
    assert.deepEqual(
      policyFor(checkPolicies({ agents: { toString: { expireAfter: 5 } } }), 'constructor'),
      undefined,
    );
  });

  test('later levels win field by field', () => {
    assert.deepEqual(
      mergePolicies({ expireAfterMs: 1, onExpiry: 'recommended', remindEveryMs: 5_000 }, undefined, {
        expireAfterMs: 2,
      }),
      { expireAfterMs: 2, onExpiry: 'recommended', remindEveryMs: 5_000 },
    );
  });

  test('every mistake is named by its field, on the provider, the worker and ASK_USER_POLICY', () => {
    const cases: [unknown, string, string][] = [
      [
        { expireAfter: '2 hours' },
        'expireAfter',
        'must be a duration such as 90s, 30m, 2h or 1d, or a whole number of milliseconds',
      ],
      [{ expireAfter: 0 }, 'expireAfter', 'must be more than zero'],
      [{ expireAfter: '400d' }, 'expireAfter', 'must be at most 365d'],
      [{ onExpiry: 'allow' }, 'onExpiry', 'must be "error", "recommended" or "approve"'],
      [{ remindEvery: '500ms' }, 'remindEvery', 'must be at least 1s'],
      [{ maxReminders: 0 }, 'maxReminders', 'must be a whole number from 1 to 100'],
      [{ maxReminders: 101 }, 'maxReminders', 'must be a whole number from 1 to 100'],
      [
        { escalateAfter: '1h' },
        'escalateTo',
        'is needed with escalateAfter: the URLs that get the escalation',
      ],
      [{ escalateTo: [] }, 'escalateTo', 'must be a list of 1 to 20 webhook URLs'],
      [{ escalateTo: ['ftp://files.example'] }, 'escalateTo[0]', 'must use http or https'],
      [{ escalateTo: ['https://ok.example', 'hooks.example/x'] }, 'escalateTo[1]', 'not a valid URL'],
      [{ escalateTo: [42] }, 'escalateTo[0]', 'must be a webhook URL or slack-bot:<channel>'],
      [
        { escalateTo: ['slack-bot:'] },
        'escalateTo[0]',
        'must name a Slack channel, e.g. slack-bot:C0123ABCD',
      ],
      [
        { remindEvry: '1h' },
        'remindEvry',
        'unknown field (known: expireAfter, onExpiry, remindEvery, maxReminders, escalateAfter, escalateTo, audience, requiredApprovals, requiredRejections, forbidSelfApproval, agents)',
      ],
      [{ agents: [] }, 'agents', 'must be an object keyed by agent id'],
      [
        { agents: { 'deploy-bot': { remindEvery: '10ms' } } },
        'agents["deploy-bot"].remindEvery',
        'must be at least 1s',
      ],
      [
        { agents: { 'deploy-bot': { agents: {} } } },
        'agents["deploy-bot"].agents',
        'unknown field (known: expireAfter, onExpiry, remindEvery, maxReminders, escalateAfter, escalateTo, audience, requiredApprovals, requiredRejections, forbidSelfApproval)',
      ],
      [
        { agents: { 'deploy-bot': { escalateAfter: '1h' } } },
        'agents["deploy-bot"].escalateTo',
        'is needed with escalateAfter: the URLs that get the escalation',
      ],
    ];
    for (const [policy, field, reason] of cases) {
      assert.equal(
        thrown(() => new TemporalUserInteraction({ policy: policy as QuestionPolicies })),
        `TemporalUserInteraction option policy.${field}: ${reason}`,
      );
      assert.equal(
        thrown(() => createActivities({}, policy as QuestionPolicies)),
        `createAskUserWorker option policy.${field}: ${reason}`,
      );
      assert.equal(
        thrown(() => policyFromEnv({ ASK_USER_POLICY: JSON.stringify(policy) })),
        `ASK_USER_POLICY: ${field}: ${reason}`,
      );
    }
    assert.equal(
      thrown(() => new TemporalUserInteraction({ policy: 'strict' as never })),
      'TemporalUserInteraction option policy: must be an object',
    );
    assert.match(
      thrown(() => policyFromEnv({ ASK_USER_POLICY: '{expireAfter: 2h}' })),
      /^ASK_USER_POLICY: not valid JSON: /,
    );
  });

  test('escalateTo takes every target a webhook list takes: URLs, slack+ URLs and slack-bot:<channel>', () => {
    const policy: QuestionPolicies = {
      escalateAfter: '1h',
      escalateTo: ['https://oncall.example/hook', 'slack+https://chat.example/hook', 'slack-bot:C0ONCALL'],
    };
    assert.deepEqual(checkPolicies(policy).base.escalateTo, policy.escalateTo);
    assert.doesNotThrow(() => new TemporalUserInteraction({ policy }));
    assert.doesNotThrow(() => createActivities({ slack: { botToken: 'xoxb-1' } }, policy));
    assert.deepEqual(policyFromEnv({ ASK_USER_POLICY: JSON.stringify(policy) }), policy);
  });

  test('ASK_USER_POLICY holds the same form as the option; unset or blank means none', () => {
    assert.deepEqual(policyFromEnv({ ASK_USER_POLICY: JSON.stringify(POLICIES) }), POLICIES);
    assert.equal(policyFromEnv({}), undefined);
    assert.equal(policyFromEnv({ ASK_USER_POLICY: '  ' }), undefined);
  });
});

describe('what reaches the workflow', () => {
  test("the provider's policy for the asking agent goes into the start input, over questionTimeoutMs", () => {
    const start = questionStart(
      { questions: QUESTIONS, agent: { id: 'deploy-bot' }, toolCallId: 'call-1' },
      { policy: POLICIES, timeoutMs: 60_000 },
      uuid,
    );
    assert.deepEqual(start.input, {
      questions: QUESTIONS,
      agent: { id: 'deploy-bot' },
      toolCallId: 'call-1',
      policy: { expireAfterMs: 7_200_000, onExpiry: 'recommended', remindEveryMs: 900_000, maxReminders: 3 },
    });
  });

  test('questionTimeoutMs alone becomes the policy deadline; no settings leave only the questions', () => {
    const timed = questionStart({ questions: QUESTIONS }, { timeoutMs: 60_000 }, uuid);
    assert.deepEqual(timed.input, {
      questions: QUESTIONS,
      policy: { expireAfterMs: 60_000 },
    });
    const bare = questionStart({ questions: QUESTIONS }, {}, uuid);
    assert.deepEqual(bare.input, { questions: QUESTIONS });
    const empty = questionStart({ questions: QUESTIONS }, { policy: {} }, uuid);
    assert.deepEqual(empty.input, { questions: QUESTIONS });
    const none = questionStart({ questions: QUESTIONS }, { workerDefaults: false }, uuid);
    assert.deepEqual(none.input, { questions: QUESTIONS, workerDefaults: false });
  });

  test('a worker has question defaults when it has a webhook URL or a policy that sets something', () => {
    assert.equal(hasQuestionDefaults({}), false);
    assert.equal(hasQuestionDefaults({ webhookUrls: [] }, {}), false);
    assert.equal(hasQuestionDefaults({ inboxUrl: 'https://inbox.example' }, { agents: {} }), false);
    assert.equal(hasQuestionDefaults({ webhookUrls: ['https://ops.example/hook'] }), true);
    assert.equal(hasQuestionDefaults({}, { expireAfter: '1h' }), true);
    assert.equal(hasQuestionDefaults({}, { agents: { 'deploy-bot': { remindEvery: '15m' } } }), true);
  });

  test("the worker's start-time activity returns its webhook URLs and, where one applies, the agent's policy", async () => {
    const urls = ['https://ops.example/hook'];
    const plain = createActivities({ webhookUrls: urls });
    assert.deepEqual(await plain.webhookTargets('deploy-bot'), { webhookUrls: urls });
    assert.deepEqual(await plain.webhookTargets(), { webhookUrls: urls });

    const withPolicy = createActivities(
      { webhookUrls: urls },
      { agents: { 'deploy-bot': { expireAfter: '1h' } } },
    );
    assert.deepEqual(await withPolicy.webhookTargets('deploy-bot'), {
      webhookUrls: urls,
      policy: { expireAfterMs: 3_600_000 },
    });
    // No policy applies to another agent: the URLs alone.
    assert.deepEqual(await withPolicy.webhookTargets('other-bot'), { webhookUrls: urls });
  });
});

describe('the worker', () => {
  test('reads ASK_USER_POLICY when no policy option is given, and refuses a wrong one before connecting', async () => {
    const saved = process.env.ASK_USER_POLICY;
    process.env.ASK_USER_POLICY = '{"agents":{"deploy-bot":{"remindEvery":"5"}}}';
    try {
      await assert.rejects(createAskUserWorker(), {
        message:
          'ASK_USER_POLICY: agents["deploy-bot"].remindEvery: must be a duration such as 90s, 30m, 2h or 1d, or a whole number of milliseconds',
      });
      // The option wins over the environment, and is checked the same way.
      await assert.rejects(createAskUserWorker({ policy: { maxReminders: 0 } }), {
        code: 'INVALID_OPTIONS',
        message: 'createAskUserWorker option policy.maxReminders: must be a whole number from 1 to 100',
      });
    } finally {
      if (saved === undefined) delete process.env.ASK_USER_POLICY;
      else process.env.ASK_USER_POLICY = saved;
    }
  });
});

describe("Slack's format for policy notifications", () => {
  const record: QuestionRecord = {
    questions: QUESTIONS,
    status: 'pending',
    agent: { id: 'deploy-bot' },
    askedAt: ASKED_AT,
    rejectedAnswers: [],
  };
  const event = (overrides: Partial<WebhookEvent>): WebhookEvent => ({
    event: 'question.reminder',
    workflowId: 'ask-user-question/deploy-bot/call-1',
    runId: 'run-1',
    occurredAt: ASKED_AT,
    record,
    link: 'https://inbox.example/#/q/1',
    ...overrides,
  });

  test('a reminder and an escalation say so, and keep the button that answers', () => {
    for (const [kind, headline] of [
      ['question.reminder', 'Reminder: question from deploy-bot is waiting'],
      ['question.escalated', 'Escalated: question from deploy-bot is waiting'],
    ] as const) {
      const message = slackMessage(event({ event: kind }));
      assert.equal(message.text, `${headline}: Deploy? https://inbox.example/#/q/1`);
      assert.deepEqual(message.blocks[0], { type: 'header', text: { type: 'plain_text', text: headline } });
      assert.deepEqual(message.blocks.at(-1), {
        type: 'actions',
        elements: [
          {
            type: 'button',
            text: { type: 'plain_text', text: 'Answer in the inbox' },
            url: 'https://inbox.example/#/q/1',
            style: 'primary',
          },
        ],
      });
    }
  });

  test('the recommended-answer expiry is told apart from a human answer', () => {
    const message = slackMessage(
      event({
        event: 'question.resolved',
        record: {
          ...record,
          status: 'answered',
          answer: { answers: [{ id: 'deploy', selected: ['Yes (Recommended)'] }] },
          answeredBy: 'policy:expired',
          resolvedAt: ASKED_AT,
        },
      }),
    );
    assert.equal(
      message.text,
      'Expired: answered with the recommended options: Deploy? https://inbox.example/#/q/1',
    );
  });
});
