/**
 * What every route module of the inbox shares: the request's identity, the app type that carries it, and the
 * one shape of a refusal (`{ error, message }`), including the refusal of a request that breaks its route's
 * schema.
 */
import type { Context } from 'hono';
import { OpenAPIHono, type z } from '@hono/zod-openapi';
import { issueTexts } from '../common';
import type { ErrorStatus } from './api-routes';
import type { InboxSession } from './inbox-auth';

/** Who is making a request, the groups they proved, and how they proved it. */
export interface Identity {
  name: string;
  groups: readonly string[];
  /** The page session, when the request came with its cookie rather than a bearer token. */
  session?: InboxSession;
}

/** The variables of an inbox request: its identity, set by the login check of every `/api/*` route. */
export type InboxEnv = { Variables: { identity: Identity } };

/** The inbox app, or one of its route modules. */
export type InboxHono = OpenAPIHono<InboxEnv>;

/** A refusal: `{ error, message }` with its status. */
export function failure<C extends Context, S extends ErrorStatus>(
  c: C,
  status: S,
  error: string,
  message: string,
) {
  return c.json({ error, message }, status);
}

/** The validation hook of every documented route: a request that breaks its schema is 400, naming the field. */
function refuseInvalid(result: { success: boolean; error?: z.ZodError }, c: Context) {
  if (result.success || result.error === undefined) return undefined;
  return failure(c, 400, 'BAD_REQUEST', issueTexts(result.error.issues).join('; '));
}

/**
 * A new app or route module. Each gets the validation hook itself: a hook is bound when a route is registered,
 * and a module's routes are registered on the module before the app mounts it.
 */
export function inboxHono(): InboxHono {
  return new OpenAPIHono<InboxEnv>({ defaultHook: refuseInvalid });
}
