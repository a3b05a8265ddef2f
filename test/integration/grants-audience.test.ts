/**
 * A standing grant and the approval's audience, against a real dev server and worker, over the inbox's real
 * HTTP: a grant is its granter's decision, so it approves only the calls whose audience would take that person's
 * own decision. A grant made through the inbox carries the login's groups; one made by someone outside the audience
 * (by name and groups) does not approve the call, which waits for a person while the record says why
 * (`grantNotUsed`, naming `audience`) and the grant counts no use; one made by a member of the audience's group
 * approves it at once and counts one use.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import type { InboxServer } from '../../src/inbox';
import { GrantClient, QuestionClient } from '../../src/ops';
import { TemporalUserInteraction } from '../../src/provider';
import { deployThroughApproval } from '../helpers/approval-calls';
import { bearer, request, startTestInbox } from '../helpers/inbox';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startTestEnvironment } from '../helpers/temporal';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `grants-audience-${process.pid}`;
/** In the group `dba`, which the calls' audience names. */
const CAROL = bearer('carol-personal-token-0123456789');
/** In the group `web` only. */
const MALLORY = bearer('mallory-personal-token-0123456789');

interface GrantBody {
  id: string;
  grantedBy: string;
  grantedByGroups?: string[];
  uses: number;
}

describe('standing grants and the audience', () => {
  let env: TestWorkflowEnvironment;
  let workers: RunningWorkers;
  let inbox: InboxServer;
  let provider: TemporalUserInteraction;
  let questions: QuestionClient;
  const savedQueue = process.env.ASK_USER_TASK_QUEUE;

  before(async () => {
    // The inbox starts an agent's grants workflow on the workers' task queue, which it reads from the environment.
    process.env.ASK_USER_TASK_QUEUE = TASK_QUEUE;
    env = await startTestEnvironment();
    workers = runWorkers([await createAskUserTestWorker(env.nativeConnection, { taskQueue: TASK_QUEUE })]);
    // Every call this provider asks about is for the database team to decide.
    provider = new TemporalUserInteraction({
      client: env.client,
      taskQueue: TASK_QUEUE,
      policy: { audience: { groups: ['dba'] } },
    });
    questions = new QuestionClient(env.client);
    inbox = await startTestInbox(env.client, {
      users: [
        { name: 'carol', token: 'carol-personal-token-0123456789', groups: ['dba', 'ops'] },
        { name: 'mallory', token: 'mallory-personal-token-0123456789', groups: ['web'] },
      ],
    });
  });

  after(async () => {
    if (savedQueue === undefined) delete process.env.ASK_USER_TASK_QUEUE;
    else process.env.ASK_USER_TASK_QUEUE = savedQueue;
    try {
      await inbox?.close();
      await provider?.close();
      await workers?.stop();
    } finally {
      await env?.teardown();
    }
  });

  async function grantAs(headers: Record<string, string>, agentId: string): Promise<GrantBody> {
    const body = JSON.stringify({ agentId, toolName: 'deploy', expireAfter: '1h' });
    const made = await request(inbox, 'POST', '/api/grants', { headers, body });
    assert.equal(made.status, 200, made.text);
    return made.json as GrantBody;
  }

  async function usesOf(agentId: string): Promise<number | undefined> {
    const listed = await request(inbox, 'GET', `/api/grants?agentId=${encodeURIComponent(agentId)}`, {
      headers: CAROL,
    });
    assert.equal(listed.status, 200, listed.text);
    return (listed.json as { grants: GrantBody[] }).grants[0]?.uses;
  }

  test("a grant by someone outside the call's audience does not approve it; the record says why", async () => {
    const agent = { id: `agent-${randomUUID()}` };
    const grant = await grantAs(MALLORY, agent.id);
    assert.deepEqual(grant.grantedByGroups, ['web']);

    const call = deployThroughApproval(provider, agent, { service: 'db' });
    const pending = await waitForPendingRecord(env.client, call.workflowId);
    assert.equal(pending.decision, undefined);
    assert.equal(pending.grantNotUsed?.id, grant.id);
    assert.equal(
      pending.grantNotUsed?.reason,
      `audience: "mallory" (groups web) may not decide this: it is assigned to groups dba; mallory granted ${grant.id}, so the grant may not approve it`,
    );
    // Mallory's own decision would be refused just the same.
    await assert.rejects(
      questions.decide(call.workflowId, { type: 'approve', decidedBy: 'mallory', groups: ['web'] }),
      /may not decide this: it is assigned to groups dba/,
    );
    await questions.decide(call.workflowId, { type: 'approve', decidedBy: 'carol', groups: ['dba'] });
    assert.equal(await call.result, 'ran {"service":"db"}');
    assert.equal(await usesOf(agent.id), 0);
    // Read from the history once closed, the record still names the grant not used.
    assert.equal((await questions.get(call.workflowId)).grantNotUsed?.id, grant.id);
  });

  test("a grant made in the inbox by a member of the audience's group approves the call", async () => {
    const agent = { id: `agent-${randomUUID()}` };
    const grant = await grantAs(CAROL, agent.id);
    assert.equal(grant.grantedBy, 'carol');
    assert.deepEqual(grant.grantedByGroups, ['dba', 'ops']);

    const call = deployThroughApproval(provider, agent, { service: 'db' });
    assert.equal(await call.result, 'ran {"service":"db"}');
    const record = await questions.get(call.workflowId);
    assert.equal(record.decision?.decidedBy, `grant:${grant.id}`);
    assert.equal(record.grantNotUsed, undefined);
    assert.equal(await usesOf(agent.id), 1);
  });

  test('a grant made without groups (the CLI, GrantClient) approves only calls whose audience names its granter', async () => {
    const agent = { id: `agent-${randomUUID()}` };
    const grants = new GrantClient(questions, TASK_QUEUE);
    await grants.grant({ agentId: agent.id, toolName: 'deploy', expireAfter: '1h', grantedBy: 'carol' });
    const call = deployThroughApproval(provider, agent, { service: 'db' });
    const pending = await waitForPendingRecord(env.client, call.workflowId);
    assert.match(pending.grantNotUsed?.reason ?? '', /^audience: "carol" \(no groups\) may not decide this/);
    await questions.decide(call.workflowId, { type: 'reject', decidedBy: 'carol', groups: ['dba'] });
    assert.match(await call.result, /rejected this call of deploy/);
  });
});
