/**
 * The inbox page while no worker runs a question, in a real browser (see test/helpers/browser.ts) against a real
 * dev server, a worker that is stopped and started again, and the inbox: the question says no worker runs it; an
 * answer submitted then is recorded and shown waiting for a worker; once the worker is back the agent gets it,
 * and a second answer given during the outage is shown refused, naming who answered first. A screenshot of the
 * waiting question is saved under test-output/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Browser } from 'playwright-core';

import type { InboxServer } from '../../src/inbox';
import { TemporalUserInteraction } from '../../src/provider';
import { PROJECT_ROOT } from '../fixtures/child-process';
import { launchBrowser } from '../helpers/browser';
import { INBOX_TOKEN, bearer, questionPath, request, startTestInbox } from '../helpers/inbox';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `answer-without-worker-browser-${process.pid}`;
const OUTPUT = path.join(PROJECT_ROOT, 'test-output');

let stack: DevServerWithClient;
let worker: RunningWorkers | undefined;
let inbox: InboxServer;
let provider: TemporalUserInteraction;
let browser: Browser;

before(async () => {
  fs.mkdirSync(OUTPUT, { recursive: true });
  stack = await startDevServerWithClient('answer-without-worker-browser');
  worker = await startAskUserWorker(stack.server.address, TASK_QUEUE);
  inbox = await startTestInbox(stack.client);
  provider = new TemporalUserInteraction({ client: stack.client, taskQueue: TASK_QUEUE });
  browser = await launchBrowser();
});

after(async () => {
  try {
    await browser?.close();
    await provider?.close();
    await inbox?.close();
    await worker?.stop();
  } finally {
    await stack?.stop();
  }
});

test('the page says no worker runs the question, keeps an answer for one, and later shows the late answer refused', async () => {
  const answer = provider.ask({
    questions: [
      { id: 'env', question: 'Where to deploy?', options: [{ label: 'staging' }, { label: 'production' }] },
    ],
    agent: { id: 'page-agent' },
    toolCallId: 'outage',
  });
  answer.catch(() => undefined);
  const workflowId = 'ask-user-question/page-agent/outage';
  await waitForPendingRecord(stack.client, workflowId);
  await worker!.stop();
  worker = undefined;

  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${inbox.url}#token=${encodeURIComponent(INBOX_TOKEN)}`);
    await page.locator('#login-name').fill('alice');
    await page.locator('#login-form button[type=submit]').click();
    await page.locator('body[data-view="queue"]').waitFor();
    await page.goto(`${inbox.url}#/q/${encodeURIComponent(workflowId)}`);

    const noWorker = page.locator('.answer-notices .no-worker');
    await noWorker.waitFor();
    assert.match(
      (await noWorker.textContent()) ?? '',
      new RegExp(
        `^No worker is running this question \\(task queue ${TASK_QUEUE}\\)\\. Answers are still recorded`,
      ),
    );
    const form = page.locator('form.answer-form');
    await form.locator('.option-row').nth(0).locator('input').check();
    await form.locator('button[type=submit]').click();
    const told = page.locator('#question-body > .form-message.success');
    await told.waitFor();
    assert.match(
      (await told.textContent()) ?? '',
      /^Your answer is recorded, but no worker is running this question/,
    );
    assert.match((await page.locator('.waiting-answers').textContent()) ?? '', /alice/);
    await page.screenshot({ path: path.join(OUTPUT, 'answer-without-worker.png'), fullPage: true });

    // A second answer during the outage, from another answerer.
    const late = await request(inbox, 'POST', questionPath(workflowId, 'answer'), {
      headers: { ...bearer(), 'x-ask-user-name': 'bob' },
      body: JSON.stringify({ answers: [{ id: 'env', selected: ['production'] }] }),
    });
    assert.equal(late.status, 202, late.text);

    worker = await startAskUserWorker(stack.server.address, TASK_QUEUE);
    assert.deepEqual(await answer, { answers: [{ id: 'env', selected: ['staging'] }] });

    await page.reload();
    const refused = page.locator('.refused-answers li');
    await refused.first().waitFor();
    assert.deepEqual(await refused.count(), 1);
    assert.match(
      (await refused.first().textContent()) ?? '',
      /bob [0-9a-f-]{36}: the question was already answered by alice at \S+$/,
    );
    assert.equal(await page.locator('.answer-notices .no-worker').count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
