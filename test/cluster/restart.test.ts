/**
 * A question survives every process of the production-like stack (scripts/cluster: the Temporal server built
 * from source at compose's version, on PostgreSQL with SQL visibility). An agent process asks through the real
 * tool and the durable provider; its worker is SIGKILLed; the Temporal server is stopped and started again, and
 * then PostgreSQL under the running server, each by its pid on the same data folder and ports; a new worker
 * starts; the answer is given with the stock Temporal CLI. The agent that asked before all of it gets exactly
 * that answer, from the same run.
 *
 * The agent and the workers are tracked by the shared process registry; `after()` kills what a timed-out test
 * left, then stops the cluster.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { DEFAULT_ASK_ARGS, startAgentProcess } from '../fixtures/agent-process';
import { jsonLines, killChildren, type RunningChild } from '../fixtures/child-process';
import { startWorkerProcess } from '../fixtures/worker-process';
import { startTestCluster, type TestCluster } from '../helpers/cluster';
import { waitUntilListedPending } from '../helpers/pending-questions';
import { runTemporalCli } from '../helpers/temporal-cli';
import { eventually } from '../helpers/wait';

const ANSWER = { answers: [{ id: 'deploy', selected: ['Yes (Recommended)'] }], answeredBy: 'oncall-cli' };
const ANSWER_TEXT = '{"answers":[{"id":"deploy","selected":["Yes (Recommended)"]}]}';

let stack: TestCluster;

before(async () => {
  stack = await startTestCluster('restart');
});

after(async () => {
  try {
    await killChildren();
  } finally {
    await stack?.stop();
  }
});

function isRunning(child: RunningChild): boolean {
  return child.process.exitCode === null && child.process.signalCode === null;
}

/** True while a process with this id exists. */
function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

test('worker SIGKILLed, server and then PostgreSQL restarted: the answer given with the stock CLI reaches the agent', async () => {
  const { cluster } = stack;
  const taskQueue = `cluster-restart-${process.pid}`;
  const agentId = 'patient-agent';
  const workflowId = `ask-user-question/${agentId}/call-1`;

  const worker = await startWorkerProcess(cluster.address, taskQueue, cluster.namespace);
  // The agent must ride out both outages: far longer than the provider's default bound (15 s).
  const agent = startAgentProcess({
    address: cluster.address,
    namespace: cluster.namespace,
    taskQueue,
    agentId,
    unavailableTimeoutMs: 600_000,
  });
  const started = JSON.parse(await agent.waitForLine((line) => line.includes('"event":"started"'))) as {
    runId: string;
  };
  await waitUntilListedPending(stack.questions, workflowId);

  assert.deepEqual(await worker.kill('SIGKILL'), { code: null, signal: 'SIGKILL' });

  const firstServer = cluster.pids.server;
  assert.ok(firstServer !== undefined);
  await cluster.stopServer();
  assert.equal(pidExists(firstServer), false, 'the first server process is gone');
  const address = cluster.address;
  await cluster.startServer();
  assert.equal(cluster.address, address);
  assert.notEqual(cluster.pids.server, firstServer);

  const firstPostgres = cluster.pids.postgres;
  assert.ok(firstPostgres !== undefined);
  await cluster.stopPostgres();
  assert.equal(pidExists(firstPostgres), false, 'the first PostgreSQL process is gone');
  await cluster.startPostgres();
  assert.notEqual(cluster.pids.postgres, firstPostgres);

  assert.ok(isRunning(agent), `the agent waits through both restarts:\n${agent.stdout()}${agent.stderr()}`);

  // The server reconnects to the restarted database by itself; until it has, a read may fail.
  const listed = await eventually(
    `${workflowId} to be listed pending once the server has reconnected to PostgreSQL`,
    async () => (await stack.questions.list('pending')).find((row) => row.workflowId === workflowId),
    120_000,
  );
  assert.equal(listed.agentId, agentId);

  await startWorkerProcess(cluster.address, taskQueue, cluster.namespace);
  const output = await runTemporalCli(
    [
      '-o',
      'json',
      'workflow',
      'update',
      'execute',
      '--workflow-id',
      workflowId,
      '--name',
      'submitAnswer',
      '--input',
      JSON.stringify(ANSWER),
    ],
    cluster,
  );
  const { result } = JSON.parse(output) as { result: { status: string; answeredBy: string } };
  assert.deepEqual(
    { status: result.status, answeredBy: result.answeredBy },
    { status: 'answered', answeredBy: 'oncall-cli' },
  );

  assert.deepEqual(await agent.waitForExit(120_000), { code: 0, signal: null }, agent.stderr());
  assert.deepEqual(jsonLines(agent.stdout()), [
    { event: 'started', workflowId, runId: started.runId },
    { event: 'result', text: ANSWER_TEXT },
  ]);

  const description = await stack.client.workflow.getHandle(workflowId).describe();
  assert.equal(description.runId, started.runId);
  assert.equal(description.status.name, 'COMPLETED');
  const record = await stack.questions.get(workflowId);
  assert.equal(record.status, 'answered');
  assert.equal(record.answeredBy, 'oncall-cli');
  assert.equal(record.questions[0]?.question, DEFAULT_ASK_ARGS.questions[0]?.question);
});
