/**
 * The inbox API's routes as `@hono/zod-openapi` definitions: path, method, what the request must hold and
 * every response each can give. `inbox-app.ts` registers its handlers on them, so the validation of a request
 * and the OpenAPI document at `/api/openapi.json` come from the same definition.
 *
 * Links between operations (a listed question's `workflowId` is the `id` of its detail, answer, decision,
 * decline and extension) let a stateful client, such as Schemathesis, walk from a list to the questions in it.
 */
import { createRoute, type z } from '@hono/zod-openapi';
import { definedFields } from '../common';

import {
  answerBodySchema,
  decideBodySchema,
  declineBodySchema,
  extendBodySchema,
  listQuerySchema,
  loginBodySchema,
  loginResponseSchema,
  questionIdSchema,
} from './api-request-schemas';
import {
  errorSchema,
  loginMethodsSchema,
  outcomeSchema,
  questionPageSchema,
  questionRecordSchema,
  serverSentEventSchema,
  sessionSchema,
} from './api-schemas';
import { auditLineSchema, auditQuerySchema, batchBodySchema, batchResultSchema } from './batch-schemas';

/**
 * The version of the API this document describes (OpenAPI's `info.version`): it changes when a route or a body
 * changes in a way a client can see, not with every release of the package. 2.0.0: a request the question's
 * own rules refuse (`BAD_ANSWER`, `INVALID_ARGS`) is 400, where 1.x answered 409.
 */
export const INBOX_API_VERSION = '2.0.0';

/** The statuses a refusal of the inbox API can have, each with an `Error` body. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 500 | 502 | 503 | 504;

const ERROR_MEANINGS: Record<ErrorStatus, string> = {
  400: 'The request does not fit this document (`BAD_REQUEST`), or it breaks the question’s own rules, which only the question knows (`BAD_ANSWER` with the `rule`: an unknown label, two labels on a single-select question, an edit against the tool’s input schema; `INVALID_ARGS`: a deadline move out of bounds, a grant rule): `message` names the field and the reason. Nothing was recorded.',
  401: 'No token or session, or a wrong one (`UNAUTHORIZED`).',
  403: 'Outside the question’s audience (`FORBIDDEN`), or a cookie POST without its CSRF token. Nothing was recorded.',
  404: 'No question with that id, or no page of the list with that page token (`NOT_FOUND`).',
  405: 'Not a method of this path (`METHOD_NOT_ALLOWED`); `Allow` lists those that are.',
  409: 'The question is already resolved, or the grant already revoked (`ALREADY_RESOLVED`: `message` names who answered, decided or revoked, and when). Nothing was recorded.',
  413: 'The body is over the size cap (`PAYLOAD_TOO_LARGE`).',
  415: 'The body is not JSON (`UNSUPPORTED_MEDIA_TYPE`).',
  429: 'Too many tries, or too many event streams; see `Retry-After` (`TOO_MANY_REQUESTS`).',
  500: 'An unexpected failure (`INTERNAL`).',
  502: 'The single sign-on provider could not be reached.',
  503: 'Temporal cannot be reached (`ASK_UNAVAILABLE`): the question cannot be read, or a page session cannot be checked against the record of ended sessions (a login or logout cannot record the end of one), so no cookie is trusted. Or no worker polls the question’s task queue for a decision, a decline or a deadline move (`NO_WORKER`). Nothing was sent.',
  504: 'The question’s worker did not answer in time (`TIMED_OUT`).',
};

/** Documented `Error` responses for `statuses`. */
export function errors<const S extends ErrorStatus>(
  ...statuses: S[]
): Record<S, { description: string; content: { 'application/json': { schema: typeof errorSchema } } }> {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: ERROR_MEANINGS[status], content: { 'application/json': { schema: errorSchema } } },
    ]),
  ) as Record<S, { description: string; content: { 'application/json': { schema: typeof errorSchema } } }>;
}

export function json<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { 'application/json': { schema } } };
}

/**
 * Every authenticated route can meet these: a bad `x-ask-user-name`, a wrong token, too many wrong tokens, and a
 * session cookie that cannot be checked because the record of ended sessions lives in Temporal, unreachable.
 */
