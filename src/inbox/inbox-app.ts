/**
 * The inbox's HTTP surface, as a Hono app: the JSON API of CONTRACT §4 (and the decisions on approvals of
 * §7), server-sent events of questions appearing and resolving, the login that the page uses, and the page
 * itself.
 *
 * Security, in the order a request meets it:
 * - a token in the query string is refused on every route (URLs end up in logs, history and referrers);
 * - `/api/*` needs `Authorization: Bearer <token>` or the page's session cookie (HttpOnly, SameSite=Strict);
 * - a POST made with the cookie needs the session's CSRF token in `x-csrf-token`;
 * - bodies are JSON only and capped ({@link DEFAULT_MAX_BODY_BYTES});
 * - who answered or decided comes from the login, never from the body;
 * - every response forbids inline script and framing through its Content-Security-Policy.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { OpenAPIHono, type z } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, setCookie } from 'hono/cookie';
import { parse as parseCookie } from 'hono/utils/cookie';
import { streamSSE } from 'hono/streaming';
import { toWorkflowId, type QuestionSummary } from '../ops/question-client';
import type { AskUserQuestionAnswerItem, DecideInput } from '../types';
import {
  INBOX_API_VERSION,
  SECURITY,
  answerQuestionRoute,
  decideApprovalRoute,
  declineQuestionRoute,
  extendDeadlineRoute,
  getLoginMethodsRoute,
  getQuestionRoute,
  getSessionRoute,
  listQuestionsRoute,
  loginRoute,
  logoutRoute,
  streamEventsRoute,
  type ErrorStatus,
} from './api-routes';
import { LOGIN_SET_FIELDS, fromLoginMessage } from './api-schemas';
import { checkName, safeEqual, type InboxAuth, type InboxSession } from './inbox-auth';
import { AttemptLimiter } from './attempt-limiter';
import { OidcLoginError, PENDING_LOGIN_TTL_MS } from './oidc-login';
import { pageAssets, type PageAssets } from './page-assets';
import {
  isAssignedTo,
  type QuestionEvent,
  type QuestionIndex,
  type QuestionIndexStatus,
} from './question-index';

/**
 * Largest request body: a maximal answer (20 questions, each with a 10,000-character `custom` text, every
 * character escaped in JSON) fits with room to spare.
 */
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;

/** Name of the page's session cookie. */
export const SESSION_COOKIE = 'ask_user_inbox';
/** Name of the cookie that ties a single sign-on callback to the login it finishes. */
export const SSO_LOGIN_COOKIE = 'ask_user_sso';

/** Query parameters that look like a credential: refused wherever they appear. */
const CREDENTIAL_PARAMETERS = ['token', 'access_token', 'api_key', 'apikey'];

/** Sent on every response. The page loads its script and style from this origin only. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Default of {@link InboxAppOptions.streamLifetimeMs}: 15 minutes. */
export const DEFAULT_STREAM_LIFETIME_MS = 15 * 60_000;

/** How soon a browser reconnects a stream the inbox ended (the `retry` field of the first event). */
const RECONNECT_MS = 1000;

/** How often an idle event stream carries a comment, so proxies keep it open. */
const KEEPALIVE_MS = 20_000;

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
  /** Login tries allowed per client address and per name. Default {@link DEFAULT_LOGIN_LIMIT}. */
  loginLimit?: Partial<LoginLimit>;
}

/** How many login tries get through per minute (or per `windowMs`), counted per client address and per name. */
export interface LoginLimit {
  perAddress: number;
  perName: number;
  windowMs: number;
}

/**
 * 20 tries a minute from one address, 10 for one name: plenty for people who mistype, and a guess of a
 * 16-character token takes longer than the universe has left. Wrong bearer tokens count against the address.
 */
export const DEFAULT_LOGIN_LIMIT: LoginLimit = { perAddress: 20, perName: 10, windowMs: 60_000 };

/** Most event streams one login (a session, or a token's holder) may hold open. */
export const MAX_STREAMS_PER_LOGIN = 5;

