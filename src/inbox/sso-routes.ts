/**
 * Single sign-on: `/auth/login` sends the browser to the OIDC provider, `/auth/callback` finishes the login it
 * started (tied to it by a sealed cookie, which any replica opens) and starts a page session for the ID token's
 * name and groups.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { errorText } from '../common';
import { checkName } from './inbox-auth';
import { inboxHono, type InboxHono } from './inbox-hono';
import { cookieOf, startSession, type PageSessions } from './inbox-session';
import { OidcLoginError, PENDING_LOGIN_TTL_MS, type OidcLogin, type PendingLogin } from './oidc-login';
import type { SessionSeal } from './session-seal';

/** Name of the cookie that ties a single sign-on callback to the login it finishes. */
export const SSO_LOGIN_COOKIE = 'ask_user_sso';

/**
 * A failed single sign-on, as the person sees it: a short text page (401 for a refused login, 502 when the
 * provider could not be reached) with a way back.
 */
function ssoFailure(c: Context, error: unknown): Response {
  const known = error instanceof OidcLoginError;
  const status = known && !error.unreachable ? 401 : 502;
  const text = known ? error.message : `single sign-on failed: ${errorText(error)}`;
  return c.text(`${text}\n\nBack to the inbox: /\n`, status);
}

/** The login under way that a callback's cookie seals, or `undefined` (none, not sealed here, or expired). */
async function openPendingLogin(
  seal: SessionSeal,
  sealed: string | undefined,
): Promise<PendingLogin | undefined> {
  const claims = sealed === undefined ? undefined : await seal.open('sso-login', sealed);
  if (claims === undefined) return undefined;
  const { codeVerifier, state, nonce, redirectUri } = claims;
  if ([codeVerifier, state, nonce, redirectUri].some((value) => typeof value !== 'string')) return undefined;
  return { codeVerifier, state, nonce, redirectUri } as PendingLogin;
}

/** The two routes of a login through `sso`. */
export function ssoRoutes(sso: OidcLogin, sessions: PageSessions): InboxHono {
  const { seal } = sessions.auth;
  const routes = inboxHono();
  routes.get('/auth/login', async (c) => {
    try {
      const { url, pending } = await sso.start(new URL(c.req.url));
      const expiresAt = Date.now() + PENDING_LOGIN_TTL_MS;
      const sealed = await seal.seal(
        'sso-login',
        { ...pending },
        randomBytes(16).toString('base64url'),
        expiresAt,
      );
      // Lax, not Strict: the provider's redirect back is a cross-site navigation, and must carry it.
      setCookie(c, SSO_LOGIN_COOKIE, sealed, {
        httpOnly: true,
        sameSite: 'Lax',
        path: '/auth/',
        secure: new URL(c.req.url).protocol === 'https:',
        maxAge: Math.floor(PENDING_LOGIN_TTL_MS / 1000),
      });
      return c.redirect(url.href, 302);
    } catch (error) {
      return ssoFailure(c, error);
    }
  });
  routes.get('/auth/callback', async (c) => {
    const pending = await openPendingLogin(seal, cookieOf(c, SSO_LOGIN_COOKIE));
    deleteCookie(c, SSO_LOGIN_COOKIE, { path: '/auth/' });
    try {
      const identity = await sso.finish(pending, new URL(c.req.url));
      const name = checkName(identity.name);
      if (!name.ok) return ssoFailure(c, new OidcLoginError(`the ID token's ${name.reason}`));
      await startSession(c, sessions, { via: 'sso', name: name.name, groups: identity.groups });
      return c.redirect('/', 302);
    } catch (error) {
      return ssoFailure(c, error);
    }
  });
  return routes;
}
