/** The inbox page: its HTML, script and style, served as they are from `page/`. */
import { inboxHono, type InboxHono } from './inbox-hono';
import type { PageAssets } from './page-assets';

/** The page's routes over `page`'s files. */
export function pageRoutes(page: PageAssets): InboxHono {
  const routes = inboxHono();
  routes.get('/', (c) => c.body(page.html, 200, { 'content-type': 'text/html; charset=utf-8' }));
  routes.get('/inbox.js', (c) =>
    c.body(page.script, 200, { 'content-type': 'text/javascript; charset=utf-8' }),
  );
  routes.get('/inbox.css', (c) => c.body(page.style, 200, { 'content-type': 'text/css; charset=utf-8' }));
  routes.get('/favicon.ico', (c) => c.body(null, 204));
  return routes;
}