/** A route of {@link InboxAppOptions.extraRoutes}: every method on `path` goes to `fetch`. */
export interface InboxRoute {
  path: string;
  fetch: (request: Request) => Response | Promise<Response>;
}

/** Who is making a request, the groups they proved, and how they proved it. */
interface Identity {
  name: string;
  groups: readonly string[];
  session?: InboxSession;
}

type InboxEnv = { Variables: { identity: Identity } };

/** The app, and a way to end its open event streams (for a server that is shutting down). */
export interface InboxApp {
  app: OpenAPIHono<InboxEnv>;
  closeStreams: () => void;
}

function failure<C extends Context, S extends ErrorStatus>(c: C, status: S, error: string, message: string) {
  return c.json({ error, message }, status);
}

/** The stable `code` of an error from the question client, whichever class it is. */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The `rule` of a `BAD_ANSWER` error, when it has one. */
function ruleOf(error: unknown): string | undefined {
  const rule = (error as { rule?: unknown } | undefined)?.rule;
  return typeof rule === 'string' ? rule : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A row or record as this caller sees it: `assignedToYou` when its audience names them or one of their groups
 * (the page's "assigned to you"). A question without an audience is anyone's, and assigned to no one.
 */
function withAssignment<T extends Pick<QuestionSummary, 'audience'>>(
  question: T,
  identity: Identity,
): T & { assignedToYou?: true } {
  return isAssignedTo(question, identity) ? { ...question, assignedToYou: true } : question;
}

/**
 * A failed single sign-on, as the person sees it: a short text page (401 for a refused login, 502 when the
 * provider could not be reached) with a way back.
 */
function ssoFailure<C extends Context>(c: C, error: unknown): Response {
  const known = error instanceof OidcLoginError;
  const status = known && !error.unreachable ? 401 : 502;
  const text = known ? error.message : `single sign-on failed: ${messageOf(error)}`;
  return c.text(`${text}\n\nBack to the inbox: /\n`, status);
}

/** Maps a failure of the index or the question client to its HTTP status. */
function errorResponse(c: Context, error: unknown) {
  const code = codeOf(error);
  const message = messageOf(error);
  switch (code) {
    case 'BAD_REQUEST':
    case 'INVALID_ARGS':
      return failure(c, 400, code, message);
    case 'BAD_ANSWER': {
      const rule = ruleOf(error);
      return c.json({ error: code, message, ...(rule === undefined ? {} : { rule }) }, 400);
    }
    case 'FORBIDDEN':
      return failure(c, 403, code, message);
    case 'NOT_FOUND':
      return failure(c, 404, code, message);
    case 'ALREADY_RESOLVED':
      return failure(c, 409, code, message);
    case 'NO_WORKER':
    case 'ASK_UNAVAILABLE':
      return failure(c, 503, code, message);
    case 'TIMED_OUT':
      return failure(c, 504, code, message);
    default:
      return failure(c, 500, 'INTERNAL', message);
  }
}

/**
 * `value` without the fields a schema left `undefined`: the shared types say "absent" with exact optional
 * properties, where zod's output says "absent or undefined".
 */
function definedFields<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

/** One zod issue as `field: reason`, the way every refusal of this API names what is wrong. */
function issueText(issue: z.core.$ZodIssue): string {
  const path = issue.path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys
      .map((key) => `${path === '' ? '' : `${path}.`}${key}: not a field of this request`)
      .join('; ');
  }
  return path === '' ? issue.message : `${path}: ${issue.message}`;
}

/** The validation hook of every documented route: a request that breaks its schema is 400, naming the field. */
function refuseInvalid(result: { success: boolean; error?: z.ZodError }, c: Context) {
  if (result.success || result.error === undefined) return undefined;
  return failure(c, 400, 'BAD_REQUEST', result.error.issues.map(issueText).join('; '));
}

/** The fields a decision's body may carry; the rest is refused by the decision rules, naming the field. */
type DecisionBody = Omit<DecideInput, 'decidedBy'>;

/**
 * An answer sent to an approval: the workflow's refusal names its `decide` update, which is how the Temporal
 * CLI decides; over HTTP the route to use is named instead.
 */
function answeredApproval(c: Context, error: unknown, id: string) {
  const decideRoute = `POST /api/questions/${encodeURIComponent(toWorkflowId(id))}/decide`;
  const message = messageOf(error);
  const named = message.includes('(update decide)')
    ? message.replace('(update decide)', `(${decideRoute})`)
    : `${message} (${decideRoute})`;
  return c.json({ error: 'BAD_ANSWER', message: named, rule: 'approval' }, 400);
}

/**
 * Reads a JSON object body before the route's schema sees it: 415 when it is not JSON, 400 when it does not
 * parse or is not an object, and 400 for `loginField` (who answered, declined, decided or extended), which
 * only the login sets. The parsed body stays cached on the request for the schema's validator.
 */
function jsonObjectBody(loginField?: string): MiddlewareHandler {
  return async (c, next) => {
    const type = c.req.header('content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      return failure(
        c,
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'the body must be JSON (content-type: application/json)',
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(await c.req.text());
    } catch {
      return failure(c, 400, 'BAD_REQUEST', 'body: not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return failure(c, 400, 'BAD_REQUEST', 'body: must be a JSON object');
    }
    if (loginField !== undefined && loginField in parsed) {
      return failure(c, 400, 'BAD_REQUEST', fromLoginMessage(loginField));
    }
    return await next();
  };
}

/** The client's address as the socket says (not a header a client can write); `unknown` off Node's server. */
function clientAddress<C extends Context>(c: C): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** 429 with `Retry-After`. */
function tooMany<C extends Context>(c: C, waitMs: number, what: string) {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  c.header('Retry-After', String(seconds));
  return failure(c, 429, 'TOO_MANY_REQUESTS', `${what}: try again in ${seconds} s`);
}

/** True when the request reached the inbox over TLS, directly or through a proxy that says so. */
function overTls<C extends Context>(c: C): boolean {
  return new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
}

function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    // Only over TLS: a browser ignores it over plain HTTP, and loopback development stays reachable.
    if (overTls(c)) c.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    if (c.req.path.startsWith('/api/')) c.header('Cache-Control', 'no-store');
  };
}

