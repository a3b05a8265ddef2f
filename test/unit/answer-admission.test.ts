/**
 * How an answer's client tells a worker taking tasks from none by the task queue's pollers (`answer-admission.ts`):
 * a poll since the first read moves them; a listed poller whose last poll stays put does not. A queue seen so
 * counts as such for 3 s (`WorkerPresence`), with no call to the server, and answers that look together share
 * their reads of the pollers; an answer to a question of an agent whose queue is known and busy reads nothing.
 */
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';

import { Connection, type Client } from '@temporalio/client';

import { admitAnswer } from '../../src/ops/answer-admission';
import { ASK_USER_QUESTION_WORKFLOW_TYPE } from '../../src/question/definitions';
import type { QuestionOutcome } from '../../src/types';
import { WorkerPresence, pollsMoved } from '../../src/ops/task-queue-workers';
import { NotTakenByWorker } from '../../src/ops/update-refusals';

/** A client that fails any use: what is tested here must not reach the server. */
const NO_SERVER = new Proxy(
  {},
  {
    get() {
      throw new Error('no call to the server was expected');
    },
  },
) as Client;

describe('pollsMoved', () => {
  const before = new Map([
    ['worker-a', 1_000],
    ['worker-b', 2_000],
  ]);

  test('a poller that polled again since the first read moves them', () => {
    assert.equal(pollsMoved(before, new Map([...before, ['worker-b', 2_001]])), true);
  });

  test('a poller not listed at the first read moves them', () => {
    assert.equal(pollsMoved(before, new Map([...before, ['worker-c', 500]])), true);
  });

  test('the same last polls, fewer pollers, or none do not', () => {
    assert.equal(pollsMoved(before, new Map(before)), false);
    assert.equal(pollsMoved(before, new Map([['worker-a', 1_000]])), false);
    assert.equal(pollsMoved(before, new Map()), false);
    assert.equal(pollsMoved(new Map(), new Map()), false);
  });
});

describe('WorkerPresence: a task queue seen taking tasks', () => {
  test('a queue seen taking tasks counts as such; another queue does not', () => {
    const activity = new WorkerPresence(NO_SERVER);
    assert.equal(activity.takingTasks('questions'), false);
    activity.sawTakingTasks('questions');
    assert.equal(activity.takingTasks('questions'), true);
    assert.equal(activity.takingTasks('other-questions'), false);
  });

  test('for 3 s', () => {
    mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
    try {
      const activity = new WorkerPresence(NO_SERVER);
      activity.sawTakingTasks('questions');
      mock.timers.tick(2_999);
      assert.equal(activity.takingTasks('questions'), true);
      mock.timers.tick(1);
      assert.equal(activity.takingTasks('questions'), false);
    } finally {
      mock.timers.reset();
    }
  });

  test('a read of the pollers is shared with a caller that asks for one sent after a time before it, not after', async () => {
    let reads = 0;
    const client = {
      options: { namespace: 'default' },
      workflowService: {
        describeTaskQueue: async () => {
          reads += 1;
          return { pollers: [] };
        },
      },
    } as unknown as Client;
    const activity = new WorkerPresence(client);
    const before = Date.now() - 1;
    await Promise.all([activity.readPolls('questions'), activity.readPolls('questions')]);
    assert.equal(reads, 1);
    await activity.readPolls('questions', before);
    assert.equal(reads, 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await activity.readPolls('questions', Date.now());
    assert.equal(reads, 2);
    await activity.readPolls('other-questions');
    assert.equal(reads, 3);
  });

  test("an agent's task queue, read from one of its questions, is taken for its others while a worker takes its tasks", () => {
    const presence = new WorkerPresence(NO_SERVER);
    presence.noteQueue('ask-user-question/agent-a/call-1', 'questions');
    assert.equal(presence.busyQueueOf('ask-user-question/agent-a/call-2'), undefined, 'no worker seen yet');
    presence.sawTakingTasks('questions');
    assert.equal(presence.busyQueueOf('ask-user-question/agent-a/call-2'), 'questions');
    assert.equal(presence.busyQueueOf('ask-user-question/agent-a/session-1/call-3'), 'questions');
    assert.equal(presence.busyQueueOf('ask-user-question/agent-b/call-4'), undefined, 'another agent');
    assert.equal(presence.busyQueueOf('ask-user-question/0d4f6c1e-uuid'), undefined, 'an id naming no agent');
    assert.equal(presence.busyQueueOf('deploy-42/agent-a'), undefined, 'not a question id');
    // The signal path read one of its questions on another queue, which no worker takes.
    presence.markMissing('moved-questions', 'ask-user-question/agent-a/call-5');
    assert.equal(presence.busyQueueOf('ask-user-question/agent-a/call-6'), undefined);
  });

  test('a queue found missing its worker stops counting as such once a worker takes its tasks or answers a query', () => {
    const presence = new WorkerPresence(NO_SERVER);
    presence.markMissing('questions', 'ask-user-question/agent-a/call-1');
    presence.markMissing('other-questions', 'ask-user-question/agent-b/call-2');
    assert.equal(presence.recentlyMissing('ask-user-question/agent-a/call-1'), true);
    presence.sawTakingTasks('questions');
    assert.equal(presence.recentlyMissing('ask-user-question/agent-a/call-1'), false);
    assert.equal(presence.recentlyMissing('ask-user-question/agent-b/call-2'), true, 'another queue');
    presence.sawAnswering('other-questions');
    assert.equal(presence.recentlyMissing('ask-user-question/agent-b/call-2'), false);
  });

  test('is seen polling too, so a check of its workers asks the server nothing', async () => {
    const activity = new WorkerPresence(NO_SERVER);
    activity.sawTakingTasks('questions');
    assert.equal(await activity.polls('questions', 0), true);
  });
});

describe('admitAnswer', () => {
  test('with a call bound too short to wait past the admission, it reads nothing and gives up at the admission', async () => {
    const deadlines: number[] = [];
    let reads = 0;
    // Its calls' scope may be set; nothing else of the client may be touched.
    const scopes = {
      withDeadline: async <R>(_deadline: number, fn: () => Promise<R>): Promise<R> => await fn(),
    };
    const counting = new Proxy(scopes, {
      get(target, key) {
        if (key === 'withDeadline') return target.withDeadline;
        if (key === 'connection') return undefined;
        reads += 1;
        throw new Error('no call to the server was expected');
      },
    }) as unknown as Client;
    const began = Date.now();
    await assert.rejects(
      admitAnswer(
        counting,
        'ask-user-question/short-bound',
        async (deadline) => {
          deadlines.push(deadline);
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())));
          throw new NotTakenByWorker();
        },
        { admissionMs: 60, busyWorkerMs: 60 },
        new WorkerPresence(counting),
      ),
      NotTakenByWorker,
    );
    assert.equal(deadlines.length, 1);
    assert.ok(deadlines[0]! >= began + 60 && deadlines[0]! <= Date.now());
    assert.equal(reads, 0);
  });
});

