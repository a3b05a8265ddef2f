/**
 * The inbox page's deadline control in a real browser (headless Chromium through playwright-core: `CHROMIUM_PATH`,
 * else `/usr/bin/chromium`, else the one from npm `@sparticuz/chromium`; see test/helpers/browser.ts) against a
 * real dev server, worker and inbox: a question with a deadline shows it, an operator moves it by typing a
 * duration, and the question's record names them; a duration the workflow refuses shows its reason in place.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Browser } from 'playwright-core';

import type { InboxServer } from '../../src/inbox';
import { QuestionClient } from '../../src/ops';
import { TemporalUserInteraction } from '../../src/provider';
import { createAskUserQuestionTool } from '../../src/tool';
import { launchBrowser } from '../helpers/browser';
import { INBOX_TOKEN, startTestInbox } from '../helpers/inbox';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { deployTargetArgs } from '../helpers/questions';
import { startTestEnvironment } from '../helpers/temporal';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `policies-browser-${process.pid}`;

let env: TestWorkflowEnvironment;
let workers: RunningWorkers;
let inbox: InboxServer;
let browser: Browser;

before(async () => {
  env = await startTestEnvironment();
  workers = runWorkers([await createAskUserTestWorker(env.nativeConnection, { taskQueue: TASK_QUEUE })]);
  inbox = await startTestInbox(env.client);
  browser = await launchBrowser();
});

after(async () => {
  try {
    await browser?.close();
    await inbox?.close();
    await workers?.stop();
  } finally {
    await env?.teardown();
  }
});

describe('the deadline control', () => {
  test('shows the deadline, moves it by a typed duration as the logged-in name, and shows a refusal in place', async () => {
    const workflowId = 'ask-user-question/browser-deadline-bot/call-1';
    const tool = createAskUserQuestionTool({
      userInteraction: new TemporalUserInteraction({
        client: env.client,
        taskQueue: TASK_QUEUE,
        policy: { expireAfter: '1h' },
      }),
    });
    const result = tool.execute(deployTargetArgs, {
      agent: { id: 'browser-deadline-bot' },
      toolCallId: 'call-1',
    });
    result.catch(() => undefined);
    const pending = await waitForPendingRecord(env.client, workflowId);

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

      const expires = page.locator('#question-meta dt:text-is("Expires") + dd time');
      await expires.waitFor();
      assert.equal(await expires.getAttribute('datetime'), pending.expiresAt);

      await page.locator('details.deadline summary').click();
      await page.locator('#deadline-by').fill('soon');
      await page.locator('details.deadline button').click();
      const message = page.locator('details.deadline .form-message.error');
      await message.waitFor();
      // The route's schema refuses it, naming the field, before anything reaches the question.
      assert.equal(await message.textContent(), 'by: must be a duration such as 2h or -30m');

      const moved = new Date(Date.parse(pending.expiresAt ?? '') + 7_200_000).toISOString();
      await page.locator('#deadline-by').fill('2h');
      await page.locator('details.deadline button').click();
      const done = page.locator('#question-body > .form-message.success');
      await done.waitFor();
      assert.equal(await done.textContent(), `Deadline moved to ${moved} as alice.`);
      assert.equal(await expires.getAttribute('datetime'), moved);

      const record = await new QuestionClient(env.client).get(workflowId);
      assert.equal(record.expiresAt, moved);
      assert.deepEqual(
        record.deadlineChanges?.map(({ from, to, extendedBy }) => ({ from, to, extendedBy })),
        [{ from: pending.expiresAt, to: moved, extendedBy: 'alice' }],
      );
      assert.deepEqual(errors, []);
      await new QuestionClient(env.client).decline(workflowId);
    } finally {
      await context.close();
    }
  });
});
