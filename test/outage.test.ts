/**
 * The unavailability bound while waiting: a server that goes away under a pending question is noticed, and the
 * tool fails with `ASK_UNAVAILABLE` naming how long the server has been unreachable, instead of hanging.
 * A real dev server process on a temporary SQLite file, an in-process ask-user worker, and the real tool over
 * `TemporalUserInteraction({ unavailableTimeoutMs: 2_000 })`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { inspect } from 'node:util';

import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';

import {
  TemporalUserInteraction,
  UserInteractionError,
  createAskUserQuestionTool,
  questionWorkflowId,
} from '../src';
import { waitForPendingRecord } from './helpers/pending-questions';
import { freePort, startDevServerProcess, type DevServerProcess } from './helpers/temporal';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from './helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `outage-${process.pid}`;

test('a server that stays down while a question is pending fails the tool with ASK_UNAVAILABLE', async () => {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'ask-user-outage-'));
  let server: DevServerProcess | undefined;
  let connection: Connection | undefined;
  let workerConnection: NativeConnection | undefined;
  let worker: RunningWorkers | undefined;
  // Withdraws the question if an assertion fails first, so the tool call never outlives the test.
  const turn = new AbortController();
  let asked: Promise<string> | undefined;
  try {
    server = await startDevServerProcess({
      dbFile: path.join(directory, 'temporal.sqlite'),
      port: await freePort(),
    });
    connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection, namespace: 'default' });
    workerConnection = await NativeConnection.connect({ address: server.address });
    worker = runWorkers([await createAskUserTestWorker(workerConnection, { taskQueue: TASK_QUEUE })]);

    const tool = createAskUserQuestionTool({
      userInteraction: new TemporalUserInteraction({
        client,
        taskQueue: TASK_QUEUE,
        unavailableTimeoutMs: 2_000,
      }),
    });
    const agent = { id: 'outage-bot' };
    const toolCallId = 'call-outage';
    asked = tool.execute(
      {
        questions: [
          {
            id: 'q1',
            question: 'Fail over to the standby database?',
            options: [{ label: 'Yes' }, { label: 'No' }],
          },
        ],
      },
      { toolCallId, agent, signal: turn.signal },
    );
    asked.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
    await waitForPendingRecord(client, questionWorkflowId({ agent, toolCallId }, randomUUID));

    // The worker goes first, so its shutdown has a server to say goodbye to; then the server.
    await worker.stop();
    await server.stop();

    const error = await asked.then(
      (text) => assert.fail(`the tool resolved while the server was down: ${text}`),
      (failure: unknown) => failure,
    );
    assert.ok(
      UserInteractionError.isInstance(error),
      `expected a UserInteractionError, got ${inspect(error)}`,
    );
    assert.equal(error.code, 'ASK_UNAVAILABLE');
    assert.match(
      error.message,
      /^ask_user_question could not reach the question service: the server has been unreachable for \d+s$/,
    );
  } finally {
    turn.abort();
    await asked?.catch(() => undefined);
    try {
      await worker?.stop();
      await workerConnection?.close();
      await connection?.close();
      await server?.stop();
    } finally {
      await fs.rm(directory, { recursive: true, force: true });
    }
  }
});
