/**
 * "Approve and grant…" under the two-person rule, in a real browser against a real dev server, worker and
 * inbox, on calls whose provider policy needs two approvals (the worker's grants workflow has no policy of its
 * own, so it would grant): alice's approval is counted (1 of 2), and the page says no grant was made, a grant
 * being one person's decision; the agent has no grant. Bob's approval decides the call: the tool runs, and his
 * grant is made.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Page } from 'playwright-core';

import { deployThroughApproval } from '../helpers/approval-calls';
import { startBrowserStack, type BrowserStack } from '../helpers/browser-stack';
import { waitForPendingRecord } from '../helpers/pending-questions';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `grants-two-person-browser-${process.pid}`;
const AGENT = { id: `grants-two-person-browser-agent-${process.pid}` };
const DEPLOY = { service: 'api', version: '1.4.2' };

let web: BrowserStack;
const savedQueue = process.env.ASK_USER_TASK_QUEUE;

before(async () => {
  // The inbox starts the agent's grants workflow on the worker's task queue, which it reads from the environment.
  process.env.ASK_USER_TASK_QUEUE = TASK_QUEUE;
  web = await startBrowserStack('grants-two-person-browser', TASK_QUEUE, { requiredApprovals: 2 });
});

after(async () => {
  if (savedQueue === undefined) delete process.env.ASK_USER_TASK_QUEUE;
  else process.env.ASK_USER_TASK_QUEUE = savedQueue;
  await web?.stop();
});

/** Logs in as `name`, opens the approval, and clicks "Approve and grant"; returns what the page then says. */
async function approveAndGrant(name: string, workflowId: string): Promise<{ page: Page; said: string }> {
  const page = await web.logIn(name);
  await page.goto(`${web.inbox.url}#/q/${encodeURIComponent(workflowId)}`);
  const form = page.locator('form.approval-form');
  await form.waitFor();
  await form.locator('details.grant summary').click();
  await form.locator('#grant-expire-after').fill('2h');
  await form.locator('#approve-grant').click();
  const done = page.locator('#question-body > .form-message.success');
  await done.waitFor();
  return { page, said: (await done.textContent()) ?? '' };
}

describe('approve and grant under the two-person rule', () => {
  test('a counted approval grants nothing and says why; the deciding one grants', async () => {
    const call = deployThroughApproval(web.provider, AGENT, DEPLOY);
    await waitForPendingRecord(web.stack.client, call.workflowId);

    const alice = await approveAndGrant('alice', call.workflowId);
    assert.equal(
      alice.said,
      "Recorded your decision: 1 of 2 approvals. No grant was made: a grant is one person's decision, and this call needs more than one approval.",
    );
    const pending = await web.stack.questions.get(call.workflowId);
    assert.equal(pending.status, 'pending');
    assert.deepEqual(
      pending.approvals?.map((given) => given.decidedBy),
      ['alice'],
    );
    assert.deepEqual(await web.stack.questions.grants.list({ agentId: AGENT.id }), []);

    const bob = await approveAndGrant('bob', call.workflowId);
    assert.match(bob.said, /^Approved and granted as bob: grant .+ until /);
    assert.equal(await call.result, `ran ${JSON.stringify(DEPLOY)}`);
    const [grant, ...more] = await web.stack.questions.grants.list({ agentId: AGENT.id });
    assert.equal(more.length, 0);
    assert.equal(grant?.grantedBy, 'bob');
    assert.deepEqual(grant?.input, DEPLOY);
    await Promise.all([alice.page, bob.page].map((page) => page.context().close()));
  });
});
