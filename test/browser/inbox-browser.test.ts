/**
 * The inbox page in a real browser (headless Chromium through playwright-core: `CHROMIUM_PATH`, else
 * `/usr/bin/chromium`, else the one from npm `@sparticuz/chromium`; see test/helpers/browser.ts) against a real
 * dev server, worker and inbox:
 * - the login page shows no signed-in header ("Signed in as", "Log out") until the session is signed in;
 * - log in, see a multi-select question appear live while the page is open, answer it by keyboard with two
 *   options; the agent, waiting in another process, gets exactly the expected text; a second browser that
 *   submits afterwards is told who answered and when;
 * - a question whose every model-written string is an HTML or script payload shows each one as text, and no
 *   script runs.
 * Screenshots of the queue and the question view are saved under test-output/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Browser, BrowserContext, Page } from 'playwright-core';

import type { InboxServer } from '../../src/inbox';
import { TemporalUserInteraction } from '../../src/provider';
import { startAgentProcess } from '../fixtures/agent-process';
import { PROJECT_ROOT, jsonLines, killChildren } from '../fixtures/child-process';
import { launchBrowser } from '../helpers/browser';
import { INBOX_TOKEN, startTestInbox } from '../helpers/inbox';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `inbox-browser-${process.pid}`;
const OUTPUT = path.join(PROJECT_ROOT, 'test-output');

let stack: DevServerWithClient;
let worker: RunningWorkers;
let inbox: InboxServer;
let browser: Browser;

before(async () => {
  fs.mkdirSync(OUTPUT, { recursive: true });
  stack = await startDevServerWithClient('inbox-browser');
  worker = await startAskUserWorker(stack.server.address, TASK_QUEUE);
  inbox = await startTestInbox(stack.client);
  browser = await launchBrowser();
});

after(async () => {
  try {
    await browser?.close();
    await killChildren();
    await inbox?.close();
    await worker?.stop();
  } finally {
    await stack?.stop();
  }
});

/** Whether each part of the signed-in header is visible (rendered, not hidden by the page's own CSS). */
async function signedInHeaderVisibility(page: Page): Promise<Record<string, boolean>> {
  return {
    who: await page.locator('#who').isVisible(),
    signedInAs: await page.getByText('Signed in as').isVisible(),
    logOut: await page.getByRole('button', { name: 'Log out' }).isVisible(),
    nav: await page.locator('#nav').isVisible(),
  };
}

/** A logged-in page on the queue, its event stream ready, in a context of its own (its own cookies). */
async function logIn(name: string): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // The link `ask-user dev` prints: the token in the fragment fills the form and leaves the address bar.
  await page.goto(`${inbox.url}#token=${encodeURIComponent(INBOX_TOKEN)}`);
  // Before anyone has logged in, the page shows no signed-in header: no "Signed in as", no "Log out", no nav.
  await page.locator('body[data-view="login"]').waitFor();
  assert.deepEqual(await signedInHeaderVisibility(page), {
    who: false,
    signedInAs: false,
    logOut: false,
    nav: false,
  });
  await page.locator('#login-name').fill(name);
  await page.locator('#login-form button[type=submit]').click();
  await page.locator('body[data-view="queue"][data-live="ready"]').waitFor();
  assert.equal(new URL(page.url()).hash, '#/');
  assert.equal(await page.locator('#who-name').textContent(), name);
  // The same check once signed in, so that it can fail: the header is there now.
  assert.deepEqual(await signedInHeaderVisibility(page), {
    who: true,
    signedInAs: true,
    logOut: true,
    nav: true,
  });
  return { context, page, errors };
}

function row(page: Page, workflowId: string) {
  return page.locator(`#queue li[data-workflow-id="${workflowId}"] a.row`);
}

const CHECKS_ARGS = {
  questions: [
    {
      id: 'checks',
      header: 'Checks',
      question: 'Which checks should run before the deploy?',
      options: [
        { label: 'lint (Recommended)', description: 'Fast, catches typos' },
        { label: 'unit tests', description: 'About 2 minutes' },
        { label: 'e2e', description: 'About 20 minutes, needs staging' },
      ],
      multi_select: true,
    },
  ],
};

