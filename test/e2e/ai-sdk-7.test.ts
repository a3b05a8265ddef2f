/**
 * AI SDK 7 and agents that are Temporal workflows, as a user installs them: the packed package goes into a
 * copy of `examples/agent-workflow` (AI SDK 7, `@temporalio/ai-sdk` 1.23.0 with its `@temporalio/*` pins
 * overridden to 1.24.0), installed with strict peer dependencies. There, on a real dev server and the
 * installed `ask-user worker`:
 *
 * - `durable-ask-user/ai` in `generateText` with AI SDK 7's own mock model: a human answers from another
 *   process and the model's next step receives exactly the answer text; an abort cancels the question;
 * - the example's agent workflow, its model the SDK's `MockProviderV4` registered through `AiSdkPlugin`: the
 *   question runs as a child workflow, survives a SIGKILL of the agent's worker, and its answer reaches the
 *   model; cancelling the agent cancels the question; its `deploy` waits for an approval as a child workflow
 *   (`durableApprovalWorkflowAiTool`): approved from the CLI with an edit, the tool runs in the workflow with
 *   the edited input; denied with a reason, the model reads it;
 * - durable approvals (`test/consumers/ai-sdk-7/approval-agent.ts`): decided from the test's ops client,
 *   each decision reaches the model exactly through AI SDK 7's `toolApproval` policy
 *   (`aiToolApprovalPolicy`), through `durableApprovalAiTool`, and through the SDK's stop-and-resume flow
 *   (`resolveAiToolApprovals`); a reject with `stop` ends the run (the policy throws `RUN_STOPPED`, and the
 *   tool's `RUN_STOPPED` ends the loop through `approvalStopped` in `stopWhen`), the model called once.
 *
 * AI SDK 7 needs Node 22.12 or later: on an older Node the file is skipped (CI runs the suite on Node 24 too).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import type { WorkflowHandle } from '@temporalio/client';

import type { DecideInput } from '../../src/types';
import { killChildren, startChild, type RunningChild } from '../fixtures/child-process';
import { installAgentWorkflowConsumer, nodeRunsAiSdk7 } from '../helpers/agent-workflow-consumer';
import { runOk } from '../helpers/packed-package';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const ASK_USER_QUEUE = `ai-sdk-7-questions-${process.pid}`;
const AGENT_QUEUE = `ai-sdk-7-agents-${process.pid}`;
const ANSWER_TEXT = '{"answers":[{"id":"deploy","selected":["Yes (Recommended)"]}]}';

let directory: string;
let consumer: string;
let stack: DevServerWithClient;
let askUserWorker: RunningChild;

/** Runs a TypeScript file of the consumer project with its own tsx, from its root. */
function startInConsumer(file: string, args: readonly string[]): RunningChild {
  return startChild(process.execPath, ['--import', 'tsx', file, ...args], {}, { cwd: consumer });
}

/** The example's agent worker with the mock model, once it polls. */
async function startAgentWorker(): Promise<RunningChild> {
  const worker = startInConsumer('src/agent-worker.ts', [stack.server.address, AGENT_QUEUE]);
  await worker.waitForLine((line) => line === 'agent worker running', 120_000);
  return worker;
}

