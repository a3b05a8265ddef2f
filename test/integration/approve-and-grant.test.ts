/**
 * `GrantClient` as `QuestionClient.grants`, against a real dev server and worker:
 * - "approve and grant" under the two-person rule: an approval only counted (1 of 2, the call still pending)
 *   grants nothing and says why, the agent having no grant after it; the approval that decides the call grants;
 * - the grants follow the question client's settings: `requireWorker: false` sends the grant to a task queue no
 *   worker polls, and `callTimeoutMs` bounds it (`TIMED_OUT` naming that bound), where a grant client of its own
 *   refused `NO_WORKER` after 10 s whatever the question client's options.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import { GrantClient, QuestionClient } from '../../src/ops';
import { QuestionOperationError, TemporalUserInteraction } from '../../src';
import { deployThroughApproval } from '../helpers/approval-calls';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startTestEnvironment } from '../helpers/temporal';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `approve-and-grant-${process.pid}`;
const DEPLOY = { service: 'api' };

describe('GrantClient with its question client', () => {
  let env: TestWorkflowEnvironment;
  let workers: RunningWorkers;
  let provider: TemporalUserInteraction;
  let questions: QuestionClient;
  let grants: GrantClient;

  before(async () => {
    env = await startTestEnvironment();
    workers = runWorkers([await createAskUserTestWorker(env.nativeConnection, { taskQueue: TASK_QUEUE })]);
    // The provider's policy needs two approvals; the worker's grants workflow has no policy, so it would grant.
    provider = new TemporalUserInteraction({
      client: env.client,
      taskQueue: TASK_QUEUE,
      policy: { requiredApprovals: 2 },
    });
    questions = new QuestionClient(env.client);
    grants = new GrantClient(questions, TASK_QUEUE);
  });

  after(async () => {
    try {
      await provider?.close();
      await workers?.stop();
    } finally {
      await env?.teardown();
    }
  });

  test('an approval only counted (1 of 2) grants nothing and says why; the deciding approval grants', async () => {
    const agent = { id: `agent-${randomUUID()}` };
    const call = deployThroughApproval(provider, agent, DEPLOY);
    await waitForPendingRecord(env.client, call.workflowId);

    const counted = await grants.approveAndGrant(
      call.workflowId,
      { type: 'approve', decidedBy: 'alice' },
      { expireAfter: '1h', grantedBy: 'alice' },
    );
    assert.equal(counted.outcome.status, 'pending');
    assert.equal(counted.grant, undefined);
    assert.equal(
      counted.notGranted,
      "the approval was counted (1 of 2 approvals) and the call waits for more; no grant was made: a grant is one person's decision, and this call needs more than one",
    );
    assert.deepEqual(await grants.list({ agentId: agent.id }), []);

    const decided = await grants.approveAndGrant(
      call.workflowId,
      { type: 'approve', decidedBy: 'bob' },
      { expireAfter: '1h', grantedBy: 'bob' },
    );
    assert.equal(decided.outcome.status, 'answered');
    assert.equal(decided.notGranted, undefined);
    assert.equal(decided.grant?.grantedBy, 'bob');
    assert.deepEqual(decided.grant?.input, DEPLOY);
    assert.equal(await call.result, `ran ${JSON.stringify(DEPLOY)}`);
    const listed = await grants.list({ agentId: agent.id });
    assert.deepEqual(
      listed.map((grant) => grant.id),
      [decided.grant?.id],
    );
  });

  test("QuestionClient.grants follows the client's requireWorker and callTimeoutMs", async () => {
    const saved = process.env.ASK_USER_TASK_QUEUE;
    // No worker polls this task queue: the grants workflow would start there and wait for one.
    process.env.ASK_USER_TASK_QUEUE = `no-worker-${randomUUID()}`;
    try {
      const unchecked = new QuestionClient(env.client, { callTimeoutMs: 2_000, requireWorker: false });
      await assert.rejects(
        unchecked.grants.grant({
          agentId: `agent-${randomUUID()}`,
          toolName: 'deploy',
          expireAfter: '1h',
          grantedBy: 'alice',
        }),
        (error: unknown) => {
          assert.ok(error instanceof QuestionOperationError, String(error));
          assert.equal(error.code, 'TIMED_OUT');
          assert.match(error.message, /^grant did not complete within 2s;/);
          return true;
        },
      );
    } finally {
      if (saved === undefined) delete process.env.ASK_USER_TASK_QUEUE;
      else process.env.ASK_USER_TASK_QUEUE = saved;
    }
  });
});
