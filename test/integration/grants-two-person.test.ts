/**
 * Standing grants under the two-person rule, against a real dev server. A grant is one person's decision, so:
 * a call a grant covers still waits for two people where the provider's policy, or the worker's, needs two
 * approvals (the record names the grant that was not used, and why); a grant for an agent whose worker policy
 * needs two approvals is refused, naming the rule, while one for an agent it lets one person decide for is made
 * and approves; a grant not used counts no use, and a closed record read from the history still says why; under `forbidSelfApproval` a grant by the requester does not approve their own call, while it
 * approves someone else's.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';

import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import { GrantClient, QuestionClient } from '../../src/ops';
import {
  QuestionOperationError,
  TemporalUserInteraction,
  questionWorkflowId,
  requireApproval,
  type AskUserAgent,
} from '../../src';
import { formatRecord } from '../../src/cli/format';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startTestEnvironment } from '../helpers/temporal';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

/** A worker with no policy of its own: grants are made here. */
const TASK_QUEUE = 'grants-two-person';
/** A worker whose operator requires two approvals of every call, except those of {@link SOLO_AGENT}. */
const TWO_APPROVALS_QUEUE = 'grants-two-person-worker-policy';
const SOLO_AGENT = `solo-${randomUUID()}`;

interface DeployInput {
  service: string;
}

