/**
 * What every response of the inbox carries and every request first meets: headers that forbid inline script,
 * framing and sniffing, and the refusal of a credential in the URL.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { failure } from './inbox-hono';

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

/** Query parameters that look like a credential: refused wherever they appear. */
const CREDENTIAL_PARAMETERS = ['token', 'access_token', 'api_key', 'apikey'];

/** True when the request reached the inbox over TLS, directly or through a proxy that says so. */
function overTls(c: Context): boolean {
  return new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
}

/** The security headers of every response; `/api/*` responses are never cached. */
export function securityHeaders(): MiddlewareHandler {
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

/** 401 for a token in the query string, on every route: URLs end up in logs, history and referrers. */
export function refuseTokenInUrl(): MiddlewareHandler {
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
