/**
 * A question that outlives Temporal's per-run limits: 55,000 refused `answer` signals (each one a history event,
 * past the 51,200-event limit) and 2,100 accepted deadline extensions (past the 2,000-update limit) go to one
 * question, which continues as new as it nears them. It still takes one valid answer, which the waiting agent's
 * `ask()` gets exactly; the record, the audit, the deadline, the reminders and the notifications are those of
 * one question, whatever run each message reached.
 *
 * To run in CI in a few minutes the dev server's limits are lowered (terminated at 4,000 events, 200 updates a
 * run, continue-as-new suggested at 1,000 events and 180 updates). `LONG_LIFE_LIMITS=default` runs the same
 * test at Temporal's defaults (51,200 events, 2,000 updates, suggested at 4,096 and 1,800), and
 * `LONG_LIFE_REPORT=1` prints the chain's figures (time, runs, events, bytes).
 *
 * The signals go 64 at a time, and the next batch waits for a query (which sees every signal sent before it):
 * the server fails a workflow task when more than 100 events arrive while it runs
 * (`history.maximumBufferedEventsBatch`), and a sender that outruns the worker only gets its signals refused
 * once the run has 10,000 (`history.maximumSignalsPerExecution`); the question survives either way.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import type { Client, WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import { temporalExecutable } from '../../src/dev-server';
import { QuestionOperationError } from '../../src/interaction';
import { QuestionClient } from '../../src/ops';
import { TemporalUserInteraction } from '../../src/provider';
import {
  getQuestionQuery,
  notificationPostedSignal,
  type QuestionMemo,
} from '../../src/question/definitions';
import type { AskUserQuestion, AskUserQuestionAnswer, QuestionRecord } from '../../src/types';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { waitFor } from '../helpers/wait';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `long-life-${process.pid}`;
const AGENT = { id: 'long-life-bot' };
const TOOL_CALL_ID = 'call-weeks';
const WORKFLOW_ID = `ask-user-question/${AGENT.id}/${TOOL_CALL_ID}`;

const SIGNALS = 55_000;
const EXTENSIONS = 2_100;
/** Signals in flight at once: well under the 100 events the server lets pile up during a workflow task. */
const SIGNAL_BATCH = 64;
/** Updates in flight at once: under the server's 10 a run. */
const EXTENSION_BATCH = 5;
const EXTENSION_MS = 60_000;
const EXPIRE_AFTER_MS = 3_600_000;
const REMINDER_EVERY_S = 20;
const MAX_REMINDERS = 3;

const DEFAULT_LIMITS = process.env.LONG_LIFE_LIMITS === 'default';
/** Temporal's defaults: the history is terminated at 51,200 events, a run takes 2,000 updates. */
const EVENT_LIMIT = DEFAULT_LIMITS ? 51_200 : 4_000;
const UPDATE_LIMIT = DEFAULT_LIMITS ? 2_000 : 200;
const LOWERED_LIMITS: Record<string, number> = {
  'limit.historyCount.suggestContinueAsNew': 1_000,
  'limit.historyCount.error': EVENT_LIMIT,
  'history.maxTotalUpdates': UPDATE_LIMIT,
  'history.maximumSignalsPerExecution': 3_000,
};

const QUESTION: AskUserQuestion = {
  id: 'rollout',
  question: 'Roll the migration out to every region?',
  header: 'Rollout',
  options: [{ label: 'Yes, all regions' }, { label: 'Only eu-west' }],
};
/** The one valid answer: a free-form text, returned to the agent character for character. */
const ANSWER: AskUserQuestionAnswer = {
  answers: [
    { id: 'rollout', selected: [], custom: 'Only eu-west — après le gel, «\u00a0pas avant lundi\u00a0» ✅' },
  ],
};
const RECEIPT = { target: 'slack-bot:C0LONG', channel: 'C0LONG', ts: '1764720000.000100' };

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

let env: TestWorkflowEnvironment;
let client: Client;
let questions: QuestionClient;
let receiver: Receiver;
let workers: RunningWorkers;
let provider: TemporalUserInteraction;