describe('standing grants under the two-person rule', () => {
  let env: TestWorkflowEnvironment;
  let workers: RunningWorkers;
  let client: Client;
  let questions: QuestionClient;
  let grants: GrantClient;
  const providers: TemporalUserInteraction[] = [];

  before(async () => {
    env = await startTestEnvironment();
    workers = runWorkers([
      await createAskUserTestWorker(env.nativeConnection, { taskQueue: TASK_QUEUE }),
      await createAskUserTestWorker(env.nativeConnection, {
        taskQueue: TWO_APPROVALS_QUEUE,
        policy: { requiredApprovals: 2, agents: { [SOLO_AGENT]: { requiredApprovals: 1 } } },
      }),
    ]);
    client = env.client;
    questions = new QuestionClient(client);
    grants = new GrantClient(questions, TASK_QUEUE);
  });

  after(async () => {
    try {
      for (const provider of providers) await provider.close();
      await workers?.stop();
    } finally {
      await env?.teardown();
    }
  });

  function providerOn(options: ConstructorParameters<typeof TemporalUserInteraction>[0]) {
    const provider = new TemporalUserInteraction({ client, ...options });
    providers.push(provider);
    return provider;
  }

  /** Starts the wrapped deploy tool on a fresh call requested by `requestedBy`. */
  function deploy(provider: TemporalUserInteraction, agent: AskUserAgent, requestedBy?: string) {
    const runs: DeployInput[] = [];
    const wrapped = requireApproval(
      {
        name: 'deploy',
        async execute(call: DeployInput) {
          runs.push(call);
          return `deployed ${call.service}`;
        },
      },
      { userInteraction: provider, ...(requestedBy === undefined ? {} : { requestedBy }) },
    );
    const toolCallId = `call-${randomUUID()}`;
    const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
    return { runs, workflowId, execution: wrapped.execute({ service: 'api' }, { toolCallId, agent }) };
  }

  /** The call waits: one approval leaves it pending ("1 of 2"), a second person's runs it once. */
  async function needsTwoPeople(call: ReturnType<typeof deploy>): Promise<void> {
    const pending = await waitForPendingRecord(client, call.workflowId);
    assert.equal(pending.decision, undefined);
    assert.equal(pending.requiredApprovals, 2);
    await questions.decide(call.workflowId, { type: 'approve', decidedBy: 'bob' });
    const half = await questions.get(call.workflowId);
    assert.equal(half.status, 'pending');
    assert.equal(half.approvals?.length, 1);
    assert.equal(call.runs.length, 0);
    await questions.decide(call.workflowId, { type: 'approve', decidedBy: 'dave' });
    assert.equal(await call.execution, 'deployed api');
    assert.equal(call.runs.length, 1);
    const record = await questions.get(call.workflowId);
    assert.equal(record.decision?.type, 'approve');
    assert.equal(record.decision?.type === 'approve' ? record.decision.grant : undefined, undefined);
    assert.deepEqual(
      record.approvals?.map((given) => given.decidedBy),
      ['bob', 'dave'],
    );
  }

  test("under the provider's requiredApprovals 2 a covered call waits for two people; the grant is not asked", async () => {
    const agent = { id: `agent-${randomUUID()}` };
    await grants.grant({ agentId: agent.id, toolName: 'deploy', expireAfter: '1h', grantedBy: 'alice' });
    const provider = providerOn({ taskQueue: TASK_QUEUE, policy: { requiredApprovals: 2 } });
    await needsTwoPeople(deploy(provider, agent));
    const [listed] = await grants.list({ agentId: agent.id });
    assert.equal(listed?.uses, 0);
  });

  test("under the worker's requiredApprovals 2 a covered call waits for two people; the record says why", async () => {
    const agent = { id: `agent-${randomUUID()}` };
    // Granted on the worker without a policy: the approval runs on the one that requires two.
    const grant = await grants.grant({
      agentId: agent.id,
      toolName: 'deploy',
      expireAfter: '1h',
      grantedBy: 'alice',
    });
    const call = deploy(providerOn({ taskQueue: TWO_APPROVALS_QUEUE }), agent);
    const pending = await waitForPendingRecord(client, call.workflowId);
    assert.equal(pending.grantNotUsed?.id, grant.id);
    assert.match(
      pending.grantNotUsed?.reason ?? '',
      /^requiredApprovals: the policy needs 2 approvals from distinct people for each call, and a standing grant is one person's decision$/,
    );
    assert.match(formatRecord(call.workflowId, pending), /standing grant .* not used: requiredApprovals: /);
    await needsTwoPeople(call);
    // Closed, the record is read from the history: it still names the grant not used, and why.
    assert.deepEqual((await questions.get(call.workflowId)).grantNotUsed, pending.grantNotUsed);
    // The grant decided nothing, so it counts no use, though the provider's check found it covering the call.
    const [listed] = await grants.list({ agentId: agent.id });
    assert.equal(listed?.uses, 0);
  });

  test('a grant for an agent whose worker policy needs two approvals is refused, naming the rule', async () => {
    const agentId = `agent-${randomUUID()}`;
    await assert.rejects(
      new GrantClient(questions, TWO_APPROVALS_QUEUE).grant({
        agentId,
        toolName: 'deploy',
        expireAfter: '1h',
        grantedBy: 'alice',
      }),
      (error: unknown) => {
        assert.ok(QuestionOperationError.isInstance(error), inspect(error));
        assert.equal(error.code, 'FORBIDDEN');
        assert.match(
          error.message,
          /^grant refused: requiredApprovals: the policy needs 2 approvals from distinct people for each call, and a standing grant is one person's decision$/,
        );
        return true;
      },
    );
  });

  test('on a worker with a policy that lets one person decide, a grant made there approves a covered call', async () => {
    const agent = { id: SOLO_AGENT };
    const grant = await new GrantClient(questions, TWO_APPROVALS_QUEUE).grant({
      agentId: agent.id,
      toolName: 'deploy',
      expireAfter: '1h',
      grantedBy: 'alice',
    });
    const call = deploy(providerOn({ taskQueue: TWO_APPROVALS_QUEUE }), agent);
    assert.equal(await call.execution, 'deployed api');
    const record = await questions.get(call.workflowId);
    assert.equal(record.decision?.decidedBy, `grant:${grant.id}`);
    assert.equal(record.grantNotUsed, undefined);
  });

  test("under forbidSelfApproval a grant by carol does not approve carol's own call, and approves bob's", async () => {
    const agent = { id: `agent-${randomUUID()}` };
    const grant = await grants.grant({
      agentId: agent.id,
      toolName: 'deploy',
      expireAfter: '1h',
      grantedBy: 'carol',
    });
    const provider = providerOn({ taskQueue: TASK_QUEUE, policy: { forbidSelfApproval: true } });

    const own = deploy(provider, agent, 'Carol ');
    const pending = await waitForPendingRecord(client, own.workflowId);
    assert.equal(pending.decision, undefined);
    assert.equal(pending.grantNotUsed?.id, grant.id);
    assert.match(pending.grantNotUsed?.reason ?? '', /^forbidSelfApproval: carol granted /);
    assert.equal(own.runs.length, 0);
    await questions.decide(own.workflowId, { type: 'approve', decidedBy: 'bob' });
    assert.equal(await own.execution, 'deployed api');
    assert.equal((await questions.get(own.workflowId)).decision?.decidedBy, 'bob');

    const bobs = deploy(provider, agent, 'bob');
    assert.equal(await bobs.execution, 'deployed api');
    const record = await questions.get(bobs.workflowId);
    assert.equal(record.decision?.decidedBy, `grant:${grant.id}`);
    assert.equal(record.grantNotUsed, undefined);
    // One use: bob's call; carol's own, which the grant did not decide, counts nothing.
    const [listed] = await grants.list({ agentId: agent.id });
    assert.equal(listed?.uses, 1);
    assert.equal(listed?.lastUsedBy, bobs.workflowId);
  });
});
