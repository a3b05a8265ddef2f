/**
 * Single sign-on: `/auth/login` sends the browser to the OIDC provider, `/auth/callback` finishes the login it
 * started (tied to it by a cookie) and starts a page session for the ID token's name and groups.
 */
import type { Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { errorText } from '../common';
import { checkName, type InboxAuth } from './inbox-auth';
import { inboxHono, type InboxHono } from './inbox-hono';
import { cookieOf, startSession } from './inbox-session';
import { OidcLoginError, PENDING_LOGIN_TTL_MS, type OidcLogin } from './oidc-login';

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

/** The two routes of a login through `sso`. */
export function ssoRoutes(sso: OidcLogin, auth: InboxAuth): InboxHono {
  const routes = inboxHono();
  routes.get('/auth/login', async (c) => {
    try {
      const { url, loginId } = await sso.start(new URL(c.req.url));
      // Lax, not Strict: the provider's redirect back is a cross-site navigation, and must carry it.
      setCookie(c, SSO_LOGIN_COOKIE, loginId, {
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
    const loginId = cookieOf(c, SSO_LOGIN_COOKIE);
    deleteCookie(c, SSO_LOGIN_COOKIE, { path: '/auth/' });
    try {
      const identity = await sso.finish(loginId, new URL(c.req.url));
      const name = checkName(identity.name);
      if (!name.ok) return ssoFailure(c, new OidcLoginError(`the ID token's ${name.reason}`));
      startSession(c, auth, name.name, identity.groups);
      return c.redirect('/', 302);
    } catch (error) {
      return ssoFailure(c, error);
    }
  });
  return routes;
}
