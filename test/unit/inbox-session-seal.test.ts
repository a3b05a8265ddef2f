/**
 * Sealed page sessions without a server: the key setting (too short, whitespace, equal to a token), what opens
 * a cookie and what does not (another key, an altered cookie, a cookie of another purpose, one past its expiry
 * however long the browser keeps it), key rotation, and a session ending with the token or provider that
 * proved it. And the app over a record of ended sessions that cannot be reached: cookies are refused with 503,
 * and a logout that cannot be recorded says so and leaves the cookie.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import type { Client } from '@temporalio/client';

import {
  createInboxApp,
  InboxAuth,
  OidcLogin,
  QuestionIndex,
  SESSION_TTL_MS,
  type SessionRevocations,
} from '../../src/inbox';
import { parseSessionKeys, SessionSeal } from '../../src/inbox/session-seal';

const KEY = 'session-key-for-tests-0123456789abcdef';
const OTHER_KEY = 'another-session-key-0123456789abcdef';
const SHARED = 'shared-token-0123456789abcdef';
const ALICE = { name: 'alice', token: 'alice-token-0123456789abcdef', groups: ['sre'] };

function auth(options: Partial<ConstructorParameters<typeof InboxAuth>[0]> = {}): InboxAuth {
  return new InboxAuth({ token: SHARED, users: [ALICE], sessionKeys: [KEY], ...options });
}

/** Flips one character in the middle of a sealed cookie. */
function altered(sealed: string): string {
  const at = Math.floor(sealed.length / 2);
  return sealed.slice(0, at) + (sealed[at] === 'A' ? 'B' : 'A') + sealed.slice(at + 1);
}

describe('the session key setting', () => {
  test('a key shorter than 32 characters, or with whitespace, is refused naming the variable', () => {
    assert.throws(
      () => InboxAuth.fromEnv({ ASK_USER_INBOX_TOKEN: SHARED, ASK_USER_INBOX_SESSION_KEY: 'too-short' }),
      {
        message:
          'ASK_USER_INBOX_SESSION_KEY: the key has 9 characters, at least 32 are needed (e.g. openssl rand -base64 32)',
      },
    );
    assert.throws(() => parseSessionKeys(`${KEY},${'x'.repeat(20)}`), {
      message: /^ASK_USER_INBOX_SESSION_KEY: key 2 has 20 characters, at least 32/,
    });
    assert.throws(() => parseSessionKeys(`${KEY} x`), {
      message: 'ASK_USER_INBOX_SESSION_KEY: the key must not contain whitespace',
    });
  });

  test('a key equal to an inbox token is refused: its holder could seal any login', () => {
    assert.throws(() => auth({ token: KEY }), {
      message: 'ASK_USER_INBOX_SESSION_KEY: must not be one of the inbox tokens',
    });
  });

  test('without a key the seal is random per process; with one, two processes open each other’s cookies', async () => {
    const unkeyed = InboxAuth.fromEnv({ ASK_USER_INBOX_TOKEN: SHARED });
    assert.equal(unkeyed.sessionKeyIsEphemeral, true);
    const { sealed } = await unkeyed.createSession({ via: 'token', token: SHARED, name: 'ann' });
    assert.equal(await InboxAuth.fromEnv({ ASK_USER_INBOX_TOKEN: SHARED }).openSession(sealed), undefined);

    const env = { ASK_USER_INBOX_TOKEN: SHARED, ASK_USER_INBOX_SESSION_KEY: ` ${KEY} ` };
    const first = InboxAuth.fromEnv(env);
    assert.equal(first.sessionKeyIsEphemeral, false);
    const started = await first.createSession({ via: 'token', token: SHARED, name: 'ann' });
    assert.deepEqual(await InboxAuth.fromEnv(env).openSession(started.sealed), started.session);
  });
});

