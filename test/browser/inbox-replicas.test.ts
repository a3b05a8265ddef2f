/**
 * Two inbox replicas with the same session key behind a loopback round-robin proxy (each request to the next
 * replica), a real browser (headless Chromium, test/helpers/browser.ts), a real OpenID provider
 * (`oidc-provider`) and a real dev server:
 * - a token login in the page works whichever replica each request reaches: after it, the page's API calls
 *   reach both replicas and all succeed; both read the same CSRF token from the cookie, and both refuse a
 *   cookie POST without it;
 * - a single sign-on started on one replica finishes on the other (the callback reaches the other replica);
 * - logout, on whichever replica it lands, ends the session on both: the old cookie is 401 everywhere;
 * - both replicas restarted: the same cookie still works, the page is still signed in, and a single sign-on
 *   left at the provider's login page across the restart still finishes;
 * - the record of a logout in Temporal: read by any process, never dispatched to a worker, closed (timed out)
 *   when the cookie expires, and still read as ended after that.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import {
  InboxAuth,
  OidcLogin,
  QuestionIndex,
  SESSION_COOKIE,
  startInboxServer,
  type InboxServer,
} from '../../src/inbox';
import { sessionEndedWorkflowId, TemporalSessionRevocations } from '../../src/inbox/session-revocations';
import { launchBrowser } from '../helpers/browser';
import { INBOX_TOKEN } from '../helpers/inbox';
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, startIdentityProvider } from '../helpers/oidc-provider';
import { startRoundRobinProxy, type RoundRobinProxy } from '../helpers/round-robin-proxy';
import { freePort, startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const SESSION_KEY = 'replica-session-key-0123456789abcdef';
const GROUPS: Record<string, string[]> = { alice: ['sre', 'oncall'] };

let stack: DevServerWithClient;
let identityProvider: http.Server;
let issuer: string;
let proxy: RoundRobinProxy;
let browser: Browser;
const ports: number[] = [];
const replicas: InboxServer[] = [];

/** One replica on `port`: its own process state, the shared key and provider. */
async function startReplica(port: number): Promise<InboxServer> {
  return await startInboxServer({
    index: new QuestionIndex(stack.client, { pollIntervalMs: 200 }),
    auth: new InboxAuth({
      token: INBOX_TOKEN,
      sessionKeys: [SESSION_KEY],
      sso: new OidcLogin({
        issuer,
        clientId: OIDC_CLIENT_ID,
        clientSecret: OIDC_CLIENT_SECRET,
        scopes: 'openid profile email groups',
      }),
    }),
    port,
  });
}

/** Stops both replicas and starts new ones on the same ports: everything they held in memory is gone. */
async function restartReplicas(): Promise<void> {
  for (const [index, port] of ports.entries()) {
    await replicas[index]!.close();
    replicas[index] = await startReplica(port);
  }
}

before(async () => {
  stack = await startDevServerWithClient('inbox-replicas');
  const providerPort = await freePort();
  issuer = `http://127.0.0.1:${providerPort}`;
  const proxyPort = await freePort();
  identityProvider = await startIdentityProvider(
    issuer,
    providerPort,
    `http://127.0.0.1:${proxyPort}/auth/callback`,
    GROUPS,
  );
  for (let index = 0; index < 2; index += 1) {
    ports.push(await freePort());
    replicas.push(await startReplica(ports[index]!));
  }
  proxy = await startRoundRobinProxy(
    replicas.map((replica) => replica.url),
    proxyPort,
  );
  browser = await launchBrowser();
});

after(async () => {
  try {
    await browser?.close();
    await proxy?.close();
    for (const replica of replicas) await replica.close();
    await new Promise((resolve) => identityProvider?.close(resolve));
  } finally {
    await stack?.stop();
  }
});

/** The page's session cookie, as `name=value`. */
async function sessionCookie(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies(proxy.url)).find((each) => each.name === SESSION_COOKIE);
  assert.ok(cookie, 'the page holds a session cookie');
  return `${cookie.name}=${cookie.value}`;
}

/**
 * Sends a request with `cookie` straight to a replica, on a connection of its own: a pooled one may still
 * point at the replica a restart stopped.
 */