/** Starts the example's agent workflow as `agentId`, asking on the test's ask-user worker. */
async function startAgent(agentId: string, model = 'mock-deploy'): Promise<WorkflowHandle> {
  return await stack.client.workflow.start('deployAgentWorkflow', {
    workflowId: agentId,
    taskQueue: AGENT_QUEUE,
    args: [{ prompt: 'Deploy build 1.4.2.', model, askUserTaskQueue: ASK_USER_QUEUE }],
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

/** The workflow id of `agentId`'s pending question for `toolCallId`, once the worker has it. */
async function questionFor(agentId: string, toolCallId: string): Promise<string> {
  const workflowId = await waitFor(`a pending question of ${agentId}`, async () => {
    const pending = await stack.questions.list('pending');
    return pending.find((summary) => summary.agentId === agentId && summary.toolCallId === toolCallId)
      ?.workflowId;
  });
  await waitForPendingRecord(stack.client, workflowId);
  return workflowId;
}

async function answerYes(workflowId: string): Promise<void> {
  const answer = askUser(['answer', workflowId, '--select', 'deploy=Yes (Recommended)', '--as', 'alice']);
  assert.deepEqual(await answer.waitForExit(), { code: 0, signal: null }, answer.stderr());
}

async function statusOf(workflowId: string): Promise<string> {
  return (await stack.client.workflow.getHandle(workflowId).describe()).status.name;
}

/** The first JSON line the child prints. */
async function jsonLine(child: RunningChild, timeoutMs = 120_000): Promise<Record<string, unknown>> {
  const line = await child.waitForLine((text) => text.startsWith('{'), timeoutMs);
  return JSON.parse(line) as Record<string, unknown>;
}

describe('AI SDK 7', { skip: nodeRunsAiSdk7() ? false : 'AI SDK 7 needs Node 22.12 or later' }, () => {
  before(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ask-user-ai-sdk-7-'));
    consumer = installAgentWorkflowConsumer(directory);

    stack = await startDevServerWithClient('ai-sdk-7');
    askUserWorker = askUser(['worker']);
    await askUserWorker.waitForLine((line) => line.startsWith('ask-user worker polling'), 60_000);
  });

  after(async () => {
    try {
      await killChildren();
      await stack?.stop();
    } finally {
      if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  test('the package installs beside ai 7 and @temporalio/ai-sdk, with one @temporalio/workflow', () => {
    const tree = JSON.parse(
      runOk('npm', ['ls', '--all', '--json', '@temporalio/workflow', 'ai'], consumer),
    ) as LsNode;
    const versions = (name: string): string[] => [...new Set(collect(tree, name))].sort();
    assert.deepEqual(versions('@temporalio/workflow'), ['1.24.0']);
    const ai = versions('ai');
    assert.equal(ai.length, 1, `one ai: ${ai.join(', ')}`);
    assert.match(ai[0]!, /^7\./);
  });

  test('the example and the test agents typecheck against the installed packages', () => {
    runOk(path.join(consumer, 'node_modules', '.bin', 'tsc'), ['-p', consumer], consumer);
  });

  test('durable-ask-user/ai in generateText: the answer comes from another process, exactly', async () => {
    const agentId = `ai-7-adapter-${process.pid}`;
    const agent = startInConsumer('src/adapter-agent.ts', [
      stack.server.address,
      ASK_USER_QUEUE,
      agentId,
      'call-answered',
    ]);
    await answerYes(await questionFor(agentId, 'call-answered'));
    assert.deepEqual(await jsonLine(agent), {
      event: 'result',
      text: 'Done.',
      toolOutputs: [{ type: 'text', value: ANSWER_TEXT }],
    });
    assert.deepEqual(await agent.waitForExit(), { code: 0, signal: null }, agent.stderr());
  });

  test("durable-ask-user/ai in generateText: an abort through the SDK's abortSignal cancels the workflow", async () => {
    const agentId = `ai-7-adapter-${process.pid}`;
    const agent = startInConsumer('src/adapter-agent.ts', [
      stack.server.address,
      ASK_USER_QUEUE,
      agentId,
      'call-aborted',
    ]);
    const workflowId = await questionFor(agentId, 'call-aborted');
    agent.process.kill('SIGUSR2');
    const settled = await jsonLine(agent);
    assert.equal(settled.event, 'rejected', JSON.stringify(settled));
    assert.equal(settled.name, 'AbortError', JSON.stringify(settled));
    await waitFor(`${workflowId} to end Canceled`, async () =>
      (await statusOf(workflowId)) === 'CANCELLED' ? true : undefined,
    );
    assert.equal((await stack.questions.get(workflowId)).status, 'cancelled');
  });

  test('an agent workflow asks as a child, outlives a SIGKILL of its worker, and its model reads the answer', async () => {
    let worker = await startAgentWorker();
    const agentId = `deploy-agent-answered-${process.pid}`;
    const agent = await startAgent(agentId);
    const questionId = await questionFor(agentId, 'call-1');
    // Nothing but history holds the waiting agent: its worker dies, the answer lands, a new worker finishes.
    await worker.kill('SIGKILL');
    await answerYes(questionId);
    worker = await startAgentWorker();
    assert.deepEqual(await agent.result(), {
      text: `The human said: ${ANSWER_TEXT}`,
      toolResults: [ANSWER_TEXT],
      deployed: [],
    });
    const question = await stack.questions.get(questionId);
    assert.equal(question.status, 'answered');
    assert.equal(question.answeredBy, 'alice');
    assert.deepEqual(await worker.kill('SIGTERM'), { code: 0, signal: null }, worker.stderr());
  });

  test('cancelling the agent workflow cancels its question: both end Canceled', async () => {
    const worker = await startAgentWorker();
    const agentId = `deploy-agent-cancelled-${process.pid}`;
    const agent = await startAgent(agentId);
    const questionId = await questionFor(agentId, 'call-1');
    await agent.cancel();
    await waitFor(`${agentId} and ${questionId} to end Canceled`, async () =>
      (await statusOf(agentId)) === 'CANCELLED' && (await statusOf(questionId)) === 'CANCELLED'
        ? true
        : undefined,
    );
    assert.equal((await stack.questions.get(questionId)).status, 'cancelled');
    assert.deepEqual(await worker.kill('SIGTERM'), { code: 0, signal: null }, worker.stderr());
  });

  test('an approval inside the agent workflow, approved from the CLI with an edit: deploy runs in the workflow with the edited input', async () => {
    const worker = await startAgentWorker();
    const agentId = `deploy-agent-approval-edit-${process.pid}`;
    const agent = await startAgent(agentId, 'mock-approval');
    const approvalId = await questionFor(agentId, 'call-deploy');
    const record = await stack.questions.get(approvalId);
    assert.equal(record.approval?.toolName, 'deploy');
    assert.deepEqual(record.approval?.input, { service: 'api', version: '1.4.2', replicas: 1 });
    assert.equal(
      (await stack.client.workflow.getHandle(approvalId).describe()).parentExecution?.workflowId,
      agentId,
    );
    const edited = { service: 'api', version: '1.4.3', replicas: 2 };
    const approve = askUser(['approve', approvalId, '--input', JSON.stringify(edited), '--as', 'alice']);
    assert.deepEqual(await approve.waitForExit(), { code: 0, signal: null }, approve.stderr());
    assert.deepEqual(await agent.result(), {
      text: 'The tool said: deployed api 1.4.3 x2',
      toolResults: ['deployed api 1.4.3 x2'],
      deployed: [edited],
    });
    assert.equal((await stack.questions.get(approvalId)).decision?.decidedBy, 'alice');
    assert.deepEqual(await worker.kill('SIGTERM'), { code: 0, signal: null }, worker.stderr());
  });

  test('an approval inside the agent workflow, denied from the CLI with a reason: the model reads it, deploy does not run', async () => {
    const worker = await startAgentWorker();
    const agentId = `deploy-agent-approval-deny-${process.pid}`;
    const agent = await startAgent(agentId, 'mock-approval');
    const approvalId = await questionFor(agentId, 'call-deploy');
    const deny = askUser(['deny', approvalId, '--reason', 'freeze until Monday', '--as', 'bob']);
    assert.deepEqual(await deny.waitForExit(), { code: 0, signal: null }, deny.stderr());
    const rejected = 'The user rejected this call of deploy: freeze until Monday';
    assert.deepEqual(await agent.result(), {
      text: `The tool said: ${rejected}`,
      toolResults: [rejected],
      deployed: [],
    });
    assert.deepEqual(await worker.kill('SIGTERM'), { code: 0, signal: null }, worker.stderr());
  });

  describe('durable approvals: a decision taken outside the agent reaches the model exactly', () => {
    const AGENT_ID = `ai-7-approval-${process.pid}`;
    const ORIGINAL_RUN = { service: 'api', version: '1.4.2', replicas: 1 };
    const REJECTED = 'The user rejected this call of deploy: freeze until Monday';
    const RESPONSE = 'Deploy 1.4.1 instead; 1.4.2 is bad.';

    /** Starts the approval agent in `mode` on call `toolCallId`; resolves with its approval's workflow id. */
    async function startApprovalAgent(
      mode: 'policy' | 'tool' | 'resume',
      toolCallId: string,
    ): Promise<{ agent: RunningChild; workflowId: string }> {
      const agent = startInConsumer('src/approval-agent.ts', [
        stack.server.address,
        ASK_USER_QUEUE,
        AGENT_ID,
        toolCallId,
        mode,
      ]);
      return { agent, workflowId: await questionFor(AGENT_ID, toolCallId) };
    }

    /** Runs the agent in `mode`, decides its call from the test's ops client, and returns the agent's line. */
    async function decideInAgent(
      mode: 'policy' | 'tool' | 'resume',
      toolCallId: string,
      decision: DecideInput,
    ): Promise<Record<string, unknown>> {
      const { agent, workflowId } = await startApprovalAgent(mode, toolCallId);
      const record = await stack.questions.get(workflowId);
      assert.equal(record.approval?.toolName, 'deploy');
      assert.deepEqual(record.approval?.input, ORIGINAL_RUN);
      await stack.questions.decide(workflowId, { ...decision, decidedBy: 'alice' });
      const line = await jsonLine(agent);
      assert.deepEqual(await agent.waitForExit(), { code: 0, signal: null }, agent.stderr());
      assert.equal((await stack.questions.get(workflowId)).decision?.decidedBy, 'alice');
      return line;
    }

    test('toolApproval policy, approve: the SDK runs the tool once with the original input', async () => {
      assert.deepEqual(await decideInAgent('policy', 'call-policy-approve', { type: 'approve' }), {
        event: 'result',
        text: 'Done.',
        runs: [ORIGINAL_RUN],
        toolOutputs: [{ type: 'text', value: 'deployed api 1.4.2 x1' }],
      });
    });

    test('toolApproval policy, reject: denied, and the model reads the rejection with its reason', async () => {
      const line = await decideInAgent('policy', 'call-policy-reject', {
        type: 'reject',
        reason: 'freeze until Monday',
      });
      assert.deepEqual(line, {
        event: 'result',
        text: 'Done.',
        runs: [],
        toolOutputs: [{ type: 'execution-denied', reason: REJECTED }],
      });
    });

    test("toolApproval policy, respond: denied, and the model reads the reviewer's text as the reason", async () => {
      const line = await decideInAgent('policy', 'call-policy-respond', { type: 'respond', text: RESPONSE });
      assert.deepEqual(line, {
        event: 'result',
        text: 'Done.',
        runs: [],
        toolOutputs: [{ type: 'execution-denied', reason: RESPONSE }],
      });
    });

    test('toolApproval policy, edit: cannot run, so denied, and the model reads the edited input', async () => {
      const line = await decideInAgent('policy', 'call-policy-edit', {
        type: 'edit',
        input: { service: 'api', version: '1.4.3', replicas: 2 },
      });
      assert.deepEqual(line, {
        event: 'result',
        text: 'Done.',
        runs: [],
        toolOutputs: [
          {
            type: 'execution-denied',
            reason:
              'The user did not run this call of deploy as asked, and edited its input instead. ' +
              'To run it, call deploy again with this input: {"service":"api","version":"1.4.3","replicas":2}',
          },
        ],
      });
    });

    test('toolApproval policy: an abort through the signal withdraws the approval and ends the run', async () => {
      const { agent, workflowId } = await startApprovalAgent('policy', 'call-policy-aborted');
      agent.process.kill('SIGUSR2');
      assert.deepEqual(await jsonLine(agent), {
        event: 'rejected',
        name: 'UserInteractionError',
        code: 'ASK_ABORTED',
        message: 'the approval of deploy was aborted before anyone decided',
        modelCalls: 1,
      });
      await waitFor(`${workflowId} to end Canceled`, async () =>
        (await statusOf(workflowId)) === 'CANCELLED' ? true : undefined,
      );
      assert.equal((await stack.questions.get(workflowId)).status, 'cancelled');
    });

    test('toolApproval policy, reject with stop: the policy throws RUN_STOPPED, which ends generateText', async () => {
      const line = await decideInAgent('policy', 'call-policy-stop', {
        type: 'reject',
        reason: 'freeze until Monday',
        stop: true,
      });
      assert.deepEqual(line, {
        event: 'rejected',
        name: 'UserInteractionError',
        code: 'RUN_STOPPED',
        message: `${REJECTED}, and the run was stopped`,
        modelCalls: 1,
      });
    });

    test('durableApprovalAiTool, reject with stop: approvalStopped in stopWhen ends the loop at that step', async () => {
      const line = await decideInAgent('tool', 'call-tool-stop', {
        type: 'reject',
        reason: 'freeze until Monday',
        stop: true,
      });
      // No second model call: nothing was sent back, and the run's text is the stopped step's (none).
      assert.deepEqual(line, { event: 'result', text: '', runs: [], toolOutputs: [] });
    });

    test('durableApprovalAiTool, edit: the tool runs once with the edited input', async () => {
      const line = await decideInAgent('tool', 'call-tool-edit', {
        type: 'edit',
        input: { service: 'api', version: '1.4.3', replicas: 2 },
      });
      assert.deepEqual(line, {
        event: 'result',
        text: 'Done.',
        runs: [{ service: 'api', version: '1.4.3', replicas: 2 }],
        toolOutputs: [{ type: 'text', value: 'deployed api 1.4.3 x2' }],
      });
    });

    test("durableApprovalAiTool, respond: the model reads the reviewer's text as the tool's result", async () => {
      const line = await decideInAgent('tool', 'call-tool-respond', { type: 'respond', text: RESPONSE });
      assert.deepEqual(line, {
        event: 'result',
        text: 'Done.',
        runs: [],
        toolOutputs: [{ type: 'text', value: RESPONSE }],
      });
    });

    test("resolveAiToolApprovals over the SDK's stop-and-resume: approve runs the tool, respond is its result", async () => {
      assert.deepEqual(await decideInAgent('resume', 'call-resume-approve', { type: 'approve' }), {
        event: 'result',
        text: 'Done.',
        runs: [ORIGINAL_RUN],
        toolOutputs: [{ type: 'text', value: 'deployed api 1.4.2 x1' }],
      });
      assert.deepEqual(
        await decideInAgent('resume', 'call-resume-respond', { type: 'respond', text: RESPONSE }),
        {
          event: 'result',
          text: 'Done.',
          runs: [],
          toolOutputs: [{ type: 'text', value: RESPONSE }],
        },
      );
    });
  });
});

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
