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
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, setCookie } from 'hono/cookie';
import { parse as parseCookie } from 'hono/utils/cookie';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { streamSSE } from 'hono/streaming';
import { toWorkflowId, type QuestionSummary } from '../ops/question-client';
import type { AskUserQuestionAnswerItem, DecideInput } from '../types';
import { checkName, safeEqual, type InboxAuth, type InboxSession } from './inbox-auth';
import { AttemptLimiter } from './attempt-limiter';
import { OidcLoginError, PENDING_LOGIN_TTL_MS } from './oidc-login';
import { pageAssets, type PageAssets } from './page-assets';
import {
  QUESTION_INDEX_STATUSES,
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
  app: Hono<InboxEnv>;
  closeStreams: () => void;
}

function failure<C extends Context>(
  c: C,
  status: ContentfulStatusCode,
  error: string,
  message: string,
): Response {
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
function errorResponse<C extends Context>(c: C, error: unknown): Response {
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

/** The fields a decision's body may carry; the rest is refused by the decision rules, naming the field. */
type DecisionBody = Omit<DecideInput, 'decidedBy'>;

/**
 * An answer sent to an approval: the workflow's refusal names its `decide` update, which is how the Temporal
 * CLI decides; over HTTP the route to use is named instead.
 */
function answeredApproval<C extends Context>(c: C, error: unknown, id: string): Response {
  const decideRoute = `POST /api/questions/${encodeURIComponent(toWorkflowId(id))}/decide`;
  const message = messageOf(error);
  const named = message.includes('(update decide)')
    ? message.replace('(update decide)', `(${decideRoute})`)
    : `${message} (${decideRoute})`;
  return c.json({ error: 'BAD_ANSWER', message: named, rule: 'approval' }, 400);
}

/** Reads a JSON object body, or answers 415 (not JSON) / 400 (not parseable, not an object). */
async function readJsonObject<C extends Context>(c: C): Promise<Record<string, unknown> | Response> {
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
  return parsed as Record<string, unknown>;
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
function tooMany<C extends Context>(c: C, waitMs: number, what: string): Response {
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
  const page = options.page ?? pageAssets();
  const streams = new Set<() => void>();
  const streamsPerLogin = new Map<string, number>();
  const loginLimit = { ...DEFAULT_LOGIN_LIMIT, ...options.loginLimit };
  const addressTries = new AttemptLimiter({
    perWindow: loginLimit.perAddress,
    windowMs: loginLimit.windowMs,
  });
  const nameTries = new AttemptLimiter({ perWindow: loginLimit.perName, windowMs: loginLimit.windowMs });
  const app = new Hono<InboxEnv>();

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

  app.get('/api/login', (c) => c.json({ methods: auth.loginMethods }));

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

  app.post('/api/login', limitBody, async (c) => {
    const body = await readJsonObject(c);
    if (body instanceof Response) return body;
    // Every try counts, right or wrong, before the token is looked at: the answer leaks nothing while limited.
    const address = `address:${clientAddress(c)}`;
    const keys =
      typeof body.name === 'string' ? [address, `name:${body.name.trim().toLowerCase()}`] : [address];
    const waitMs = Math.max(addressTries.waitMs([address]), nameTries.waitMs(keys.slice(1)));
    if (waitMs > 0) return tooMany(c, waitMs, 'too many login attempts');
    addressTries.count([address]);
    nameTries.count(keys.slice(1));
    const holder = typeof body.token === 'string' ? auth.holderOf(body.token) : undefined;
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
    return c.json({ name, groups, csrfToken: session.csrfToken });
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

  app.get('/api/session', (c) => {
    const { name, groups, session } = c.get('identity');
    return c.json(session === undefined ? { name, groups } : { name, groups, csrfToken: session.csrfToken });
  });

  app.post('/api/logout', (c) => {
    const { session } = c.get('identity');
    if (session !== undefined) auth.endSession(session.id);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.body(null, 204);
  });

  app.get('/api/questions', async (c) => {
    const status = c.req.query('status') ?? 'pending';
    if (!QUESTION_INDEX_STATUSES.includes(status as QuestionIndexStatus)) {
      return failure(c, 400, 'BAD_REQUEST', `status: must be one of ${QUESTION_INDEX_STATUSES.join(', ')}`);
    }
    const assigned = c.req.query('assigned');
    if (assigned !== undefined && assigned !== 'me') {
      return failure(c, 400, 'BAD_REQUEST', 'assigned: must be "me" (the questions assigned to you)');
    }
    if (assigned !== undefined && status !== 'pending') {
      return failure(c, 400, 'BAD_REQUEST', 'assigned: lists pending questions only (status=pending)');
    }
    const pageSizeText = c.req.query('pageSize');
    const pageToken = c.req.query('pageToken');
    const paging = {
      ...(pageSizeText === undefined
        ? {}
        : { pageSize: /^\d+$/.test(pageSizeText) ? Number(pageSizeText) : NaN }),
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
      return c.json({ ...page, questions, counts });
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  app.get('/api/questions/:id', async (c) => {
    try {
      return c.json(withAssignment(await index.get(c.req.param('id')), c.get('identity')));
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  app.post('/api/questions/:id/answer', limitBody, async (c) => {
    const body = await readJsonObject(c);
    if (body instanceof Response) return body;
    if ('answeredBy' in body) {
      return failure(c, 400, 'BAD_REQUEST', 'answeredBy: comes from your login, not from the request body');
    }
    const id = c.req.param('id');
    try {
      // Whatever the body holds goes to the workflow's validator, which refuses it (400) before recording.
      const answers = body.answers as AskUserQuestionAnswerItem[];
      const outcome = await index.answer(id, answers, c.get('identity'));
      return c.json({ workflowId: toWorkflowId(id), ...outcome });
    } catch (error) {
      if (codeOf(error) === 'BAD_ANSWER' && ruleOf(error) === 'approval') {
        return answeredApproval(c, error, id);
      }
      return errorResponse(c, error);
    }
  });

  app.post('/api/questions/:id/decide', limitBody, async (c) => {
    const body = await readJsonObject(c);
    if (body instanceof Response) return body;
    if ('decidedBy' in body) {
      return failure(c, 400, 'BAD_REQUEST', 'decidedBy: comes from your login, not from the request body');
    }
    const id = c.req.param('id');
    try {
      // The body goes to the decision rules as it is: they refuse a bad type, a field the type does not carry
      // and an edit that breaks the tool's input schema (naming the path), before anything is recorded.
      const outcome = await index.decide(id, body as unknown as DecisionBody, c.get('identity'));
      return c.json({ workflowId: toWorkflowId(id), kind: 'approval', ...outcome });
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  app.post('/api/questions/:id/decline', limitBody, async (c) => {
    const body = await readJsonObject(c);
    if (body instanceof Response) return body;
    if ('declinedBy' in body) {
      return failure(c, 400, 'BAD_REQUEST', 'declinedBy: comes from your login, not from the request body');
    }
    if (body.reason !== undefined && typeof body.reason !== 'string') {
      return failure(c, 400, 'BAD_REQUEST', 'reason: must be a string');
    }
    const id = c.req.param('id');
    try {
      const outcome = await index.decline(id, c.get('identity'), body.reason);
      return c.json({ workflowId: toWorkflowId(id), ...outcome });
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  app.post('/api/questions/:id/extend', limitBody, async (c) => {
    const body = await readJsonObject(c);
    if (body instanceof Response) return body;
    if ('extendedBy' in body) {
      return failure(c, 400, 'BAD_REQUEST', 'extendedBy: comes from your login, not from the request body');
    }
    if (typeof body.by !== 'string' && typeof body.by !== 'number') {
      return failure(c, 400, 'BAD_REQUEST', 'by: must be a duration such as 2h or -30m');
    }
    const id = c.req.param('id');
    try {
      const outcome = await index.questions.extendDeadline(id, body.by, c.get('identity').name);
      return c.json({ workflowId: toWorkflowId(id), ...outcome });
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  app.get('/api/events', (c) => {
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
      const send = (event: string, data: unknown): void => {
        writing = writing
          .then(() => stream.writeSSE({ event, data: JSON.stringify(data) }))
          .catch(() => undefined);
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
      try {
        await subscription.ready;
        send('ready', {});
        await finished;
      } catch (error) {
        send('error', { message: messageOf(error) });
      } finally {
        clearInterval(keepalive);
        subscription.close();
        streams.delete(end);
        const left = (streamsPerLogin.get(login) ?? 1) - 1;
        if (left > 0) streamsPerLogin.set(login, left);
        else streamsPerLogin.delete(login);
        await writing;
      }
    });
  });

  app.all('/api/*', (c) => failure(c, 404, 'NOT_FOUND', `no route ${c.req.method} ${c.req.path}`));

  return {
    app,
    closeStreams: () => {
      for (const end of [...streams]) end();
    },
  };
}
