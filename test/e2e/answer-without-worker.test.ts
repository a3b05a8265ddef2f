/**
 * Answers given while no worker runs: a real dev server process, an in-process worker that is stopped and
 * started again, the inbox, the `ask-user` CLI run for real, and the agent's waiting calls.
 *
 * With the worker stopped, `ask-user answer` and the inbox's answer route return within 5 s of starting their
 * work, saying the answer is recorded and waits for a worker; `ask-user show` and the inbox say no worker runs
 * the question and list the answers waiting. When the worker is back, each agent gets exactly the answer given;
 * of two answers given during the outage the first wins and the second is refused naming it; an invalid answer
 * sent during the outage is refused into the record, which the inbox, `ask-user show` and a webhook event say,
 * and its agent still waits. Many answers at once from one client: only the first few wait for a worker.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { inspect } from 'node:util';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import type { InboxServer } from '../../src/inbox';
import type { QuestionOperationError } from '../../src/interaction';
import { QuestionClient } from '../../src/ops';
import { TemporalUserInteraction } from '../../src/provider';
import type { WebhookEvent } from '../../src/question/webhook-event';
import type {
  AskUserQuestion,
  AskUserQuestionAnswer,
  QuestionOutcome,
  QuestionRecord,
} from '../../src/types';
import { killChildren, startChild } from '../fixtures/child-process';
import { bearer, questionPath, request, startTestInbox } from '../helpers/inbox';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { connectRecordingUpdates } from '../helpers/update-calls';
import { waitFor } from '../helpers/wait';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `answer-without-worker-${process.pid}`;
const WEBHOOK_URL = 'https://hooks.example/ask-user';
const QUESTIONS: AskUserQuestion[] = [
  { id: 'env', question: 'Where to deploy?', options: [{ label: 'staging' }, { label: 'production' }] },
];
const STAGING = [{ id: 'env', selected: ['staging'] }];
const PRODUCTION = [{ id: 'env', selected: ['production'] }];

let stack: DevServerWithClient;
let worker: RunningWorkers | undefined;
let inbox: InboxServer;
let provider: TemporalUserInteraction;
/** Every webhook the worker posted, in order. */
const delivered: WebhookEvent[] = [];

async function startWorker(): Promise<RunningWorkers> {
  return await startAskUserWorker(stack.server.address, TASK_QUEUE, 'default', {
    webhooks: {
      fetch: async (_url, init) => {
        delivered.push(JSON.parse(init?.body as string) as WebhookEvent);
        return new Response(null, { status: 204 });
      },
    },
  });
}

before(async () => {
  stack = await startDevServerWithClient('answer-without-worker');
  worker = await startWorker();
  inbox = await startTestInbox(stack.client);
  provider = new TemporalUserInteraction({
    client: stack.client,
    taskQueue: TASK_QUEUE,
    webhookUrls: [WEBHOOK_URL],
  });
});

after(async () => {
  try {
    await killChildren();
    await provider?.close();
    await inbox?.close();
    await worker?.stop();
  } finally {
    await stack?.stop();
  }
});

/** Runs `ask-user <args>` to its end; returns what it printed, how it ended and how long it took. */
async function runCli(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const child = startChild(process.execPath, ['./bin/ask-user.js', ...args], {
    TEMPORAL_ADDRESS: stack.server.address,
    TEMPORAL_NAMESPACE: 'default',
    USER: 'cli-tester',
  });
  const { code } = await child.waitForExit();
  return { code, stdout: child.stdout(), stderr: child.stderr(), ms: Date.now() - started };
}

/** Asks the question as `toolCallId`; the answer the agent gets, or the error it fails with, settles later. */
function ask(toolCallId: string): { workflowId: string; answer: Promise<AskUserQuestionAnswer> } {
  const answer = provider.ask({ questions: QUESTIONS, agent: { id: 'outage-agent' }, toolCallId });
  answer.catch(() => undefined);
  return { workflowId: `ask-user-question/outage-agent/${toolCallId}`, answer };
}

