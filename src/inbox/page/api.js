// @ts-check
/**
 * The inbox API as the page calls it: same-origin requests carrying the session cookie, the CSRF token on every
 * POST, and each route's body typed by the records of `api-types.js`. A 401 anywhere but the login itself means
 * the session has ended; the page's listener (`onUnauthorized`) takes the person back to the login form.
 */
/**
 * @import { AnswerItem, BatchRequest, BatchResult, DecideRequest, ErrorBody, LoginMethods, Outcome, QuestionPage,
 *   QuestionRecord, Session, Grant, GrantRequest } from './api-types.js'
 */
import { currentSession } from './session.js';

/**
 * A call's result: the body of a 200 (or of an answer's 202), as its route describes it, or the status and
 * refusal of anything else (status 0 when the server cannot be reached).
 * @template T
 * @typedef {{ ok: true, status: 200 | 202, body: T } | { ok: false, status: number, error: Partial<ErrorBody> }} ApiResult
 */

/** @type {() => void} */
let unauthorized = () => {};

/**
 * Sets what happens when the server says the session has ended.
 * @param {() => void} listener
 */
export function onUnauthorized(listener) {
  unauthorized = listener;
}

/**
 * One request, and its body as JSON (null for 204).
 * @param {'GET' | 'POST'} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<{ status: number, data: unknown }>}
 */
async function send(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const session = currentSession();
  if (method !== 'GET' && session?.csrfToken !== undefined) headers['x-csrf-token'] = session.csrfToken;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { status: 0, data: { message: `the inbox server cannot be reached (${reason})` } };
  }
  let data = null;
  if (response.status !== 204) {
    try {
      data = await response.json();
    } catch {
      data = { message: `the server answered ${response.status}` };
    }
  }
  if (response.status === 401 && path !== '/api/login') unauthorized();
  return { status: response.status, data };
}

/**
 * The fields of a refusal that the page shows; whatever else a body holds is left out.
 * @param {unknown} data
 * @returns {Partial<ErrorBody>}
 */
function refusalOf(data) {
  /** @type {Partial<ErrorBody>} */
  const refusal = {};
  if (typeof data !== 'object' || data === null) return refusal;
  const { message, rule } = /** @type {Record<string, unknown>} */ (data);
  if (typeof message === 'string') refusal.message = message;
  if (typeof rule === 'string') refusal.rule = rule;
  return refusal;
}

/**
 * @template T
 * @param {'GET' | 'POST'} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<ApiResult<T>>}
 */
async function call(method, path, body) {
  const { status, data } = await send(method, path, body);
  // The body's shape is the route's contract (`/api/openapi.json`), not checked again here.
  // 202: an answer recorded for a worker to validate later (none runs the question now).
  if ((status === 200 || status === 202) && data !== null) {
    return { ok: true, status, body: /** @type {T} */ (data) };
  }
  return { ok: false, status, error: refusalOf(data) };
}

/** @param {string} workflowId */
const questionPath = (workflowId) => `/api/questions/${encodeURIComponent(workflowId)}`;

/** @returns {Promise<ApiResult<Session>>} */
export const getSession = () => call('GET', '/api/session');

/** @returns {Promise<ApiResult<LoginMethods>>} */
export const getLoginMethods = () => call('GET', '/api/login');

/**
 * @param {string} token
 * @param {string} name
 * @returns {Promise<ApiResult<Session>>}
 */
export const login = (token, name) => call('POST', '/api/login', { token, name });

/** @returns {Promise<ApiResult<unknown>>} */
export const logout = () => call('POST', '/api/logout');

/**
 * A page of the list, newest first.
 * @param {{ status: 'pending' | 'resolved', assignedToMe?: boolean, pageSize: number, pageToken?: string | undefined }} query
 * @returns {Promise<ApiResult<QuestionPage>>}
 */
export function listQuestions({ status, assignedToMe = false, pageSize, pageToken }) {
  const assigned = assignedToMe ? '&assigned=me' : '';
  const page = pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : '';
  return call('GET', `/api/questions?status=${status}${assigned}&pageSize=${pageSize}${page}`);
}

/**
 * @param {string} workflowId
 * @returns {Promise<ApiResult<QuestionRecord>>}
 */
export const getQuestion = (workflowId) => call('GET', questionPath(workflowId));

/**
 * @param {string} workflowId
 * @param {AnswerItem[]} answers
 * @returns {Promise<ApiResult<Outcome>>}
 */
export const answerQuestion = (workflowId, answers) =>
  call('POST', `${questionPath(workflowId)}/answer`, { answers });

/**
 * @param {string} workflowId
 * @param {string} reason the agent reads it; empty for none
 * @returns {Promise<ApiResult<Outcome>>}
 */
export const declineQuestion = (workflowId, reason) =>
  call('POST', `${questionPath(workflowId)}/decline`, reason === '' ? {} : { reason });

/**
 * @param {string} workflowId
 * @param {DecideRequest} decision
 * @returns {Promise<ApiResult<Outcome>>}
 */
export const decideApproval = (workflowId, decision) =>
  call('POST', `${questionPath(workflowId)}/decide`, decision);

/**
 * @param {string} workflowId
 * @param {string} by a signed duration such as `2h` or `-30m`
 * @returns {Promise<ApiResult<Outcome>>}
 */
export const extendDeadline = (workflowId, by) => call('POST', `${questionPath(workflowId)}/extend`, { by });

/**
 * One action on many questions: each recorded once or refused with why.
 * @param {BatchRequest} batch
 * @returns {Promise<ApiResult<BatchResult>>}
 */
export const decideBatch = (batch) => call('POST', '/api/batch', batch);

/** @returns {Promise<ApiResult<{ grants: Grant[] }>>} */
export const listGrants = () => call('GET', '/api/grants');

/**
 * @param {GrantRequest} grant
 * @returns {Promise<ApiResult<Grant>>}
 */
export const createGrant = (grant) => call('POST', '/api/grants', grant);

/**
 * @param {string} id
 * @returns {Promise<ApiResult<Grant>>}
 */
export const revokeGrant = (id) => call('POST', '/api/grants/revoke', { id });
