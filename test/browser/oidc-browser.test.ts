/**
 * Single sign-on and assignment in the inbox page, in a real browser (headless Chromium through
 * playwright-core, see test/helpers/browser.ts) against a real OpenID provider on loopback (the
 * `oidc-provider` package, with its own login and consent pages), a real dev server, worker and inbox:
 * - "Sign in with single sign-on" runs the authorization code flow with PKCE; the page is signed in under the
 *   ID token's `preferred_username`, with the groups of its `groups` claim;
 * - a question whose audience is the `sre` group shows "Assigned to you" to alice (in `sre`), and the
 *   "Assigned to me" filter lists it alone; her answer reaches the agent exactly, recorded as `alice`;
 * - bob (not in `sre`) is refused with the server's 403 reason on the page, and nothing is recorded: the
 *   question stays pending with no update in its history; a question without an audience he answers as `bob`.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Browser, BrowserContext, Page } from 'playwright-core';

import { InboxAuth, OidcLogin, QuestionIndex, startInboxServer, type InboxServer } from '../../src/inbox';
import { QuestionClient } from '../../src/ops';
import { TemporalUserInteraction } from '../../src/provider';
import type { AskUserQuestion, AskUserQuestionAnswer } from '../../src/types';
import { launchBrowser } from '../helpers/browser';
import { INBOX_TOKEN } from '../helpers/inbox';
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, startIdentityProvider } from '../helpers/oidc-provider';
import { startDevServerWithClient, freePort, type DevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `oidc-browser-${process.pid}`;
/** The provider's accounts: who is in which group. Any password logs in (the provider's dev login page). */
const GROUPS: Record<string, string[]> = { alice: ['sre', 'oncall'], bob: ['marketing'] };

let stack: DevServerWithClient;
let worker: RunningWorkers;
let inbox: InboxServer;
let browser: Browser;
let identityProvider: http.Server;
let provider: TemporalUserInteraction;
let questions: QuestionClient;

before(async () => {
  stack = await startDevServerWithClient('oidc-browser');
  worker = await startAskUserWorker(stack.server.address, TASK_QUEUE);
  const providerPort = await freePort();
  const issuer = `http://127.0.0.1:${providerPort}`;
  const inboxPort = await freePort();
  const inboxOrigin = `http://127.0.0.1:${inboxPort}`;
  identityProvider = await startIdentityProvider(
    issuer,
    providerPort,
    `${inboxOrigin}/auth/callback`,
    GROUPS,
  );
  inbox = await startInboxServer({
    index: new QuestionIndex(stack.client, { pollIntervalMs: 200 }),
    auth: new InboxAuth({
      token: INBOX_TOKEN,
      sso: new OidcLogin({
        issuer,
        clientId: OIDC_CLIENT_ID,
        clientSecret: OIDC_CLIENT_SECRET,
        scopes: 'openid profile email groups',
      }),
    }),
    port: inboxPort,
  });
  provider = new TemporalUserInteraction({
    client: stack.client,
    taskQueue: TASK_QUEUE,
    policy: { agents: { 'sre-agent': { audience: { groups: ['sre'] } } } },
  });
  questions = new QuestionClient(stack.client);
  browser = await launchBrowser();
});

after(async () => {
  try {
    await browser?.close();
    await provider?.close();
    await inbox?.close();
    await new Promise((resolve) => identityProvider?.close(resolve));
    await worker?.stop();
  } finally {
    await stack?.stop();
  }
});

/** A page signed in through the provider's own login and consent pages as `login`. */
async function signIn(login: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(inbox.url);
  const sso = page.locator('#login-sso-link');
  await sso.waitFor();
  await sso.click();
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.locator('button[type=submit]').click();
  // The consent page: this client asks for profile, email and groups.
  await page.locator('button[type=submit]', { hasText: 'Continue' }).click();
  await page.locator('#who-name').waitFor({ state: 'visible' });
  return { context, page };
}

/** Asks one question as `agentId` and returns its workflow id once it is listed, and the agent's promise. */
async function ask(
  agentId: string,
  question: AskUserQuestion,
): Promise<{ workflowId: string; answer: Promise<AskUserQuestionAnswer>; abort: () => void }> {
  const controller = new AbortController();
  const answer = provider.ask({
    questions: [question],
    agent: { id: agentId },
    toolCallId: `${question.id}-${process.hrtime.bigint()}`,
    signal: controller.signal,
  });
  answer.catch(() => undefined);
  const workflowId = await waitFor(`${question.id} to be listed`, async () => {
    const listed = await questions.list('pending');
    return listed.find((each) => each.title === question.question)?.workflowId;
  });
  return { workflowId, answer, abort: () => controller.abort() };
}

/** How many updates the question's history holds (accepted or completed): a refused one leaves none. */
async function updateEvents(workflowId: string): Promise<number> {
  const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)
    .length;
}

