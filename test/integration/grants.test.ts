/**
 * Standing grants against a real dev server: a grant scoped to a tool and an input schema approves a matching
 * call at once, with no person, and the record names the grant; a call outside its scope (another input,
 * another session, another tool) waits for a person; after revocation, and once expired, a grant covers
 * nothing, also when it expired between the provider's check and the approval's first task; a grant counts one
 * use per approval it gave (a call asked again re-attaches and counts nothing more); a person's decision that
 * reached the approval before the grant was recorded stands; the operator's grant policy refuses a forbidden tool and too long an expiry, naming the field; a
 * person cannot decide as a grant; a question never consults grants.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';

import * as grpc from '@grpc/grpc-js';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';

import { GrantClient, QuestionClient } from '../../src/ops';
import {
  QuestionOperationError,
  TemporalUserInteraction,
  questionWorkflowId,
  requireApproval,
  type AskUserAgent,
} from '../../src';
import { ASK_USER_QUESTION_WORKFLOW_TYPE, decideUpdate } from '../../src/question/definitions';
import { GRANTS_WORKFLOW_TYPE, grantUpdate, grantsWorkflowId } from '../../src/question/grant-definitions';
import type { AskUserQuestionWorkflowInput, AskUserQuestionWorkflowResult } from '../../src/types';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startTestEnvironment } from '../helpers/temporal';
import { connectRecordingUpdates } from '../helpers/update-calls';
import {
  bundleAskUserWorkflows,
  createAskUserTestWorker,
  runWorkers,
  type RunningWorkers,
} from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = 'grants';

/** The question workflow as a client starts it by hand. */
type QuestionWorkflow = (input: AskUserQuestionWorkflowInput) => Promise<AskUserQuestionWorkflowResult>;
/** A second worker whose operator forbids grants of `wire_funds`. */
const FORBIDDING_QUEUE = 'grants-forbidding';

/** Calls of `deploy` for the `api` service, any version. */
const API_DEPLOYS = {
  type: 'object',
  properties: { service: { const: 'api' }, version: { type: 'string' } },
  required: ['service'],
};

interface DeployInput {
  service: string;
  version: string;
}

function isOperationError(code: string, pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(QuestionOperationError.isInstance(error), inspect(error));
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  };
}