/**
 * A client holding one question on `questions`, whose pollers' last polls move by `pollStep` ms at each read,
 * counting its reads; `withAbortSignal` keeps the signal each call was given.
 */
function oneQuestionClient(pollStep: number): {
  client: Client;
  reads: { describe: number; pollers: number };
  signals: AbortSignal[];
} {
  const reads = { describe: 0, pollers: 0 };
  const signals: AbortSignal[] = [];
  let lastPoll = 1_000;
  const client = {
    connection: {},
    options: { namespace: 'default' },
    withAbortSignal: async <R>(signal: AbortSignal, fn: () => Promise<R>): Promise<R> => {
      signals.push(signal);
      return await fn();
    },
    withDeadline: async <R>(_deadline: number, fn: () => Promise<R>): Promise<R> => await fn(),
    workflowService: {
      describeWorkflowExecution: async () => {
        reads.describe += 1;
        return {
          workflowExecutionInfo: {
            type: { name: ASK_USER_QUESTION_WORKFLOW_TYPE },
            status: 1, // running
            taskQueue: 'questions',
          },
        };
      },
      describeTaskQueue: async () => {
        reads.pollers += 1;
        lastPoll += pollStep;
        return { pollers: [{ identity: 'worker-a', lastAccessTime: { seconds: 0, nanos: lastPoll * 1e6 } }] };
      },
    },
  } as unknown as Client;
  return { client, reads, signals };
}

const ANSWERED = { status: 'answered' } as QuestionOutcome;

/** An update a worker accepts `ms` after it is sent, answered; `sends` counts how often it was sent. */
function acceptedAfter(ms: number): { startUpdate: () => Promise<QuestionOutcome>; sends: () => number } {
  let sent = 0;
  return {
    startUpdate: async () => {
      sent += 1;
      await new Promise((resolve) => setTimeout(resolve, ms));
      return ANSWERED;
    },
    sends: () => sent,
  };
}