/** Whether `promise` is still unsettled after `ms`. */
async function stillWaiting(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const pending = Symbol('pending');
  const settled = await Promise.race([
    promise.then(
      () => 'settled',
      () => 'settled',
    ),
    new Promise((resolve) => setTimeout(() => resolve(pending), ms)),
  ]);
  return settled === pending;
}

async function postAnswer(workflowId: string, answers: unknown, name: string) {
  const started = Date.now();
  const response = await request(inbox, 'POST', questionPath(workflowId, 'answer'), {
    headers: { ...bearer(), 'x-ask-user-name': name },
    body: JSON.stringify({ answers }),
  });
  return { ...response, ms: Date.now() - started };
}

async function inboxRecord(workflowId: string): Promise<QuestionRecord> {
  const response = await request(inbox, 'GET', questionPath(workflowId), { headers: bearer() });
  assert.equal(response.status, 200, response.text);
  return response.json as QuestionRecord;
}

test('answers given while no worker runs are recorded, told so within 5 s, and validated when it returns', async () => {
  const byCli = ask('by-cli');
  const byInbox = ask('by-inbox');
  const invalid = ask('invalid');
  const twice = ask('twice');
  for (const { workflowId } of [byCli, byInbox, invalid, twice])
    await waitForPendingRecord(stack.client, workflowId);
  // How long the CLI takes to start and connect, so that the answer's own time can be told from it.
  const baseline = await runCli(['list', '--json']);
  assert.equal(baseline.code, 0, baseline.stderr);

  await worker!.stop();
  worker = undefined;

  // The CLI: recorded, and waiting for a worker, within 5 s of its start-up.
  const cli = await runCli(['answer', byCli.workflowId, '--select', 'env=staging', '--as', 'alice']);
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(
    cli.stdout,
    new RegExp(
      `^Recorded an answer to ${byCli.workflowId} \\(answer [0-9a-f-]{36}\\); no worker took it, so it waits for a worker on task queue ${TASK_QUEUE} to validate it\\.`,
    ),
  );
  console.log(`ask-user answer with no worker: ${cli.ms} ms (ask-user list: ${baseline.ms} ms)`);
  assert.ok(cli.ms - baseline.ms < 5_000, `ask-user answer took ${cli.ms} ms, list ${baseline.ms} ms`);
  const cliAnswerId = /\(answer ([0-9a-f-]{36})\)/.exec(cli.stdout)![1]!;

  // `ask-user show` says no worker runs the question, and names the answer that waits.
  const shown = await runCli(['show', byCli.workflowId]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /no worker is running this question \(none answered it; task queue /);
  assert.match(
    shown.stdout,
    new RegExp(`answers waiting for a worker to validate them:\\n  \\S+ alice \\(answer ${cliAnswerId}\\)`),
  );

  // The inbox: 202 within 5 s, the record still pending, with the answer named.
  const viaInbox = await postAnswer(byInbox.workflowId, PRODUCTION, 'bob');
  console.log(`inbox answer with no worker: ${viaInbox.ms} ms, ${viaInbox.status}`);
  assert.equal(viaInbox.status, 202, viaInbox.text);
  assert.ok(viaInbox.ms < 5_000, `the inbox took ${viaInbox.ms} ms`);
  const accepted = viaInbox.json as QuestionOutcome;
  assert.equal(accepted.status, 'pending');
  assert.equal(accepted.awaitingWorker?.taskQueue, TASK_QUEUE);
  const inboxRecordNow = await inboxRecord(byInbox.workflowId);
  assert.deepEqual(inboxRecordNow.noWorker, { taskQueue: TASK_QUEUE });
  assert.deepEqual(
    inboxRecordNow.unvalidatedAnswers?.map((answer) => [answer.answerId, answer.answeredBy]),
    [[accepted.awaitingWorker?.answerId, 'bob']],
  );

  // What the record alone shows to be wrong is refused at once, worker or not, and records nothing.
  const badLabel = await postAnswer(invalid.workflowId, [{ id: 'env', selected: ['prod'] }], 'carol');
  assert.equal(badLabel.status, 400, badLabel.text);
  assert.equal((badLabel.json as { error: string }).error, 'BAD_ANSWER');
  // An invalid answer sent as the stock Temporal CLI sends one, with an id: only the workflow can refuse it.
  await stack.client.workflow.getHandle(invalid.workflowId).signal('answer', {
    answers: [{ id: 'env', selected: ['qa'] }],
    answeredBy: 'mallory',
    answerId: 'mallory-1',
  });

  // Two answers during the outage: alice's first, then bob's.
  const first = await runCli(['answer', twice.workflowId, '--select', 'env=production', '--as', 'alice']);
  assert.equal(first.code, 0, first.stderr);
  const second = await postAnswer(twice.workflowId, STAGING, 'bob');
  assert.equal(second.status, 202, second.text);
  const secondId = (second.json as QuestionOutcome).awaitingWorker!.answerId;

  worker = await startWorker();

  // Each agent gets exactly the answer given; the first of two wins.
  assert.deepEqual(await byCli.answer, { answers: STAGING });
  assert.deepEqual(await byInbox.answer, { answers: PRODUCTION });
  assert.deepEqual(await twice.answer, { answers: PRODUCTION });
  const byCliRecord = await stack.questions.get(byCli.workflowId);
  assert.equal(byCliRecord.answeredBy, 'alice');
  assert.equal(byCliRecord.answerId, cliAnswerId);
  assert.deepEqual(byCliRecord.rejectedAnswers, []);
  const byInboxRecord = await stack.questions.get(byInbox.workflowId);
  assert.equal(byInboxRecord.answerId, accepted.awaitingWorker?.answerId);
  // The update the inbox tried first and the signal it sent are one answer: nothing was refused.
  assert.deepEqual(byInboxRecord.rejectedAnswers, []);

  // The late one is refused, naming the winner, and the inbox and the CLI show it.
  const twiceRecord = await inboxRecord(twice.workflowId);
  assert.equal(twiceRecord.answeredBy, 'alice');
  assert.deepEqual(
    twiceRecord.rejectedAnswers.map((refusal) => [refusal.answerId, refusal.answeredBy, refusal.reason]),
    [[secondId, 'bob', `the question was already answered by alice at ${twiceRecord.resolvedAt}`]],
  );

  // The invalid one is refused once the worker is back; the agent still waits.
  await waitFor('the invalid answer to be refused', async () =>
    (await stack.questions.get(invalid.workflowId)).rejectedAnswers.length > 0 ? true : undefined,
  );
  const invalidRecord = await inboxRecord(invalid.workflowId);
  assert.equal(invalidRecord.status, 'pending');
  assert.equal(invalidRecord.noWorker, undefined);
  assert.deepEqual(
    invalidRecord.rejectedAnswers.map((refusal) => [refusal.answerId, refusal.answeredBy]),
    [['mallory-1', 'mallory']],
  );
  assert.match(invalidRecord.rejectedAnswers[0]!.reason, /"qa" is not an option of question "env"/);
  const invalidShown = await runCli(['show', invalid.workflowId]);
  assert.equal(invalidShown.code, 0, invalidShown.stderr);
  assert.match(
    invalidShown.stdout,
    /ignored answers:\n {2}\S+ mallory \(answer mallory-1\) .*"qa" is not an option/,
  );
  assert.ok(await stillWaiting(invalid.answer, 1_000), 'the agent of the refused answer still waits');

  // A webhook event says each refusal, under the refused answer's id.
  await waitFor('the refusals to be delivered', () =>
    delivered.filter((event) => event.event === 'question.answer_refused').length >= 2 ? true : undefined,
  );
  const refusals = delivered.filter((event) => event.event === 'question.answer_refused');
  assert.deepEqual(
    refusals.map((event) => [event.workflowId, event.record.rejectedAnswers.at(-1)?.answerId]).sort(),
    [
      [invalid.workflowId, 'mallory-1'],
      [twice.workflowId, secondId],
    ].sort(),
  );

  // A valid answer now ends the wait.
  const now = await postAnswer(invalid.workflowId, STAGING, 'carol');
  assert.equal(now.status, 200, now.text);
  assert.deepEqual(await invalid.answer, { answers: STAGING });
});

test('12 answers at once while no worker runs: 5 updates go out, the rest are recorded for the worker at once', async () => {
  const asked = ask('many-at-once');
  await waitForPendingRecord(stack.client, asked.workflowId);
  await worker!.stop();
  worker = undefined;

  // One client sends 5 updates at a time on a question. None is taken: each of the 5 is recorded as a signal
  // after its admission, and the 7 queued behind them find the question without a worker when their turn comes,
  // so they send no update of their own.
  const { client, connection, statuses } = await connectRecordingUpdates(stack.server.address);
  let recorded: QuestionOutcome[];
  try {
    const questions = new QuestionClient(client);
    recorded = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        questions.answer(asked.workflowId, {
          answers: index === 0 ? PRODUCTION : STAGING,
          answeredBy: `ops-${index}`,
        }),
      ),
    );
  } finally {
    await connection.close();
  }
  assert.equal(statuses.length, 5, inspect(statuses));
  for (const outcome of recorded) {
    assert.equal(outcome.status, 'pending');
    assert.equal(outcome.awaitingWorker?.taskQueue, TASK_QUEUE);
  }

  worker = await startWorker();
  // One of the 12 wins; the 11 others are refused into the record.
  const answer = await asked.answer;
  const record = await stack.questions.get(asked.workflowId);
  assert.ok(recorded.some((outcome) => outcome.awaitingWorker?.answerId === record.answerId));
  assert.deepEqual(answer, { answers: record.answeredBy === 'ops-0' ? PRODUCTION : STAGING });
  await waitFor('the 11 others to be refused', async () =>
    (await stack.questions.get(asked.workflowId)).rejectedAnswers.length === 11 ? true : undefined,
  );
});

