/**
 * Who is calling `/api/*`: a bearer token (a per-user token names its holder; the shared one may name who it
 * acts for in `x-ask-user-name`), or the page's session cookie, HttpOnly and SameSite=Strict, whose POSTs also
 * carry the session's CSRF token. And the routes that read and end a session.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { parse as parseCookie } from 'hono/utils/cookie';
import { getSessionRoute, logoutRoute } from './api-routes';
import { checkName, safeEqual, type InboxAuth, type InboxSession } from './inbox-auth';
import { failure, inboxHono, type Identity, type InboxEnv, type InboxHono } from './inbox-hono';
import { clientAddress, tooMany, type LoginTries } from './login-limits';

/** Name of the page's session cookie. */
export const SESSION_COOKIE = 'ask_user_inbox';

/** The value of cookie `name` on the request, if it came with one. */
export function cookieOf(c: Context, name: string): string | undefined {
  return parseCookie(c.req.header('cookie') ?? '', name)[name];
}

/** Starts a page session (a fresh id at every login) and sets its cookie. */
export function startSession(
  c: Context,
  auth: InboxAuth,
  name: string,
  groups: readonly string[],
): InboxSession {
  // A login ends the session the browser held before: a session id planted before login is never promoted.
  const previous = cookieOf(c, SESSION_COOKIE);
  if (previous !== undefined) auth.endSession(previous);
  const session = auth.createSession(name, groups);
  setCookie(c, SESSION_COOKIE, session.id, {
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

/** The identity the session cookie proves, or its refusal (no session, or a POST without its CSRF token). */
function sessionIdentity(c: Context, auth: InboxAuth) {
  const sessionId = cookieOf(c, SESSION_COOKIE);
  const session = sessionId === undefined ? undefined : auth.session(sessionId);
  if (session === undefined) {
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
export function requireLogin(auth: InboxAuth, tries: LoginTries): MiddlewareHandler<InboxEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const identity = header === undefined ? sessionIdentity(c, auth) : bearerIdentity(c, auth, tries, header);
    if (identity instanceof Response) return identity;
    c.set('identity', identity);
    return await next();
  };
}

/** `GET /api/session` (who you are) and `POST /api/logout`. */
export function sessionRoutes(auth: InboxAuth): InboxHono {
  const routes = inboxHono();
  routes.openapi(getSessionRoute, (c) => {
    const { name, groups, session } = c.get('identity');
    const you = { name, groups: [...groups] };
    return c.json(session === undefined ? you : { ...you, csrfToken: session.csrfToken }, 200);
  });
  routes.openapi(logoutRoute, (c) => {
    const { session } = c.get('identity');
    if (session !== undefined) auth.endSession(session.id);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.body(null, 204);
  });
  return routes;
}
