/**
 * `@temporalio/openai-agents` and agents that are Temporal workflows, as a user installs them: the packed
 * package goes into a copy of `examples/openai-agents-workflow` (`@temporalio/openai-agents` 1.23.0 with its
 * `@temporalio/*` pins overridden to 1.24.0, and the worker's bundle set to eager dynamic imports), installed
 * with strict peer dependencies. There, on a real dev server and the installed `ask-user worker`, the example's
 * agent workflow runs through `TemporalOpenAIRunner` with a scripted model (the Agents SDK's own `Model`,
 * served by `OpenAIAgentsPlugin` as the model activity: test/consumers/openai-agents/agent-worker.ts):
 *
 * - its `ask_user_question` asks as a child workflow, answered from the CLI (`ask-user answer`) while the
 *   agent's worker is down (SIGKILLed: only history holds the agent), and the model reads the exact answer;
 * - its `deploy` waits for an approval as a child workflow: denied from the CLI with a reason, the model's next
 *   turn reads the rejection with that reason and the tool does not run; approved with an edited input, the
 *   tool runs in the workflow with it.
 *
 * `@temporalio/openai-agents` needs Node 22 or later: on an older Node the file is skipped.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import type { WorkflowHandle } from '@temporalio/client';

import { killChildren, startChild, type RunningChild } from '../fixtures/child-process';
import { installAgentWorkflowConsumer, nodeRunsAiSdk7 } from '../helpers/agent-workflow-consumer';
import { runOk } from '../helpers/packed-package';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const ASK_USER_QUEUE = `openai-agents-questions-${process.pid}`;
const AGENT_QUEUE = `openai-agents-agents-${process.pid}`;
const ANSWER_TEXT = '{"answers":[{"id":"deploy","selected":["Yes (Recommended)"]}]}';

let directory: string;
let consumer: string;
let stack: DevServerWithClient;

/** The example's agent worker with the scripted model, once it polls. */
async function startAgentWorker(): Promise<RunningChild> {
  const worker = startChild(
    process.execPath,
    ['--import', 'tsx', 'src/agent-worker.ts', stack.server.address, AGENT_QUEUE],
    {},
    { cwd: consumer },
  );
  await worker.waitForLine((line) => line === 'agent worker running', 120_000);
  return worker;
}

/** Starts the example's agent workflow as `agentId` with the scripted model. */
async function startAgent(agentId: string): Promise<WorkflowHandle> {
  return await stack.client.workflow.start('deployAgentWorkflow', {
    workflowId: agentId,
    taskQueue: AGENT_QUEUE,
    args: [{ prompt: 'Deploy build 1.4.2.', model: 'scripted-deploy', askUserTaskQueue: ASK_USER_QUEUE }],
  });
}

/** `ask-user <args>` from the installed package, against the test's server. */
function askUser(args: readonly string[]): RunningChild {
  return startChild(
    process.execPath,
    [path.join(consumer, 'node_modules', '@durable-ask-user', 'cli', 'bin', 'ask-user.js'), ...args],
    {
      TEMPORAL_ADDRESS: stack.server.address,
      TEMPORAL_NAMESPACE: 'default',
      ASK_USER_TASK_QUEUE: ASK_USER_QUEUE,
    },
  );
}

async function askUserOk(args: readonly string[]): Promise<void> {
  const command = askUser(args);
  assert.deepEqual(await command.waitForExit(), { code: 0, signal: null }, command.stderr());
}

/** The child workflow of `agentId` for `toolCallId` (keyed by the agent workflow's id), once it is pending. */
async function pendingFor(agentId: string, toolCallId: string): Promise<string> {
  const workflowId = `ask-user-question/${agentId}/${toolCallId}`;
  await waitFor(`${workflowId} to start`, async () => {
    try {
      await stack.client.workflow.getHandle(workflowId).describe();
      return true;
    } catch {
      return undefined;
    }
  });
  await waitForPendingRecord(stack.client, workflowId);
  return workflowId;
}

