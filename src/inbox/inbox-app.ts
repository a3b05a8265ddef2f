/**
 * The inbox's HTTP surface, as a Hono app composed of route modules: the JSON API of CONTRACT §4 (and the
 * decisions on approvals of §7), server-sent events of questions appearing and resolving, the login that the
 * page uses, and the page itself.
 *
 * Security, in the order a request meets it (and the module that holds it):
 * - a token in the query string is refused on every route, as URLs end up in logs, history and referrers
 *   (`security-headers.ts`);
 * - `/api/*` needs `Authorization: Bearer <token>` or the page's session cookie (HttpOnly, SameSite=Strict,
 *   sealed with the session key so every replica reads it, and checked against the sessions ended by a
 *   logout), and a POST made with the cookie needs the session's CSRF token in `x-csrf-token`
 *   (`inbox-session.ts`);
 * - logins and wrong tokens are counted per address and per name, by each process (`login-limits.ts`);
 * - bodies are JSON only and capped ({@link DEFAULT_MAX_BODY_BYTES}, `json-body.ts`);
 * - who answered or decided comes from the login, never from the body (`question-routes.ts`);
 * - every response forbids inline script and framing through its Content-Security-Policy.
 */
import { INBOX_API_VERSION, SECURITY } from './api-routes';
import type { InboxAuth } from './inbox-auth';
import { inboxHono, type InboxHono } from './inbox-hono';
import { eventRoutes, DEFAULT_STREAM_LIFETIME_MS } from './event-routes';
import { bodyCap, DEFAULT_MAX_BODY_BYTES } from './json-body';
import { DEFAULT_LOGIN_LIMIT, LoginTries, type LoginLimit } from './login-limits';
import { loginRoutes } from './login-routes';
import { methodNotAllowed } from './method-not-allowed';
import { pageAssets, type PageAssets } from './page-assets';
import { pageRoutes } from './page-routes';
import { questionRoutes } from './question-routes';
import { batchRoutes } from './batch-routes';
import { grantRoutes } from './grant-routes';
import type { QuestionIndex } from './question-index';
import { refuseTokenInUrl, securityHeaders } from './security-headers';
import {
  requireLogin,
  sessionRoutes,
  sessionsUnavailable,
  SessionsUnavailableError,
  SESSION_COOKIE,
  type PageSessions,
} from './inbox-session';
import { TemporalSessionRevocations, type SessionRevocations } from './session-revocations';
import { ssoRoutes } from './sso-routes';

/** Options of {@link createInboxApp}. */
export interface InboxAppOptions {
  index: QuestionIndex;
  auth: InboxAuth;
  /** Default {@link DEFAULT_MAX_BODY_BYTES}. */
  maxBodyBytes?: number;
  /** The page's files. Default: the ones shipped in `page/`. */
  page?: PageAssets;
  /**
   * Routes served outside `/api/*` that prove who calls them their own way (Slack's signed interactions),
   * so neither the token nor the session check applies to them. Their bodies are capped like the API's.
   */
  extraRoutes?: readonly InboxRoute[];
  /**
   * How long one event stream stays open before the inbox ends it; the browser's EventSource reconnects
   * within a second and proves its login again, so a stream never outlives a logout or a removed token by more
   * than this. Default {@link DEFAULT_STREAM_LIFETIME_MS}.
   */
  streamLifetimeMs?: number;
  /**
   * Login tries allowed per client address and per name, counted by this process: with several replicas,
   * each counts its own. Default {@link DEFAULT_LOGIN_LIMIT}.
   */
  loginLimit?: Partial<LoginLimit>;
  /**
   * Where page sessions ended by a logout are recorded, read by every replica before it honours a cookie.
   * Default: in the Temporal namespace of `index` (`TemporalSessionRevocations`).
   */
  sessionRevocations?: SessionRevocations;
}

/** A route of {@link InboxAppOptions.extraRoutes}: every method on `path` goes to `fetch`. */
export interface InboxRoute {
  path: string;
  fetch: (request: Request) => Response | Promise<Response>;
}

/** The app, and a way to end its open event streams (for a server that is shutting down). */
export interface InboxApp {
  app: InboxHono;
  closeStreams: () => void;
}

/** The two ways to call the API, as the OpenAPI document names them. */
function registerSecuritySchemes(app: InboxHono): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'A token of ASK_USER_INBOX_TOKEN or of the users file.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'session', {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'The page session of POST /api/login; a POST with it also needs x-csrf-token.',
  });
}

/**
 * Creates the inbox app. Modules are mounted in the order a request should meet them: the routes that need no
 * login (the page, extra routes, login, the OpenAPI document, single sign-on), then the login check of `/api/*`,
 * then the routes behind it, and last the 405 fallback, which reads the documented routes.
 *
 * @example
 * const { app } = createInboxApp({ index: new QuestionIndex(client), auth: InboxAuth.fromEnv() });
 * serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 8234 });
 */
export function createInboxApp(options: InboxAppOptions): InboxApp {
  const { index, auth } = options;
  const sessions: PageSessions = {
    auth,
    revocations: options.sessionRevocations ?? new TemporalSessionRevocations(index.questions.client),
  };
  const cap = bodyCap(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const tries = new LoginTries({ ...DEFAULT_LOGIN_LIMIT, ...options.loginLimit });
  const app = inboxHono();
  registerSecuritySchemes(app);
  app.onError((error, c) => {
    if (error instanceof SessionsUnavailableError) return sessionsUnavailable(c, error);
    // Hono's own handling of anything else.
    if ('getResponse' in error) {
      const response = (error as { getResponse: () => Response }).getResponse();
      return c.newResponse(response.body, response);
    }
    console.error(error);
    return c.text('Internal Server Error', 500);
  });
  app.use('*', securityHeaders());
  app.use('*', refuseTokenInUrl());

  app.route('/', pageRoutes(options.page ?? pageAssets()));
  for (const route of options.extraRoutes ?? []) app.all(route.path, cap, (c) => route.fetch(c.req.raw));
  app.route('/', loginRoutes({ sessions, tries, cap }));
  // The document itself needs no login: it describes the API, and holds nothing about any question.
  app.doc31('/api/openapi.json', (c) => ({
    openapi: '3.1.0',
    info: { title: 'durable-ask-user inbox API', version: INBOX_API_VERSION },
    servers: [{ url: new URL(c.req.url).origin }],
    security: SECURITY,
  }));
  if (auth.sso !== undefined) app.route('/', ssoRoutes(auth.sso, sessions));

  app.use('/api/*', requireLogin(sessions, tries));
  app.route('/', sessionRoutes(sessions));
  app.route('/', questionRoutes(index, cap));
  app.route('/', batchRoutes(index, cap));
  app.route('/', grantRoutes(index, cap));
  const events = eventRoutes(index, options.streamLifetimeMs ?? DEFAULT_STREAM_LIFETIME_MS);
  app.route('/', events.routes);
  app.all('/api/*', methodNotAllowed(app));
  return { app, closeStreams: events.closeStreams };
}