test('answers the record refuses while no worker runs do not hold up the valid ones queued behind them', async () => {
  const asked = ask('refused-first');
  await waitForPendingRecord(stack.client, asked.workflowId);
  await worker!.stop();
  worker = undefined;

  // The first 5 take the question's 5 turns, wait out the admission, and are refused from the record before
  // their signal. The question is marked as having no worker at their verdict, so the 5 valid answers queued
  // behind them send no update of their own.
  const { client, connection, statuses } = await connectRecordingUpdates(stack.server.address);
  let settled: PromiseSettledResult<QuestionOutcome>[];
  try {
    const questions = new QuestionClient(client);
    settled = await Promise.allSettled(
      Array.from({ length: 10 }, (_, index) =>
        questions.answer(asked.workflowId, {
          answers: index < 5 ? [{ id: 'env', selected: ['nowhere'] }] : STAGING,
          answeredBy: `ops-${index}`,
        }),
      ),
    );
  } finally {
    await connection.close();
  }
  assert.equal(statuses.length, 5, inspect(statuses));
  for (const result of settled.slice(0, 5)) {
    assert.equal(result.status, 'rejected');
    assert.equal((result.reason as QuestionOperationError).code, 'BAD_ANSWER', inspect(result.reason));
  }
  for (const result of settled.slice(5)) {
    assert.equal(result.status, 'fulfilled', inspect(result));
    assert.equal(result.value.awaitingWorker?.taskQueue, TASK_QUEUE);
  }

  worker = await startWorker();
  assert.deepEqual(await asked.answer, { answers: STAGING });
  await waitFor('the 4 other valid answers to be refused', async () =>
    (await stack.questions.get(asked.workflowId)).rejectedAnswers.length === 4 ? true : undefined,
  );
});
