/**
 * A real OpenID provider on loopback for browser tests: the `oidc-provider` package with its own login and
 * consent pages (any password logs in), one confidential client that must use PKCE, and accounts whose
 * `groups` claim the test chooses.
 */
import http from 'node:http';

import Provider from 'oidc-provider';

/** The provider's one client. */
export const OIDC_CLIENT_ID = 'ask-user-inbox';
export const OIDC_CLIENT_SECRET = 'inbox-client-secret-0123456789abcdef';

/**
 * Starts the provider at `issuer` (`http://127.0.0.1:<port>`) on `port`, its client redirecting to
 * `redirectUri`; `groups` says who is in which group.
 */
export async function startIdentityProvider(
  issuer: string,
  port: number,
  redirectUri: string,
  groups: Record<string, string[]>,
): Promise<http.Server> {
  const oidc = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_CLIENT_ID,
        client_secret: OIDC_CLIENT_SECRET,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    scopes: ['openid', 'profile', 'email', 'groups'],
    claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email'], groups: ['groups'] },
    // The claims of the granted scopes go in the ID token itself (not only userinfo): what the inbox reads.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    cookies: { keys: ['oidc-test-cookie-key-0123456789abcdef'] },
    findAccount: (_context, id) => ({
      accountId: id,
      claims: () => ({
        sub: id,
        preferred_username: id,
        email: `${id}@example.test`,
        groups: groups[id] ?? [],
      }),
    }),
  });
  const handle = oidc.callback();
  const server = http.createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}