function refuseTokenInUrl(): MiddlewareHandler {
  return async (c, next) => {
    const parameters = new URL(c.req.url).searchParams;
    if (CREDENTIAL_PARAMETERS.some((name) => parameters.has(name))) {
      return failure(
        c,
        401,
        'UNAUTHORIZED',
        'a token in the URL is refused (URLs end up in logs and history): send Authorization: Bearer <token>, or log in on the page',
      );
    }
    return await next();
  };
}

/** A documented path (`/api/questions/{id}`) as a pattern: a `{parameter}` matches one segment. */
function pathPattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
}

/** The methods the documented routes serve at `path`; GET brings HEAD. */
function allowedMethods(routes: readonly { method: string; pattern: RegExp }[], path: string): string[] {
  const methods = new Set<string>();
  for (const route of routes) {
    if (!route.pattern.test(path)) continue;
    methods.add(route.method.toUpperCase());
    if (route.method === 'get') methods.add('HEAD');
  }
  return [...methods].sort();
}

/**
 * Creates the inbox app.
 *
 * @example
 * const { app } = createInboxApp({ index: new QuestionIndex(client), auth: InboxAuth.fromEnv() });
 * serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 8234 });
 */
export function createInboxApp(options: InboxAppOptions): InboxApp {
  const { index, auth } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const streamLifetimeMs = options.streamLifetimeMs ?? DEFAULT_STREAM_LIFETIME_MS;
  const page = options.page ?? pageAssets();
  const streams = new Set<() => void>();
  const streamsPerLogin = new Map<string, number>();
  const loginLimit = { ...DEFAULT_LOGIN_LIMIT, ...options.loginLimit };
  const addressTries = new AttemptLimiter({
    perWindow: loginLimit.perAddress,
    windowMs: loginLimit.windowMs,
  });
  const nameTries = new AttemptLimiter({ perWindow: loginLimit.perName, windowMs: loginLimit.windowMs });
  const app = new OpenAPIHono<InboxEnv>({ defaultHook: refuseInvalid });
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

  app.use('*', securityHeaders());
  app.use('*', refuseTokenInUrl());

  const limitBody = bodyLimit({
    maxSize: maxBodyBytes,
    onError: (c) => {
      // The rest of the body is never read: the connection cannot carry another request, so say it closes.
      c.header('Connection', 'close');
      return failure(c, 413, 'PAYLOAD_TOO_LARGE', `the request body is over ${maxBodyBytes} bytes`);
    },
  });
  /** `route` behind the body cap and the JSON checks of {@link jsonObjectBody}, before its schema runs. */
  const withJsonBody = <R extends object>(route: R, loginField?: string) => ({
    ...route,
    middleware: [limitBody, jsonObjectBody(loginField)],
  });

  // --- The page -----------------------------------------------------------------------------------------
  app.get('/', (c) => c.body(page.html, 200, { 'content-type': 'text/html; charset=utf-8' }));
  app.get('/inbox.js', (c) => c.body(page.script, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/inbox.css', (c) => c.body(page.style, 200, { 'content-type': 'text/css; charset=utf-8' }));
  app.get('/favicon.ico', (c) => c.body(null, 204));

  for (const route of options.extraRoutes ?? []) {
    app.all(route.path, limitBody, (c) => route.fetch(c.req.raw));
  }

  // --- Login ----------------------------------------------------------------------------------------------
  /** Starts a page session (a fresh id at every login) and sets its cookie. */
  const startSession = <C extends Context>(c: C, name: string, groups: readonly string[]): InboxSession => {
    // A login ends the session the browser held before: a session id planted before login is never promoted.
    const previous = parseCookie(c.req.header('cookie') ?? '', SESSION_COOKIE)[SESSION_COOKIE];
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
  };

  app.openapi(getLoginMethodsRoute, (c) => c.json({ methods: auth.loginMethods }, 200));
  // The document itself needs no login: it describes the API, and holds nothing about any question.
  app.doc31('/api/openapi.json', (c) => ({
    openapi: '3.1.0',
    info: { title: 'durable-ask-user inbox API', version: INBOX_API_VERSION },
    servers: [{ url: new URL(c.req.url).origin }],
    security: SECURITY,
  }));

  const sso = auth.sso;
  if (sso !== undefined) {
    app.get('/auth/login', async (c) => {
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

    app.get('/auth/callback', async (c) => {
      const loginId = parseCookie(c.req.header('cookie') ?? '', SSO_LOGIN_COOKIE)[SSO_LOGIN_COOKIE];
      deleteCookie(c, SSO_LOGIN_COOKIE, { path: '/auth/' });
      try {
        const identity = await sso.finish(loginId, new URL(c.req.url));
        const name = checkName(identity.name);
        if (!name.ok) return ssoFailure(c, new OidcLoginError(`the ID token's ${name.reason}`));
        startSession(c, name.name, identity.groups);
        return c.redirect('/', 302);
      } catch (error) {
        return ssoFailure(c, error);
      }
    });
  }

  app.openapi(withJsonBody(loginRoute), async (c) => {
    const body = c.req.valid('json');
    // Every try counts, right or wrong, before the token is looked at: the answer leaks nothing while limited.
    const address = `address:${clientAddress(c)}`;
    const keys =
      typeof body.name === 'string' ? [address, `name:${body.name.trim().toLowerCase()}`] : [address];
    const waitMs = Math.max(addressTries.waitMs([address]), nameTries.waitMs(keys.slice(1)));
    if (waitMs > 0) return tooMany(c, waitMs, 'too many login attempts');
    addressTries.count([address]);
    nameTries.count(keys.slice(1));
    const holder = auth.holderOf(body.token);
    if (holder === undefined) return failure(c, 401, 'UNAUTHORIZED', 'wrong token');
    let name: string;
    let groups: readonly string[] = [];
    if (holder.kind === 'user') {
      name = holder.name;
      groups = holder.groups;
    } else {
      const checked = checkName(body.name);
      if (!checked.ok) return failure(c, 400, 'BAD_REQUEST', checked.reason);
      name = checked.name;
    }
    const session = startSession(c, name, groups);
    return c.json({ name, groups: [...groups], csrfToken: session.csrfToken }, 200);
  });

  // --- Everything else under /api needs a token or a session -------------------------------------------------
  app.use('/api/*', async (c, next) => {
    const header = c.req.header('authorization');
    if (header !== undefined) {
      const address = [`address:${clientAddress(c)}`];
      const waitMs = addressTries.waitMs(address);
      if (waitMs > 0) return tooMany(c, waitMs, 'too many wrong tokens from this address');
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      const holder = match === null ? undefined : auth.holderOf(match[1]!);
      if (holder === undefined) {
        addressTries.count(address);
        return failure(c, 401, 'UNAUTHORIZED', 'wrong token');
      }
      if (holder.kind === 'user') {
        c.set('identity', { name: holder.name, groups: holder.groups });
      } else {
        // The shared token names no one: a script may say who it acts for, as a person does at login.
        const given = c.req.header('x-ask-user-name');
        const checked = given === undefined ? undefined : checkName(given);
        if (checked !== undefined && !checked.ok) {
          return failure(
            c,
            400,
            'BAD_REQUEST',
            `x-ask-user-name header: ${checked.reason.replace(/^name: /, '')}`,
          );
        }
        // A shared token proves no group: an audience of groups is answered with a per-user token or a login.
        c.set('identity', { name: checked?.ok === true ? checked.name : 'api', groups: [] });
      }
      return await next();
    }
    const sessionId = parseCookie(c.req.header('cookie') ?? '', SESSION_COOKIE)[SESSION_COOKIE];
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
    c.set('identity', { name: session.name, groups: session.groups, session });
    return await next();
  });

  app.openapi(getSessionRoute, (c) => {
    const { name, groups, session } = c.get('identity');
    const you = { name, groups: [...groups] };
    return c.json(session === undefined ? you : { ...you, csrfToken: session.csrfToken }, 200);
  });

  app.openapi(logoutRoute, (c) => {
    const { session } = c.get('identity');
    if (session !== undefined) auth.endSession(session.id);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.body(null, 204);
  });

  app.openapi(listQuestionsRoute, async (c) => {
    const { status = 'pending', assigned, pageSize, pageToken } = c.req.valid('query');
    if (assigned !== undefined && status !== 'pending') {
      return failure(c, 400, 'BAD_REQUEST', 'assigned: lists pending questions only (status=pending)');
    }
    const paging = {
      ...(pageSize === undefined ? {} : { pageSize }),
      ...(pageToken === undefined ? {} : { pageToken }),
    };
    const identity = c.get('identity');
    try {
      const [page, counts] = await Promise.all([
        assigned === 'me'
          ? index.listAssigned(identity, paging)
          : index.list({
              status: status as QuestionIndexStatus,
              ...paging,
              withResolver: status !== 'pending',
            }),
        index.counts(),
      ]);
      const questions = page.questions.map((question) => withAssignment(question, identity));
      return c.json({ ...page, questions, counts }, 200);
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  app.openapi(getQuestionRoute, async (c) => {
    try {
      return c.json(withAssignment(await index.get(c.req.valid('param').id), c.get('identity')), 200);
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  app.openapi(withJsonBody(answerQuestionRoute, LOGIN_SET_FIELDS.answer), async (c) => {
    const { id } = c.req.valid('param');
    try {
      // The shape is the schema's; whether it fits the question is the workflow validator's (400, nothing
      // recorded). A missing `selected` is read as none, as the answer rules do.
      const answers: AskUserQuestionAnswerItem[] = c.req
        .valid('json')
        .answers.map((item) => definedFields({ ...item, selected: item.selected ?? [] }));
      const outcome = await index.answer(id, answers, c.get('identity'));
      return c.json({ workflowId: toWorkflowId(id), ...outcome }, 200);
    } catch (error) {
      if (codeOf(error) === 'BAD_ANSWER' && ruleOf(error) === 'approval') {
        return answeredApproval(c, error, id);
      }
      return errorResponse(c, error);
    }
  });

  app.openapi(withJsonBody(decideApprovalRoute, LOGIN_SET_FIELDS.decide), async (c) => {
    const { id } = c.req.valid('param');
    try {
      // The decision rules refuse a field the type does not carry, a blank text and an edit that breaks the
      // tool's input schema (naming the path), before anything is recorded.
      const decision: DecisionBody = definedFields(c.req.valid('json'));
      const outcome = await index.decide(id, decision, c.get('identity'));
      return c.json({ workflowId: toWorkflowId(id), kind: 'approval' as const, ...outcome }, 200);
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  app.openapi(withJsonBody(declineQuestionRoute, LOGIN_SET_FIELDS.decline), async (c) => {
    const { id } = c.req.valid('param');
    try {
      const outcome = await index.decline(id, c.get('identity'), c.req.valid('json').reason);
      return c.json({ workflowId: toWorkflowId(id), ...outcome }, 200);
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  app.openapi(withJsonBody(extendDeadlineRoute, LOGIN_SET_FIELDS.extend), async (c) => {
    const { id } = c.req.valid('param');
    try {
      const { by } = c.req.valid('json');
      const outcome = await index.questions.extendDeadline(id, by, c.get('identity').name);
      return c.json({ workflowId: toWorkflowId(id), ...outcome }, 200);
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  app.openapi(streamEventsRoute, (c) => {
    const identity = c.get('identity');
    const login =
      identity.session === undefined ? `token:${identity.name}` : `session:${identity.session.id}`;
    const open = streamsPerLogin.get(login) ?? 0;
    if (open >= MAX_STREAMS_PER_LOGIN) {
      return failure(
        c,
        429,
        'TOO_MANY_REQUESTS',
        `at most ${MAX_STREAMS_PER_LOGIN} event streams per login: close one (another tab) first`,
      );
    }
    streamsPerLogin.set(login, open + 1);
    return streamSSE(c, async (stream) => {
      // Events are written one after another, in the order the watcher reports them.
      let writing = Promise.resolve();
      const send = (event: string, data: unknown, retry?: number): void => {
        const message = { event, data: JSON.stringify(data), ...(retry === undefined ? {} : { retry }) };
        writing = writing.then(() => stream.writeSSE(message)).catch(() => undefined);
      };
      const subscription = index.subscribe((event: QuestionEvent) =>
        send(event.type, withAssignment(event.question, identity)),
      );
      let finish: () => void = () => undefined;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      const end = (): void => finish();
      streams.add(end);
      stream.onAbort(end);
      const keepalive = setInterval(() => {
        writing = writing
          .then(() => stream.write(': keepalive\n\n'))
          .then(
            () => undefined,
            () => undefined,
          );
      }, KEEPALIVE_MS);
      const lifetime = setTimeout(end, streamLifetimeMs);
      try {
        await subscription.ready;
        send('ready', {}, RECONNECT_MS);
        await finished;
      } catch (error) {
        send('error', { message: messageOf(error) });
      } finally {
        clearInterval(keepalive);
        clearTimeout(lifetime);
        subscription.close();
        streams.delete(end);
        const left = (streamsPerLogin.get(login) ?? 1) - 1;
        if (left > 0) streamsPerLogin.set(login, left);
        else streamsPerLogin.delete(login);
        await writing;
      }
    });
  });

  // A known path asked with another method is 405 with `Allow` (RFC 9110), read off the documented routes.
  const documented = app.openAPIRegistry.definitions.flatMap((definition) =>
    definition.type === 'route'
      ? [{ method: definition.route.method, pattern: pathPattern(definition.route.path) }]
      : [],
  );
  app.all('/api/*', (c) => {
    const allowed = allowedMethods(documented, c.req.path);
    if (allowed.length === 0) return failure(c, 404, 'NOT_FOUND', `no route ${c.req.method} ${c.req.path}`);
    c.header('Allow', allowed.join(', '));
    return failure(
      c,
      405,
      'METHOD_NOT_ALLOWED',
      `${c.req.method} ${c.req.path}: allowed ${allowed.join(', ')}`,
    );
  });

  return {
    app,
    closeStreams: () => {
      for (const end of [...streams]) end();
    },
  };
}
