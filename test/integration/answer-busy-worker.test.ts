/**
 * An answer whose update a worker has not accepted within the 3 s admission: a worker that is taking tasks gets
 * longer (the answer is recorded by the update, as with an idle worker), and one that stopped does not (the
 * answer is recorded as a signal, awaiting a worker, within 5 s).
 *
 * The busy worker is a poller of the question's task queue that takes the question's first workflow task and
 * holds it, with five polls at once reaching the server every 0.7 s, as a worker still busy with that task
 * would: the server delivers the update only in the question's next task, after the held one times out (10 s). A
 * real worker then takes it. The stopped worker is the same poller after the poll that took the task: the server
 * keeps listing it with that poll's time.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import { TemporalUserInteraction, createAskUserQuestionTool, questionWorkflowId } from '../../src';
import { QuestionClient } from '../../src/ops';
import { startTestEnvironment } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const AGENT = { id: 'busy-worker-agent' };
const ARGS = {
  questions: [{ id: 'q1', question: 'Ship it?', options: [{ label: 'Yes' }, { label: 'No' }] }],
};
const YES = { answers: [{ id: 'q1', selected: ['Yes'] }] };

let env: TestWorkflowEnvironment;
let questions: QuestionClient;
const workers: RunningWorkers[] = [];
/** Every holding poller, stopped at the end even when a test fails before it stops its own. */
const pollerStops: (() => void)[] = [];

before(async () => {
  env = await startTestEnvironment();
  questions = new QuestionClient(env.client);
});

after(async () => {
  for (const stop of pollerStops) stop();
  for (const running of workers) await running.stop();
  await env?.teardown();
});

/** Asks on `taskQueue` with no worker polling it yet; the agent's call resolves with the answer text. */
function ask(taskQueue: string, toolCallId: string): { workflowId: string; received: Promise<string> } {
  const provider = new TemporalUserInteraction({ client: env.client, taskQueue });
  const received = createAskUserQuestionTool({ userInteraction: provider }).execute(ARGS, {
    toolCallId,
    agent: AGENT,
  });
  received.catch(() => undefined);
  return { workflowId: questionWorkflowId({ agent: AGENT, toolCallId }, () => toolCallId), received };
}

/** A long poll's deadline: the server refuses one under 2 s and warns under 3 s. */
const POLL_MS = 3_500;

/**
 * Polls `taskQueue`'s workflow tasks as `identity`, never completing a task it takes, until `stop()`: with
 * `pollers` polls at once, started {@link POLL_MS} / `pollers` apart, so one reaches the server that often (a
 * worker's pollers, re-polling as they take tasks). With `once`, one poll at a time until one takes a task.
 */
function holdingPoller(
  client: Client,
  taskQueue: string,
  identity: string,
  { pollers = 1, once = false }: { pollers?: number; once?: boolean } = {},
): { taken: Promise<void>; stop(): void } {
  let stopped = false;
  let tookTask!: () => void;
  const taken = new Promise<void>((resolve) => (tookTask = resolve));
  const poll = async (delayMs: number): Promise<void> => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    while (!stopped) {
      try {
        const task = await client.withDeadline(Date.now() + POLL_MS, () =>
          client.workflowService.pollWorkflowTaskQueue({
            namespace: 'default',
            taskQueue: { name: taskQueue, kind: 1 }, // TASK_QUEUE_KIND_NORMAL
            identity,
          }),
        );
        if ((task.taskToken?.length ?? 0) > 0) {
          tookTask();
          if (once) stopped = true;
        }
      } catch {
        // The poll's own deadline, with no task: poll again.
      }
    }
  };
  for (let index = 0; index < pollers; index += 1) void poll((index * POLL_MS) / pollers);
  const stop = (): void => {
    stopped = true;
  };
  pollerStops.push(stop);
  return { taken, stop };
}

async function startWorker(taskQueue: string): Promise<void> {
  workers.push(runWorkers([await createAskUserTestWorker(env.nativeConnection, { taskQueue })]));
}

test('a worker taking tasks gets longer than the admission: the answer is recorded by the update', async () => {
  const taskQueue = `busy-worker-${process.pid}`;
  const question = ask(taskQueue, 'busy');
  const poller = holdingPoller(env.client, taskQueue, 'busy-worker', { pollers: 5 });
  await poller.taken;

  const answerStarted = Date.now();
  const answering = questions.answer(question.workflowId, { ...YES, answeredBy: 'alice' });
  answering.catch(() => undefined);
  // Past the admission and the second look at the pollers, the busy worker is replaced by a real one, which
  // takes the question's task once the held one times out.
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  poller.stop();
  await startWorker(taskQueue);

  const outcome = await answering;
  const tookMs = Date.now() - answerStarted;
  assert.ok(tookMs > 3_000, `the update was accepted within the admission (${tookMs} ms)`);
  assert.equal(outcome.status, 'answered');
  assert.equal(outcome.answeredBy, 'alice');
  assert.equal(outcome.awaitingWorker, undefined);
  assert.equal(outcome.unvalidatedAnswers, undefined);
  assert.equal(await question.received, JSON.stringify(YES));
});

test('a worker that stopped after its last poll does not: the answer is recorded as a signal within 5 s', async () => {
  const taskQueue = `stopped-worker-${process.pid}`;
  const question = ask(taskQueue, 'stopped');
  const poller = holdingPoller(env.client, taskQueue, 'stopped-worker', { once: true });
  await poller.taken;

  const answerStarted = Date.now();
  const outcome = await questions.answer(question.workflowId, { ...YES, answeredBy: 'bob' });
  const tookMs = Date.now() - answerStarted;
  assert.ok(tookMs < 5_000, `the answer took ${tookMs} ms`);
  assert.equal(outcome.status, 'pending');
  assert.equal(outcome.awaitingWorker?.taskQueue, taskQueue);
  assert.deepEqual(
    outcome.unvalidatedAnswers?.map((waiting) => waiting.answeredBy),
    ['bob'],
  );

  // The recorded answer reaches the agent once a worker runs the question.
  await startWorker(taskQueue);
  assert.equal(await question.received, JSON.stringify(YES));
  await waitFor('the record to name bob', async () =>
    (await questions.get(question.workflowId)).answeredBy === 'bob' ? true : undefined,
  );
});
