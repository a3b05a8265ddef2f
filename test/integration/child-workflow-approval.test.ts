/**
 * Agents that are workflows get approvals too: `requireApproval` over `childWorkflowUserInteraction()`
 * (test/fixtures/approval-agent-workflows.ts) waits for a decision that runs as a child workflow of the agent,
 * the same approval workflow the durable provider starts. Against a real dev server, with the agent on its own
 * worker and task queue and the approval on the ask-user worker's: an edit runs the tool inside the workflow
 * with the edited input (an edit outside the tool's schema is refused and records nothing), a rejection's
 * reason is what the model reads, an approval with no agent is keyed by the agent workflow's id, and
 * cancelling the agent cancels the approval.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';

import { QuestionOperationError } from '../../src';
import { inputSha256 } from '../../src/answer';
import { QuestionClient } from '../../src/ops';
import { workflowsPath as askUserWorkflowsPath } from '../../src/worker';
import type {
  ApprovalAgentInput,
  ApprovalAgentResult,
  DeployInput,
} from '../fixtures/approval-agent-workflows';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startTestEnvironment } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const QUEUES = { agent: 'child-approval-agent', askUser: 'child-approval-ask-user' };
const ORIGINAL: DeployInput = { service: 'api', version: '1.4.2', replicas: 1 };

describe('requireApproval over childWorkflowUserInteraction: an agent workflow waits for a decision', () => {
  let env: TestWorkflowEnvironment;
  let questions: QuestionClient;
  let running: RunningWorkers | undefined;

  before(async () => {
    env = await startTestEnvironment();
    questions = new QuestionClient(env.client);
    const logger = new DefaultLogger('WARN');
    const [agentBundle, askUserBundle] = await Promise.all([
      bundleWorkflowCode({ workflowsPath: require.resolve('../fixtures/approval-agent-workflows'), logger }),
      bundleWorkflowCode({ workflowsPath: askUserWorkflowsPath, logger }),
    ]);
    const agentWorker = await Worker.create({
      connection: env.nativeConnection,
      namespace: 'default',
      taskQueue: QUEUES.agent,
      workflowBundle: agentBundle,
      shutdownForceTime: '5s',
    });
    const askUserWorker = await createAskUserTestWorker(env.nativeConnection, {
      taskQueue: QUEUES.askUser,
      workflowBundle: askUserBundle,
    });
    running = runWorkers([agentWorker, askUserWorker]);
  });

  after(async () => {
    try {
      await running?.stop();
    } finally {
      await env?.teardown();
    }
  });

  async function startAgent(
    workflowId: string,
    fields: Omit<ApprovalAgentInput, 'askUserTaskQueue' | 'input'>,
  ): Promise<WorkflowHandle> {
    const input: ApprovalAgentInput = { ...fields, input: ORIGINAL, askUserTaskQueue: QUEUES.askUser };
    return await env.client.workflow.start('approvalAgentWorkflow', {
      workflowId,
      taskQueue: QUEUES.agent,
      args: [input],
    });
  }

  test('an edit runs the tool in the workflow with the edited input; an edit outside the schema records nothing', async () => {
    const agent = await startAgent('approval-agent-edit', { toolCallId: 'call_edit', agentId: 'deploy-bot' });
    const approvalId = 'ask-user-question/deploy-bot/call_edit';
    const pending = await waitForPendingRecord(env.client, approvalId);
    assert.deepEqual(pending.questions, []);
    assert.deepEqual(pending.approval?.toolName, 'deploy');
    assert.deepEqual(pending.approval?.input, ORIGINAL);
    assert.equal(pending.approval?.description, 'Deploy api 1.4.2');
    assert.deepEqual(pending.agent, { id: 'deploy-bot' });
    assert.equal(
      (await env.client.workflow.getHandle(approvalId).describe()).parentExecution?.workflowId,
      'approval-agent-edit',
    );

    await assert.rejects(
      questions.decide(approvalId, {
        type: 'edit',
        input: { ...ORIGINAL, replicas: 50 },
        decidedBy: 'mallory',
      }),
      (error: unknown) => {
        assert.ok(QuestionOperationError.isInstance(error), String(error));
        assert.equal(error.code, 'BAD_ANSWER');
        assert.equal(error.message, 'invalid decision: input.replicas: 50 is greater than 10');
        return true;
      },
    );
    assert.equal((await waitForPendingRecord(env.client, approvalId)).decision, undefined);

    const edited = { service: 'api', version: '1.4.3', replicas: 2 };
    await questions.decide(approvalId, { type: 'edit', input: edited, decidedBy: 'alice' });
    const expected: ApprovalAgentResult = {
      toolResult: 'deployed api 1.4.3 x2',
      runs: [edited],
      keys: ['deploy-bot/call_edit'],
    };
    assert.deepEqual(await agent.result(), expected);
    const record = await questions.get(approvalId);
    assert.equal(record.status, 'answered');
    assert.deepEqual(record.decision, {
      type: 'edit',
      input: edited,
      decidedBy: 'alice',
      decidedAt: record.decision?.decidedAt,
      requestedInputSha256: inputSha256(ORIGINAL),
      inputSha256: inputSha256(edited),
    });
  });

  test("a rejection's reason is what the model reads, and the tool does not run", async () => {
    const agent = await startAgent('approval-agent-reject', { toolCallId: 'call_reject' });
    // No agent given: the approval is keyed by the agent workflow's own id.
    const approvalId = 'ask-user-question/approval-agent-reject/call_reject';
    assert.deepEqual((await waitForPendingRecord(env.client, approvalId)).agent, {
      id: 'approval-agent-reject',
    });
    await questions.decide(approvalId, { type: 'reject', reason: 'freeze until Monday', decidedBy: 'bob' });
    const expected: ApprovalAgentResult = {
      toolResult: 'The user rejected this call of deploy: freeze until Monday',
      runs: [],
      keys: [],
    };
    assert.deepEqual(await agent.result(), expected);
  });

  test('cancelling the agent workflow cancels its approval: both end Canceled', async () => {
    const agent = await startAgent('approval-agent-cancel', { toolCallId: 'call_cancel' });
    const approvalId = 'ask-user-question/approval-agent-cancel/call_cancel';
    await waitForPendingRecord(env.client, approvalId);
    await agent.cancel();
    const status = async (workflowId: string): Promise<string> =>
      (await env.client.workflow.getHandle(workflowId).describe()).status.name;
    await waitFor('the agent and its approval to end Canceled', async () =>
      (await status('approval-agent-cancel')) === 'CANCELLED' && (await status(approvalId)) === 'CANCELLED'
        ? true
        : undefined,
    );
    assert.equal((await questions.get(approvalId)).status, 'cancelled');
  });
});
