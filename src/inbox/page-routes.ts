/** The inbox page: its HTML, style and ES modules, served as they are (`page-assets.ts` says which files). */
import { inboxHono, type InboxHono } from './inbox-hono';
import type { PageAssets } from './page-assets';

/** The page's routes over `page`'s files. */
export function pageRoutes(page: PageAssets): InboxHono {
  const routes = inboxHono();
  for (const [path, file] of page) {
    routes.get(path, (c) => c.body(file.body, 200, { 'content-type': file.contentType }));
  }
  routes.get('/favicon.ico', (c) => c.body(null, 204));
  return routes;
}
