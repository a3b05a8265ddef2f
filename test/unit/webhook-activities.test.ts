/**
 * The webhook activities on their own, in `MockActivityEnvironment` with a fake `fetch` passed through the
 * factory: how each receiver answer is classified for Temporal's retries, what a POST carries, and how the
 * worker reads its webhook settings from the environment.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';

import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';

import { createActivities, webhookOptionsFromEnv, type Activities } from '../../src/activities';
import type { WebhookEvent } from '../../src/question/webhook-event';
import { parseWebhookTarget, validateWebhookUrls } from '../../src/question/webhook-target';

const URL_A = 'https://hooks.example.test/ask-user';
const WORKFLOW_ID = 'ask-user-question/agent-7/call_1';

const payload: WebhookEvent = {
  event: 'question.pending',
  workflowId: WORKFLOW_ID,
  runId: '3f0c1c7e-0000-4000-8000-000000000001',
  occurredAt: '2025-01-02T03:04:05.000Z',
  record: {
    questions: [{ id: 'deploy', question: 'Deploy now?', options: [{ label: 'Yes' }, { label: 'No' }] }],
    status: 'pending',
    askedAt: '2025-01-02T03:04:05.000Z',
    rejectedAnswers: [],
  },
};

/** One call the fake `fetch` received. */
interface FetchCall {
  url: string;
  method: string | undefined;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal | undefined;
}

/** A `fetch` that records its calls and answers with `respond`. */
function fakeFetch(respond: (call: FetchCall) => Promise<Response> | Response): {
  fetch: typeof fetch;
  calls: FetchCall[];
} {
  const calls: FetchCall[] = [];
  const fetchFunction = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const call: FetchCall = {
      url: typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
      method: init?.method,
      headers: { ...(init?.headers as Record<string, string> | undefined) },
      body: typeof init?.body === 'string' ? init.body : '',
      signal: init?.signal ?? undefined,
    };
    calls.push(call);
    return await respond(call);
  };
  return { fetch: fetchFunction, calls };
}

function activityEnvironment(): MockActivityEnvironment {
  // The worker logs every failed attempt at WARN; these tests fail attempts on purpose.
  return new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
}

/** Runs `deliverWebhook` in a fresh mock activity context, as the worker would for one attempt. */
async function deliver(activities: Activities, input: { url: string; payload: WebhookEvent }) {
  return await activityEnvironment().run(
    (attemptInput: typeof input) => activities.deliverWebhook(attemptInput),
    input,
  );
}

/** Asserts that `promise` rejects with exactly this `ApplicationFailure`. */
async function assertFailure(
  promise: Promise<unknown>,
  expected: { type: string; message: string; nonRetryable: boolean },
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ApplicationFailure, `expected an ApplicationFailure, got ${String(error)}`);
    assert.deepEqual(
      { type: error.type, message: error.message, nonRetryable: error.nonRetryable },
      expected,
    );
    return true;
  });
}