describe(
  '@temporalio/openai-agents',
  { skip: nodeRunsAiSdk7() ? false : '@temporalio/openai-agents needs Node 22.12 or later' },
  () => {
    let worker: RunningChild;

    before(async () => {
      directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ask-user-openai-agents-'));
      consumer = installAgentWorkflowConsumer(directory, 'openai-agents');
      stack = await startDevServerWithClient('openai-agents');
      const askUserWorker = askUser(['worker']);
      await askUserWorker.waitForLine((line) => line.startsWith('ask-user worker polling'), 60_000);
      worker = await startAgentWorker();
    });

    after(async () => {
      try {
        await killChildren();
        await stack?.stop();
      } finally {
        if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
      }
    });

    test('the example installs beside @temporalio/openai-agents 1.23 with one @temporalio/workflow, and typechecks', () => {
      const tree = JSON.parse(
        runOk(
          'npm',
          ['ls', '--all', '--json', '@temporalio/workflow', '@temporalio/openai-agents'],
          consumer,
        ),
      ) as LsNode;
      assert.deepEqual([...new Set(collect(tree, '@temporalio/workflow'))], ['1.24.0']);
      assert.deepEqual([...new Set(collect(tree, '@temporalio/openai-agents'))], ['1.23.0']);
      runOk(path.join(consumer, 'node_modules', '.bin', 'tsc'), ['-p', consumer], consumer);
    });

    test('answered from the CLI while its worker is down, the agent reads the exact answer; a denial with a reason reaches its next turn', async () => {
      const agentId = `openai-agent-deny-${process.pid}`;
      const agent = await startAgent(agentId);
      const questionId = await pendingFor(agentId, 'call-ask');
      assert.deepEqual((await stack.questions.get(questionId)).agent, { id: agentId });

      // Nothing but history holds the waiting agent: its worker dies, the answer lands, a new worker goes on.
      await worker.kill('SIGKILL');
      await askUserOk(['answer', questionId, '--select', 'deploy=Yes (Recommended)', '--as', 'alice']);
      worker = await startAgentWorker();

      const approvalId = await pendingFor(agentId, 'call-deploy');
      const approval = (await stack.questions.get(approvalId)).approval;
      assert.equal(approval?.toolName, 'deploy');
      assert.deepEqual(approval?.input, { service: 'api', version: '1.4.2', replicas: 1 });
      await askUserOk(['deny', approvalId, '--reason', 'freeze until Monday', '--as', 'bob']);

      assert.deepEqual(await agent.result(), {
        text:
          `ask_user_question: ${ANSWER_TEXT}\n` +
          'deploy: The user rejected this call of deploy: freeze until Monday',
        deployed: [],
      });
      assert.equal((await stack.questions.get(questionId)).answeredBy, 'alice');
      assert.equal((await stack.questions.get(approvalId)).decision?.decidedBy, 'bob');
    });

    test('approved with an edited input from the CLI, the tool runs in the workflow with it', async () => {
      const agentId = `openai-agent-edit-${process.pid}`;
      const agent = await startAgent(agentId);
      await askUserOk([
        'answer',
        await pendingFor(agentId, 'call-ask'),
        '--select',
        'deploy=Yes (Recommended)',
      ]);
      const approvalId = await pendingFor(agentId, 'call-deploy');
      const edited = { service: 'api', version: '1.4.3', replicas: 2 };
      await askUserOk(['approve', approvalId, '--input', JSON.stringify(edited), '--as', 'carol']);
      assert.deepEqual(await agent.result(), {
        text: `ask_user_question: ${ANSWER_TEXT}\ndeploy: deployed api 1.4.3 x2`,
        deployed: [edited],
      });
    });
  },
);

/** A node of `npm ls --json`. */
interface LsNode {
  version?: string;
  dependencies?: Record<string, LsNode>;
}

/** Every version of `name` anywhere in the tree. */
function collect(node: LsNode, name: string): string[] {
  return Object.entries(node.dependencies ?? {}).flatMap(([dependency, child]) => [
    ...(dependency === name && child.version !== undefined ? [child.version] : []),
    ...collect(child, name),
  ]);
}
