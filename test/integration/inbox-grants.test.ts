/**
 * The inbox API's standing grants against a real dev server and worker, over real HTTP: a grant made as the
 * login (a body naming `grantedBy` is refused), refused by the operator's policy (403, naming the tool) or for
 * want of an expiry (400, naming the field); listed; covering an agent's call with no person; revoked as the
 * login, then refused a second revoke (409, naming who) and an unknown id (404).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import type { InboxServer } from '../../src/inbox';
import { QuestionClient } from '../../src/ops';
import { TemporalUserInteraction } from '../../src/provider';
import { requireApproval } from '../../src/tool';
import { questionWorkflowId } from '../../src/question/workflow-id';
import { bearer, request, startTestInbox } from '../helpers/inbox';
import { startTestEnvironment } from '../helpers/temporal';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `inbox-grants-${process.pid}`;
const BOB = bearer('bob-personal-token-0123456789');

interface GrantBody {
  id: string;
  grantedBy: string;
  revokedBy?: string;
  status?: string;
  uses: number;
}

describe('inbox API: standing grants', () => {
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
    workers = runWorkers([
      await createAskUserTestWorker(env.nativeConnection, {
        taskQueue: TASK_QUEUE,
        grants: { maxExpireAfter: '1d', forbidTools: ['wire_funds'] },
      }),
    ]);
    provider = new TemporalUserInteraction({ client: env.client, taskQueue: TASK_QUEUE });
    questions = new QuestionClient(env.client);
    inbox = await startTestInbox(env.client, {
      users: [{ name: 'bob', token: 'bob-personal-token-0123456789' }],
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

  const post = (path: string, body: unknown) =>
    request(inbox, 'POST', path, { headers: BOB, body: JSON.stringify(body) });

  test('grant as the login, list, cover a call, revoke; refusals name the field', async () => {
    const agentId = `agent-${randomUUID()}`;
    const scope = { agentId, toolName: 'deploy', inputSchema: { type: 'object' } };

    const named = await post('/api/grants', { ...scope, expireAfter: '1h', grantedBy: 'mallory' });
    assert.equal(named.status, 400, named.text);
    assert.match(named.text, /grantedBy/);
    const forbidden = await post('/api/grants', { ...scope, toolName: 'wire_funds', expireAfter: '1h' });
    assert.equal(forbidden.status, 403, forbidden.text);
    assert.deepEqual(forbidden.json, {
      error: 'FORBIDDEN',
      message:
        'grant refused: toolName: the operator\'s grant policy forbids grants of "wire_funds" (forbidTools)',
    });
    const endless = await post('/api/grants', scope);
    assert.equal(endless.status, 400, endless.text);
    assert.match(endless.text, /invalid grant: expiresAt: a grant needs an expiry/);
    const tooLong = await post('/api/grants', { ...scope, expireAfter: '7d' });
    assert.equal(tooLong.status, 403, tooLong.text);
    assert.match(tooLong.text, /maxExpireAfter of 1d/);

    const made = await post('/api/grants', { ...scope, expireAfter: '2h', note: 'release day' });
    assert.equal(made.status, 200, made.text);
    const grant = made.json as GrantBody;
    assert.equal(grant.grantedBy, 'bob');

    const listed = await request(inbox, 'GET', `/api/grants?agentId=${encodeURIComponent(agentId)}`, {
      headers: BOB,
    });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      (listed.json as { grants: GrantBody[] }).grants.map((one) => [one.id, one.status]),
      [[grant.id, 'active']],
    );

    const tool = requireApproval(
      { name: 'deploy', execute: (input: { service: string }) => `deployed ${input.service}` },
      { userInteraction: provider },
    );
    const toolCallId = `call-${randomUUID()}`;
    assert.equal(
      await tool.execute({ service: 'api' }, { toolCallId, agent: { id: agentId } }),
      'deployed api',
    );
    const record = await questions.get(
      questionWorkflowId({ agent: { id: agentId }, toolCallId }, randomUUID),
    );
    assert.equal(record.decision?.decidedBy, `grant:${grant.id}`);

    const revoked = await post('/api/grants/revoke', { id: grant.id });
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal((revoked.json as GrantBody).revokedBy, 'bob');
    const again = await post('/api/grants/revoke', { id: grant.id });
    assert.equal(again.status, 409, again.text);
    assert.match(again.text, /already revoked by bob/);
    const unknown = await post('/api/grants/revoke', { id: `${agentId}/000000000000` });
    assert.equal(unknown.status, 404, unknown.text);
    const nowhere = await post('/api/grants/revoke', { id: 'no-such-agent/000000000000' });
    assert.equal(nowhere.status, 404, nowhere.text);

    const revokedList = await request(inbox, 'GET', '/api/grants?status=revoked', { headers: BOB });
    assert.equal(revokedList.status, 200, revokedList.text);
    // Across agents the grants workflows are found in visibility, which may lag a moment behind.
    const ids = (revokedList.json as { grants: GrantBody[] }).grants.map((one) => one.id);
    assert.ok(ids.length === 0 || ids.includes(grant.id), revokedList.text);
  });
});