before(async () => {
  receiver = await startReceiver();
  const extraArgs = DEFAULT_LIMITS
    ? []
    : Object.entries(LOWERED_LIMITS).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${value}`]);
  env = await TestWorkflowEnvironment.createLocal({
    server: { executable: temporalExecutable(), ip: '127.0.0.1', extraArgs },
  });
  client = env.client;
  questions = new QuestionClient(client);
  // The worker's own webhook and policy (reminders) are fetched once, by the first run, and carried over.
  workers = runWorkers([
    await createAskUserTestWorker(env.nativeConnection, {
      taskQueue: TASK_QUEUE,
      webhooks: { webhookUrls: [receiver.url('/worker')] },
      policy: {
        agents: { [AGENT.id]: { remindEvery: `${REMINDER_EVERY_S}s`, maxReminders: MAX_REMINDERS } },
      },
    }),
  ]);
  provider = new TemporalUserInteraction({
    client,
    taskQueue: TASK_QUEUE,
    webhookUrls: [receiver.url('/asker')],
    policy: { expireAfter: '1h', audience: { users: ['alice'], groups: ['release'] } },
  });
});

after(async () => {
  try {
    await provider?.close();
    await workers?.stop();
  } finally {
    await env?.teardown();
    await receiver?.close();
  }
});

/** One run of the chain, oldest first. */
interface Run {
  runId: string;
  status: string;
  events: number;
  bytes: number;
  acceptedUpdates: number;
  signals: number;
  submitAnswers: number;
}

/** Walks the chain back from its last run through each started event's `continuedExecutionRunId`. */
async function chainOf(workflowId: string): Promise<Run[]> {
  const runs: Run[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId !== undefined) {
    const handle: WorkflowHandle = client.workflow.getHandle(workflowId, runId);
    const [description, history] = await Promise.all([handle.describe(), handle.fetchHistory()]);
    const events: HistoryEvent[] = history.events ?? [];
    const accepted = events.flatMap((event) => {
      const name = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
      return name === undefined || name === null ? [] : [name];
    });
    runs.unshift({
      runId,
      status: description.status.name,
      events: events.length,
      bytes: description.historySize ?? 0,
      acceptedUpdates: accepted.length,
      signals: events.filter(
        (event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'answer',
      ).length,
      submitAnswers: accepted.filter((name) => name === 'submitAnswer').length,
    });
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (runId === '') runId = undefined;
  }
  return runs;
}

test(
  `one question takes ${SIGNALS} refused signals and ${EXTENSIONS} deadline extensions across runs, then one answer`,
  { timeout: 1_200_000 },
  async () => {
    const started = Date.now();
    const asked = provider.ask({ questions: [QUESTION], agent: AGENT, toolCallId: TOOL_CALL_ID });
    const first = await waitForPendingRecord(client, WORKFLOW_ID);
    const firstRunId = (await client.workflow.getHandle(WORKFLOW_ID).describe()).runId;
    const handle = client.workflow.getHandle(WORKFLOW_ID);
    // A chat message posted for the question, as a delivery reports it: later notifications must still carry it.
    await handle.signal(notificationPostedSignal, RECEIPT);

    // Refused signals: half from outside the audience, half from alice with an option that does not exist.
    for (let sent = 0; sent < SIGNALS; sent += SIGNAL_BATCH) {
      const batch = Array.from(
        { length: Math.min(SIGNAL_BATCH, SIGNALS - sent) },
        (_, index) => sent + index,
      );
      await Promise.all(
        batch.map((index) =>
          handle.signal(
            'answer',
            index % 2 === 0
              ? { ...ANSWER, answeredBy: `mallory-${index}` }
              : { answers: [{ id: 'rollout', selected: [`region-${index}`] }], answeredBy: 'alice' },
          ),
        ),
      );
      // Read-after-write: the query answers once the worker has handled every signal sent above.
      await handle.query(getQuestionQuery);
    }
    const signalsDoneAt = Date.now();

    for (let sent = 0; sent < EXTENSIONS; sent += EXTENSION_BATCH) {
      await Promise.all(
        Array.from({ length: EXTENSION_BATCH }, (_, index) =>
          questions.extendDeadline(WORKFLOW_ID, '1m', `ops-${sent + index}`),
        ),
      );
    }
    const extensionsDoneAt = Date.now();

    // The agent that crashed and asks again with the same tool call id re-attaches to the same question.
    const reattached = new TemporalUserInteraction({ client, taskQueue: TASK_QUEUE });
    const askedAgain = reattached.ask({ questions: [QUESTION], agent: AGENT, toolCallId: TOOL_CALL_ID });

    // The record the query answers in the last run is the question's, as the first run began it.
    const pending: QuestionRecord = await questions.get(WORKFLOW_ID);
    const askedAtMs = Date.parse(first.askedAt);
    assert.equal(pending.status, 'pending');
    assert.equal(pending.askedAt, first.askedAt);
    assert.deepEqual(pending.questions, [QUESTION]);
    assert.deepEqual(pending.audience, { users: ['alice'], groups: ['release'] });
    assert.equal(
      pending.expiresAt,
      new Date(askedAtMs + EXPIRE_AFTER_MS + EXTENSIONS * EXTENSION_MS).toISOString(),
      'the deadline is the original one plus every extension',
    );
    // The audit keeps the last 20 changes, each one minute on from the one before, by the last 20 senders.
    const changes = pending.deadlineChanges ?? [];
    assert.equal(changes.length, 20);
    assert.deepEqual(
      changes.map((change) => change.extendedBy).sort(),
      Array.from({ length: 20 }, (_, index) => `ops-${EXTENSIONS - 20 + index}`).sort(),
    );
    for (const [index, change] of changes.entries()) {
      assert.equal(Date.parse(change.to) - Date.parse(change.from ?? ''), EXTENSION_MS);
      if (index > 0) assert.equal(change.from, changes[index - 1]?.to);
    }
    assert.equal(changes.at(-1)?.to, pending.expiresAt);
    // The refused signals' log is bounded and holds the last ones, each with its reason.
    assert.equal(pending.rejectedAnswers.length, 20);
    for (const rejected of pending.rejectedAnswers) {
      const index = rejected.answeredBy?.startsWith('mallory-')
        ? Number(rejected.answeredBy.slice('mallory-'.length))
        : undefined;
      if (index !== undefined) {
        assert.ok(index >= SIGNALS - SIGNAL_BATCH, `a late signal is logged, not ${rejected.answeredBy}`);
        assert.match(rejected.reason, /^"mallory-\d+" \(no groups\) may not answer this: it is assigned to /);
      } else {
        assert.equal(rejected.answeredBy, 'alice');
        assert.match(rejected.reason, /"region-\d+" is not an option of question "rollout"/);
      }
    }
    // The worker's policy, applied once by the first run, still reminds: one reminder per period, numbered on.
    assert.ok((pending.remindersSent ?? 0) >= 1, 'a reminder went out');
    // The memo the server carried over moved with every extension; the fingerprint still re-attaches.
    const memo = (await handle.describe()).memo as Partial<QuestionMemo>;
    assert.equal(memo.expiresAt, pending.expiresAt);
    assert.ok(memo.fingerprint !== undefined && memo.fingerprint !== '');

    // An answer from outside the audience is still refused, in whatever run it lands.
    await assert.rejects(
      questions.answer(WORKFLOW_ID, { ...ANSWER, answeredBy: 'bob' }),
      (error: unknown) => {
        assert.ok(QuestionOperationError.isInstance(error));
        assert.equal(error.code, 'FORBIDDEN');
        return true;
      },
    );
    const outcome = await questions.answer(WORKFLOW_ID, {
      ...ANSWER,
      answeredBy: 'alice',
      groups: ['release'],
    });
    assert.equal(outcome.status, 'answered');
    assert.equal(outcome.answeredBy, 'alice');

    // The agent's ask() gets the exact answer, and so does the re-attached one.
    assert.deepEqual(await asked, ANSWER);
    assert.deepEqual(await askedAgain, ANSWER);
    await reattached.close();
    const answeredAt = Date.now();

    // Exactly one answer: a second one is refused naming the first.
    await assert.rejects(
      questions.answer(WORKFLOW_ID, { ...ANSWER, answeredBy: 'alice' }),
      (error: unknown) => {
        assert.ok(QuestionOperationError.isInstance(error));
        assert.equal(error.code, 'ALREADY_RESOLVED');
        assert.match(error.message, /already answered by alice at /);
        return true;
      },
    );

    const chain = await chainOf(WORKFLOW_ID);
    assert.ok(chain.length > 1, `the question continued as new (${chain.length} run)`);
    assert.equal(chain[0]?.runId, firstRunId);
    assert.deepEqual(
      chain.map((run) => run.status),
      [...Array<string>(chain.length - 1).fill('CONTINUED_AS_NEW'), 'COMPLETED'],
    );
    // Each run stayed under the limits it ran with.
    for (const run of chain) {
      assert.ok(run.events < EVENT_LIMIT, `run ${run.runId}: ${run.events} events`);
      assert.ok(run.acceptedUpdates < UPDATE_LIMIT, `run ${run.runId}: ${run.acceptedUpdates} updates`);
    }
    const totals = chain.reduce(
      (sum, run) => ({
        events: sum.events + run.events,
        bytes: sum.bytes + run.bytes,
        signals: sum.signals + run.signals,
        updates: sum.updates + run.acceptedUpdates,
        answers: sum.answers + run.submitAnswers,
      }),
      { events: 0, bytes: 0, signals: 0, updates: 0, answers: 0 },
    );
    assert.equal(totals.signals, SIGNALS, 'every signal reached a run');
    assert.equal(totals.updates, EXTENSIONS + 1, 'every extension and the one answer were accepted');
    assert.equal(totals.answers, 1);
    assert.ok(totals.events > EVENT_LIMIT, 'the question took more events than one run may hold');

    // Notifications: one pending and one resolved per webhook, reminders numbered on across runs, each once,
    // and the chat receipt reported in the first run rides along in the last.
    await waitFor('the resolved notifications', () =>
      receiver.of(WORKFLOW_ID, 'question.resolved').length === 2 ? true : undefined,
    );
    for (const path of ['/worker', '/asker']) {
      assert.equal(receiver.of(WORKFLOW_ID, 'question.pending', path).length, 1, path);
      const [resolved] = receiver.of(WORKFLOW_ID, 'question.resolved', path);
      assert.deepEqual(resolved?.event.record.answer, ANSWER);
      assert.deepEqual(resolved?.event.posted, [RECEIPT]);
      const reminders = receiver
        .of(WORKFLOW_ID, 'question.reminder', path)
        .map((delivery) => delivery.event.reminder);
      assert.deepEqual(
        reminders.sort(),
        Array.from({ length: pending.remindersSent ?? 0 }, (_, index) => index + 1),
        path,
      );
    }

    // Lists show the question once: the earlier runs are not questions of their own.
    await waitFor('the list to show the answered question', async () => {
      const all = (await questions.list('all', 1_000)).filter(
        (summary) => summary.workflowId === WORKFLOW_ID,
      );
      return all.length === 1 && all[0]?.status === 'answered' ? true : undefined;
    });
    assert.deepEqual(
      (await questions.list('resolved', 1_000)).filter((summary) => summary.workflowId === WORKFLOW_ID)
        .length,
      1,
    );

    if (process.env.LONG_LIFE_REPORT === '1') {
      console.log(
        JSON.stringify(
          {
            limits: DEFAULT_LIMITS ? 'default' : LOWERED_LIMITS,
            seconds: {
              signals: (signalsDoneAt - started) / 1000,
              extensions: (extensionsDoneAt - signalsDoneAt) / 1000,
              total: (answeredAt - started) / 1000,
            },
            runs: chain.length,
            ...totals,
            bytesPerEvent: Math.round(totals.bytes / totals.events),
            largestRun: Math.max(...chain.map((run) => run.events)),
          },
          null,
          2,
        ),
      );
    }
  },
);
