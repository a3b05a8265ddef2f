/**
 * Durable questions survive the agent: black-box tests with a real dev server and the agent and the worker as
 * child processes that are SIGKILLed mid-question.
 *
 * - The agent and the worker crash while a question is pending; restarted, the agent asks again with the same
 *   toolCallId, re-attaches to the same run (never a duplicate), and gets the answer given afterwards.
 * - The question is answered while no agent runs; the restarted agent gets the stored answer at once, and no
 *   new workflow is started.
 *
 * Children are tracked by the shared process registry: each test kills its own in `finally`, and `after()`
 * kills whatever a timed-out test left (its `finally` never runs) before the server is stopped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import type { Client } from '@temporalio/client';

import type { QuestionClient } from '../../src/ops';
import { startAgentProcess } from '../fixtures/agent-process';
import { jsonLines, killChildren, type RunningChild } from '../fixtures/child-process';
import { startWorkerProcess } from '../fixtures/worker-process';
import { waitUntilListedPending } from '../helpers/pending-questions';
import {
  startDevServerWithClient,
  type DevServerProcess,
  type DevServerWithClient,
} from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const YES_TEXT = '{"answers":[{"id":"deploy","selected":["Yes (Recommended)"]}]}';
const NO_TEXT = '{"answers":[{"id":"deploy","selected":["No"]}]}';

let stack: DevServerWithClient;
let server: DevServerProcess;
let client: Client;
let questions: QuestionClient;

before(async () => {
  stack = await startDevServerWithClient('restart');
  ({ server, client, questions } = stack);
});

after(async () => {
  try {
    await killChildren();
  } finally {
    await stack?.stop();
  }
});

/** The agent's first event of `kind` (see test/fixtures/agent-process.ts). */
async function agentEvent(agent: RunningChild, kind: string): Promise<Record<string, unknown>> {
  const line = await agent.waitForLine((text) => text.includes(`"event":"${kind}"`));
  return JSON.parse(line) as Record<string, unknown>;
}

/** Every execution that visibility knows for `workflowId`, any status, with its run id. */
async function executions(workflowId: string): Promise<{ runId: string; status: string }[]> {
  const found: { runId: string; status: string }[] = [];
  for await (const info of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    found.push({ runId: info.runId, status: info.status.name });
  }
  return found;
}

describe('an agent that crashes while its question is pending', () => {
  test('agent and worker SIGKILLed: the restarted agent re-attaches to the same question and gets the answer', async () => {
    const taskQueue = `restart-agent-and-worker-${process.pid}`;
    const agentId = 'crashing-agent';
    const workflowId = `ask-user-question/${agentId}/call-1`;
    try {
      const firstWorker = await startWorkerProcess(server.address, taskQueue);
      const firstAgent = startAgentProcess({ address: server.address, taskQueue, agentId });

      const firstStart = await agentEvent(firstAgent, 'started');
      assert.equal(firstStart.workflowId, workflowId);
      const runId = firstStart.runId;
      assert.equal(typeof runId, 'string');
      await waitUntilListedPending(questions, workflowId);

      // The crash: no chance to clean up, cancel or close anything.
      assert.deepEqual(await firstAgent.kill('SIGKILL'), { code: null, signal: 'SIGKILL' });
      assert.deepEqual(await firstWorker.kill('SIGKILL'), { code: null, signal: 'SIGKILL' });
      assert.deepEqual(
        jsonLines(firstAgent.stdout()).map((event) => event.event),
        ['started'],
        'the killed agent got no result',
      );

      await startWorkerProcess(server.address, taskQueue);
      const secondAgent = startAgentProcess({ address: server.address, taskQueue, agentId });

      // The same tool call asks again and lands on the run that is already there.
      const secondStart = await agentEvent(secondAgent, 'started');
      assert.deepEqual(secondStart, { event: 'started', workflowId, runId });

      // Exactly one question, and one execution, for this tool call.
      const listed = (await questions.list('all')).filter((question) => question.workflowId === workflowId);
      assert.equal(listed.length, 1);
      assert.equal(listed[0]?.status, 'pending');
      assert.deepEqual(await executions(workflowId), [{ runId, status: 'RUNNING' }]);
      const description = await client.workflow.getHandle(workflowId).describe();
      assert.equal(description.runId, runId);
      assert.equal(description.status.name, 'RUNNING');

      // Answered now, after both restarts: the new agent gets it.
      await questions.answer(workflowId, {
        answers: [{ id: 'deploy', selected: ['Yes (Recommended)'] }],
        answeredBy: 'alice',
      });
      assert.deepEqual(await secondAgent.waitForExit(), { code: 0, signal: null }, secondAgent.stderr());
      assert.deepEqual(jsonLines(secondAgent.stdout()), [
        { event: 'started', workflowId, runId },
        { event: 'result', text: YES_TEXT },
      ]);

      const record = await questions.get(workflowId);
      assert.equal(record.status, 'answered');
      assert.equal(record.answeredBy, 'alice');
      const closed = await client.workflow.getHandle(workflowId).describe();
      assert.equal(closed.status.name, 'COMPLETED');
      assert.equal(closed.runId, runId);
    } finally {
      await killChildren();
    }
  });

  test('answered while no agent runs: the restarted agent gets the stored answer at once, no new workflow', async () => {
    const taskQueue = `restart-answered-while-down-${process.pid}`;
    const agentId = 'agent-down-while-answered';
    const workflowId = `ask-user-question/${agentId}/call-1`;
    try {
      await startWorkerProcess(server.address, taskQueue);
      const firstAgent = startAgentProcess({ address: server.address, taskQueue, agentId });

      const firstStart = await agentEvent(firstAgent, 'started');
      const runId = firstStart.runId;
      assert.equal(typeof runId, 'string');
      await waitUntilListedPending(questions, workflowId);
      assert.deepEqual(await firstAgent.kill('SIGKILL'), { code: null, signal: 'SIGKILL' });

      // No agent runs now. The answer is recorded all the same, and the question closes.
      const recorded = await questions.answer(workflowId, {
        answers: [{ id: 'deploy', selected: ['No'] }],
        answeredBy: 'bob',
      });
      assert.equal(recorded.status, 'answered');
      assert.deepEqual(recorded.answer, { answers: [{ id: 'deploy', selected: ['No'] }] });
      const handle = client.workflow.getHandle(workflowId);
      await handle.result();
      assert.equal((await handle.describe()).status.name, 'COMPLETED');

      // The restarted agent's start is refused (the question is closed) and it reads the stored result.
      const secondAgent = startAgentProcess({ address: server.address, taskQueue, agentId });
      assert.deepEqual(await secondAgent.waitForExit(), { code: 0, signal: null }, secondAgent.stderr());
      assert.deepEqual(jsonLines(secondAgent.stdout()), [
        { event: 'already-closed', workflowId },
        { event: 'result', text: NO_TEXT },
      ]);

      // Still exactly one execution with this id, the same run.
      const description = await handle.describe();
      assert.equal(description.runId, runId);
      assert.equal(description.status.name, 'COMPLETED');
      const runs = await waitFor('visibility to show the run completed', async () => {
        const found = await executions(workflowId);
        return found.every((execution) => execution.status === 'COMPLETED') ? found : undefined;
      });
      assert.deepEqual(runs, [{ runId, status: 'COMPLETED' }]);
      const listed = (await questions.list('all')).filter((question) => question.workflowId === workflowId);
      assert.equal(listed.length, 1);
      assert.equal(listed[0]?.status, 'answered');
    } finally {
      await killChildren();
    }
  });
});
