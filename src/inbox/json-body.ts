/**
 * The checks a JSON body meets before its route's schema sees it: a size cap, JSON only, an object, and no
 * field that only the login sets (who answered, declined, decided or extended).
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { isPlainObject } from '../common';
import { fromLoginMessage } from './api-request-schemas';
import { failure } from './inbox-hono';

/**
 * Largest request body: a maximal answer (20 questions, each with a 10,000-character `custom` text, every
 * character escaped in JSON) fits with room to spare.
 */
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;

/** 413 for a body over `maxBytes`, read no further. */
export function bodyCap(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) => {
      // The rest of the body is never read: the connection cannot carry another request, so say it closes.
      c.header('Connection', 'close');
      return failure(c, 413, 'PAYLOAD_TOO_LARGE', `the request body is over ${maxBytes} bytes`);
    },
  });
}

/**
 * Reads a JSON object body: 415 when it is not JSON, 400 when it does not parse or is not an object, and 400 for
 * `loginField`, which only the login sets. The parsed body stays cached on the request for the schema's
 * validator.
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
    if (!isPlainObject(parsed)) return failure(c, 400, 'BAD_REQUEST', 'body: must be a JSON object');
    if (loginField !== undefined && loginField in parsed) {
      return failure(c, 400, 'BAD_REQUEST', fromLoginMessage(loginField));
    }
    return await next();
  };
}

/** `route` behind the body cap and the JSON checks above, which run before its schema does. */
export function withJsonBody<R extends object>(route: R, cap: MiddlewareHandler, loginField?: string) {
  return { ...route, middleware: [cap, jsonObjectBody(loginField)] };
}