describe('deliverWebhook', () => {
  test('a 2xx answer delivers: one POST with the JSON body and the ask-user headers', async () => {
    const { fetch, calls } = fakeFetch(() => new Response('ok', { status: 202 }));
    const activities = createActivities({ fetch });
    const result = await deliver(activities, { url: URL_A, payload });

    assert.deepEqual(result, { status: 202 });
    assert.equal(calls.length, 1);
    const [call] = calls;
    assert.ok(call);
    assert.equal(call.url, URL_A);
    assert.equal(call.method, 'POST');
    assert.equal(call.body, JSON.stringify(payload));
    assert.deepEqual(JSON.parse(call.body), payload);
    assert.deepEqual(call.headers, {
      'content-type': 'application/json',
      'user-agent': 'durable-ask-user',
      'x-ask-user-event': 'question.pending',
      'x-ask-user-delivery': `${WORKFLOW_ID}#question.pending`,
    });
    assert.ok(call.signal instanceof AbortSignal, 'each attempt can be aborted');
    assert.equal(call.signal.aborted, false);
  });

  test('with a secret, x-ask-user-signature is the sha256 HMAC of the exact body', async () => {
    const secret = 'pssst-0123';
    const { fetch, calls } = fakeFetch(() => new Response(null, { status: 200 }));
    const activities = createActivities({ fetch, webhookSecret: secret });
    const resolved: WebhookEvent = { ...payload, event: 'question.resolved' };
    await deliver(activities, { url: URL_A, payload: resolved });

    const [call] = calls;
    assert.ok(call);
    assert.equal(call.body, JSON.stringify(resolved));
    const expected = `sha256=${createHmac('sha256', secret).update(call.body).digest('hex')}`;
    assert.equal(call.headers['x-ask-user-signature'], expected);
    assert.equal(call.headers['x-ask-user-event'], 'question.resolved');
    assert.equal(call.headers['x-ask-user-delivery'], `${WORKFLOW_ID}#question.resolved`);
  });

  test('5xx is a retryable WEBHOOK_FAILED', async () => {
    for (const status of [500, 502, 503]) {
      const { fetch } = fakeFetch(() => new Response('down', { status }));
      const activities = createActivities({ fetch });
      await assertFailure(deliver(activities, { url: URL_A, payload }), {
        type: 'WEBHOOK_FAILED',
        message: `POST ${URL_A} answered ${status}`,
        nonRetryable: false,
      });
    }
  });

  test('400 is a non-retryable WEBHOOK_REJECTED: the request itself is wrong', async () => {
    for (const status of [400, 401, 404, 410]) {
      const { fetch } = fakeFetch(() => new Response('no', { status }));
      const activities = createActivities({ fetch });
      await assertFailure(deliver(activities, { url: URL_A, payload }), {
        type: 'WEBHOOK_REJECTED',
        message: `POST ${URL_A} answered ${status}`,
        nonRetryable: true,
      });
    }
  });

  test('429 and the other recoverable 4xx statuses are retryable WEBHOOK_FAILED', async () => {
    for (const status of [429, 408, 409, 425]) {
      const { fetch } = fakeFetch(() => new Response('later', { status }));
      const activities = createActivities({ fetch });
      await assertFailure(deliver(activities, { url: URL_A, payload }), {
        type: 'WEBHOOK_FAILED',
        message: `POST ${URL_A} answered ${status}`,
        nonRetryable: false,
      });
    }
  });

  test('a network error is a retryable WEBHOOK_UNREACHABLE naming the cause', async () => {
    const { fetch } = fakeFetch(() => {
      throw new TypeError('fetch failed');
    });
    const activities = createActivities({ fetch });
    await assertFailure(deliver(activities, { url: URL_A, payload }), {
      type: 'WEBHOOK_UNREACHABLE',
      message: `POST ${URL_A} failed: fetch failed`,
      nonRetryable: false,
    });
  });

  test('a receiver that never answers is cut off after requestTimeoutMs and retried', async () => {
    const { fetch, calls } = fakeFetch(
      (call) =>
        new Promise<Response>((_resolve, reject) => {
          // AbortSignal.timeout's timer does not keep Node alive; a worker's event loop would, so stand in.
          const keepAlive = setInterval(() => undefined, 1_000);
          call.signal?.addEventListener(
            'abort',
            () => {
              clearInterval(keepAlive);
              reject(call.signal?.reason as Error);
            },
            { once: true },
          );
        }),
    );
    const activities = createActivities({ fetch, requestTimeoutMs: 50 });
    await assertFailure(deliver(activities, { url: URL_A, payload }), {
      type: 'WEBHOOK_UNREACHABLE',
      message: `POST ${URL_A} failed: The operation was aborted due to timeout`,
      nonRetryable: false,
    });
    assert.equal(calls[0]?.signal?.aborted, true);
  });

  test('webhookTargets returns the configured URLs, in order', async () => {
    const urls = [URL_A, 'http://127.0.0.1:8080/hook'];
    const activities = createActivities({ webhookUrls: urls });
    assert.deepEqual(await activityEnvironment().run(() => activities.webhookTargets()), {
      webhookUrls: urls,
    });
    assert.deepEqual(await activityEnvironment().run(() => createActivities().webhookTargets()), {
      webhookUrls: [],
    });
  });

  test('createActivities refuses a bad URL at once, so a typo fails at worker start', () => {
    assert.throws(() => createActivities({ webhookUrls: [URL_A, 'ftp://x'] }), {
      message: 'webhook URL "ftp://x": must use http or https',
    });
  });

  test('a slack-bot: target, the worker’s own or a policy’s escalation, needs a bot token at worker start', () => {
    const refusal = {
      code: 'INVALID_OPTIONS',
      message: 'slack-bot: targets need a bot token (ASK_USER_SLACK_BOT_TOKEN, or webhooks.slack.botToken)',
    };
    assert.throws(() => createActivities({ webhookUrls: ['slack-bot:C0OPS'] }), refusal);
    const escalating = {
      agents: { 'deploy-bot': { escalateAfter: '1h', escalateTo: [URL_A, 'slack-bot:C0ONCALL'] } },
    };
    assert.throws(() => createActivities({}, escalating), refusal);
    assert.doesNotThrow(() => createActivities({ slack: { botToken: 'xoxb-1' } }, escalating));
  });

  test('a target the worker cannot read (a question started by another client) is refused for good', async () => {
    const { fetch, calls } = fakeFetch(() => new Response('ok'));
    await assertFailure(deliver(createActivities({ fetch }), { url: 'ftp://x', payload }), {
      type: 'WEBHOOK_REJECTED',
      message: 'ftp://x: must use http or https',
      nonRetryable: true,
    });
    assert.equal(calls.length, 0);
  });
});

