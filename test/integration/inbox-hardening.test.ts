/**
 * The inbox's defences over real HTTP against a real dev server:
 * - a login brute force: of 30 tries a minute from one address, 20 get through (401) and the rest are 429 with
 *   `Retry-After`, the right token included; of tries for one name, 10 get through; wrong bearer tokens are
 *   limited per address the same way;
 * - the session id rotates at login (the cookie held before no longer works) and logout ends the session on
 *   the server;
 * - at most 5 event streams per login, the sixth 429 until one closes;
 * - security headers: `Referrer-Policy`, `X-Content-Type-Options` always, HSTS only over TLS.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  DEFAULT_LOGIN_LIMIT,
  InboxAuth,
  MAX_STREAMS_PER_LOGIN,
  QuestionIndex,
  startInboxServer,
  type InboxServer,
} from '../../src/inbox';
import { INBOX_TOKEN, bearer, openEvents, request, type EventStream } from '../helpers/inbox';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';

let stack: DevServerWithClient;
const inboxes: InboxServer[] = [];

before(async () => {
  stack = await startDevServerWithClient('inbox-hardening');
});

after(async () => {
  try {
    for (const inbox of inboxes) await inbox.close();
  } finally {
    await stack?.stop();
  }
});

/** A fresh inbox, so each test starts with no attempts counted. */
async function freshInbox(): Promise<InboxServer> {
  const inbox = await startInboxServer({
    index: new QuestionIndex(stack.client, { pollIntervalMs: 200 }),
    auth: new InboxAuth({
      token: INBOX_TOKEN,
      users: [{ name: 'alice', token: 'alice-token-0123456789abcdef' }],
    }),
    port: 0,
  });
  inboxes.push(inbox);
  return inbox;
}

function login(inbox: InboxServer, token: string, name: string, cookie?: string): ReturnType<typeof request> {
  return request(inbox, 'POST', '/api/login', {
    headers: { 'content-type': 'application/json', ...(cookie === undefined ? {} : { cookie }) },
    body: JSON.stringify({ token, name }),
  });
}

function statuses(results: { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of results) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe('login rate limits', () => {
  test('from one address: 20 tries a minute get through, then 429 with Retry-After, the right token too', async () => {
    const inbox = await freshInbox();
    const results = [];
    for (let attempt = 0; attempt < 30; attempt++) {
      results.push(await login(inbox, `guess-${attempt}-0123456789abcdef`, `user-${attempt}`));
    }
    assert.equal(DEFAULT_LOGIN_LIMIT.perAddress, 20);
    assert.deepEqual(statuses(results), { 401: 20, 429: 10 });
    assert.deepEqual(
      results.slice(0, 20).map((result) => result.status),
      Array(20).fill(401),
      'the first 20 were looked at',
    );
    const limited = results[20]!;
    assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
    assert.ok(Number(limited.headers.get('retry-after')) <= 60);
    assert.deepEqual(limited.json, {
      error: 'TOO_MANY_REQUESTS',
      message: `too many login attempts: try again in ${limited.headers.get('retry-after')} s`,
    });
    const right = await login(inbox, INBOX_TOKEN, 'ops');
    assert.equal(right.status, 429, 'while limited, even the right token gets no answer about itself');
  });

  test('for one name: 10 tries a minute; another name from the same address still logs in', async () => {
    const inbox = await freshInbox();
    const results = [];
    for (let attempt = 0; attempt < 15; attempt++) {
      results.push(
        await login(inbox, `guess-${attempt}-0123456789abcdef`, attempt % 2 === 0 ? 'Mallory' : ' mallory '),
      );
    }
    assert.deepEqual(statuses(results), { 401: 10, 429: 5 }, 'names are counted trimmed and in lower case');
    assert.equal((await login(inbox, INBOX_TOKEN, 'ops')).status, 200);
  });

  test('wrong bearer tokens count against the address: 20 get 401, then 429', async () => {
    const inbox = await freshInbox();
    const results = [];
    for (let attempt = 0; attempt < 25; attempt++) {
      results.push(
        await request(inbox, 'GET', '/api/questions', {
          headers: bearer(`wrong-${attempt}-0123456789abcdef`),
        }),
      );
    }
    assert.deepEqual(statuses(results), { 401: 20, 429: 5 });
    assert.equal((await request(inbox, 'GET', '/api/session', { headers: bearer() })).status, 429);
  });
});

describe('sessions', () => {
  test('the session id rotates at login, and logout ends the session on the server', async () => {
    const inbox = await freshInbox();
    const first = await login(inbox, INBOX_TOKEN, 'ops');
    const firstCookie = (first.headers.get('set-cookie') ?? '').split(';')[0]!;
    assert.equal(
      (await request(inbox, 'GET', '/api/session', { headers: { cookie: firstCookie } })).status,
      200,
    );

    const second = await login(inbox, 'alice-token-0123456789abcdef', 'ignored', firstCookie);
    const secondCookie = (second.headers.get('set-cookie') ?? '').split(';')[0]!;
    assert.notEqual(secondCookie, firstCookie);
    assert.equal(
      (await request(inbox, 'GET', '/api/session', { headers: { cookie: firstCookie } })).status,
      401,
    );
    const session = await request(inbox, 'GET', '/api/session', { headers: { cookie: secondCookie } });
    assert.equal((session.json as { name: string }).name, 'alice');

    const { csrfToken } = second.json as { csrfToken: string };
    const out = await request(inbox, 'POST', '/api/logout', {
      headers: { cookie: secondCookie, 'x-csrf-token': csrfToken },
    });
    assert.equal(out.status, 204);
    assert.equal(
      (await request(inbox, 'GET', '/api/session', { headers: { cookie: secondCookie } })).status,
      401,
    );
  });

  test(`at most ${MAX_STREAMS_PER_LOGIN} event streams per login; the next is 429 until one closes`, async () => {
    const inbox = await freshInbox();
    const streams: EventStream[] = [];
    try {
      for (let index = 0; index < MAX_STREAMS_PER_LOGIN; index++) {
        const stream = await openEvents(inbox, bearer());
        await stream.next((event) => event.event === 'ready');
        streams.push(stream);
      }
      const refused = await request(inbox, 'GET', '/api/events', { headers: bearer() });
      assert.equal(refused.status, 429);
      assert.equal(
        (refused.json as { message: string }).message,
        `at most ${MAX_STREAMS_PER_LOGIN} event streams per login: close one (another tab) first`,
      );
      // Another login has its own allowance.
      const other = await openEvents(inbox, bearer('alice-token-0123456789abcdef'));
      streams.push(other);
      streams.shift()!.close();
      const again = await (async () => {
        for (let attempt = 0; attempt < 50; attempt++) {
          const stream = await openEvents(inbox, bearer()).catch(() => undefined);
          if (stream !== undefined) return stream;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return undefined;
      })();
      assert.ok(again, 'a stream opens again once one closed');
      streams.push(again);
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});

describe('security headers', () => {
  test('Referrer-Policy and X-Content-Type-Options always; HSTS only over TLS', async () => {
    const inbox = await freshInbox();
    for (const path of ['/', '/inbox.js', '/api/login', '/api/questions']) {
      const response = await request(inbox, 'GET', path);
      assert.equal(response.headers.get('referrer-policy'), 'no-referrer', path);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(response.headers.get('strict-transport-security'), null, `${path} over plain HTTP`);
    }
    const behindTls = await request(inbox, 'GET', '/', { headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(behindTls.headers.get('strict-transport-security'), 'max-age=31536000; includeSubDomains');
  });
});
