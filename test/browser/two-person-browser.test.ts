/**
 * The two-person rule in a real browser against a dev server, on calls asked by `carol` (`requestedBy`) under
 * an operator's `{ requiredApprovals: 2, forbidSelfApproval: true }`:
 * - alice approves: the call stays pending, the tool does not run, and the page shows "1 of 2 approvals" with
 *   alice's name; alice approving again is refused, naming her earlier approval;
 * - carol, who asked, is refused by `forbidSelfApproval`;
 * - bob approves: the tool runs once, and the outcome names both approvals;
 * - on another call, alice approves and bob denies: denied, and the tool never runs;
 * - a batch approval by alice records 1 of 2 on two calls, which stay in the queue; carol's batch is refused as
 *   separation of duties; bob's batch runs each tool once.
 * A screenshot of the page at 1 of 2 goes to test-output/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Page } from 'playwright-core';

import { requireApproval, type ApprovedExecutionContext } from '../../src/tool';
import { PROJECT_ROOT } from '../fixtures/child-process';
import { startBrowserStack, type BrowserStack } from '../helpers/browser-stack';
import { waitForPendingRecord } from '../helpers/pending-questions';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `two-person-browser-${process.pid}`;
const OUTPUT = path.join(PROJECT_ROOT, 'test-output');
const AGENT_ID = 'two-person-agent';
const DEPLOY = { service: 'api', version: '1.4.2' };

let web: BrowserStack;

before(async () => {
  fs.mkdirSync(OUTPUT, { recursive: true });
  web = await startBrowserStack('two-person-browser', TASK_QUEUE, {
    requiredApprovals: 2,
    forbidSelfApproval: true,
  });
});

after(async () => {
  await web?.stop();
});

let calls = 0;

/** A deploy call by carol, wrapped by `requireApproval`; resolves once its approval is pending. */
async function requestDeploy(): Promise<{
  workflowId: string;
  result: Promise<string>;
  runs: ApprovedExecutionContext[];
}> {
  const toolCallId = `call-${++calls}`;
  const runs: ApprovedExecutionContext[] = [];
  const tool = requireApproval(
    {
      name: 'deploy',
      execute: async (input: typeof DEPLOY, context: ApprovedExecutionContext) => {
        runs.push(context);
        return `deployed ${input.service} ${input.version}`;
      },
    },
    { userInteraction: web.provider, requestedBy: 'carol', description: 'Deploy api 1.4.2' },
  );
  const result = tool.execute(DEPLOY, { toolCallId, agent: { id: AGENT_ID } });
  result.catch(() => undefined);
  const workflowId = `ask-user-question/${AGENT_ID}/${toolCallId}`;
  await waitForPendingRecord(web.stack.client, workflowId);
  return { workflowId, result, runs };
}

/** A page logged in as `name`, opened on the approval `workflowId`. */
async function openAs(name: string, workflowId: string): Promise<Page> {
  const page = await web.logIn(name);
  await page.locator(`#queue li[data-workflow-id="${workflowId}"] a.row`).click();
  await page.locator('form.approval-form').waitFor();
  return page;
}

/** Clicks Approve and returns what the page then says: the confirmation above the view, or the form's error. */
async function approve(page: Page): Promise<string> {
  // The confirmation of an earlier click stays above the view: take it away, so only this click's result is read.
  await page
    .locator('#question-body > .form-message.success')
    .evaluateAll((notices) =>
      notices.forEach((notice) => (notice as unknown as { remove(): void }).remove()),
    );
  await page.locator('form.approval-form #approve').click();
  const said = page.locator('#question-body > .form-message.success, #form-message.error');
  await said.first().waitFor();
  return (await said.first().textContent()) ?? '';
}

