/**
 * Webhook notifications end to end, against a real Temporal dev server and a loopback HTTP receiver: what a
 * receiver gets for `question.pending` and `question.resolved`, and that a receiver that is down, failing or
 * refusing never delays or fails the question, while its delivery retries (or gives up, for a 4xx) on its own.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createHmac } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  ApplicationFailure,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';

import { TemporalUserInteraction, createAskUserQuestionTool, questionWorkflowId } from '../../src';
import { QuestionClient } from '../../src/ops';
import type { WebhookEvent } from '../../src';
import type { WebhookActivityOptions } from '../../src/activities';
import { hasQuestionDefaults } from '../../src/activities/webhook-activities';
import { payloadConverterPath } from '../../src/worker/worker';
import { WORKER_DEFAULTS_MARKER } from '../../src/workflows/ask-user-question-workflow';
import { startTestEnvironment } from '../helpers/temporal';
import { eventually } from '../helpers/wait';
import { bundleAskUserWorkflows, createAskUserTestWorker } from '../helpers/workers';

// ERROR, not the usual WARN: these tests fail delivery attempts on purpose, and the worker logs each one at WARN.
Runtime.install({ logger: new DefaultLogger('ERROR') });

const AGENT = { id: 'webhook-agent' };
const TOOL_ARGS = {
  questions: [
    {
      id: 'deploy',
      header: 'Deploy',
      question: 'Deploy build 1.4.2 to production?',
      options: [{ label: 'Yes (Recommended)' }, { label: 'No' }],
    },
  ],
};
/** The questions as the seam (and so the webhook record) carries them. */
const QUESTIONS = TOOL_ARGS.questions;
const ANSWER = { answers: [{ id: 'deploy', selected: ['Yes (Recommended)'] }] };
const ANSWER_TEXT = '{"answers":[{"id":"deploy","selected":["Yes (Recommended)"]}]}';

/** One request the receiver got, and the status it answered with. */
interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/**
 * A webhook receiver on 127.0.0.1. `status` is what it answers from now on. While `down`, it resets every
 * connection as soon as it is accepted, before a request is read: the sender sees a network failure, as for a
 * receiver that is down, while the port stays bound to this test (freed, it could be taken by another process).
 */
interface Receiver {
  port: number;
  url(path?: string): string;
  requests: ReceivedRequest[];
  status: number;
  down: boolean;
  /** Requests answered 2xx, parsed. */
  delivered(): (WebhookEvent & { path: string })[];
  close(): Promise<void>;
}

