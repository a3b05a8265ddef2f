/**
 * The answer to a request no documented route takes: 405 with `Allow` (RFC 9110) for a known path asked with
 * another method, read off the routes of the OpenAPI document, and 404 for an unknown path.
 */
import type { Handler } from 'hono';
import { failure, type InboxEnv, type InboxHono } from './inbox-hono';

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

/** The fallback of `/api/*`, over the routes `app` documents when it is called (register it last). */
export function methodNotAllowed(app: InboxHono): Handler<InboxEnv> {
  const documented = app.openAPIRegistry.definitions.flatMap((definition) =>
    definition.type === 'route'
      ? [{ method: definition.route.method, pattern: pathPattern(definition.route.path) }]
      : [],
  );
  return (c) => {
    const allowed = allowedMethods(documented, c.req.path);
    if (allowed.length === 0) return failure(c, 404, 'NOT_FOUND', `no route ${c.req.method} ${c.req.path}`);
    c.header('Allow', allowed.join(', '));
    return failure(
      c,
      405,
      'METHOD_NOT_ALLOWED',
      `${c.req.method} ${c.req.path}: allowed ${allowed.join(', ')}`,
    );
  };
}
