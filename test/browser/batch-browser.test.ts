/**
 * Batches in the inbox page, in a real browser (headless Chromium through playwright-core, see
 * test/helpers/browser.ts) against a real dev server, worker and inbox, the approvals requested through
 * `TemporalUserInteraction.requestApproval` in this process:
 * - 50 pending approvals of one tool, selected with the selector's "Tool: restart" and approved in one action:
 *   the page reports 50 recorded, each agent gets an approval by the logged-in name, and each history holds
 *   exactly one decision;
 * - 10 selected, then 5 of them decided elsewhere (another reviewer, through the ops client) before Approve:
 *   the page reports 5 recorded and 5 refused, each refused one naming the reviewer who decided first, and
 *   those 5 keep that reviewer's decision.
 * Screenshots of the selection and of the report go to test-output/.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Page } from 'playwright-core';

import type { ApprovalDecision } from '../../src/types';
import { PROJECT_ROOT } from '../fixtures/child-process';
import { startBrowserStack, type BrowserStack } from '../helpers/browser-stack';
import { waitForPendingRecord } from '../helpers/pending-questions';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `batch-browser-${process.pid}`;
const OUTPUT = path.join(PROJECT_ROOT, 'test-output');
const AGENT_ID = 'batch-browser-agent';

let web: BrowserStack;

before(async () => {
  fs.mkdirSync(OUTPUT, { recursive: true });
  web = await startBrowserStack('batch-browser', TASK_QUEUE);
});

after(async () => {
  await web?.stop();
});

/** A call waiting for its decision in this process. */
interface PendingCall {
  workflowId: string;
  decision: Promise<ApprovalDecision>;
}

/** Requests `count` approvals of `toolName` at once; resolves once all are pending. */
async function requestApprovals(toolName: string, count: number): Promise<PendingCall[]> {
  const calls = Array.from({ length: count }, (_, index) => {
    const toolCallId = `${toolName}-${index}-${randomUUID()}`;
    const decision = web.provider.requestApproval({
      toolName,
      input: { service: `svc-${index}` },
      agent: { id: AGENT_ID },
      toolCallId,
    });
    decision.catch(() => undefined);
    return { workflowId: `ask-user-question/${AGENT_ID}/${toolCallId}`, decision };
  });
  for (const { workflowId } of calls) await waitForPendingRecord(web.stack.client, workflowId);
  return calls;
}

/** A logged-in page on the live queue. */
async function logIn(name: string): Promise<{ page: Page; errors: string[] }> {
  const errors: string[] = [];
  const page = await web.logIn(name, (opened) =>
    opened.on('pageerror', (error) => errors.push(error.message)),
  );
  return { page, errors };
}

/** Waits until the queue shows exactly `count` rows. */
async function queueShows(page: Page, count: number): Promise<void> {
  const rows = page.locator('#queue li');
  for (const deadline = Date.now() + 60_000; (await rows.count()) !== count;) {
    if (Date.now() > deadline) throw new Error(`the queue shows ${await rows.count()} rows, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** How many updates (decisions) the question's history records. */
async function decisionsRecorded(workflowId: string): Promise<number> {
  const history = await web.stack.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)
    .length;
}

describe('batches in the inbox page', () => {
  test('50 approvals selected by tool and approved in one action: 50 recorded, each exactly once', async () => {
    const calls = await requestApprovals('restart', 50);
    const alice = await logIn('alice');
    await queueShows(alice.page, 50);
    await alice.page.locator('#batch-filter').selectOption('Tool: restart');
    await alice.page.locator('#batch-select').click();
    assert.equal(await alice.page.locator('#batch-count').textContent(), '50 selected');
    assert.equal(await alice.page.locator('#queue input.batch-check:checked').count(), 50);
    await alice.page.screenshot({ path: path.join(OUTPUT, 'batch-selected.png') });

    await alice.page.locator('#batch-approve').click();
    await alice.page.locator('#batch-message', { hasText: 'recorded' }).waitFor({ timeout: 120_000 });
    assert.equal(await alice.page.locator('#batch-message').textContent(), '50 recorded, 0 refused.');
    assert.equal(await alice.page.locator('#batch-refused li').count(), 0);
    await queueShows(alice.page, 0);

    for (const { workflowId, decision } of calls) {
      const decided = await decision;
      assert.equal(decided.type, 'approve', workflowId);
      assert.equal(decided.decidedBy, 'alice', workflowId);
      assert.equal(await decisionsRecorded(workflowId), 1, `${workflowId}: one decision recorded`);
    }
    assert.deepEqual(alice.errors, []);
  });

  test('5 of 10 selected decided elsewhere meanwhile: refused, naming who decided first; the others recorded', async () => {
    const calls = await requestApprovals('scale', 10);
    const alice = await logIn('alice');
    await queueShows(alice.page, 10);
    await alice.page.locator('#batch-filter').selectOption('Tool: scale');
    await alice.page.locator('#batch-select').click();
    assert.equal(await alice.page.locator('#batch-count').textContent(), '10 selected');

    // Bob decides five of them through the ops client while alice's selection stands.
    const elsewhere = calls.slice(0, 5);
    await Promise.all(
      elsewhere.map(({ workflowId }) =>
        web.stack.questions.decide(workflowId, { type: 'reject', decidedBy: 'bob' }),
      ),
    );
    await alice.page.locator('#batch-approve').click();
    await alice.page.locator('#batch-message', { hasText: 'recorded' }).waitFor({ timeout: 60_000 });
    assert.equal(await alice.page.locator('#batch-message').textContent(), '5 recorded, 5 refused.');
    const refused = alice.page.locator('#batch-refused li');
    assert.equal(await refused.count(), 5);
    const refusedIds: string[] = [];
    for (const line of await refused.all()) {
      assert.equal(await line.getAttribute('data-refusal'), 'already-resolved');
      assert.equal(await line.getAttribute('data-resolved-by'), 'bob');
      assert.match((await line.textContent()) ?? '', /already decided by bob$/);
      refusedIds.push((await line.getAttribute('data-workflow-id')) ?? '');
    }
    assert.deepEqual(refusedIds.sort(), elsewhere.map((call) => call.workflowId).sort());
    await alice.page.screenshot({ path: path.join(OUTPUT, 'batch-refused.png'), fullPage: true });

    for (const { workflowId, decision } of calls) {
      const decided = await decision;
      const byBob = elsewhere.some((call) => call.workflowId === workflowId);
      assert.deepEqual(
        { type: decided.type, by: decided.decidedBy },
        byBob ? { type: 'reject', by: 'bob' } : { type: 'approve', by: 'alice' },
        workflowId,
      );
      assert.equal(await decisionsRecorded(workflowId), 1, `${workflowId}: one decision recorded`);
    }
    assert.deepEqual(alice.errors, []);
  });
});