describe('webhook settings', () => {
  test('ASK_USER_WEBHOOK_URLS is split on commas and whitespace; ASK_USER_WEBHOOK_SECRET is read', () => {
    assert.deepEqual(
      webhookOptionsFromEnv({
        ASK_USER_WEBHOOK_URLS: ' https://a.example/hook, http://127.0.0.1:9000/x\nhttps://b.example/y ,,',
        ASK_USER_WEBHOOK_SECRET: 's3cret',
      }),
      {
        webhookUrls: ['https://a.example/hook', 'http://127.0.0.1:9000/x', 'https://b.example/y'],
        webhookSecret: 's3cret',
      },
    );
    assert.deepEqual(webhookOptionsFromEnv({ ASK_USER_WEBHOOK_URLS: 'https://a.example/hook' }), {
      webhookUrls: ['https://a.example/hook'],
    });
  });

  test('unset or empty variables give no URLs and no secret', () => {
    assert.deepEqual(webhookOptionsFromEnv({}), {});
    assert.deepEqual(
      webhookOptionsFromEnv({ ASK_USER_WEBHOOK_URLS: ' , ', ASK_USER_WEBHOOK_SECRET: '' }),
      {},
    );
  });

  test('validateWebhookUrls accepts http and https', () => {
    assert.doesNotThrow(() => validateWebhookUrls([URL_A, 'http://127.0.0.1:1/x']));
    assert.doesNotThrow(() => validateWebhookUrls([]));
  });

  test('validateWebhookUrls accepts a Slack bot’s channel, by id or by name', () => {
    assert.doesNotThrow(() => validateWebhookUrls(['slack-bot:C0123ABCD', 'slack-bot:#ops-oncall']));
    assert.deepEqual(parseWebhookTarget('slack-bot:#ops-oncall'), {
      ok: true,
      target: { format: 'slack-bot', channel: '#ops-oncall' },
    });
  });

  test('validateWebhookUrls rejects a slack-bot: target without a channel, with the exact message', () => {
    for (const target of ['slack-bot:', 'slack-bot:two words']) {
      assert.throws(() => validateWebhookUrls([target]), {
        code: 'INVALID_OPTIONS',
        message: `webhook URL ${JSON.stringify(target)}: must name a Slack channel, e.g. slack-bot:C0123ABCD`,
      });
    }
  });

  test('validateWebhookUrls rejects other schemes and text that is not a URL, with exact messages', () => {
    assert.throws(() => validateWebhookUrls(['ftp://x']), {
      name: 'UserInteractionError',
      code: 'INVALID_OPTIONS',
      message: 'webhook URL "ftp://x": must use http or https',
    });
    assert.throws(() => validateWebhookUrls(['not a url']), {
      name: 'UserInteractionError',
      code: 'INVALID_OPTIONS',
      message: 'webhook URL "not a url": not a valid URL',
    });
  });
});
