/**
 * The HTTP status of every failure of the question index or the ops client: the errors' stable `code`s mapped
 * onto the statuses the OpenAPI document lists for the question routes.
 */
import type { Context } from 'hono';
import { AskUserError } from '../interaction/ask-user-error';
import { definedFields, errorText } from '../common';
import { failure } from './inbox-hono';

/** The stable `code` of an error of this package; `undefined` for any other thrown value. */
export function codeOf(error: unknown): string | undefined {
  return AskUserError.isInstance(error) ? error.code : undefined;
}

/** The `rule` of a `BAD_ANSWER` error, when it has one. */
export function ruleOf(error: unknown): string | undefined {
  const rule = (error as { rule?: unknown } | undefined)?.rule;
  return typeof rule === 'string' ? rule : undefined;
}

/** Maps a failure of the index or the question client to its HTTP status, with its code and message. */
export function errorResponse(c: Context, error: unknown) {
  const code = codeOf(error);
  const message = errorText(error);
  switch (code) {
    case 'BAD_REQUEST':
    case 'INVALID_ARGS':
      return failure(c, 400, code, message);
    case 'BAD_ANSWER':
      return c.json(definedFields({ error: code, message, rule: ruleOf(error) }), 400);
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