/** Look at 40 ms, admission at 60, a busy worker waited for up to 1 s. */
const TIMES = { admissionMs: 60, busyWorkerMs: 1_000 };

describe('admitAnswer past the admission', () => {
  test('a worker taking tasks: the update sent once is waited for, and its outcome returned', async () => {
    const { client, reads, signals } = oneQuestionClient(5);
    const deadlines: number[] = [];
    const began = Date.now();
    const outcome = await admitAnswer(
      client,
      'ask-user-question/busy',
      async (deadline) => {
        deadlines.push(deadline);
        await new Promise((resolve) => setTimeout(resolve, 250));
        return ANSWERED;
      },
      { admissionMs: 60, busyWorkerMs: 1_000 },
      new WorkerPresence(client),
    );
    assert.equal(outcome, ANSWERED);
    assert.equal(deadlines.length, 1, 'the update was sent again');
    assert.ok(deadlines[0]! >= began + 1_000, 'the one update is bounded by the busy worker time');
    assert.deepEqual(reads, { describe: 1, pollers: 2 });
    assert.equal(signals[0]?.aborted, false);
  });

  test('an answer a worker accepts after the first look marks its queue taking tasks: the next reads no pollers', async () => {
    const { client, reads } = oneQuestionClient(0);
    const workers = new WorkerPresence(client);
    const outcome = await admitAnswer(
      client,
      'ask-user-question/accepted-after-look',
      async () => {
        // Accepted between the first look (at 40 ms) and the admission (at 60 ms).
        await new Promise((resolve) => setTimeout(resolve, 52));
        return ANSWERED;
      },
      { admissionMs: 60, busyWorkerMs: 1_000 },
      workers,
    );
    assert.equal(outcome, ANSWERED);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(workers.takingTasks('questions'), true);
    assert.deepEqual(reads, { describe: 1, pollers: 1 });

    // Pollers that do not move would make this one "no worker"; the queue seen taking tasks makes it wait.
    const next = await admitAnswer(
      client,
      'ask-user-question/behind-the-backlog',
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        return ANSWERED;
      },
      { admissionMs: 60, busyWorkerMs: 1_000 },
      workers,
    );
    assert.equal(next, ANSWERED);
    assert.deepEqual(reads, { describe: 2, pollers: 1 });
  });

  test('answers behind one backlog share the reads of their queue: two reads for eight answers', async () => {
    const { client, reads } = oneQuestionClient(5);
    const workers = new WorkerPresence(client);
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        admitAnswer(
          client,
          `ask-user-question/backlog-${i}`,
          async () => {
            await new Promise((resolve) => setTimeout(resolve, 150));
            return ANSWERED;
          },
          { admissionMs: 60, busyWorkerMs: 1_000 },
          workers,
        ),
      ),
    );
    assert.deepEqual(outcomes, Array(8).fill(ANSWERED));
    // Each answer reads its own question (for its task queue); the first looks share one read of the pollers,
    // the first verdict makes the second and sees the worker taking tasks, and the others trust that.
    assert.deepEqual(reads, { describe: 8, pollers: 2 });
  });

  test("answers to an agent's questions behind its busy queue read nothing when accepted by the admission", async () => {
    const { client, reads } = oneQuestionClient(5);
    const workers = new WorkerPresence(client);
    // The look is at 40 ms and the admission at 60.
    const answer = (workflowId: string, acceptedAfterMs: number): Promise<QuestionOutcome> =>
      admitAnswer(client, workflowId, acceptedAfter(acceptedAfterMs).startUpdate, TIMES, workers);
    assert.equal(await answer('ask-user-question/agent-a/call-1', 150), ANSWERED);
    assert.deepEqual(
      reads,
      { describe: 1, pollers: 2 },
      'the first is read, and sees the worker taking tasks',
    );
    const outcomes = await Promise.all(
      [2, 3, 4].map((n) => answer(`ask-user-question/agent-a/call-${n}`, 52)),
    );
    assert.deepEqual(outcomes, Array(3).fill(ANSWERED));
    assert.deepEqual(
      reads,
      { describe: 1, pollers: 2 },
      'the same agent, accepted by the admission: nothing read',
    );
    assert.equal(await answer('ask-user-question/agent-a/call-5', 150), ANSWERED);
    assert.deepEqual(
      reads,
      { describe: 2, pollers: 2 },
      'past the admission, the verdict reads its question',
    );
    assert.equal(await answer('ask-user-question/agent-b/call-6', 52), ANSWERED);
    assert.deepEqual(reads, { describe: 3, pollers: 2 }, 'another agent: its question read, not the pollers');
  });

  test("an answer that assumed its agent's busy queue gets the verdict of its own queue, which no worker takes", async () => {
    const { client, reads } = oneQuestionClient(0);
    const workers = new WorkerPresence(client);
    workers.noteQueue('ask-user-question/agent-a/call-1', 'other-questions');
    workers.sawTakingTasks('other-questions');
    const update = acceptedAfter(1_000);
    await assert.rejects(
      admitAnswer(client, 'ask-user-question/agent-a/call-2', update.startUpdate, TIMES, workers),
      NotTakenByWorker,
    );
    assert.equal(update.sends(), 1);
    // Its question read at the verdict (on `questions`), whose pollers do not move.
    assert.deepEqual(reads, { describe: 1, pollers: 2 });
    assert.equal(workers.busyQueueOf('ask-user-question/agent-a/call-3'), undefined, 'its queue noted');
  });

  test("an answer that assumed its agent's queue, and is on it, waits for it though its sighting lapsed meanwhile", async () => {
    // Date alone is mocked: the sighting lapses when the test says, the timers run as they do.
    mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
    try {
      const { client, reads } = oneQuestionClient(0);
      const workers = new WorkerPresence(client);
      workers.noteQueue('ask-user-question/agent-a/call-1', 'questions');
      workers.sawTakingTasks('questions');
      const outcome = await admitAnswer(
        client,
        'ask-user-question/agent-a/call-2',
        async () => {
          // Past the look at 40 ms (which assumed the queue), the sighting lapses before the verdict at 60.
          await new Promise((resolve) => setTimeout(resolve, 50));
          mock.timers.tick(3_000);
          await new Promise((resolve) => setTimeout(resolve, 150));
          return ANSWERED;
        },
        TIMES,
        workers,
      );
      assert.equal(outcome, ANSWERED);
      // Its question read at the verdict; its queue counted as taking tasks, as at the look: no pollers read.
      assert.deepEqual(reads, { describe: 1, pollers: 0 });
    } finally {
      mock.timers.reset();
    }
  });

  test('a refused update marks nothing', async () => {
    const { client } = oneQuestionClient(0);
    const workers = new WorkerPresence(client);
    await assert.rejects(
      admitAnswer(
        client,
        'ask-user-question/refused-after-look',
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 52));
          throw new Error('refused by the validator');
        },
        { admissionMs: 60, busyWorkerMs: 1_000 },
        workers,
      ),
      /refused by the validator/,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(workers.takingTasks('questions'), false);
  });

  test('no worker taking tasks: the update is abandoned at the admission, naming the queue no worker takes', async () => {
    const { client, reads, signals } = oneQuestionClient(0);
    const update = acceptedAfter(1_000);
    const began = Date.now();
    await assert.rejects(
      admitAnswer(client, 'ask-user-question/stopped', update.startUpdate, TIMES, new WorkerPresence(client)),
      (error: unknown) => error instanceof NotTakenByWorker && error.taskQueue === 'questions',
    );
    assert.ok(Date.now() - began < 500, 'it waited for the abandoned update');
    assert.equal(update.sends(), 1);
    assert.deepEqual(reads, { describe: 1, pollers: 2 });
    assert.equal(signals[0]?.aborted, true, 'the abandoned update call was not cancelled');
  });
});

describe('admitAnswer under a caller scope with its own abort signal', () => {
  test("the caller's abort still cancels the answer's update", async () => {
    const connection = Connection.lazy({ address: '127.0.0.1:1' });
    const client = {
      connection,
      withAbortSignal: <R>(signal: AbortSignal, fn: () => Promise<R>) =>
        connection.withAbortSignal(signal, fn),
    } as unknown as Client;
    const caller = new AbortController();
    const began = Date.now();
    setTimeout(() => caller.abort(), 20);
    await assert.rejects(
      connection.withAbortSignal(caller.signal, () =>
        admitAnswer(
          client,
          'ask-user-question/caller-abort',
          async () => {
            const scope = connection.callContextStorage.getStore()?.abortSignal;
            assert.ok(scope !== undefined);
            await new Promise((_resolve, reject) =>
              scope.addEventListener('abort', () => reject(new Error('update cancelled')), { once: true }),
            );
            return ANSWERED;
          },
          { admissionMs: 5_000, busyWorkerMs: 10_000 },
          new WorkerPresence(client),
        ),
      ),
      /update cancelled/,
    );
    assert.ok(Date.now() - began < 1_000, 'the update outlived the caller');
  });
});