describe('sealed sessions', () => {
  test('only a cookie sealed by a configured key, unaltered and for a session, opens', async () => {
    const inbox = auth();
    const { session, sealed } = await inbox.createSession({ via: 'token', token: SHARED, name: 'ann' });
    assert.equal(session.name, 'ann');
    assert.deepEqual(session.groups, []);
    assert.match(session.csrfToken, /^[\w-]{43}$/);
    assert.ok(!sealed.includes('ann') && !sealed.includes(session.csrfToken), 'the cookie is encrypted');
    assert.deepEqual(await inbox.openSession(sealed), session);
    assert.equal(await inbox.openSession(altered(sealed)), undefined);
    assert.equal(await auth({ sessionKeys: [OTHER_KEY] }).openSession(sealed), undefined);
    // A cookie sealed for a single sign-on under way is no session, though the same key sealed it.
    const login = await inbox.seal.seal('sso-login', { name: 'ann' }, 'x', Date.now() + 60_000);
    assert.equal(await inbox.openSession(login), undefined);
    assert.equal(await inbox.openSession('not a cookie'), undefined);
  });

  test('a cookie past its expiry is refused, whatever the browser keeps', async () => {
    const inbox = auth();
    const now = Date.now();
    const { session, sealed } = await inbox.createSession({ via: 'token', token: SHARED, name: 'ann' }, now);
    assert.equal(session.expiresAt, Math.floor((now + SESSION_TTL_MS) / 1000) * 1000);
    assert.ok(await inbox.openSession(sealed, now + SESSION_TTL_MS - 2_000));
    assert.equal(await inbox.openSession(sealed, now + SESSION_TTL_MS + 1_000), undefined);

    const brief = auth({ sessionTtlMs: 1_000 });
    const short = await brief.createSession({ via: 'token', token: SHARED, name: 'ann' });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    assert.equal(await brief.openSession(short.sealed), undefined);
  });

  test('a rotated key keeps the sessions the old key sealed; a key dropped ends them', async () => {
    const old = auth({ sessionKeys: [OTHER_KEY] });
    const { session, sealed } = await old.createSession({ via: 'token', token: SHARED, name: 'ann' });
    const rotated = auth({ sessionKeys: [KEY, OTHER_KEY] });
    assert.deepEqual(await rotated.openSession(sealed), session);
    const fresh = await rotated.createSession({ via: 'token', token: SHARED, name: 'bo' });
    assert.ok(await auth({ sessionKeys: [KEY] }).openSession(fresh.sealed), 'the first key seals');
    assert.equal(await auth({ sessionKeys: [KEY] }).openSession(sealed), undefined);
  });

  test('a session ends with the token that proved it, and a user’s groups are the file’s of the moment', async () => {
    const inbox = auth();
    const user = await inbox.createSession({ via: 'token', token: ALICE.token, name: 'typed name' });
    assert.equal(user.session.name, 'alice');
    assert.deepEqual(user.session.groups, ['sre']);
    const shared = await inbox.createSession({ via: 'token', token: SHARED, name: 'ann' });

    const regrouped = auth({ users: [{ ...ALICE, groups: ['oncall'] }] });
    assert.deepEqual((await regrouped.openSession(user.sealed))?.groups, ['oncall']);
    const removed = auth({ users: [{ name: 'bob', token: 'bob-token-0123456789abcdef' }] });
    assert.equal(await removed.openSession(user.sealed), undefined);
    assert.ok(await removed.openSession(shared.sealed));
    const newToken = auth({ token: 'new-shared-token-0123456789abcdef' });
    assert.equal(await newToken.openSession(shared.sealed), undefined);
    assert.ok(await newToken.openSession(user.sealed));
  });

  test('a single sign-on session holds while the same provider and client are configured', async () => {
    const sso = (issuer: string) => new OidcLogin({ issuer, clientId: 'inbox' });
    const inbox = auth({ sso: sso('https://id.example') });
    const { session, sealed } = await inbox.createSession({ via: 'sso', name: 'carol', groups: ['sre'] });
    assert.deepEqual(session.groups, ['sre']);
    assert.deepEqual(await auth({ sso: sso('https://id.example') }).openSession(sealed), session);
    assert.equal(await auth({ sso: sso('https://other.example') }).openSession(sealed), undefined);
    assert.equal(await auth().openSession(sealed), undefined);
  });

  test('groups too many for a cookie fail the login with the reason, not with a cookie the browser drops', async () => {
    const inbox = auth({ sso: new OidcLogin({ issuer: 'https://id.example', clientId: 'inbox' }) });
    const groups = Array.from({ length: 100 }, (_, index) => `group-${index}-${'x'.repeat(40)}`);
    await assert.rejects(inbox.createSession({ via: 'sso', name: 'carol', groups }), {
      message: /the groups claim lists too many groups \(100\) for a login cookie to hold/,
    });
  });

  test('a seal without keys is ephemeral, one with keys is not', () => {
    assert.equal(new SessionSeal().ephemeral, true);
    assert.equal(new SessionSeal([KEY]).ephemeral, false);
  });
});

