/**
 * The page's token login: `GET /api/login` (which methods this inbox offers, needing no login) and
 * `POST /api/login`, which checks a token against the tries allowed and starts a page session.
 */
import type { MiddlewareHandler } from 'hono';
import { getLoginMethodsRoute, loginRoute } from './api-routes';
import { checkName } from './inbox-auth';
import { failure, inboxHono, type InboxHono } from './inbox-hono';
import { startSession, type PageSessions } from './inbox-session';
import { withJsonBody } from './json-body';
import { clientAddress, tooMany, type LoginTries } from './login-limits';

/** What the login routes need: the tokens and sessions, the counters of tries, and the body cap. */
export interface LoginRouteOptions {
  sessions: PageSessions;
  tries: LoginTries;
  cap: MiddlewareHandler;
}

/** The login methods and the token login. */
export function loginRoutes({ sessions, tries, cap }: LoginRouteOptions): InboxHono {
  const { auth } = sessions;
  const routes = inboxHono();
  routes.openapi(getLoginMethodsRoute, (c) => c.json({ methods: auth.loginMethods }, 200));
  routes.openapi(withJsonBody(loginRoute, cap), async (c) => {
    const body = c.req.valid('json');
    // Every try counts, right or wrong, before the token is looked at: the answer leaks nothing while limited.
    const waitMs = tries.tryLogin(clientAddress(c), typeof body.name === 'string' ? body.name : undefined);
    if (waitMs > 0) return tooMany(c, waitMs, 'too many login attempts');
    const holder = auth.holderOf(body.token);
    if (holder === undefined) return failure(c, 401, 'UNAUTHORIZED', 'wrong token');
    let name: string;
    if (holder.kind === 'user') {
      name = holder.name;
    } else {
      const checked = checkName(body.name);
      if (!checked.ok) return failure(c, 400, 'BAD_REQUEST', checked.reason);
      name = checked.name;
    }
    const session = await startSession(c, sessions, { via: 'token', token: body.token, name });
    return c.json({ name: session.name, groups: [...session.groups], csrfToken: session.csrfToken }, 200);
  });
  return routes;
}