describe('the two-person rule in the inbox page', () => {
  test('one approval shows 1 of 2 and waits; the same person twice and the requester are refused; a second person runs the tool once', async () => {
    const call = await requestDeploy();
    const alice = await openAs('alice', call.workflowId);
    assert.equal(await alice.locator('#question-meta').getByText('carol', { exact: true }).count(), 1);
    assert.equal(await alice.locator('#question-meta .approvals-count').textContent(), '0 of 2 approvals');

    assert.equal(await approve(alice), 'Recorded your decision: 1 of 2 approvals.');
    const progress = alice.locator('#question-meta .approvals-progress');
    assert.equal(await progress.locator('.approvals-count').textContent(), '1 of 2 approvals');
    assert.match((await progress.locator('.approvals-given li').textContent()) ?? '', /^alice, \d{4}-/);
    await alice.screenshot({ path: path.join(OUTPUT, 'two-person-1-of-2.png'), fullPage: true });
    const pending = await web.stack.questions.get(call.workflowId);
    assert.equal(pending.status, 'pending');
    assert.equal(pending.decision, undefined);
    assert.deepEqual(
      pending.approvals?.map((given) => given.decidedBy),
      ['alice'],
    );
    assert.equal(call.runs.length, 0);

    // The form is still there (the call is pending): alice's second approval is refused, naming her first.
    const twice = await approve(alice);
    assert.match(
      twice,
      /^requiredApprovals: alice already approved this call at \S+ \(1 of 2 approvals\); the next approval must come from someone else$/,
    );

    const carol = await openAs('carol', call.workflowId);
    assert.equal(
      await approve(carol),
      'forbidSelfApproval: carol asked for this call of deploy, so carol may not decide it; someone else must',
    );

    const bob = await openAs('bob', call.workflowId);
    assert.equal(await bob.locator('#question-meta .approvals-count').textContent(), '1 of 2 approvals');
    assert.equal(await approve(bob), 'Approved as bob.');
    assert.equal(await call.result, 'deployed api 1.4.2');
    assert.equal(call.runs.length, 1);
    assert.equal(call.runs[0]!.approval?.decision.decidedBy, 'bob');
    const outcome = bob.locator('.approval-outcome');
    assert.equal(await outcome.locator('.approvals-count').textContent(), '2 of 2 approvals');
    assert.deepEqual(
      (await outcome.locator('.approvals-given li').allTextContents()).map((line) => line.split(',')[0]),
      ['alice', 'bob'],
    );
    const record = await web.stack.questions.get(call.workflowId);
    assert.equal(record.status, 'answered');
    assert.equal(record.decision?.type, 'approve');
    await Promise.all([alice, carol, bob].map((page) => page.context().close()));
  });

  test('after one approval, a deny by the other person denies, and the tool never runs', async () => {
    const call = await requestDeploy();
    const alice = await openAs('alice', call.workflowId);
    assert.equal(await approve(alice), 'Recorded your decision: 1 of 2 approvals.');
    await web.stack.questions.decide(call.workflowId, {
      type: 'reject',
      reason: 'not now',
      decidedBy: 'bob',
    });
    assert.equal(await call.result, 'The user rejected this call of deploy: not now');
    assert.equal(call.runs.length, 0);
    const record = await web.stack.questions.get(call.workflowId);
    assert.equal(record.decision?.type, 'reject');
    assert.equal(record.decision?.decidedBy, 'bob');
    await alice.context().close();
  });

  test("a batch approval counts 1 of 2 and leaves the calls in the queue; the requester's batch is refused; a second batch runs each tool once", async () => {
    const calls = [await requestDeploy(), await requestDeploy()];
    /** Selects every pending deploy on `page` and approves them; returns what the bar says. */
    const approveAll = async (page: Page): Promise<string> => {
      for (const call of calls)
        await page.locator(`#queue li[data-workflow-id="${call.workflowId}"]`).waitFor();
      await page.locator('#batch-filter').selectOption('Tool: deploy');
      await page.locator('#batch-select').click();
      assert.equal(await page.locator('#batch-count').textContent(), '2 selected');
      await page.locator('#batch-approve').click();
      await page.locator('#batch-message', { hasText: 'recorded' }).waitFor();
      return (await page.locator('#batch-message').textContent()) ?? '';
    };

    const alice = await web.logIn('alice');
    assert.equal(await approveAll(alice), '2 recorded, 0 refused. 2 of them wait for more people to decide.');
    for (const call of calls) {
      assert.equal(await alice.locator(`#queue li[data-workflow-id="${call.workflowId}"]`).count(), 1);
      const record = await web.stack.questions.get(call.workflowId);
      assert.equal(record.status, 'pending');
      assert.deepEqual(
        record.approvals?.map((given) => given.decidedBy),
        ['alice'],
      );
      assert.equal(call.runs.length, 0);
    }

    const carol = await web.logIn('carol');
    assert.equal(await approveAll(carol), '0 recorded, 2 refused.');
    assert.deepEqual(
      await carol
        .locator('#batch-refused li')
        .evaluateAll((lines) =>
          lines.map((line) => (line as unknown as { dataset: { refusal: string } }).dataset.refusal),
        ),
      ['separation-of-duties', 'separation-of-duties'],
    );

    const bob = await web.logIn('bob');
    assert.equal(await approveAll(bob), '2 recorded, 0 refused.');
    for (const call of calls) {
      assert.equal(await call.result, 'deployed api 1.4.2');
      assert.equal(call.runs.length, 1);
    }
    await Promise.all([alice, carol, bob].map((page) => page.context().close()));
  });
});
