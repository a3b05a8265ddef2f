/**
 * Durable questions survive the Temporal server: the dev server runs on a SQLite file, is stopped while a
 * question is pending and started again on the same file and port. The waiting agent (a child process, with a
 * generous `unavailableTimeoutMs`) and the worker (a child process, kept running) ride out the outage: the
 * question is still listed pending afterwards, and answering it now reaches the agent that asked before.
 *
 * The children and the server are tracked by the shared process registry; `after()` stops whatever a timed-out
 * test left behind (its `finally` never runs).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Client } from '@temporalio/client';

import { workflowPollerSeen } from '../../src/ops/task-queue-workers';
import { DEFAULT_ASK_ARGS, startAgentProcess } from '../fixtures/agent-process';
import { jsonLines, killChildren, type RunningChild } from '../fixtures/child-process';
import { startWorkerProcess } from '../fixtures/worker-process';
import { waitUntilListedPending } from '../helpers/pending-questions';
import {
  freePort,
  startDevServerProcess,
  withQuestionClient,
  type DevServerProcess,
} from '../helpers/temporal';

/** How long the server stays down: past the SDK's built-in gRPC retries (10 attempts, about 15 s). */
const OUTAGE_MS = 20_000;

/** Waits (up to a minute) until a worker polls `taskQueue` again. */
async function waitUntilPolled(client: Client, taskQueue: string): Promise<void> {
  for (const started = Date.now(); !(await workflowPollerSeen(client, taskQueue)); await sleep(250)) {
    assert.ok(Date.now() - started < 60_000, `no worker polled ${taskQueue} within a minute of the restart`);
  }
}

function isRunning(child: RunningChild): boolean {
  return child.process.exitCode === null && child.process.signalCode === null;
}

// The test's server and its directory, for `cleanUp()`, which the test's `finally` and `after()` both call.
let server: DevServerProcess | undefined;
let directory: string | undefined;

async function cleanUp(): Promise<void> {
  try {
    await killChildren();
    await server?.stop();
  } finally {
    if (directory !== undefined) await fs.rm(directory, { recursive: true, force: true });
  }
}

after(cleanUp);

test('a question pending across a server restart is still pending, and its answer reaches the waiting agent', async () => {
  directory = await fs.mkdtemp(path.join(os.tmpdir(), 'ask-user-server-restart-'));
  const dbFile = path.join(directory, 'temporal.sqlite');
  const port = await freePort();
  const taskQueue = `server-restart-${process.pid}`;
  const agentId = 'patient-agent';
  const workflowId = `ask-user-question/${agentId}/call-1`;
  try {
    server = await startDevServerProcess({ dbFile, port });
    const worker = await startWorkerProcess(server.address, taskQueue);
    // Two minutes is far more than the outage below; the default (15 s) would be too short for it.
    const agent = startAgentProcess({
      address: server.address,
      taskQueue,
      agentId,
      unavailableTimeoutMs: 120_000,
    });

    const started = await agent.waitForLine((line) => line.includes('"event":"started"'));
    const { runId } = JSON.parse(started) as { runId: string };
    await withQuestionClient(server.address, (questions) => waitUntilListedPending(questions, workflowId));

    // The outage: a clean stop (SIGTERM), down for longer than the client's own gRPC retries last (about 15 s),
    // so the provider's wait loop has to carry the agent through; then the same server on the same file and port.
    // The port is free while the server is down, and a test file running at the same time could bind it in
    // that window (its freePort() may hand it out); the restart then fails with "already in use". That race is
    // inherent in "the server comes back at the address the clients know", and small enough to accept.
    const address = server.address;
    await server.stop();
    assert.notEqual(
      server.process.exitCode ?? server.process.signalCode,
      null,
      'the first server has exited',
    );
    await sleep(OUTAGE_MS);
    assert.ok(isRunning(agent), `the agent waits through the outage:\n${agent.stdout()}${agent.stderr()}`);
    assert.ok(
      isRunning(worker),
      `the worker waits through the outage:\n${worker.stdout()}${worker.stderr()}`,
    );
    server = await startDevServerProcess({ dbFile, port });
    assert.equal(server.address, address);

    assert.ok(isRunning(agent), `the agent is still waiting:\n${agent.stdout()}${agent.stderr()}`);
    assert.ok(isRunning(worker), `the worker is still running:\n${worker.stdout()}${worker.stderr()}`);

    await withQuestionClient(server.address, async (questions, client) => {
      const pending = await questions.list('pending');
      const listed = pending.filter((question) => question.workflowId === workflowId);
      assert.equal(listed.length, 1, 'the question is still listed pending after the restart');
      assert.equal(listed[0]?.status, 'pending');
      assert.equal(listed[0]?.agentId, agentId);

      const record = await questions.get(workflowId);
      assert.equal(record.status, 'pending');
      assert.equal(record.questions[0]?.question, DEFAULT_ASK_ARGS.questions[0]?.question);

      // The update needs a worker: the one that ran through the outage takes it once it polls again (the
      // restarted server forgot its pollers). On a loaded machine its first task can still take longer than the
      // answer's 3 s admission; the answer is then recorded as a signal for it, which is the other honest outcome.
      await waitUntilPolled(client, taskQueue);
      const answered = await questions.answer(workflowId, {
        answers: [{ id: 'deploy', selected: ['Yes (Recommended)'] }],
        answeredBy: 'carol',
      });
      if (answered.awaitingWorker === undefined) {
        assert.equal(answered.status, 'answered');
        assert.equal(answered.answeredBy, 'carol');
      } else {
        assert.equal(answered.status, 'pending');
        assert.equal(answered.awaitingWorker.taskQueue, taskQueue);
      }

      assert.deepEqual(await agent.waitForExit(), { code: 0, signal: null }, agent.stderr());
      assert.deepEqual(jsonLines(agent.stdout()), [
        { event: 'started', workflowId, runId },
        { event: 'result', text: '{"answers":[{"id":"deploy","selected":["Yes (Recommended)"]}]}' },
      ]);

      const final = await questions.get(workflowId);
      assert.equal(final.status, 'answered');
      assert.equal(final.answeredBy, 'carol');
      const description = await client.workflow.getHandle(workflowId).describe();
      assert.equal(description.runId, runId);
      assert.equal(description.status.name, 'COMPLETED');
    });
    assert.ok(isRunning(worker), `the worker is still running:\n${worker.stdout()}${worker.stderr()}`);
  } finally {
    await cleanUp();
  }
});
