/**
 * Standing grants in the inbox page, in a real browser against a real dev server, worker and inbox:
 * "Approve and grant…" approves a pending call and grants its agent the tool for exactly that input; the same
 * call made again is approved at once, with no person, and its record names the grant; the Grants view lists
 * the grant and its Revoke ends it, after which the same call waits for a person. Deny with "Also stop the
 * agent's run" sends `stop: true`, and the record keeps it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import { deployThroughApproval, type DeployCall } from '../helpers/approval-calls';
import { startBrowserStack, type BrowserStack } from '../helpers/browser-stack';
import { waitForPendingRecord } from '../helpers/pending-questions';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `grants-browser-${process.pid}`;
const AGENT = { id: `grants-browser-agent-${process.pid}` };
const DEPLOY = { service: 'api', version: '1.4.2' };

let web: BrowserStack;
const savedQueue = process.env.ASK_USER_TASK_QUEUE;

before(async () => {
  // The inbox starts the agent's grants workflow on the worker's task queue, which it reads from the environment.
  process.env.ASK_USER_TASK_QUEUE = TASK_QUEUE;
  web = await startBrowserStack('grants-browser', TASK_QUEUE);
});

after(async () => {
  if (savedQueue === undefined) delete process.env.ASK_USER_TASK_QUEUE;
  else process.env.ASK_USER_TASK_QUEUE = savedQueue;
  await web?.stop();
});

/** A deploy call through `requireApproval`: its workflow id and what the model reads. */
function deploy(input: unknown = DEPLOY): DeployCall {
  return deployThroughApproval(web.provider, AGENT, input);
}

describe('standing grants in the inbox page', () => {
  test('approve and grant, a covered call with no person, the Grants view, Revoke', async () => {
    const page = await web.logIn('alice');
    const first = deploy();
    await waitForPendingRecord(web.stack.client, first.workflowId);
    await page.goto(`${web.inbox.url}#/q/${encodeURIComponent(first.workflowId)}`);
    const form = page.locator('form.approval-form');
    await form.waitFor();
    await form.locator('details.grant summary').click();
    await form.locator('#grant-expire-after').fill('2h');
    await form.locator('#grant-note').fill('release day');
    await form.locator('#approve-grant').click();
    const done = page.locator('#question-body > .form-message.success');
    await done.waitFor();
    const message = (await done.textContent()) ?? '';
    assert.match(message, /^Approved and granted as alice: grant .+ until /);
    assert.equal(await first.result, `ran ${JSON.stringify(DEPLOY)}`);

    // The same call again: approved by the grant, no person.
    const second = deploy();
    assert.equal(await second.result, `ran ${JSON.stringify(DEPLOY)}`);
    const record = await web.stack.questions.get(second.workflowId);
    assert.match(record.decision?.decidedBy ?? '', /^grant:/);
    assert.equal(record.decision?.type === 'approve' ? record.decision.grant?.grantedBy : undefined, 'alice');

    await page.goto(`${web.inbox.url}#/grants`);
    const grantRow = page.locator('#grants li.grant-row').first();
    await grantRow.waitFor();
    assert.match((await grantRow.textContent()) ?? '', /active.*deploy for .*release day/s);
    await grantRow.locator('button', { hasText: 'Revoke' }).click();
    await page.locator('#grants li.grant-row .badge.revoked').waitFor();

    // Revoked: the same call waits for a person.
    const third = deploy();
    const pending = await waitForPendingRecord(web.stack.client, third.workflowId);
    assert.equal(pending.decision, undefined);
    await page.goto(`${web.inbox.url}#/q/${encodeURIComponent(third.workflowId)}`);
    await form.waitFor();
    await form.locator('details.deny summary').click();
    await form.locator('#deny-reason').fill('not today');
    await form.locator('#deny-stop').check();
    await form.locator('#deny').click();
    await page.locator('#question-body > .form-message.success').waitFor();
    await third.result.catch(() => undefined);
    const denied = await web.stack.questions.get(third.workflowId);
    assert.equal(denied.decision?.type, 'reject');
    assert.equal(denied.decision?.type === 'reject' ? denied.decision.stop : undefined, true);
    await page.context().close();
  });
});