const AUTHENTICATED = [400, 401, 429, 503] as const;
/** What a failure of the question index or client maps to, on every route that reads or changes questions. */
export const QUESTION_ERRORS = [...AUTHENTICATED, 403, 404, 409, 500, 503, 504] as const;
/** A route with a JSON body also meets these. */
export const WITH_BODY = [413, 415] as const;

export const SECURITY = [{ bearer: [] }, { session: [] }];

const tags = ['questions'];

/** The `id` of one question, taken from a response: what a stateful client follows. */
function questionLinks(idPath: string) {
  const parameters = { id: `$response.body#${idPath}` };
  return {
    GetQuestion: { operationId: 'getQuestion', parameters },
    AnswerQuestion: { operationId: 'answerQuestion', parameters },
    DecideApproval: { operationId: 'decideApproval', parameters },
    DeclineQuestion: { operationId: 'declineQuestion', parameters },
    ExtendDeadline: { operationId: 'extendDeadline', parameters },
  };
}

export const getLoginMethodsRoute = createRoute({
  method: 'get',
  path: '/api/login',
  operationId: 'getLoginMethods',
  tags: ['login'],
  summary: 'How the page may log in; needs no token',
  security: [],
  responses: { 200: json(loginMethodsSchema, 'The login methods this inbox offers.') },
});

export const loginRoute = createRoute({
  method: 'post',
  path: '/api/login',
  operationId: 'login',
  tags: ['login'],
  summary: 'Start a page session with a token (and a name, for the shared token)',
  security: [],
  request: { body: jsonBody(loginBodySchema) },
  responses: {
    200: json(
      loginResponseSchema,
      'Logged in: the session cookie is set; send `csrfToken` as `x-csrf-token`.',
    ),
    // 503: the session the browser held before must be recorded as ended, in Temporal, before a new one starts.
    ...errors(400, 401, 429, 500, 503, ...WITH_BODY),
  },
});

export const getSessionRoute = createRoute({
  method: 'get',
  path: '/api/session',
  operationId: 'getSession',
  tags: ['login'],
  summary: 'Who you are logged in as',
  security: SECURITY,
  responses: { 200: json(sessionSchema, 'Your name and groups.'), ...errors(...AUTHENTICATED) },
});

export const logoutRoute = createRoute({
  method: 'post',
  path: '/api/logout',
  operationId: 'logout',
  tags: ['login'],
  summary: 'End the page session',
  security: SECURITY,
  responses: { 204: { description: 'The session ended.' }, ...errors(...AUTHENTICATED, 403) },
});

export const listQuestionsRoute = createRoute({
  method: 'get',
  path: '/api/questions',
  operationId: 'listQuestions',
  tags,
  summary: 'One page of questions, newest first',
  description:
    'A `pageToken` is opaque: pass back the `nextPageToken` of the previous page of the same list. One that names no page of this list is 404 `NOT_FOUND` naming the field.',
  security: SECURITY,
  request: { query: listQuerySchema },
  responses: {
    200: {
      ...json(questionPageSchema, 'A page of questions, and the counts of all of them.'),
      links: questionLinks('/questions/0/workflowId'),
    },
    ...errors(...QUESTION_ERRORS),
  },
});

export const getQuestionRoute = createRoute({
  method: 'get',
  path: '/api/questions/{id}',
  operationId: 'getQuestion',
  tags,
  summary: 'The full record of one question or approval',
  security: SECURITY,
  request: { params: questionIdSchema },
  responses: {
    200: { ...json(questionRecordSchema, 'The record.'), links: questionLinks('/workflowId') },
    ...errors(...QUESTION_ERRORS),
  },
});

/**
 * A POST that changes one question: its id in the path, a JSON body, the outcome when recorded, and the links
 * on to the question's other operations.
 */
function questionChangeRoute<const Action extends string, T extends z.ZodType>(
  action: Action,
  route: { operationId: string; summary: string; description?: string; body: T; recorded: string },
) {
  return createRoute({
    method: 'post',
    path: `/api/questions/{id}/${action}` as const,
    operationId: route.operationId,
    tags,
    summary: route.summary,
    ...definedFields({ description: route.description }),
    security: SECURITY,
    request: { params: questionIdSchema, body: jsonBody(route.body) },
    responses: {
      200: { ...json(outcomeSchema, route.recorded), links: questionLinks('/workflowId') },
      ...errors(...QUESTION_ERRORS, ...WITH_BODY),
    },
  });
}