function callReplica(
  replica: InboxServer,
  method: string,
  path: string,
  cookie: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL(path, replica.url),
      { method, headers: { cookie }, agent: false },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** `GET /api/session` with `cookie`, sent straight to a replica. */
async function sessionOn(replica: InboxServer, cookie: string): Promise<{ status: number; body: unknown }> {
  const { status, text } = await callReplica(replica, 'GET', '/api/session', cookie);
  return { status, body: status === 200 ? JSON.parse(text) : text };
}

/** The requests the proxy passed on since `from`, on `/api/` or `/auth/`. */
function servedSince(from: number): RoundRobinProxy['served'] {
  return proxy.served.slice(from).filter((each) => /^\/(api|auth)\//.test(each.path));
}

/** Logs in on the page through the proxy with the shared token as `name`. */
async function tokenLogin(name: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(proxy.url);
  await page.locator('body[data-view="login"]').waitFor();
  await page.locator('#login-token').fill(INBOX_TOKEN);
  await page.locator('#login-name').fill(name);
  await page.locator('#login-form button[type=submit]').click();
  await page.locator('body[data-view="queue"][data-live="ready"]').waitFor();
  assert.equal(await page.locator('#who-name').textContent(), name);
  return { context, page };
}

/** Starts a single sign-on on the page through the proxy, up to the provider's login page. */
async function startSso(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(proxy.url);
  await page.locator('#login-sso-link').click();
  await page.locator('input[name=login]').waitFor();
  return { context, page };
}

/** Signs in at the provider's login and consent pages as `login`, and waits for the inbox's page. */
async function finishSso(page: Page, login: string): Promise<void> {
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.locator('button[type=submit]').click();
  await page.locator('button[type=submit]', { hasText: 'Continue' }).click();
  await page.locator('body[data-view="queue"][data-live="ready"]').waitFor();
  assert.equal(await page.locator('#who-name').textContent(), login);
}

/** Logs out on the page (through the proxy) and checks that the old cookie is refused on both replicas. */
async function logOutEverywhere(page: Page, cookie: string): Promise<void> {
  const from = proxy.served.length;
  await page.locator('#logout').click();
  await page.locator('body[data-view="login"]').waitFor();
  const logout = servedSince(from).find((each) => each.path === '/api/logout');
  assert.equal(logout?.status, 204, JSON.stringify(servedSince(from)));
  for (const replica of replicas) assert.equal((await sessionOn(replica, cookie)).status, 401);
}

describe('two inbox replicas behind a round-robin proxy', () => {
  test('a token login works whichever replica each request reaches, CSRF included; logout ends it on both', async () => {
    const from = proxy.served.length;
    const { context, page } = await tokenLogin('ann');
    try {
      // The page is ready once its event stream is; its first list call may still be on its way.
      const served = await waitFor("the page's calls to be answered", () => {
        const sofar = servedSince(from);
        return sofar.every((each) => each.status !== 0) ? sofar : undefined;
      });
      const login = served.findIndex((each) => each.method === 'POST' && each.path === '/api/login');
      assert.equal(served[login]?.status, 200);
      const afterLogin = served.slice(login + 1);
      assert.deepEqual(
        new Set(afterLogin.map((each) => each.upstream)),
        new Set([0, 1]),
        `after the login, the page's calls reach both replicas: ${JSON.stringify(afterLogin)}`,
      );
      assert.ok(
        afterLogin.every((each) => each.status === 200),
        JSON.stringify(afterLogin),
      );

      const cookie = await sessionCookie(context);
      const [first, second] = await Promise.all(replicas.map((replica) => sessionOn(replica, cookie)));
      assert.equal(first!.status, 200);
      assert.deepEqual(second, first, 'both replicas read the same session, CSRF token included');
      assert.equal((first!.body as { name: string }).name, 'ann');
      for (const replica of replicas) {
        const refused = await callReplica(replica, 'POST', '/api/logout', cookie);
        assert.equal(refused.status, 403, 'a cookie POST without its CSRF token is refused');
      }
      await logOutEverywhere(page, cookie);
    } finally {
      await context.close();
    }
  });

  test('a single sign-on started on one replica finishes on the other; logout ends it on both', async () => {
    const from = proxy.served.length;
    const { context, page } = await startSso();
    try {
      await finishSso(page, 'alice');
      const served = servedSince(from);
      const started = served.find((each) => each.path.startsWith('/auth/login'));
      const finished = served.find((each) => each.path.startsWith('/auth/callback'));
      assert.equal(started?.status, 302);
      assert.equal(finished?.status, 302);
      assert.notEqual(started.upstream, finished.upstream, JSON.stringify(served));

      const cookie = await sessionCookie(context);
      for (const replica of replicas) {
        const session = await sessionOn(replica, cookie);
        assert.equal(session.status, 200);
        assert.deepEqual((session.body as { name: string; groups: string[] }).groups, ['sre', 'oncall']);
      }
      await logOutEverywhere(page, cookie);
    } finally {
      await context.close();
    }
  });

  test('after both replicas restart, the same cookie works, and a single sign-on under way finishes', async () => {
    const ann = await tokenLogin('ann');
    const alice = await startSso();
    try {
      const cookie = await sessionCookie(ann.context);
      await restartReplicas();
      for (const replica of replicas) assert.equal((await sessionOn(replica, cookie)).status, 200);
      await ann.page.reload();
      await ann.page.locator('body[data-view="queue"][data-live="ready"]').waitFor();
      assert.equal(await ann.page.locator('#who-name').textContent(), 'ann');

      await finishSso(alice.page, 'alice');
      await logOutEverywhere(ann.page, cookie);
      // Alice's session is her own: ann's logout did not end it.
      assert.equal((await sessionOn(replicas[0]!, await sessionCookie(alice.context))).status, 200);
    } finally {
      await ann.context.close();
      await alice.context.close();
    }
  });

  test('a logout is a Temporal record that no worker runs, closed when the cookie expires', async () => {
    const sessionId = `record-${process.hrtime.bigint()}`;
    const ending = new TemporalSessionRevocations(stack.client);
    await ending.revoke(sessionId, Date.now() + 3_000);
    await ending.revoke(sessionId, Date.now() + 3_000);
    const elsewhere = (): TemporalSessionRevocations => new TemporalSessionRevocations(stack.client);
    assert.equal(await elsewhere().isRevoked(sessionId), true);
    assert.equal(await elsewhere().isRevoked(`${sessionId}-other`), false);

    const record = stack.client.workflow.getHandle(sessionEndedWorkflowId(sessionId));
    assert.equal((await record.describe()).status.name, 'RUNNING');
    await waitFor('the record to time out', async () =>
      (await record.describe()).status.name === 'TIMED_OUT' ? true : undefined,
    );
    const events = (await record.fetchHistory()).events ?? [];
    assert.equal(events.filter((event) => event.workflowTaskScheduledEventAttributes).length, 0);
    assert.equal(await elsewhere().isRevoked(sessionId), true);
  });
});
