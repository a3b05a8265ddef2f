/**
 * The inbox API's standing grants: list, grant and revoke, as the caller's login (who grants, with their groups,
 * and who revokes come from it; a body naming `grantedBy` is refused by name). Thin over `QuestionClient.grants`.
 */
import type { MiddlewareHandler } from 'hono';
import { definedFields } from '../common';
import { createGrantRoute, listGrantsRoute, revokeGrantRoute } from './grant-schemas';
import { errorResponse } from './error-response';
import { inboxHono, type InboxHono } from './inbox-hono';
import { withJsonBody } from './json-body';
import type { QuestionIndex } from './question-index';

/** The grant routes over `index`'s client, with `cap` on their bodies. */
export function grantRoutes(index: QuestionIndex, cap: MiddlewareHandler): InboxHono {
  const routes = inboxHono();
  const grants = () => index.questions.grants;

  routes.openapi(listGrantsRoute, async (c) => {
    try {
      return c.json({ grants: await grants().list(definedFields(c.req.valid('query'))) }, 200);
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  routes.openapi(withJsonBody(createGrantRoute, cap, 'grantedBy'), async (c) => {
    try {
      const body = c.req.valid('json');
      // The login's groups go with its name: a covered call's audience is checked against both.
      const { name, groups } = c.get('identity');
      const granter = { grantedBy: name, ...(groups.length === 0 ? {} : { grantedByGroups: [...groups] }) };
      return c.json(await grants().grant({ ...definedFields(body), ...granter }), 200);
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  routes.openapi(withJsonBody(revokeGrantRoute, cap, 'revokedBy'), async (c) => {
    try {
      return c.json(await grants().revoke(c.req.valid('json').id, c.get('identity').name), 200);
    } catch (error) {
      return errorResponse(c, error);
    }
  });
  return routes;
}