const answerRoute = questionChangeRoute('answer', {
  operationId: 'answerQuestion',
  summary: 'Answer a pending question',
  description:
    'The answer must fit the question: an unknown label, two labels on a single-select question, a missing answer or a `custom` text over 10,000 characters is 400 `BAD_ANSWER` with the `rule` it broke. An approval is decided, not answered (400, `rule: "approval"`).',
  body: answerBodySchema,
  recorded: 'Recorded: the outcome.',
});

/** The answer route: the change route's responses, and 202 for an answer recorded for a worker to validate. */
export const answerQuestionRoute = createRoute({
  ...answerRoute,
  responses: {
    ...answerRoute.responses,
    202: json(
      outcomeSchema,
      'Recorded for a worker to validate: no worker took the answer (none runs the question now). The outcome is the question as the server holds it, still `pending`, with `awaitingWorker` naming your answer; when a worker runs, it is taken, or refused into `rejectedAnswers` under its `answerId`.',
    ),
  },
});

export const decideApprovalRoute = questionChangeRoute('decide', {
  operationId: 'decideApproval',
  summary: 'Decide a pending approval: approve, edit, reject or respond',
  description:
    'An edit is checked against the tool input schema (400 `BAD_ANSWER`, `rule: "edited-input"`, naming the path). Deciding a question is 400 `INVALID_ARGS`.',
  body: decideBodySchema,
  recorded:
    "Recorded: the outcome, with `decision` and `effect`, what the agent receives (under a hook that runs only the model's own input, an edit becomes a denial that suggests the edited input).",
});

export const declineQuestionRoute = questionChangeRoute('decline', {
  operationId: 'declineQuestion',
  summary: 'Decline a pending question (an approval: reject it)',
  body: declineBodySchema,
  recorded: 'Declined: the outcome.',
});

export const extendDeadlineRoute = questionChangeRoute('extend', {
  operationId: 'extendDeadline',
  summary: "Move a pending question's deadline",
  description:
    'A move to before the question was asked, by zero or by more than 365 days is 400 `INVALID_ARGS` naming the field.',
  body: extendBodySchema,
  recorded: 'Moved: the outcome, with the new `expiresAt`.',
});

export const streamEventsRoute = createRoute({
  method: 'get',
  path: '/api/events',
  operationId: 'streamEvents',
  tags,
  summary: 'Server-sent events: `ready`, then `question.pending` and `question.resolved`',
  description:
    'Each `question.*` event carries a question row (the `QuestionRow` schema) as JSON. The stream ends after the inbox’s stream lifetime; the browser’s EventSource reconnects by itself, proving its login again.',
  security: SECURITY,
  responses: {
    200: {
      description: 'The event stream.',
      content: { 'text/event-stream': { schema: serverSentEventSchema } },
    },
    ...errors(...AUTHENTICATED),
  },
});

export const batchRoute = createRoute({
  method: 'post',
  path: '/api/batch',
  operationId: 'batchDecide',
  tags,
  summary: 'Approve, deny or answer many pending questions in one action',
  description:
    'Each selected question is sent on its own, as its single route would send it, and recorded at most once; one refused never stops the others. 200 lists each: recorded, or refused with why (`already-resolved` naming who won, `audience`, `invalid`, `not-found`).',
  security: SECURITY,
  request: { body: jsonBody(batchBodySchema) },
  responses: {
    200: json(batchResultSchema, 'Per item: recorded or refused, and why.'),
    ...errors(...QUESTION_ERRORS, ...WITH_BODY),
  },
});

export const auditExportRoute = createRoute({
  method: 'get',
  path: '/api/audit',
  operationId: 'exportAudit',
  tags,
  summary: 'The record of every request asked since a time, one line each, streamed',
  description:
    'Read from the server’s histories a page at a time and written as it goes. JSON lines (`AuditLine`), or CSV with a header row and nested values as JSON text.',
  security: SECURITY,
  request: { query: auditQuerySchema },
  responses: {
    200: {
      description: 'The export.',
      content: {
        'application/x-ndjson': { schema: auditLineSchema },
        'text/csv': { schema: { type: 'string' } },
      },
    },
    ...errors(...QUESTION_ERRORS),
  },
});
