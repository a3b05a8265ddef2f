/**
 * Single sign-on for the inbox's page: OpenID Connect's authorization code flow with PKCE, through
 * `openid-client`. `/auth/login` sends the browser to the provider; `/auth/callback` exchanges the code, reads
 * who logged in from the ID token (`preferred_username`, else `email`) and their groups from a configurable
 * claim, and the inbox starts an ordinary page session for them. The token modes stay beside it.
 *
 * What the flow keeps between the two requests (PKCE verifier, state, nonce) travels in a short-lived cookie
 * sealed with the inbox's session key (`sso-routes.ts`): the browser carries it but can neither read nor
 * alter it, and whichever inbox replica the provider sends the browser back to can finish the login.
 */
import * as oidc from 'openid-client';
import { checkAudience } from '../answer/audience-rules';
import { errorText } from '../common';
import { UserInteractionError } from '../interaction/user-interaction-error';

/** How long a started login may take to come back from the provider. */
export const PENDING_LOGIN_TTL_MS = 10 * 60 * 1000;
/** Default claim that lists the user's groups. */
export const DEFAULT_GROUPS_CLAIM = 'groups';
/** Default scopes: who the user is, and an address to fall back on for a name. */
export const DEFAULT_SCOPES = 'openid profile email';

/** Settings of {@link OidcLogin}. */
export interface OidcSettings {
  /** The provider's issuer URL; its discovery document is read from `/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  /** Sent with HTTP Basic at the token endpoint; without it the client is public and PKCE alone binds it. */
  clientSecret?: string;
  /**
   * The callback URL registered at the provider, e.g. `https://inbox.example/auth/callback`. Default: this
   * inbox's own origin as the browser reached it, plus `/auth/callback`.
   */
  redirectUrl?: string;
  /** The claim that holds the user's groups. Default {@link DEFAULT_GROUPS_CLAIM}. */
  groupsClaim?: string;
  /** Space-separated scopes. Default {@link DEFAULT_SCOPES}. */
  scopes?: string;
}

/** Who a finished login proved. */
export interface OidcIdentity {
  name: string;
  groups: string[];
}

/** A login under way: what the callback checks, sealed in a cookie between the two requests. */
export interface PendingLogin {
  codeVerifier: string;
  state: string;
  nonce: string;
  redirectUri: string;
}

/** Why a login failed: shown to the person on the callback page (`reason` is safe to show). */
export class OidcLoginError extends Error {
  /** `unreachable` when the provider could not be reached (the inbox's trouble, not the person's). */
  constructor(
    readonly reason: string,
    readonly unreachable = false,
  ) {
    super(`single sign-on failed: ${reason}`);
    this.name = 'OidcLoginError';
  }
}