async function startReceiver(options: { status?: number; down?: boolean } = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const status = receiver.status;
      requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        status,
      });
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
    });
  });
  server.on('connection', (socket) => {
    if (receiver.down) socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  const receiver: Receiver = {
    port: address.port,
    url: (path = '/hooks') => `http://127.0.0.1:${address.port}${path}`,
    requests,
    status: options.status ?? 200,
    down: options.down ?? false,
    delivered: () =>
      requests
        .filter((request) => request.status < 300)
        .map((request) => ({ ...(JSON.parse(request.body) as WebhookEvent), path: request.path })),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

function deliveryWorkflowId(questionId: string, event: WebhookEvent['event']): string {
  return `${questionId}/webhook/${event}`;
}

/**
 * Waits until the delivery of `event` has failed at least once and is waiting to retry, and returns its
 * pending activity as `describe()` shows it.
 */
async function waitForRetryingDelivery(client: Client, questionId: string, event: WebhookEvent['event']) {
  const handle = client.workflow.getHandle(deliveryWorkflowId(questionId, event));
  return await eventually(`${event} delivery to retry`, async () => {
    let description;
    try {
      description = await handle.describe();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
    const activity = description.raw.pendingActivities?.[0];
    return activity !== undefined && (activity.attempt ?? 0) >= 2 && activity.lastFailure != null
      ? activity
      : undefined;
  });
}

describe('webhooks', () => {
  let env: TestWorkflowEnvironment;
  /**
   * The workflows of a worker without question defaults, and of one with them (as `createAskUserWorker` picks),
   * and a question workflow whose tasks all fail.
   */
  let bundles: { plain: WorkflowBundle; withDefaults: WorkflowBundle; failing: WorkflowBundle };

  before(async () => {
    env = await startTestEnvironment();
    const [plain, withDefaults, failing] = await Promise.all([
      bundleAskUserWorkflows({ workerDefaults: false }),
      bundleAskUserWorkflows({ workerDefaults: true }),
      bundleWorkflowCode({
        workflowsPath: path.join(__dirname, '..', 'fixtures', 'failing-first-task-workflows.ts'),
        payloadConverterPath,
        logger: new DefaultLogger('WARN'),
      }),
    ]);
    bundles = { plain, withDefaults, failing };
  });

  after(async () => {
    await env?.teardown();
  });

  /** Runs an ask-user worker on its own task queue for the length of `body`. */
  async function withWorker(
    taskQueue: string,
    webhooks: WebhookActivityOptions,
    body: (worker: Worker) => Promise<void>,
  ): Promise<void> {
    const worker = await createAskUserTestWorker(env.nativeConnection, {
      taskQueue,
      workflowBundle: hasQuestionDefaults(webhooks) ? bundles.withDefaults : bundles.plain,
      webhooks,
    });
    await worker.runUntil(body(worker));
  }

  /** Runs a worker whose question workflow fails every task, on `taskQueue`, for the length of `body`. */
  async function withFailingWorker(taskQueue: string, body: () => Promise<void>): Promise<void> {
    const worker = await createAskUserTestWorker(env.nativeConnection, {
      taskQueue,
      workflowBundle: bundles.failing,
    });
    await worker.runUntil(body());
  }

  /** Calls the tool through the durable provider; returns the pending call and the question's workflow id. */
  function ask(
    taskQueue: string,
    toolCallId: string,
    providerOptions: { webhookUrls?: string[]; workerDefaults?: boolean; questionTimeoutMs?: number } = {},
  ): { result: Promise<string>; questionId: string } {
    const userInteraction = new TemporalUserInteraction({
      client: env.client,
      taskQueue,
      ...providerOptions,
    });
    const tool = createAskUserQuestionTool({ userInteraction });
    const result = tool.execute(TOOL_ARGS, { toolCallId, agent: AGENT });
    // Observed by the test below; never an unhandled rejection if the test fails earlier.
    result.catch(() => undefined);
    return { result, questionId: questionWorkflowId({ agent: AGENT, toolCallId }, randomUUID) };
  }

  async function answerWhenPending(questionId: string): Promise<void> {
    const questions = new QuestionClient(env.client);
    await eventually(`question ${questionId} to start`, async () => {
      try {
        return await env.client.workflow.getHandle(questionId).describe();
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return undefined;
        throw error;
      }
    });
    const record = await questions.answer(questionId, { ...ANSWER, answeredBy: 'alice' });
    // A worker that just took over waits out the old one's sticky queue (5 s) before it runs the question: an
    // answer it has not taken within 3 s is recorded for it to validate, and the agent's result shows it taken.
    assert.ok(record.status === 'answered' || record.awaitingWorker !== undefined, JSON.stringify(record));
  }

  test('a receiver gets question.pending and question.resolved, signed with the secret', async () => {
    const receiver = await startReceiver();
    const secret = 'webhook-secret-42';
    try {
      await withWorker(
        'webhooks-delivered',
        { webhookUrls: [receiver.url()], webhookSecret: secret },
        async () => {
          const { result, questionId } = ask('webhooks-delivered', 'call_delivered');
          assert.equal(questionId, 'ask-user-question/webhook-agent/call_delivered');

          const pending = await eventually('question.pending', () =>
            receiver.requests.find((request) => request.headers['x-ask-user-event'] === 'question.pending'),
          );
          assert.equal(pending.method, 'POST');
          assert.equal(pending.path, '/hooks');
          assert.equal(pending.headers['content-type'], 'application/json');
          assert.equal(pending.headers['x-ask-user-delivery'], `${questionId}#question.pending`);
          assert.equal(
            pending.headers['x-ask-user-signature'],
            `sha256=${createHmac('sha256', secret).update(pending.body).digest('hex')}`,
          );
          const pendingBody = JSON.parse(pending.body) as WebhookEvent;
          assert.equal(pendingBody.event, 'question.pending');
          assert.equal(pendingBody.workflowId, questionId);
          assert.equal(pendingBody.record.status, 'pending');
          assert.deepEqual(pendingBody.record.questions, QUESTIONS);
          assert.deepEqual(pendingBody.record.agent, AGENT);
          assert.equal(pendingBody.record.toolCallId, 'call_delivered');
          assert.equal(pendingBody.record.answer, undefined);
          const question = await env.client.workflow.getHandle(questionId).describe();
          assert.equal(pendingBody.runId, question.runId);

          await answerWhenPending(questionId);
          assert.equal(await result, ANSWER_TEXT);

          const resolved = await eventually('question.resolved', () =>
            receiver.requests.find((request) => request.headers['x-ask-user-event'] === 'question.resolved'),
          );
          assert.equal(resolved.method, 'POST');
          assert.equal(resolved.headers['content-type'], 'application/json');
          assert.equal(resolved.headers['x-ask-user-delivery'], `${questionId}#question.resolved`);
          assert.equal(
            resolved.headers['x-ask-user-signature'],
            `sha256=${createHmac('sha256', secret).update(resolved.body).digest('hex')}`,
          );
          const resolvedBody = JSON.parse(resolved.body) as WebhookEvent;
          assert.equal(resolvedBody.event, 'question.resolved');
          assert.equal(resolvedBody.workflowId, questionId);
          assert.equal(resolvedBody.runId, question.runId);
          assert.equal(resolvedBody.record.status, 'answered');
          assert.deepEqual(resolvedBody.record.questions, QUESTIONS);
          assert.deepEqual(resolvedBody.record.answer, ANSWER);
          assert.equal(resolvedBody.record.answeredBy, 'alice');

          for (const event of ['question.pending', 'question.resolved'] as const) {
            const delivery: WorkflowHandle = env.client.workflow.getHandle(
              deliveryWorkflowId(questionId, event),
            );
            await delivery.result();
            assert.equal((await delivery.describe()).status.name, 'COMPLETED');
          }
          // One POST per event: nothing was retried.
          assert.deepEqual(
            receiver.requests.map((request) => request.headers['x-ask-user-event']),
            ['question.pending', 'question.resolved'],
          );
        },
      );
    } finally {
      await receiver.close();
    }
  });

  test("the question's own webhook URLs are notified besides the worker's, each URL once", async () => {
    const receiver = await startReceiver();
    try {
      const workerUrl = receiver.url('/worker');
      const questionUrl = receiver.url('/question');
      await withWorker('webhooks-per-question', { webhookUrls: [workerUrl] }, async () => {
        const { result, questionId } = ask('webhooks-per-question', 'call_per_question', {
          webhookUrls: [questionUrl, workerUrl],
        });
        await answerWhenPending(questionId);
        assert.equal(await result, ANSWER_TEXT);
        for (const event of ['question.pending', 'question.resolved'] as const) {
          await env.client.workflow.getHandle(deliveryWorkflowId(questionId, event)).result();
        }
        const seen = receiver
          .delivered()
          .map((delivered) => `${delivered.event} ${delivered.path}`)
          .sort();
        assert.deepEqual(seen, [
          'question.pending /question',
          'question.pending /worker',
          'question.resolved /question',
          'question.resolved /worker',
        ]);
        // No signature header without a secret.
        assert.ok(
          receiver.requests.every((request) => request.headers['x-ask-user-signature'] === undefined),
        );
      });
    } finally {
      await receiver.close();
    }
  });

  test("workerDefaults: false skips the worker's webhooks and the local activity; the question's own still fire", async () => {
    const receiver = await startReceiver();
    try {
      const workerUrl = receiver.url('/worker');
      const questionUrl = receiver.url('/question');
      await withWorker('webhooks-no-worker-defaults', { webhookUrls: [workerUrl] }, async () => {
        const { result, questionId } = ask('webhooks-no-worker-defaults', 'call_no_worker_defaults', {
          webhookUrls: [questionUrl],
          workerDefaults: false,
        });
        await answerWhenPending(questionId);
        assert.equal(await result, ANSWER_TEXT);
        for (const event of ['question.pending', 'question.resolved'] as const) {
          await env.client.workflow.getHandle(deliveryWorkflowId(questionId, event)).result();
        }
        const seen = receiver
          .delivered()
          .map((delivered) => `${delivered.event} ${delivered.path}`)
          .sort();
        assert.deepEqual(seen, ['question.pending /question', 'question.resolved /question']);
        // No local activity ran: the history has no marker.
        const { events } = await env.client.workflow.getHandle(questionId).fetchHistory();
        assert.ok(!(events ?? []).some((event) => event.markerRecordedEventAttributes));
      });
    } finally {
      await receiver.close();
    }
  });

  /** Waits until the question's history holds an event that `matches`; `what` names it in a timeout. */
  async function waitForEvent(
    questionId: string,
    what: string,
    matches: (event: temporal.api.history.v1.IHistoryEvent) => unknown,
  ): Promise<void> {
    await eventually(`${what} of ${questionId}`, async () => {
      try {
        const { events } = await env.client.workflow.getHandle(questionId).fetchHistory();
        return (events ?? []).some(matches) ? true : undefined;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return undefined;
        throw error;
      }
    });
  }

  /** Waits until a worker has run the question's first workflow task (and so made its start-time choices). */
  async function waitUntilStarted(questionId: string): Promise<void> {
    await waitForEvent(
      questionId,
      'the first workflow task',
      (event) => event.workflowTaskCompletedEventAttributes,
    );
  }

  async function waitForFailedTask(questionId: string): Promise<void> {
    await waitForEvent(
      questionId,
      'a failed workflow task',
      (event) => event.workflowTaskFailedEventAttributes,
    );
  }

  /** The names of the markers in a question's history, and the patch ids among them, in order. */
  async function markers(questionId: string): Promise<string[]> {
    const { events } = await env.client.workflow.getHandle(questionId).fetchHistory();
    return (events ?? []).flatMap((event) => {
      const marker = event.markerRecordedEventAttributes;
      if (!marker) return [];
      const patch = marker.details?.['patch-data']?.payloads?.[0]?.data;
      if (patch === undefined || patch === null) return [marker.markerName ?? ''];
      const { id } = JSON.parse(Buffer.from(patch).toString('utf8')) as { id: string };
      return [`${marker.markerName ?? ''} ${id}`];
    });
  }

  test('on a worker with webhook URLs, a question records that it fetched them and runs the local activity once', async () => {
    const receiver = await startReceiver();
    try {
      await withWorker('webhooks-marker', { webhookUrls: [receiver.url()] }, async () => {
        const { result, questionId } = ask('webhooks-marker', 'call_marker');
        await answerWhenPending(questionId);
        assert.equal(await result, ANSWER_TEXT);
        assert.deepEqual(await markers(questionId), [
          `core_patch ${WORKER_DEFAULTS_MARKER}`,
          'core_local_activity',
        ]);
      });
    } finally {
      await receiver.close();
    }
  });

  test('on a worker with no webhook URLs or policy, a question runs no local activity; its own webhooks still fire', async () => {
    const receiver = await startReceiver();
    try {
      const questionUrl = receiver.url('/question');
      await withWorker('webhooks-worker-without-defaults', {}, async () => {
        const { result, questionId } = ask('webhooks-worker-without-defaults', 'call_plain_worker', {
          webhookUrls: [questionUrl],
        });
        await answerWhenPending(questionId);
        assert.equal(await result, ANSWER_TEXT);
        for (const event of ['question.pending', 'question.resolved'] as const) {
          await env.client.workflow.getHandle(deliveryWorkflowId(questionId, event)).result();
        }
        const seen = receiver.delivered().map((delivered) => `${delivered.event} ${delivered.path}`);
        assert.deepEqual(seen.sort(), ['question.pending /question', 'question.resolved /question']);
        assert.deepEqual(await markers(questionId), []);
      });
    } finally {
      await receiver.close();
    }
  });

  test('a question keeps the choice its first recorded task made, moving between workers with and without defaults', async () => {
    const receiver = await startReceiver();
    try {
      const withUrls = { webhookUrls: [receiver.url('/worker')] };
      const taskQueue = 'webhooks-handover';
      const delivered = (questionId: string): string[] =>
        receiver
          .delivered()
          .filter((delivery) => delivery.workflowId === questionId)
          .map((delivery) => delivery.event)
          .sort();

      // Started on a worker without defaults (its deadline timer records the first task), answered on one with
      // them: it still takes none.
      const plain = ask(taskQueue, 'call_handover_plain', { questionTimeoutMs: 3_600_000 });
      await withWorker(taskQueue, {}, async () => {
        await waitUntilStarted(plain.questionId);
      });
      await withWorker(taskQueue, withUrls, async () => {
        await answerWhenPending(plain.questionId);
        assert.equal(await plain.result, ANSWER_TEXT);
      });
      assert.deepEqual(await markers(plain.questionId), []);
      assert.deepEqual(delivered(plain.questionId), []);

      // Started on a worker with defaults, answered on one without: its recorded URLs still get both events.
      const fetched = ask(taskQueue, 'call_handover_defaults');
      await withWorker(taskQueue, withUrls, async () => {
        await eventually('question.pending', () => delivered(fetched.questionId).length === 1 || undefined);
      });
      await withWorker(taskQueue, {}, async () => {
        await answerWhenPending(fetched.questionId);
        assert.equal(await fetched.result, ANSWER_TEXT);
        await env.client.workflow
          .getHandle(deliveryWorkflowId(fetched.questionId, 'question.resolved'))
          .result();
      });
      assert.deepEqual(await markers(fetched.questionId), [
        `core_patch ${WORKER_DEFAULTS_MARKER}`,
        'core_local_activity',
      ]);
      assert.deepEqual(delivered(fetched.questionId), ['question.pending', 'question.resolved']);

      // A first task on a worker without defaults that recorded nothing (no deadline, no webhook of its own)
      // still made the choice: answered on a worker with defaults, whose task follows that empty one, it takes
      // none, as a replay of its history does.
      const unrecorded = ask(taskQueue, 'call_handover_unrecorded');
      await withWorker(taskQueue, {}, async () => {
        await waitUntilStarted(unrecorded.questionId);
      });
      await withWorker(taskQueue, withUrls, async () => {
        await answerWhenPending(unrecorded.questionId);
        assert.equal(await unrecorded.result, ANSWER_TEXT);
      });
      assert.deepEqual(await markers(unrecorded.questionId), []);
      assert.deepEqual(delivered(unrecorded.questionId), []);
      // Not merely undelivered (no worker ran a delivery after that one stopped): never started.
      for (const event of ['question.pending', 'question.resolved'] as const) {
        await assert.rejects(
          env.client.workflow.getHandle(deliveryWorkflowId(unrecorded.questionId, event)).describe(),
          WorkflowNotFoundError,
        );
      }

      // A first task that failed completed nothing: the worker with defaults that runs it again makes the choice.
      const retried = ask(taskQueue, 'call_handover_retried');
      await withFailingWorker(taskQueue, async () => {
        await waitForFailedTask(retried.questionId);
      });
      await withWorker(taskQueue, withUrls, async () => {
        await answerWhenPending(retried.questionId);
        assert.equal(await retried.result, ANSWER_TEXT);
        await env.client.workflow
          .getHandle(deliveryWorkflowId(retried.questionId, 'question.resolved'))
          .result();
      });
      assert.deepEqual(await markers(retried.questionId), [
        `core_patch ${WORKER_DEFAULTS_MARKER}`,
        'core_local_activity',
      ]);
      assert.deepEqual(delivered(retried.questionId), ['question.pending', 'question.resolved']);

      // Every one of them replays on either kind of worker, as after an eviction or a restart.
      for (const { questionId } of [plain, fetched, unrecorded, retried]) {
        const history = await env.client.workflow.getHandle(questionId).fetchHistory();
        for (const workflowBundle of [bundles.plain, bundles.withDefaults]) {
          await Worker.runReplayHistory(
            { workflowBundle, dataConverter: { payloadConverterPath } },
            history,
            questionId,
          );
        }
      }
    } finally {
      await receiver.close();
    }
  });

  test('with the receiver down, the question works and delivery retries until the receiver is up', async () => {
    const receiver = await startReceiver({ down: true });
    const url = receiver.url();
    try {
      await withWorker('webhooks-unreachable', { webhookUrls: [url] }, async () => {
        const { result, questionId } = ask('webhooks-unreachable', 'call_unreachable');

        const activity = await waitForRetryingDelivery(env.client, questionId, 'question.pending');
        assert.ok((activity.attempt ?? 0) >= 2, `attempt ${activity.attempt}`);
        assert.equal(activity.lastFailure?.applicationFailureInfo?.type, 'WEBHOOK_UNREACHABLE');
        assert.match(activity.lastFailure?.message ?? '', new RegExp(`^POST ${url} failed: `));

        // The receiver is still down: the question is answered and the tool returns all the same.
        await answerWhenPending(questionId);
        assert.equal(await result, ANSWER_TEXT);
        assert.equal((await env.client.workflow.getHandle(questionId).describe()).status.name, 'COMPLETED');

        receiver.down = false;
        for (const event of ['question.pending', 'question.resolved'] as const) {
          const delivery: WorkflowHandle = env.client.workflow.getHandle(
            deliveryWorkflowId(questionId, event),
          );
          await delivery.result();
          assert.equal((await delivery.describe()).status.name, 'COMPLETED');
        }
        const pendingDelivery = await env.client.workflow
          .getHandle(deliveryWorkflowId(questionId, 'question.pending'))
          .fetchHistory();
        const attempts = (pendingDelivery.events ?? []).flatMap(
          (event) => event.activityTaskStartedEventAttributes?.attempt ?? [],
        );
        // The attempt that finally delivered came after at least one failed one.
        assert.ok(
          attempts.length === 1 && (attempts[0] ?? 0) >= 2,
          `started attempts: ${attempts.join(', ')}`,
        );

        // While down, no attempt got as far as a request: the receiver saw one POST per event, both after it came up.
        assert.deepEqual(receiver.requests.map((request) => request.headers['x-ask-user-event']).sort(), [
          'question.pending',
          'question.resolved',
        ]);
        const delivered = receiver.delivered();
        assert.deepEqual(delivered.map((event) => event.event).sort(), [
          'question.pending',
          'question.resolved',
        ]);
        assert.equal(delivered.find((event) => event.event === 'question.pending')?.record.status, 'pending');
        const resolved = delivered.find((event) => event.event === 'question.resolved');
        assert.equal(resolved?.record.status, 'answered');
        assert.deepEqual(resolved?.record.answer, ANSWER);
      });
    } finally {
      await receiver.close();
    }
  });

  test('a receiver answering 503 is retried until it answers 200', async () => {
    const receiver = await startReceiver({ status: 503 });
    try {
      await withWorker('webhooks-503', { webhookUrls: [receiver.url()] }, async () => {
        const { result, questionId } = ask('webhooks-503', 'call_503');

        const activity = await waitForRetryingDelivery(env.client, questionId, 'question.pending');
        assert.ok((activity.attempt ?? 0) >= 2, `attempt ${activity.attempt}`);
        assert.equal(activity.lastFailure?.applicationFailureInfo?.type, 'WEBHOOK_FAILED');
        assert.equal(activity.lastFailure?.message, `POST ${receiver.url()} answered 503`);
        assert.ok(receiver.requests.some((request) => request.status === 503));

        await answerWhenPending(questionId);
        assert.equal(await result, ANSWER_TEXT);

        receiver.status = 200;
        for (const event of ['question.pending', 'question.resolved'] as const) {
          const delivery: WorkflowHandle = env.client.workflow.getHandle(
            deliveryWorkflowId(questionId, event),
          );
          await delivery.result();
          assert.equal((await delivery.describe()).status.name, 'COMPLETED');
        }
        const delivered = receiver.delivered();
        assert.deepEqual(delivered.map((event) => event.event).sort(), [
          'question.pending',
          'question.resolved',
        ]);
        assert.deepEqual(
          delivered.find((event) => event.event === 'question.resolved')?.record.answer,
          ANSWER,
        );
        // Every attempt before the receiver recovered was refused with 503 and retried.
        const pendingAttempts = receiver.requests.filter(
          (request) => request.headers['x-ask-user-event'] === 'question.pending',
        );
        assert.ok(pendingAttempts.length >= 2, `pending POSTs: ${pendingAttempts.length}`);
        assert.deepEqual(
          pendingAttempts.map((request) => request.status),
          [...pendingAttempts.slice(0, -1).map(() => 503), 200],
        );
      });
    } finally {
      await receiver.close();
    }
  });

  test('a receiver answering 400 fails the delivery for good; the question is unaffected', async () => {
    const receiver = await startReceiver({ status: 400 });
    try {
      await withWorker('webhooks-400', { webhookUrls: [receiver.url()] }, async () => {
        const { result, questionId } = ask('webhooks-400', 'call_400');
        const delivery = env.client.workflow.getHandle(deliveryWorkflowId(questionId, 'question.pending'));
        await eventually('the pending delivery to start', async () => {
          try {
            return await delivery.describe();
          } catch (error) {
            if (error instanceof WorkflowNotFoundError) return undefined;
            throw error;
          }
        });
        await assert.rejects(delivery.result(), (error: unknown) => {
          assert.ok(error instanceof WorkflowFailedError, String(error));
          assert.ok(error.cause instanceof ApplicationFailure, String(error.cause));
          assert.equal(error.cause.type, 'WEBHOOK_FAILED');
          assert.equal(error.cause.message, `webhook delivery failed for ${receiver.url()}`);
          return true;
        });
        assert.equal((await delivery.describe()).status.name, 'FAILED');
        const history = await delivery.fetchHistory();
        const failures = (history.events ?? []).flatMap(
          (event) => event.activityTaskFailedEventAttributes ?? [],
        );
        assert.equal(failures.length, 1);
        assert.equal(failures[0]?.failure?.applicationFailureInfo?.type, 'WEBHOOK_REJECTED');
        assert.equal(failures[0]?.failure?.applicationFailureInfo?.nonRetryable, true);
        assert.equal(failures[0]?.failure?.message, `POST ${receiver.url()} answered 400`);
        const started = (history.events ?? []).flatMap(
          (event) => event.activityTaskStartedEventAttributes ?? [],
        );
        assert.deepEqual(
          started.map((attributes) => attributes.attempt),
          [1],
        );
        assert.equal(
          receiver.requests.filter((request) => request.headers['x-ask-user-event'] === 'question.pending')
            .length,
          1,
        );

        // The question never noticed.
        assert.equal((await env.client.workflow.getHandle(questionId).describe()).status.name, 'RUNNING');
        await answerWhenPending(questionId);
        assert.equal(await result, ANSWER_TEXT);
        const record = await new QuestionClient(env.client).get(questionId);
        assert.equal(record.status, 'answered');
        assert.deepEqual(record.answer, ANSWER);
      });
    } finally {
      await receiver.close();
    }
  });
});
