/**
 * The unavailability bound while waiting: a server that goes away under pending questions is noticed once for
 * the connection, and every waiting tool call fails with `ASK_UNAVAILABLE` naming how long the server has been
 * unreachable, within the bound plus 2 s, instead of hanging. Waiting costs no per-question `describe()`.
 * A real dev server process on a temporary SQLite file, an in-process ask-user worker, and the real tool.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { setMaxListeners } from 'node:events';

import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';

import {
  TemporalUserInteraction,
  UserInteractionError,
  createAskUserQuestionTool,
  questionWorkflowId,
} from '../../src';
import { QuestionClient } from '../../src/ops';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { freePort, startDevServerProcess, type DevServerProcess } from '../helpers/temporal';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `outage-${process.pid}`;
/** The unavailability bound under test. */
const BOUND_MS = 3_000;

/** A dev server on a temporary SQLite file, an ask-user worker, and the agent's connection. */
interface Stack {
  server: DevServerProcess;
  client: Client;
  worker: RunningWorkers;
}

/**
 * Runs `body` against a fresh stack whose agent connection has `interceptors` (and no SDK retry interceptor, as
 * the provider connects on its own: it retries every call itself), then tears everything down.
 */
async function withStack(interceptors: Interceptor[], body: (stack: Stack) => Promise<void>): Promise<void> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'ask-user-outage-'));
  let server: DevServerProcess | undefined;
  let connection: Connection | undefined;
  let workerConnection: NativeConnection | undefined;
  let worker: RunningWorkers | undefined;
  try {
    server = await startDevServerProcess({
      dbFile: path.join(directory, 'temporal.sqlite'),
      port: await freePort(),
    });
    connection = await Connection.connect({ address: server.address, interceptors });
    workerConnection = await NativeConnection.connect({ address: server.address });
    worker = runWorkers([await createAskUserTestWorker(workerConnection, { taskQueue: TASK_QUEUE })]);
    await body({ server, client: new Client({ connection, namespace: 'default' }), worker });
  } finally {
    try {
      await worker?.stop();
      await workerConnection?.close();
      await connection?.close();
      await server?.stop();
    } finally {
      await fs.rm(directory, { recursive: true, force: true });
    }
  }
}

test('a server that goes away under 20 waiting asks fails each within the bound plus 2 s, with no describe storm', async () => {
  // Withdraws the questions if an assertion fails first, so no tool call outlives the test.
  const turn = new AbortController();
  setMaxListeners(64, turn.signal); // one listener per waiting call
  const asked: Promise<number>[] = [];
  // Every call that goes over the agent's connection, by method.
  const calls = new Map<string, number>();
  const countCalls: Interceptor = (options, nextCall) => {
    const method = options.method_definition.path.split('/').at(-1) ?? '';
    calls.set(method, (calls.get(method) ?? 0) + 1);
    return new InterceptingCall(nextCall(options));
  };
  await withStack([countCalls], async ({ server, client, worker }) => {
    try {
      const tool = createAskUserQuestionTool({
        userInteraction: new TemporalUserInteraction({
          client,
          taskQueue: TASK_QUEUE,
          unavailableTimeoutMs: BOUND_MS,
        }),
      });
      const agent = { id: 'outage-bot' };
      let stoppedAt = Number.NaN;
      for (let index = 0; index < 20; index++) {
        const toolCallId = `call-outage-${index}`;
        const call = tool.execute(
          {
            questions: [
              {
                id: 'q1',
                question: `Fail over database ${index} to the standby?`,
                options: [{ label: 'Yes' }, { label: 'No' }],
              },
            ],
          },
          { toolCallId, agent, signal: turn.signal },
        );
        asked.push(
          call.then(
            (text) => assert.fail(`the tool resolved while the server was down: ${text}`),
            (failure: unknown) => {
              assert.ok(
                UserInteractionError.isInstance(failure),
                `expected a UserInteractionError, got ${inspect(failure)}`,
              );
              assert.equal(failure.code, 'ASK_UNAVAILABLE');
              assert.match(
                failure.message,
                /^ask_user_question could not reach the question service: the server has been unreachable for \d+s$/,
              );
              return Date.now() - stoppedAt;
            },
          ),
        );
      }
      for (const promise of asked) promise.catch(() => undefined); // awaited below
      for (let index = 0; index < 20; index++) {
        await waitForPendingRecord(
          client,
          questionWorkflowId({ agent, toolCallId: `call-outage-${index}` }, randomUUID),
        );
      }
      // Waiting costs no per-question describe: count from here, while all 20 wait.
      const describesBefore = calls.get('DescribeWorkflowExecution') ?? 0;

      // The worker goes first, so its shutdown has a server to say goodbye to; then the server.
      await worker.stop();
      await server.stop();
      stoppedAt = Date.now();

      const elapsed = await Promise.all(asked);
      for (const milliseconds of elapsed) {
        assert.ok(
          milliseconds <= BOUND_MS + 2_000,
          `ASK_UNAVAILABLE came ${milliseconds} ms after the server went away; the bound is ${BOUND_MS} ms + 2 s`,
        );
      }
      assert.equal((calls.get('DescribeWorkflowExecution') ?? 0) - describesBefore, 0, inspect(calls));
    } finally {
      turn.abort();
      await Promise.allSettled(asked);
    }
  });
});

test('a slow server is not down: answers that take longer than the bound still reach the waiting agent', async () => {
  const turn = new AbortController();
  let asked: Promise<string> | undefined;
  // Every result poll and describe is served 2.5 s late: slower than the 2 s bound, on a connected channel.
  const SLOW_METHODS = ['GetWorkflowExecutionHistory', 'DescribeWorkflowExecution'];
  const slowReplies: Interceptor = (options, nextCall) => {
    const method = options.method_definition.path.split('/').at(-1) ?? '';
    if (!SLOW_METHODS.includes(method)) return new InterceptingCall(nextCall(options));
    // The request leaves 2.5 s late, as from a server too busy to take it: a call with a shorter deadline fails.
    return new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        setTimeout(() => next(metadata, listener), 2_500);
      },
    });
  };
  await withStack([slowReplies], async ({ server, client }) => {
    try {
      const tool = createAskUserQuestionTool({
        userInteraction: new TemporalUserInteraction({
          client,
          taskQueue: TASK_QUEUE,
          unavailableTimeoutMs: 2_000,
        }),
      });
      const agent = { id: 'slow-bot' };
      const toolCallId = 'call-slow';
      asked = tool.execute(
        {
          questions: [
            { id: 'q1', question: 'Rotate the keys?', options: [{ label: 'Yes' }, { label: 'No' }] },
          ],
        },
        { toolCallId, agent, signal: turn.signal },
      );
      asked.catch(() => undefined); // awaited below
      const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
      const fast = await Connection.connect({ address: server.address });
      try {
        const fastClient = new Client({ connection: fast, namespace: 'default' });
        await waitForPendingRecord(fastClient, workflowId);
        // Several bounds pass while the agent waits on the slow connection, then the answer comes.
        await new Promise((resolve) => setTimeout(resolve, 6_000));
        await new QuestionClient(fastClient).answer(workflowId, {
          answers: [{ id: 'q1', selected: ['Yes'] }],
        });
      } finally {
        await fast.close();
      }
      assert.equal(await asked, '{"answers":[{"id":"q1","selected":["Yes"]}]}');
    } finally {
      turn.abort();
      await asked?.catch(() => undefined);
    }
  });
});