describe('standing grants', () => {
  let env: TestWorkflowEnvironment;
  let workers: RunningWorkers;
  let client: Client;
  let questions: QuestionClient;
  let grants: GrantClient;
  let provider: TemporalUserInteraction;

  before(async () => {
    env = await startTestEnvironment();
    workers = runWorkers([
      await createAskUserTestWorker(env.nativeConnection, {
        taskQueue: TASK_QUEUE,
        grants: { maxExpireAfter: '1d' },
      }),
      await createAskUserTestWorker(env.nativeConnection, {
        taskQueue: FORBIDDING_QUEUE,
        grants: { forbidTools: ['wire_funds'] },
      }),
    ]);
    client = env.client;
    questions = new QuestionClient(client);
    grants = new GrantClient(questions, TASK_QUEUE);
    provider = new TemporalUserInteraction({ client, taskQueue: TASK_QUEUE });
  });

  after(async () => {
    try {
      await provider?.close();
      await workers?.stop();
    } finally {
      await env?.teardown();
    }
  });

  /** Starts the wrapped deploy tool on a fresh call; the caller awaits `execution` (or decides first). */
  function deploy(agent: AskUserAgent, input: DeployInput) {
    const runs: DeployInput[] = [];
    const wrapped = requireApproval(
      {
        name: 'deploy',
        async execute(call: DeployInput) {
          runs.push(call);
          return `deployed ${call.service} ${call.version}`;
        },
      },
      { userInteraction: provider },
    );
    const toolCallId = `call-${randomUUID()}`;
    const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
    return { runs, workflowId, execution: wrapped.execute(input, { toolCallId, agent }) };
  }

  /** The call waits for a person: pending, not run, until `decidedBy` approves it. */
  async function waitsForPerson(call: ReturnType<typeof deploy>, decidedBy: string): Promise<void> {
    const pending = await waitForPendingRecord(client, call.workflowId);
    assert.equal(pending.decision, undefined);
    assert.equal(call.runs.length, 0);
    await questions.decide(call.workflowId, { type: 'approve', decidedBy });
    await call.execution;
    const record = await questions.get(call.workflowId);
    assert.equal(record.decision?.decidedBy, decidedBy);
    assert.equal(record.decision?.type === 'approve' ? record.decision.grant : undefined, undefined);
    assert.equal(call.runs.length, 1);
  }

  test('a grant of a tool and an input schema approves a matching call with no person; the record names it', async () => {
    const agent = { id: `agent-${randomUUID()}` };
    const grant = await grants.grant({
      agentId: agent.id,
      toolName: 'deploy',
      inputSchema: API_DEPLOYS,
      expireAfter: '1h',
      grantedBy: 'alice',
      note: 'api deploys for the release',
    });
    assert.match(grant.id, new RegExp(`^${agent.id}/[0-9a-f]{12}$`));
    assert.equal(grant.grantedBy, 'alice');

    const call = deploy(agent, { service: 'api', version: '1.4.2' });
    assert.equal(await call.execution, 'deployed api 1.4.2');
    assert.equal(call.runs.length, 1);
    const record = await questions.get(call.workflowId);
    assert.equal(record.status, 'answered');
    assert.equal(record.decision?.type, 'approve');
    assert.equal(record.decision?.decidedBy, `grant:${grant.id}`);
    assert.deepEqual(record.decision?.type === 'approve' ? record.decision.grant : undefined, {
      id: grant.id,
      grantedBy: 'alice',
      grantedAt: grant.grantedAt,
      expiresAt: grant.expiresAt,
    });

    const [listed] = await grants.list({ agentId: agent.id });
    assert.equal(listed?.status, 'active');
    assert.equal(listed?.uses, 1);
    assert.equal(listed?.lastUsedBy, call.workflowId);
    // Across agents, from visibility: the grants workflow is listed once the listing catches up.
    const everyone = await grants.list({ status: 'active' });
    assert.ok(everyone.length === 0 || everyone.every((one) => one.status === 'active'), inspect(everyone));
  });

  test("30 grants and their revocations at once from one client: the server refuses none for its limit on a workflow's updates in flight", async () => {
    const agentId = `agent-${randomUUID()}`;
    const { client: recording, connection, statuses } = await connectRecordingUpdates(env.address);
    try {
      const many = new GrantClient(new QuestionClient(recording), TASK_QUEUE);
      const made = await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          many.grant({
            agentId,
            toolName: `tool-${index}`,
            expireAfter: '1h',
            grantedBy: 'alice',
          }),
        ),
      );
      assert.equal(new Set(made.map((grant) => grant.id)).size, 30);
      const revoked = await Promise.all(made.map((grant) => many.revoke(grant.id, 'bob')));
      assert.ok(revoked.every((grant) => grant.revokedBy === 'bob'));
    } finally {
      await connection.close();
    }
    assert.ok(statuses.length >= 60, inspect(statuses));
    assert.ok(!statuses.includes(grpc.status.RESOURCE_EXHAUSTED), inspect(statuses));
  });

  test('grants sent at once, reaching the workflow on one task, leave a history the workflow replays', async () => {
    // Straight to the workflow, not through GrantClient's turns: five updates with start, at once.
    const agentId = `agent-${randomUUID()}`;
    const workflowId = grantsWorkflowId(agentId);
    const made = await Promise.all(
      ['deploy', 'restart', 'rollback', 'scale', 'drain'].map((toolName) =>
        client.workflow.executeUpdateWithStart(grantUpdate, {
          args: [{ agentId, toolName, expireAfter: '1h', grantedBy: 'alice' }],
          startWorkflowOperation: new WithStartWorkflowOperation(GRANTS_WORKFLOW_TYPE, {
            workflowId,
            taskQueue: TASK_QUEUE,
            args: [{ agentId }],
            workflowIdConflictPolicy: 'USE_EXISTING',
          }),
        }),
      ),
    );
    assert.deepEqual(made.map((grant) => grant.toolName).sort(), [
      'deploy',
      'drain',
      'restart',
      'rollback',
      'scale',
    ]);
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    // Updates accepted back to back: more than one reached the workflow on the same task.
    const types = (history.events ?? []).map((event) => event.eventType);
    const accepted = temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED;
    assert.ok(
      types.some((type, index) => type === accepted && types[index + 1] === accepted),
      inspect(types),
    );
    await Worker.runReplayHistory(
      { workflowBundle: await bundleAskUserWorkflows({ workerDefaults: true }) },
      history,
      workflowId,
    );
  });

  test('a call outside the scope waits for a person: other input, session or tool', async () => {
    const agent = { id: `agent-${randomUUID()}` };
    await grants.grant({
      agentId: agent.id,
      toolName: 'deploy',
      inputSchema: API_DEPLOYS,
      sessionId: 'session-1',
      expireAfter: '1h',
      grantedBy: 'alice',
    });
    await waitsForPerson(
      deploy({ ...agent, sessionId: 'session-1' }, { service: 'db', version: '9' }),
      'bob',
    );
    await waitsForPerson(
      deploy({ ...agent, sessionId: 'session-2' }, { service: 'api', version: '2' }),
      'bob',
    );
    await waitsForPerson(deploy(agent, { service: 'api', version: '2' }), 'bob');
    const covered = deploy({ ...agent, sessionId: 'session-1' }, { service: 'api', version: '2' });
    assert.equal(await covered.execution, 'deployed api 2');

    // Exact input: the same JSON value, whatever the key order, and nothing else.
    const exact = await grants.grant({
      agentId: agent.id,
      toolName: 'deploy',
      input: { version: '3', service: 'web' },
      expireAfter: '1h',
      grantedBy: 'carol',
    });
    const same = deploy(agent, { service: 'web', version: '3' });
    assert.equal(await same.execution, 'deployed web 3');
    assert.equal((await questions.get(same.workflowId)).decision?.decidedBy, `grant:${exact.id}`);
    await waitsForPerson(deploy(agent, { service: 'web', version: '4' }), 'dave');
  });

  test('after revocation the next matching call waits for a person', async () => {
    const agent = { id: `agent-${randomUUID()}` };
    const grant = await grants.grant({
      agentId: agent.id,
      toolName: 'deploy',
      expireAfter: '1h',
      grantedBy: 'alice',
    });
    assert.equal(await deploy(agent, { service: 'api', version: '1' }).execution, 'deployed api 1');

    const revoked = await grants.revoke(grant.id, 'erin');
    assert.equal(revoked.revokedBy, 'erin');
    await waitsForPerson(deploy(agent, { service: 'api', version: '2' }), 'bob');
    await assert.rejects(
      grants.revoke(grant.id, 'frank'),
      isOperationError('ALREADY_RESOLVED', /already revoked by erin/),
    );
    const [listed] = await grants.list({ agentId: agent.id });
    assert.equal(listed?.status, 'revoked');
    assert.equal(listed?.uses, 1);
  });

  test('an expired grant covers nothing', async () => {
    const agent = { id: `agent-${randomUUID()}` };
    const grant = await grants.grant({
      agentId: agent.id,
      toolName: 'deploy',
      expireAfter: '2s',
      grantedBy: 'alice',
    });
    await new Promise((resolve) => setTimeout(resolve, Date.parse(grant.expiresAt) - Date.now() + 200));
    await waitsForPerson(deploy(agent, { service: 'api', version: '1' }), 'bob');
    const [listed] = await grants.list({ agentId: agent.id });
    assert.equal(listed?.status, 'expired');
    assert.equal(listed?.uses, 0);
  });

  test('a call asked again under its tool call id re-attaches to its approval: the grant counts one use', async () => {
    const agent = { id: `agent-${randomUUID()}` };
    const grant = await grants.grant({
      agentId: agent.id,
      toolName: 'deploy',
      expireAfter: '1h',
      grantedBy: 'alice',
    });
    const toolCallId = `call-${randomUUID()}`;
    const wrapped = requireApproval(
      { name: 'deploy', execute: async (call: DeployInput) => `deployed ${call.service} ${call.version}` },
      { userInteraction: provider },
    );
    const input = { service: 'api', version: '7' };
    assert.equal(await wrapped.execute(input, { toolCallId, agent }), 'deployed api 7');
    // The agent replays the call after a crash: the provider checks coverage again and re-attaches.
    assert.equal(await wrapped.execute(input, { toolCallId, agent }), 'deployed api 7');
    const [listed] = await grants.list({ agentId: agent.id });
    assert.equal(listed?.id, grant.id);
    assert.equal(listed?.uses, 1);
    assert.equal(listed?.lastUsedBy, questionWorkflowId({ agent, toolCallId }, randomUUID));
  });

  test('a grant that expired before the approval first ran decides nothing and counts no use', async () => {
    const { lateQueue, late, agent, grant, workflowId, execution, runs } = await lateApproval(
      'grants-late',
      '2s',
    );
    await new Promise((resolve) => setTimeout(resolve, Date.parse(grant.expiresAt) - Date.now() + 200));
    const lateWorker = runWorkers([
      await createAskUserTestWorker(env.nativeConnection, { taskQueue: lateQueue }),
    ]);
    try {
      const pending = await waitForPendingRecord(client, workflowId);
      assert.equal(pending.decision, undefined);
      assert.equal(pending.grantNotUsed?.id, grant.id);
      assert.match(pending.grantNotUsed?.reason ?? '', /^expiresAt: .* expired at /);
      assert.equal(runs.length, 0);
      await questions.decide(workflowId, { type: 'approve', decidedBy: 'bob' });
      assert.equal(await execution, 'deployed');
      assert.equal((await questions.get(workflowId)).decision?.decidedBy, 'bob');
      const [listed] = await grants.list({ agentId: agent.id });
      assert.equal(listed?.uses, 0);
    } finally {
      await late.close();
      await lateWorker.stop();
    }
  });

  test("a person's decision that reaches the approval before the grant is recorded stands; the grant counts nothing", async () => {
    // The approval's worker starts later, and has a policy: the approval's first task then fetches the worker's
    // defaults before the grant is recorded, and a decision sent meanwhile is taken first.
    const { lateQueue, late, agent, grant, workflowId, execution } = await lateApproval(
      'grants-decided',
      '1h',
    );
    // Sent while no worker runs: the server hands it to the approval's first task.
    const rejected = client.workflow
      .getHandle(workflowId)
      .executeUpdate(decideUpdate, { args: [{ type: 'reject', decidedBy: 'bob', reason: 'frozen' }] });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const lateWorker = runWorkers([
      await createAskUserTestWorker(env.nativeConnection, {
        taskQueue: lateQueue,
        policy: { expireAfter: '1d' },
      }),
    ]);
    try {
      const outcome = await rejected;
      assert.equal(outcome.decision?.decidedBy, 'bob');
      assert.match(await execution, /rejected this call of deploy/);
      const record = await questions.get(workflowId);
      assert.equal(record.decision?.type, 'reject');
      assert.equal(record.decision?.decidedBy, 'bob');
      assert.equal(record.grantNotUsed?.id, grant.id);
      assert.match(
        record.grantNotUsed?.reason ?? '',
        /^status: the approval was already rejected by bob at /,
      );
      const [listed] = await grants.list({ agentId: agent.id });
      assert.equal(listed?.uses, 0);
    } finally {
      await late.close();
      await lateWorker.stop();
    }
  });

  test('an approval that does not let its grant decide still waits for a person when the grants workflow is gone', async () => {
    const agent = { id: `agent-${randomUUID()}` };
    const made = await grants.grant({
      agentId: agent.id,
      toolName: 'deploy',
      expireAfter: '2s',
      grantedBy: 'alice',
    });
    await client.workflow.getHandle(grantsWorkflowId(agent.id)).terminate('the agent was retired');
    await new Promise((resolve) => setTimeout(resolve, Date.parse(made.expiresAt) - Date.now() + 200));
    // Started by hand with the grant, as the provider would have had its check come before the termination and
    // the expiry: the approval takes its use back (grantNotUsed), which fails on a terminated workflow and must
    // not fail the approval.
    const grant = {
      id: made.id,
      grantedBy: made.grantedBy,
      grantedAt: made.grantedAt,
      expiresAt: made.expiresAt,
    };
    const workflowId = `grant-gone-${randomUUID()}`;
    const handle = await client.workflow.start<QuestionWorkflow>(ASK_USER_QUESTION_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: TASK_QUEUE,
      args: [{ questions: [], approval: { toolName: 'deploy', input: { service: 'api' } }, agent, grant }],
    });
    const pending = await waitForPendingRecord(client, workflowId);
    assert.match(pending.grantNotUsed?.reason ?? '', /^expiresAt: /);
    await handle.executeUpdate(decideUpdate, { args: [{ type: 'approve', decidedBy: 'bob' }] });
    const result = await handle.result();
    assert.equal(result.status === 'decided' ? result.decision.decidedBy : result.status, 'bob');
  });

  /**
   * An approval of `deploy` on a queue of its own whose worker the test starts later: a grant for its agent
   * (lasting `expireAfter`), the provider's check that found it, and the approval started with it, not yet run.
   */
  async function lateApproval(prefix: string, expireAfter: string) {
    const lateQueue = `${prefix}-${randomUUID()}`;
    const late = new TemporalUserInteraction({ client, taskQueue: lateQueue });
    const agent = { id: `agent-${randomUUID()}` };
    const grant = await grants.grant({
      agentId: agent.id,
      toolName: 'deploy',
      expireAfter,
      grantedBy: 'alice',
    });
    const runs: DeployInput[] = [];
    const wrapped = requireApproval(
      {
        name: 'deploy',
        async execute(call: DeployInput) {
          runs.push(call);
          return 'deployed';
        },
      },
      { userInteraction: late },
    );
    const toolCallId = `call-${randomUUID()}`;
    const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
    const execution = wrapped.execute({ service: 'api', version: '1' }, { toolCallId, agent });
    execution.catch(() => undefined);
    await eventuallyStarted(workflowId);
    return { lateQueue, late, agent, grant, workflowId, execution, runs };
  }

  /** Waits until the workflow `workflowId` exists (started, whether or not a worker has run it). */
  async function eventuallyStarted(workflowId: string): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await client.workflow.getHandle(workflowId).describe();
        return;
      } catch (error) {
        if (attempt >= 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  test("the operator's grant policy refuses a forbidden tool and too long a grant, naming the field", async () => {
    const forbidding = new GrantClient(questions, FORBIDDING_QUEUE);
    const agentId = `agent-${randomUUID()}`;
    await assert.rejects(
      forbidding.grant({ agentId, toolName: 'wire_funds', expireAfter: '1h', grantedBy: 'alice' }),
      isOperationError(
        'FORBIDDEN',
        /^grant refused: toolName: the operator's grant policy forbids grants of "wire_funds" \(forbidTools\)$/,
      ),
    );
    assert.deepEqual(await forbidding.list({ agentId }), []);
    // Another agent: the first one's grants workflow runs on the forbidding worker's queue now.
    const other = `agent-${randomUUID()}`;
    await assert.rejects(
      grants.grant({ agentId: other, toolName: 'deploy', expireAfter: '2d', grantedBy: 'alice' }),
      isOperationError(
        'FORBIDDEN',
        /expiresAt: the grant would last 2d, longer than the operator's maxExpireAfter of 1d/,
      ),
    );
    await assert.rejects(
      grants.grant({ agentId, toolName: 'deploy', grantedBy: 'alice' }),
      isOperationError('INVALID_ARGS', /^invalid grant: expiresAt: a grant needs an expiry/),
    );
    await assert.rejects(
      grants.grant({ agentId, toolName: 'deploy', expireAfter: '1h', grantedBy: 'grant:me' }),
      isOperationError('INVALID_ARGS', /^invalid grant: grantedBy: names starting with "grant:"/),
    );
  });

  test('no person can decide as a grant, and a question does not consult grants', async () => {
    const agent = { id: `agent-${randomUUID()}` };
    await grants.grant({ agentId: agent.id, toolName: 'deploy', expireAfter: '1h', grantedBy: 'alice' });
    const call = deploy({ id: `other-${randomUUID()}` }, { service: 'api', version: '1' });
    await waitForPendingRecord(client, call.workflowId);
    await assert.rejects(
      questions.decide(call.workflowId, { type: 'approve', decidedBy: 'grant:forged' }),
      (error: unknown) => QuestionOperationError.isInstance(error) && /"grant:"/.test(error.message),
    );
    await questions.decide(call.workflowId, { type: 'reject', decidedBy: 'bob' });
    await call.execution;
    assert.equal(call.runs.length, 0);

    const toolCallId = `ask-${randomUUID()}`;
    const asking = provider.ask({
      questions: [{ id: 'region', question: 'Which region?', options: [{ label: 'eu' }, { label: 'us' }] }],
      agent,
      toolCallId,
    });
    const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
    await waitForPendingRecord(client, workflowId);
    await questions.answer(workflowId, { answers: [{ id: 'region', selected: ['eu'] }], answeredBy: 'bob' });
    await asking;
    // The ask sent nothing to the grants workflow: its one use-free grant is all it holds.
    const [listed] = await grants.list({ agentId: agent.id });
    assert.equal(listed?.uses, 0);
    assert.ok(grantsWorkflowId(agent.id).startsWith('ask-user-grants/'));
  });
});
