/**
 * Who is calling `/api/*`: a bearer token (a per-user token names its holder; the shared one may name who it
 * acts for in `x-ask-user-name`), or the page's session cookie, HttpOnly and SameSite=Strict, whose POSTs also
 * carry the session's CSRF token. And the routes that read and end a session.
 *
 * The cookie is the session, sealed (`inbox-auth.ts`), so any replica with the same key reads it, CSRF token
 * included; before honouring it, a replica asks the shared record of ended sessions (`session-revocations.ts`),
 * so a logout on one replica holds on all of them.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { parse as parseCookie } from 'hono/utils/cookie';
import { errorText } from '../common';
import { getSessionRoute, logoutRoute } from './api-routes';
import { checkName, safeEqual, type InboxAuth, type InboxSession, type SessionLogin } from './inbox-auth';
import { failure, inboxHono, type Identity, type InboxEnv, type InboxHono } from './inbox-hono';
import { clientAddress, tooMany, type LoginTries } from './login-limits';
import type { SessionRevocations } from './session-revocations';

/** Name of the page's session cookie. */
export const SESSION_COOKIE = 'ask_user_inbox';

/** What page sessions need: the tokens and seal of the inbox, and the record of sessions that ended. */
export interface PageSessions {
  auth: InboxAuth;
  revocations: SessionRevocations;
}

/** The value of cookie `name` on the request, if it came with one. */
export function cookieOf(c: Context, name: string): string | undefined {
  return parseCookie(c.req.header('cookie') ?? '', name)[name];
}

/** The record of ended sessions could not be read or written (Temporal unreachable): no cookie is trusted. */
export class SessionsUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`cannot check the page session: ${errorText(cause)}`, { cause });
    this.name = 'SessionsUnavailableError';
  }
}

/** 503 for a {@link SessionsUnavailableError}. */
export function sessionsUnavailable(c: Context, error: SessionsUnavailableError) {
  return failure(c, 503, 'ASK_UNAVAILABLE', error.message);
}

/** Runs `call` on the record of ended sessions, its failure a {@link SessionsUnavailableError}. */
async function recorded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new SessionsUnavailableError(error);
  }
}

/**
 * Starts a page session (a fresh id at every login) and sets its cookie. The session the browser held before
 * ends, on every replica: a login never leaves an older cookie of the same browser alive.
 *
 * @throws SessionsUnavailableError when the session held before cannot be recorded as ended.
 */
export async function startSession(
  c: Context,
  { auth, revocations }: PageSessions,
  login: SessionLogin,
): Promise<InboxSession> {
  const previousCookie = cookieOf(c, SESSION_COOKIE);
  const previous = previousCookie === undefined ? undefined : await auth.openSession(previousCookie);
  if (previous !== undefined) await recorded(() => revocations.revoke(previous.id, previous.expiresAt));
  const { session, sealed } = await auth.createSession(login);
  setCookie(c, SESSION_COOKIE, sealed, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    secure: new URL(c.req.url).protocol === 'https:',
    maxAge: Math.floor((session.expiresAt - Date.now()) / 1000),
  });
  return session;
}

/** The identity a bearer token proves, or the refusal of the token (or of the name it claims to act for). */
function bearerIdentity(c: Context, auth: InboxAuth, tries: LoginTries, header: string) {
  const address = clientAddress(c);
  const waitMs = tries.tokenWaitMs(address);
  if (waitMs > 0) return tooMany(c, waitMs, 'too many wrong tokens from this address');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const holder = match === null ? undefined : auth.holderOf(match[1]!);
  if (holder === undefined) {
    tries.wrongToken(address);
    return failure(c, 401, 'UNAUTHORIZED', 'wrong token');
  }
  if (holder.kind === 'user') return { name: holder.name, groups: holder.groups } satisfies Identity;
  // The shared token names no one: a script may say who it acts for, as a person does at login.
  const given = c.req.header('x-ask-user-name');
  const checked = given === undefined ? undefined : checkName(given);
  if (checked !== undefined && !checked.ok) {
    return failure(c, 400, 'BAD_REQUEST', `x-ask-user-name header: ${checked.reason.replace(/^name: /, '')}`);
  }
  // A shared token proves no group: an audience of groups is answered with a per-user token or a login.
  return { name: checked?.ok === true ? checked.name : 'api', groups: [] } satisfies Identity;
}

/**
 * The identity the session cookie proves, or its refusal: no session (none, not sealed here, expired, its
 * token gone, or ended by a logout on any replica), or a POST without its CSRF token.
 */
async function sessionIdentity(c: Context, { auth, revocations }: PageSessions) {
  const sealed = cookieOf(c, SESSION_COOKIE);
  const session = sealed === undefined ? undefined : await auth.openSession(sealed);
  let ended: boolean;
  try {
    ended = session !== undefined && (await recorded(() => revocations.isRevoked(session.id)));
  } catch (error) {
    return sessionsUnavailable(c, error as SessionsUnavailableError);
  }
  if (session === undefined || ended) {
    return failure(c, 401, 'UNAUTHORIZED', 'missing token: send Authorization: Bearer <token>, or log in');
  }
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    const csrf = c.req.header('x-csrf-token');
    if (csrf === undefined || !safeEqual(csrf, session.csrfToken)) {
      return failure(c, 403, 'CSRF', 'missing or wrong x-csrf-token header');
    }
  }
  return { name: session.name, groups: session.groups, session } satisfies Identity;
}

/** The login check of every `/api/*` route registered after it: sets the request's identity, or refuses. */
export function requireLogin(sessions: PageSessions, tries: LoginTries): MiddlewareHandler<InboxEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const identity =
      header === undefined
        ? await sessionIdentity(c, sessions)
        : bearerIdentity(c, sessions.auth, tries, header);
    if (identity instanceof Response) return identity;
    c.set('identity', identity);
    return await next();
  };
}

/** `GET /api/session` (who you are) and `POST /api/logout`, which ends the session on every replica. */
export function sessionRoutes({ revocations }: PageSessions): InboxHono {
  const routes = inboxHono();
  routes.openapi(getSessionRoute, (c) => {
    const { name, groups, session } = c.get('identity');
    const you = { name, groups: [...groups] };
    return c.json(session === undefined ? you : { ...you, csrfToken: session.csrfToken }, 200);
  });
  routes.openapi(logoutRoute, async (c) => {
    const { session } = c.get('identity');
    // A failure to record it is a 503 (`inbox-app.ts`), and the cookie stays: the session did not end.
    if (session !== undefined) await recorded(() => revocations.revoke(session.id, session.expiresAt));
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.body(null, 204);
  });
  return routes;
}
