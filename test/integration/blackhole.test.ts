/**
 * A network that silently drops everything: Toxiproxy between the agent's provider and a real dev server, and
 * a `timeout` toxic with `timeout: 0` both ways, which delivers nothing and neither closes nor refuses a
 * connection. The waiting ask must report `ASK_UNAVAILABLE` within `unavailableTimeoutMs` plus a few seconds
 * (the provider's keepalive settles how soon a silent connection is known dead), not after the SDK's default
 * keepalive of 30 s + 15 s; and once the network is back, the re-ask with the same tool call id re-attaches to
 * the same question and gets its answer.
 *
 * Toxiproxy is found or built by scripts/ensure-toxiproxy.js; without a Go toolchain this file fails, saying
 * what to install.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { inspect } from 'node:util';

import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';

import {
  TemporalUserInteraction,
  UserInteractionError,
  createAskUserQuestionTool,
  questionWorkflowId,
} from '../../src';
import { QuestionClient } from '../../src/ops';
import { waitUntilListedPending } from '../helpers/pending-questions';
import { killTrackedProcesses } from '../helpers/processes';
import { freePort, startDevServerProcess } from '../helpers/temporal';
import { blackholeToxics, startToxiproxy } from '../helpers/toxiproxy';
import { createAskUserTestWorker, runWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

/** The bound under test: the provider's default, as long as the keepalive's worst case (10 s + 5 s). */
const BOUND_MS = 15_000;
/**
 * The outage clock starts at the last evidence that the server answered, which is at most one probe interval
 * (a fifth of the bound, 3 s) before the network went silent: the error may come that much before the bound.
 */
const EARLY_MS = 3_000;
/** And after the bound: the health check's 500 ms interval, and the time to fail the waits. */
const LATE_MS = 2_000;
/** Longer than the bound and its slack, so the error must come while the network is still silent. */
const BLACKHOLE_MS = 20_000;

after(() => killTrackedProcesses());

test('a blackhole under a waiting ask: ASK_UNAVAILABLE within the bound plus slack, and the re-ask re-attaches', async (t) => {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'ask-user-blackhole-'));
  const taskQueue = `blackhole-${process.pid}`;
  const toxiproxy = await startToxiproxy();
  const server = await startDevServerProcess({
    dbFile: path.join(directory, 'temporal.sqlite'),
    port: await freePort(),
  });
  // The worker and the answering human reach the server directly: only the agent's network goes silent.
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const worker = runWorkers([await createAskUserTestWorker(workerConnection, { taskQueue })]);
  const questions = await QuestionClient.connect({ env: { TEMPORAL_ADDRESS: server.address } });
  const proxy = await toxiproxy.createProxy('temporal', server.address);
  // The provider connects from the environment, with the connection settings every agent gets.
  process.env.TEMPORAL_ADDRESS = proxy.address;
  const provider = new TemporalUserInteraction({ taskQueue, unavailableTimeoutMs: BOUND_MS });
  const tool = createAskUserQuestionTool({ userInteraction: provider });
  const agent = { id: 'blackhole-bot' };
  const toolCallId = 'call-blackhole';
  const args = {
    questions: [
      {
        id: 'q1',
        question: 'Promote the canary to all regions?',
        options: [{ label: 'Yes' }, { label: 'No' }],
      },
    ],
  };
  const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
  try {
    const first = tool.execute(args, { toolCallId, agent });
    first.catch(() => undefined); // awaited below
    await waitUntilListedPending(questions, workflowId);

    const silentFrom = Date.now();
    for (const toxic of blackholeToxics()) await proxy.addToxic(toxic);
    const failure = await first.then(
      (text) => assert.fail(`the ask resolved inside the blackhole: ${text}`),
      (error: unknown) => error,
    );
    const noticedAfter = Date.now() - silentFrom;
    t.diagnostic(`blackhole noticed after ${noticedAfter} ms: ${(failure as Error).message}`);
    assert.ok(
      UserInteractionError.isInstance(failure),
      `expected a UserInteractionError, got ${inspect(failure)}`,
    );
    assert.equal(failure.code, 'ASK_UNAVAILABLE');
    assert.match(failure.message, /the server has been unreachable for \d+s$/);
    assert.ok(
      noticedAfter >= BOUND_MS - EARLY_MS && noticedAfter <= BOUND_MS + LATE_MS,
      `ASK_UNAVAILABLE came ${noticedAfter} ms into the blackhole; expected ${BOUND_MS - EARLY_MS} to ${BOUND_MS + LATE_MS} ms`,
    );

    // The question outlived the outage on the server.
    assert.equal((await questions.get(workflowId)).status, 'pending');
    const silentLeft = BLACKHOLE_MS - (Date.now() - silentFrom);
    if (silentLeft > 0) await new Promise((resolve) => setTimeout(resolve, silentLeft));
    for (const toxic of blackholeToxics()) await proxy.removeToxic(toxic.name);

    // The re-ask, as the network comes back: same tool call id, the same question, answered once. It meets a
    // channel that has not reconnected yet, and tries for a moment itself before it would report the outage
    // (FRESH_ASK_ATTEMPT_MS), so it does not fail on an outage that is already over.
    const backAt = Date.now();
    const second = tool.execute(args, { toolCallId, agent });
    second.catch(() => undefined); // awaited below
    await questions.answer(workflowId, { answers: [{ id: 'q1', selected: ['Yes'] }], answeredBy: 'oncall' });
    assert.equal(await second, JSON.stringify({ answers: [{ id: 'q1', selected: ['Yes'] }] }));
    t.diagnostic(`the re-ask got its answer ${Date.now() - backAt} ms after the network came back`);
    const listed = await questions.list('answered', 10);
    assert.deepEqual(
      listed.map((summary) => summary.workflowId),
      [workflowId],
      'one question, asked twice, answered once',
    );
  } finally {
    delete process.env.TEMPORAL_ADDRESS;
    await provider.close();
    await questions.close();
    await worker.stop();
    await workerConnection.close();
    await server.stop();
    await toxiproxy.stop();
    await fs.rm(directory, { recursive: true, force: true });
  }
});