const rollback: AskUserQuestion = {
  id: 'rollback',
  question: 'Roll back the payments service to 2.3.0?',
  options: [{ label: 'Roll back' }, { label: 'Keep 2.4.0' }],
};
const restart: AskUserQuestion = {
  id: 'restart',
  question: 'Restart the search cluster now?',
  options: [{ label: 'Now' }, { label: 'Tonight' }],
};
const slogan: AskUserQuestion = {
  id: 'slogan',
  question: 'Which slogan goes on the banner?',
  options: [{ label: 'Fast' }, { label: 'Faster' }],
};

describe('single sign-on and assignment in the browser', () => {
  test('the login page offers single sign-on beside the token form', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(inbox.url);
      await page.locator('#login-sso-link').waitFor();
      assert.equal(await page.locator('#login-form').isVisible(), true);
    } finally {
      await context.close();
    }
  });

  test('alice (group sre) signs in, sees the assignment, and her answer is recorded under her ID token name', async () => {
    const assigned = await ask('sre-agent', rollback);
    const open = await ask('open-agent', slogan);
    const alice = await signIn('alice');
    try {
      assert.equal(await alice.page.locator('#who-name').textContent(), 'alice');
      const session = await alice.page.evaluate(async () => (await fetch('/api/session')).json());
      assert.deepEqual((session as { groups: string[] }).groups, ['sre', 'oncall']);

      const row = alice.page.locator('#queue a.row').filter({ hasText: rollback.question });
      await row.waitFor();
      assert.equal(await row.locator('.assigned-badge').textContent(), 'Assigned to you');
      const openRow = alice.page.locator('#queue a.row').filter({ hasText: slogan.question });
      await openRow.waitFor();
      assert.equal(await openRow.locator('.assigned-badge').count(), 0);

      // The filter lists the questions assigned to her, and no other.
      await alice.page.locator('#queue-assigned').check();
      await waitFor('the queue to show only assigned questions', async () => {
        const titles = await alice.page.locator('#queue a.row .title').allTextContents();
        return titles.length === 1 && titles[0] === rollback.question ? true : undefined;
      });
      await alice.page.locator('#queue-assigned').uncheck();

      await row.click();
      await alice.page.locator('fieldset.question').waitFor();
      const meta = alice.page.locator('dd .audience');
      assert.match((await meta.textContent()) ?? '', /^group sre/);
      await alice.page.locator('fieldset.question label', { hasText: 'Roll back' }).click();
      await alice.page.locator('form.answer-form button[type=submit]').click();
      await alice.page.locator('.form-message.success').first().waitFor();

      assert.deepEqual(await assigned.answer, { answers: [{ id: 'rollback', selected: ['Roll back'] }] });
      const record = await questions.get(assigned.workflowId);
      assert.equal(record.answeredBy, 'alice');
      assert.deepEqual(record.audience, { groups: ['sre'] });
    } finally {
      open.abort();
      await alice.context.close();
    }
  });

  test('bob (not in sre) is refused with 403 and nothing recorded; a question with no audience he may answer', async () => {
    const assigned = await ask('sre-agent', restart);
    const open = await ask('open-agent', {
      ...slogan,
      id: 'slogan-2',
      question: 'Which colour for the banner?',
    });
    const bob = await signIn('bob');
    try {
      const row = bob.page.locator('#queue a.row').filter({ hasText: restart.question });
      await row.waitFor();
      assert.equal(await row.locator('.assigned-badge').count(), 0);
      await row.click();
      await bob.page.locator('fieldset.question label', { hasText: 'Now' }).click();
      const [response] = await Promise.all([
        bob.page.waitForResponse((each) => each.url().endsWith('/answer')),
        bob.page.locator('form.answer-form button[type=submit]').click(),
      ]);
      assert.equal(response.status(), 403);
      const error = bob.page.locator('#form-message.error');
      await error.waitFor();
      assert.equal(
        await error.textContent(),
        '"bob" (groups marketing) may not answer this: it is assigned to groups sre',
      );
      const record = await questions.get(assigned.workflowId);
      assert.equal(record.status, 'pending');
      assert.equal(record.answeredBy, undefined);
      assert.equal(await updateEvents(assigned.workflowId), 0);

      // The open question is anyone's.
      await bob.page.goto(inbox.url);
      const openRow = bob.page.locator('#queue a.row').filter({ hasText: 'Which colour for the banner?' });
      await openRow.click();
      await bob.page.locator('fieldset.question label', { hasText: 'Faster' }).click();
      await bob.page.locator('form.answer-form button[type=submit]').click();
      assert.deepEqual(await open.answer, { answers: [{ id: 'slogan-2', selected: ['Faster'] }] });
      assert.equal((await questions.get(open.workflowId)).answeredBy, 'bob');
    } finally {
      assigned.abort();
      await bob.context.close();
    }
  });
});