describe('the inbox page', () => {
  test('a question appears live, is answered by keyboard with two options, and a late second answer is told who answered', async () => {
    const agentId = 'browser-agent';
    const workflowId = `ask-user-question/${agentId}/call-1`;
    const alice = await logIn('alice');
    const bob = await logIn('bob');
    try {
      // Marks this page load: still there at the end, so nothing reloaded the page.
      await alice.page.evaluate(
        () => ((globalThis as unknown as { loadMarker: string }).loadMarker = 'first load'),
      );
      assert.equal(await row(alice.page, workflowId).count(), 0);

      const agent = startAgentProcess({
        address: stack.server.address,
        taskQueue: TASK_QUEUE,
        agentId,
        args: CHECKS_ARGS,
      });
      await row(alice.page, workflowId).waitFor();
      await row(bob.page, workflowId).waitFor();
      assert.equal(await row(alice.page, workflowId).locator('.title').textContent(), 'Checks');
      assert.match(
        (await row(alice.page, workflowId).locator('.row-meta').textContent()) ?? '',
        /^browser-agent · /,
      );
      assert.equal(await alice.page.locator('#count-pending').textContent(), '1');
      await alice.page.screenshot({ path: path.join(OUTPUT, 'inbox-queue.png') });

      // Bob opens the question and leaves the form open.
      await row(bob.page, workflowId).click();
      await bob.page.locator('fieldset.question').waitFor();

      // Alice, by keyboard alone: the row's link, then the checkboxes, then the submit button.
      await row(alice.page, workflowId).focus();
      await alice.page.keyboard.press('Enter');
      const form = alice.page.locator('form.answer-form');
      await form.waitFor();
      assert.equal(await alice.page.locator('#question-title').textContent(), 'Checks');
      const options = form.locator('.option-row');
      assert.deepEqual(
        await options
          .locator('input')
          .evaluateAll((inputs) =>
            inputs.map((input: unknown) => (input as { type: string | boolean }).type),
          ),
        ['checkbox', 'checkbox', 'checkbox'],
      );
      assert.deepEqual(await options.locator('.option-label').allTextContents(), [
        'lint',
        'unit tests',
        'e2e',
      ]);
      assert.deepEqual(await options.locator('.badge').allTextContents(), ['Recommended']);
      assert.deepEqual(await options.locator('.option-description').allTextContents(), [
        'Fast, catches typos',
        'About 2 minutes',
        'About 20 minutes, needs staging',
      ]);
      // "Other" clears the choices made so far; choosing clears "Other".
      await options.nth(1).locator('input').focus();
      await alice.page.keyboard.press('Space');
      await form.locator('input.other').focus();
      await alice.page.keyboard.type('only the smoke test');
      assert.equal(await options.nth(1).locator('input').isChecked(), false);
      await options.nth(0).locator('input').focus();
      await alice.page.keyboard.press('Space');
      assert.equal(await form.locator('input.other').inputValue(), '');
      await options.nth(2).locator('input').focus();
      await alice.page.keyboard.press('Space');
      assert.deepEqual(
        await options
          .locator('input')
          .evaluateAll((inputs) =>
            inputs.map((input: unknown) => (input as { checked: string | boolean }).checked),
          ),
        [true, false, true],
      );
      await alice.page.screenshot({ path: path.join(OUTPUT, 'inbox-question.png'), fullPage: true });
      await form.locator('button[type=submit]').focus();
      await alice.page.keyboard.press('Enter');
      await alice.page.locator('#question-body > .form-message.success').waitFor();
      assert.equal(
        await alice.page.locator('#question-body > .form-message.success').textContent(),
        'Answer recorded as alice.',
      );

      // The agent in its own process gets exactly the answer text.
      assert.deepEqual(await agent.waitForExit(), { code: 0, signal: null }, agent.stderr());
      assert.deepEqual(jsonLines(agent.stdout()).at(-1), {
        event: 'result',
        text: '{"answers":[{"id":"checks","selected":["lint (Recommended)","e2e"]}]}',
      });
      const record = await stack.questions.get(workflowId);
      assert.equal(record.answeredBy, 'alice');

      // Bob submits his stale form afterwards: refused in place, naming who answered and when.
      const bobForm = bob.page.locator('form.answer-form');
      await bobForm.locator('.option-row').nth(1).locator('input').check();
      await bobForm.locator('button[type=submit]').click();
      const refusal = bobForm.locator('.form-message.error');
      await refusal.waitFor();
      assert.equal(
        await refusal.textContent(),
        `the question was already answered by alice at ${record.resolvedAt}`,
      );
      assert.equal((await stack.questions.get(workflowId)).answeredBy, 'alice');

      // The queue dropped it without a reload.
      await alice.page.locator('#nav-pending').click();
      await alice.page.locator('#queue-empty').waitFor({ state: 'visible' });
      assert.equal(await row(alice.page, workflowId).count(), 0);
      assert.equal(
        await alice.page.evaluate(() => (globalThis as unknown as { loadMarker?: string }).loadMarker),
        'first load',
      );
      assert.deepEqual([...alice.errors, ...bob.errors], []);
    } finally {
      await alice.context.close();
      await bob.context.close();
    }
  });

  test('model-written HTML and script payloads show as text, and no script runs', async () => {
    const SCRIPT = `<script>window.xssRan = 'script'; alert('script')</script>`;
    const IMAGE = `<img src=x onerror="window.xssRan='img'; alert('img')">`;
    const QUOTES = `"'><svg onload="window.xssRan='svg'">`;
    const CLOSING = `</legend></label><b onmouseover="window.xssRan='b'">bold</b>`;
    const questions = [
      {
        id: 'xss',
        header: QUOTES,
        question: `${SCRIPT} ${IMAGE}`,
        options: [
          { label: `${IMAGE} (Recommended)`, description: SCRIPT },
          { label: QUOTES, description: CLOSING },
          { label: CLOSING, description: IMAGE },
        ],
      },
    ];
    const provider = new TemporalUserInteraction({ client: stack.client, taskQueue: TASK_QUEUE });
    const controller = new AbortController();
    const asked = provider.ask({
      questions,
      agent: { id: `<img src=x onerror="window.xssRan='agent'">` },
      toolCallId: 'xss-1',
      signal: controller.signal,
    });
    asked.catch(() => undefined);
    const user = await logIn('mallory-watch');
    const dialogs: string[] = [];
    user.page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    try {
      // It arrives through the live queue.
      const listed = user.page.locator('#queue a.row').filter({ hasText: 'svg onload' });
      await listed.waitFor();
      assert.equal(await listed.locator('.title').textContent(), QUOTES);
      assert.equal(
        await listed.locator('.agent').textContent(),
        `<img src=x onerror="window.xssRan='agent'">`,
      );
      await listed.click();
      const fieldset = user.page.locator('fieldset.question');
      await fieldset.waitFor();
      assert.equal(await fieldset.locator('legend .header').textContent(), QUOTES);
      assert.equal(await fieldset.locator('legend .question-text').textContent(), `${SCRIPT} ${IMAGE}`);
      assert.deepEqual(await fieldset.locator('.option-label').allTextContents(), [IMAGE, QUOTES, CLOSING]);
      assert.deepEqual(await fieldset.locator('.option-description').allTextContents(), [
        SCRIPT,
        CLOSING,
        IMAGE,
      ]);
      assert.deepEqual(await fieldset.locator('.badge').allTextContents(), ['Recommended']);
      // The values submitted are the labels exactly as offered.
      assert.deepEqual(
        await fieldset
          .locator('.option-row input')
          .evaluateAll((inputs) =>
            inputs.map((input: unknown) => (input as { value: string | boolean }).value),
          ),
        questions[0]!.options.map((option) => option.label),
      );
      // Text, not markup: no element any payload would have made exists, and nothing ran.
      assert.equal(await user.page.locator('main img, main svg, main b, main script, header img').count(), 0);
      assert.equal(await user.page.locator('script').count(), 1, 'only the page script');
      await fieldset.locator('.option-label').nth(2).hover();
      assert.equal(
        await user.page.evaluate(() => (globalThis as unknown as { xssRan?: string }).xssRan),
        undefined,
      );
      assert.deepEqual(dialogs, []);
      assert.deepEqual(user.errors, []);
    } finally {
      controller.abort();
      await user.context.close();
      await provider.close();
    }
  });
});