/** Loopback hosts: the only ones an `http:` issuer may have (a provider on this machine, as in tests). */
function isLoopback(url: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

function checkUrl(text: string, variable: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw UserInteractionError.invalidSetting(`${variable}: not a URL: ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url))) {
    throw UserInteractionError.invalidSetting(`${variable}: must be an https URL (http only on loopback)`);
  }
  return url;
}

/**
 * Reads `ASK_USER_OIDC_ISSUER`, `ASK_USER_OIDC_CLIENT_ID`, `ASK_USER_OIDC_CLIENT_SECRET`,
 * `ASK_USER_OIDC_REDIRECT_URL`, `ASK_USER_OIDC_GROUPS_CLAIM` and `ASK_USER_OIDC_SCOPES`. Returns `undefined`
 * when no issuer is set (single sign-on off).
 *
 * @throws Error naming the variable when a value is unusable, or the client id is missing.
 */
export function oidcSettingsFromEnv(env: Record<string, string | undefined>): OidcSettings | undefined {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const issuer = read('ASK_USER_OIDC_ISSUER');
  if (issuer === undefined) return undefined;
  checkUrl(issuer, 'ASK_USER_OIDC_ISSUER');
  const clientId = read('ASK_USER_OIDC_CLIENT_ID');
  if (clientId === undefined) {
    throw UserInteractionError.invalidSetting('ASK_USER_OIDC_CLIENT_ID: required with ASK_USER_OIDC_ISSUER');
  }
  const redirectUrl = read('ASK_USER_OIDC_REDIRECT_URL');
  if (redirectUrl !== undefined) checkUrl(redirectUrl, 'ASK_USER_OIDC_REDIRECT_URL');
  const optional = {
    clientSecret: read('ASK_USER_OIDC_CLIENT_SECRET'),
    redirectUrl,
    groupsClaim: read('ASK_USER_OIDC_GROUPS_CLAIM'),
    scopes: read('ASK_USER_OIDC_SCOPES'),
  };
  return {
    issuer,
    clientId,
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
  };
}

/** The groups a claim value names: a list of names, or one name; anything else is refused. */
function groupsOfClaim(value: unknown, claim: string): string[] {
  if (value === undefined || value === null) return [];
  const groups = typeof value === 'string' ? [value] : value;
  const checked = checkAudience({ groups }, claim);
  if (!checked.ok) throw new OidcLoginError(`the ${checked.path} claim ${checked.reason}`);
  return checked.audience.groups ?? [];
}

/**
 * The inbox's OpenID Connect client. The provider's metadata is discovered on the first login (and again
 * after a failed discovery), so an inbox starts while its provider is unreachable.
 *
 * @example
 * const login = new OidcLogin({ issuer: 'https://id.example', clientId: 'inbox', clientSecret });
 * const { url, pending } = await login.start(new URL('https://inbox.example/auth/login'));
 * // ...keep `pending` (sealed, in a cookie); the provider redirects back to /auth/callback?code=...&state=...
 * const { name, groups } = await login.finish(pending, callbackUrl);
 */
export class OidcLogin {
  private configuration: Promise<oidc.Configuration> | undefined;
  readonly groupsClaim: string;

  constructor(readonly settings: OidcSettings) {
    checkUrl(settings.issuer, 'issuer');
    if (settings.redirectUrl !== undefined) checkUrl(settings.redirectUrl, 'redirectUrl');
    this.groupsClaim = settings.groupsClaim ?? DEFAULT_GROUPS_CLAIM;
  }

  /**
   * Starts a login from a request to `requestUrl` (`/auth/login`): returns the provider's authorization URL to
   * send the browser to, and what the callback will check (to keep, sealed, until it comes).
   */
  async start(requestUrl: URL): Promise<{ url: URL; pending: PendingLogin }> {
    const configuration = await this.discover();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const login: PendingLogin = {
      codeVerifier,
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      redirectUri: this.settings.redirectUrl ?? new URL('/auth/callback', requestUrl.origin).href,
    };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: login.redirectUri,
      scope: this.settings.scopes ?? DEFAULT_SCOPES,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state: login.state,
      nonce: login.nonce,
    });
    return { url, pending: login };
  }

  /**
   * Finishes the login `login` (`undefined` when none was kept, or it expired) at the callback URL the
   * provider redirected to: exchanges the code (checking state, nonce and PKCE), and reads the name and groups
   * from the ID token, or from the userinfo endpoint when the ID token does not carry them. A login finishes
   * once: the provider redeems its code once.
   *
   * @throws OidcLoginError when there is no login, the provider refused, or no name is given.
   */
  async finish(login: PendingLogin | undefined, callbackUrl: URL): Promise<OidcIdentity> {
    if (login === undefined) {
      throw new OidcLoginError('this login was not started here, or took too long: start again');
    }
    const refused = callbackUrl.searchParams.get('error');
    if (refused !== null) {
      const description = callbackUrl.searchParams.get('error_description');
      throw new OidcLoginError(
        `the provider said ${refused}${description === null ? '' : `: ${description}`}`,
      );
    }
    const configuration = await this.discover();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(
        configuration,
        callbackUrl,
        { pkceCodeVerifier: login.codeVerifier, expectedState: login.state, expectedNonce: login.nonce },
        { redirect_uri: login.redirectUri },
      );
    } catch (error) {
      throw new OidcLoginError(errorText(error));
    }
    const claims = tokens.claims();
    if (claims === undefined) throw new OidcLoginError('the provider returned no ID token');
    let source: Record<string, unknown> = claims;
    if (nameOf(source) === undefined || source[this.groupsClaim] === undefined) {
      const userInfo = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
      source = { ...userInfo, ...claims };
    }
    const name = nameOf(source);
    if (name === undefined) {
      throw new OidcLoginError('the ID token carries neither preferred_username nor email');
    }
    return { name, groups: groupsOfClaim(source[this.groupsClaim], this.groupsClaim) };
  }

  private discover(): Promise<oidc.Configuration> {
    const { issuer, clientId, clientSecret } = this.settings;
    const issuerUrl = new URL(issuer);
    this.configuration ??= oidc
      .discovery(
        issuerUrl,
        clientId,
        undefined,
        clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(clientSecret),
        issuerUrl.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        this.configuration = undefined;
        throw new OidcLoginError(`the provider at ${issuer} could not be reached: ${errorText(error)}`, true);
      });
    return this.configuration;
  }
}

/** The name a login records: `preferred_username`, else `email`. */
function nameOf(claims: Record<string, unknown>): string | undefined {
  for (const claim of ['preferred_username', 'email']) {
    const value = claims[claim];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}