describe('the record of ended sessions', () => {
  /** An app over no Temporal at all (`{}`): only the record of ended sessions is asked anything. */
  function app(revocations: SessionRevocations) {
    return createInboxApp({
      index: new QuestionIndex({} as Client),
      auth: auth(),
      sessionRevocations: revocations,
    }).app;
  }

  async function logIn(revocations: SessionRevocations): Promise<{ cookie: string; csrfToken: string }> {
    const response = await app(revocations).request('/api/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: SHARED, name: 'ann' }),
    });
    assert.equal(response.status, 200);
    const { csrfToken } = (await response.json()) as { csrfToken: string };
    return { cookie: response.headers.get('set-cookie')!.split(';')[0]!, csrfToken };
  }

  test('a logout is recorded, and the record refuses the cookie in any app that reads it', async () => {
    const ended = new Map<string, number>();
    const revocations: SessionRevocations = {
      revoke: async (id, expiresAt) => void ended.set(id, expiresAt),
      isRevoked: async (id) => ended.has(id),
    };
    const { cookie, csrfToken } = await logIn(revocations);
    assert.equal((await app(revocations).request('/api/session', { headers: { cookie } })).status, 200);
    const out = await app(revocations).request('/api/logout', {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrfToken },
    });
    assert.equal(out.status, 204);
    assert.equal(ended.size, 1);
    assert.equal((await app(revocations).request('/api/session', { headers: { cookie } })).status, 401);
  });

  test('when the record cannot be reached, cookies are refused with 503 and a logout is not claimed', async () => {
    let reachable = true;
    const down = (): never => {
      throw new Error('Temporal is down');
    };
    const revocations: SessionRevocations = {
      revoke: async () => (reachable ? undefined : down()),
      isRevoked: async () => (reachable ? false : down()),
    };
    const { cookie, csrfToken } = await logIn(revocations);
    reachable = false;
    const session = await app(revocations).request('/api/session', { headers: { cookie } });
    assert.equal(session.status, 503);
    assert.deepEqual(await session.json(), {
      error: 'ASK_UNAVAILABLE',
      message: 'cannot check the page session: Temporal is down',
    });
    // The bearer token needs no record.
    const bearer = await app(revocations).request('/api/session', {
      headers: { authorization: `Bearer ${SHARED}` },
    });
    assert.equal(bearer.status, 200);

    // Read, but not written: the logout fails.
    reachable = true;
    const unwritable: SessionRevocations = { ...revocations, revoke: async () => down() };
    const out = await app(unwritable).request('/api/logout', {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrfToken },
    });
    assert.equal(out.status, 503);
    assert.equal(out.headers.get('set-cookie'), null, 'the cookie stays: the session did not end');
    assert.equal((await app(revocations).request('/api/session', { headers: { cookie } })).status, 200);
  });
});
