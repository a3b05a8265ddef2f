/**
 * Who may use the inbox, and as whom. A shared token (`ASK_USER_INBOX_TOKEN`) lets anyone who has it in, under
 * the name they give at login; per-user tokens (a file named by `ASK_USER_INBOX_USERS`) name the user
 * themselves; single sign-on (`ASK_USER_OIDC_ISSUER`, see `oidc-login.ts`) lets the provider say who logs in.
 * Tokens are compared in constant time.
 *
 * The page's logins are sealed cookies (`session-seal.ts`), each with its own CSRF token, so a restart or
 * another replica with the same `ASK_USER_INBOX_SESSION_KEY` honours them. A session records what proved it
 * (a fingerprint of the token, or of the provider), and each request checks that proof again: a token removed
 * from the users file, or a shared token changed, ends the sessions it started; a per-user session's groups
 * are the file's of the moment. Sessions that ended early are in `session-revocations.ts`.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { answererGroups } from '../answer/audience-rules';
import { definedFields, errorText } from '../common';
import { UserInteractionError } from '../interaction/user-interaction-error';
import { OidcLogin, OidcLoginError, oidcSettingsFromEnv } from './oidc-login';
import { fingerprint, parseSessionKeys, SESSION_KEY_VARIABLE, SessionSeal } from './session-seal';

/** Tokens shorter than this are refused: they could be guessed. */
export const MIN_TOKEN_LENGTH = 16;
/** How long a page login lasts. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Longest answerer name. */
const MAX_NAME_LENGTH = 100;
/** Longest sealed session a cookie may carry: browsers keep cookies of up to 4096 bytes, name and attributes included. */
const MAX_SEALED_SESSION_LENGTH = 3800;

/** A user of a per-user token file. */
export interface InboxUser {
  name: string;
  token: string;
  /** The user's groups, matched against a question's audience. */
  groups?: readonly string[];
}

/** Options of {@link InboxAuth}: at least one of them. */
export interface InboxAuthOptions {
  /** Shared token: whoever has it logs in under a name of their choosing. */
  token?: string;
  /** Per-user tokens: the token says who is answering. */
  users?: readonly InboxUser[];
  /** Single sign-on for the page (OpenID Connect): the provider says who is answering. */
  sso?: OidcLogin;
  /**
   * Keys that seal page sessions and single sign-on logins (`ASK_USER_INBOX_SESSION_KEY`): the first seals,
   * every one opens. Default: a random key of this process (a restart logs everyone out, and no replica
   * shares its logins).
   */
  sessionKeys?: readonly string[];
  /** How long a page login lasts. Default {@link SESSION_TTL_MS}. */
  sessionTtlMs?: number;
}

/** What a page login proved: a token (and the name given with it), or a single sign-on's name and groups. */
export type SessionLogin =
  { via: 'token'; token: string; name: string } | { via: 'sso'; name: string; groups: readonly string[] };

/** Who a token belongs to: a named user, or the holder of the shared token (who names themselves). */
export type TokenHolder = { kind: 'user'; name: string; groups: readonly string[] } | { kind: 'shared' };

/** A page login. */
export interface InboxSession {
  /** Random, fresh at every login; what a logout records as ended. */
  id: string;
  name: string;
  /** The groups the login proved (a per-user token's, or the ID token's claim); none for the shared token. */
  groups: readonly string[];
  csrfToken: string;
  expiresAt: number;
}

/** A random token of 32 bytes, base64url: what `ask-user dev` generates when `ASK_USER_INBOX_TOKEN` is unset. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Constant-time string comparison: both sides are hashed first, so their lengths leak nothing either. */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

function checkToken(token: string, where: string): void {
  if (token.length < MIN_TOKEN_LENGTH) {
    throw UserInteractionError.invalidSetting(
      `${where}: a token must be at least ${MIN_TOKEN_LENGTH} characters`,
    );
  }
  if (/\s/.test(token))
    throw UserInteractionError.invalidSetting(`${where}: a token must not contain whitespace`);
}

/**
 * Checks an answerer name given at login or found in a user file: 1–100 characters, no control characters.
 * Returns the trimmed name, or the reason it is refused.
 */
export function checkName(raw: unknown): { ok: true; name: string } | { ok: false; reason: string } {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, reason: 'name: required' };
  const name = raw.trim();
  if (name.length > MAX_NAME_LENGTH) {
    return { ok: false, reason: `name: at most ${MAX_NAME_LENGTH} characters` };
  }
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(name))
    return { ok: false, reason: 'name: must not hold control characters' };
  return { ok: true, name };
}

/**
 * A user line: `name:token`, then optionally whitespace and the user's groups separated by commas. A name may
 * hold colons and spaces, a token neither, a group no colon, so the last colon before the token splits the line.
 */
const USER_LINE = /^(.*):(\S+)(?:\s+([^:]+))?$/;

/** The groups of a user line, checked; the reason when one is refused. */
function lineGroups(
  text: string | undefined,
): { ok: true; groups: string[] } | { ok: false; reason: string } {
  if (text === undefined) return { ok: true, groups: [] };
  const groups = text.split(',').map((group) => group.trim());
  const checked = answererGroups({ groups }, 'user');
  return checked.ok ? { ok: true, groups: [...new Set(groups)] } : checked;
}

/**
 * Reads a per-user token file: one user per line as `name:token`, or `name:token group,group` to give the
 * user groups (matched against a question's audience); blank lines and lines starting with `#` are skipped.
 * Names and tokens must be unique.
 *
 * @throws Error naming the file and line of the first problem.
 */
export function parseUsersFile(text: string, file: string): InboxUser[] {
  const users: InboxUser[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const where = `${file}:${index + 1}`;
    const match = USER_LINE.exec(trimmed);
    if (match === null || match[1]!.trim() === '') {
      throw UserInteractionError.invalidSetting(`${where}: expected name:token or name:token group,group`);
    }
    const name = checkName(match[1]);
    if (!name.ok) throw UserInteractionError.invalidSetting(`${where}: ${name.reason}`);
    const token = match[2]!;
    checkToken(token, where);
    const groups = lineGroups(match[3]);
    if (!groups.ok) throw UserInteractionError.invalidSetting(`${where}: ${groups.reason}`);
    if (users.some((user) => user.name === name.name)) {
      throw UserInteractionError.invalidSetting(
        `${where}: user ${JSON.stringify(name.name)} is listed twice`,
      );
    }
    if (users.some((user) => user.token === token))
      throw UserInteractionError.invalidSetting(`${where}: token already used by another user`);
    users.push(
      groups.groups.length === 0
        ? { name: name.name, token }
        : { name: name.name, token, groups: groups.groups },
    );
  });
  if (users.length === 0)
    throw UserInteractionError.invalidSetting(`${file}: no users (expected lines of name:token)`);
  return users;
}

/** The claims a session cookie seals, beside its id (`jti`) and expiry (`exp`). */
interface SessionClaims {
  name: string;
  /** The groups of a single sign-on; a per-user token's are read from the users file at each request. */
  groups: string[];
  csrf: string;
  /** How the login was proved: the shared token, a user's token, or single sign-on. */
  via: 'shared' | 'user' | 'sso';
  /** The fingerprint of the token or provider that proved it. */
  proof: string;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((each) => typeof each === 'string');
}

/** The claims of an opened cookie, when they have the shape this inbox seals. */
function sessionClaims(payload: Record<string, unknown>): SessionClaims | undefined {
  const { name, groups, csrf, via, proof } = payload;
  if (typeof name !== 'string' || !isStringList(groups) || typeof csrf !== 'string') return undefined;
  if (via !== 'shared' && via !== 'user' && via !== 'sso') return undefined;
  return typeof proof === 'string' ? { name, groups, csrf, via, proof } : undefined;
}

/** What proves a single sign-on: the provider and the client, so another provider ends its sessions. */
function ssoProof(sso: OidcLogin): string {
  return fingerprint(`oidc ${sso.settings.issuer} ${sso.settings.clientId}`);
}

/**
 * Token checks and page sessions for one inbox server.
 *
 * @example
 * const auth = InboxAuth.fromEnv(); // ASK_USER_INBOX_TOKEN and/or ASK_USER_INBOX_USERS
 * auth.holderOf(request.headers.authorization?.slice('Bearer '.length) ?? '');
 */
export class InboxAuth {
  private readonly token: string | undefined;
  private readonly users: readonly InboxUser[];
  /** Each user by the fingerprint of their token: what a per-user session is checked against. */
  private readonly usersByProof: ReadonlyMap<string, InboxUser>;
  /** Seals page sessions and single sign-on logins. */
  readonly seal: SessionSeal;
  private readonly sessionTtlMs: number;
  /** Single sign-on, when configured. */
  readonly sso: OidcLogin | undefined;

  /**
   * @throws Error when no token, user or single sign-on is given, a token is too short, or a session key is
   *   unusable or equal to a token.
   */
  constructor(options: InboxAuthOptions) {
    if (options.token !== undefined) checkToken(options.token, 'inbox token');
    for (const user of options.users ?? []) checkToken(user.token, `inbox token of ${user.name}`);
    if (options.token === undefined && (options.users ?? []).length === 0 && options.sso === undefined) {
      throw UserInteractionError.invalidSetting(
        'the inbox needs a way in: set ASK_USER_INBOX_TOKEN, ASK_USER_INBOX_USERS or ASK_USER_OIDC_ISSUER',
      );
    }
    const sessionKeys = options.sessionKeys ?? [];
    if (sessionKeys.length > 0) parseSessionKeys(sessionKeys.join(','), 'session key');
    const tokens = [options.token, ...(options.users ?? []).map((user) => user.token)];
    if (sessionKeys.some((key) => tokens.includes(key))) {
      // Whoever holds that token could seal a login of any name and any groups.
      throw UserInteractionError.invalidSetting(
        `${SESSION_KEY_VARIABLE}: must not be one of the inbox tokens`,
      );
    }
    this.token = options.token;
    this.users = [...(options.users ?? [])];
    this.usersByProof = new Map(this.users.map((user) => [fingerprint(user.token), user]));
    this.sso = options.sso;
    this.seal = new SessionSeal(sessionKeys);
    this.sessionTtlMs = options.sessionTtlMs ?? SESSION_TTL_MS;
  }

  /** How people log in on the page: with a token, through single sign-on, or both. */
  get loginMethods(): ('token' | 'sso')[] {
    const methods: ('token' | 'sso')[] = [];
    if (this.token !== undefined || this.users.length > 0) methods.push('token');
    if (this.sso !== undefined) methods.push('sso');
    return methods;
  }

  /** True when no session key was configured: logins last as long as this process, on this process only. */
  get sessionKeyIsEphemeral(): boolean {
    return this.seal.ephemeral;
  }

  /**
   * From `ASK_USER_INBOX_TOKEN` (shared token), `ASK_USER_INBOX_USERS` (path of a per-user token file),
   * `ASK_USER_OIDC_*` (single sign-on; see `oidcSettingsFromEnv`) and `ASK_USER_INBOX_SESSION_KEY` (the keys
   * that seal page logins, comma-separated; see `session-seal.ts`).
   *
   * @throws Error naming the variable (or the file and line) when a value is unusable or neither is set.
   */
  static fromEnv(env: Record<string, string | undefined> = process.env): InboxAuth {
    const token = env.ASK_USER_INBOX_TOKEN?.trim();
    const usersFile = env.ASK_USER_INBOX_USERS?.trim();
    let users: InboxUser[] | undefined;
    if (usersFile !== undefined && usersFile !== '') {
      let text: string;
      try {
        text = fs.readFileSync(usersFile, 'utf8');
      } catch (error) {
        throw UserInteractionError.invalidSetting(
          `ASK_USER_INBOX_USERS: cannot read ${usersFile}: ${errorText(error)}`,
          error,
        );
      }
      users = parseUsersFile(text, usersFile);
    }
    if (token !== undefined && token !== '') checkToken(token, 'ASK_USER_INBOX_TOKEN');
    const keyText = env[SESSION_KEY_VARIABLE]?.trim();
    const sessionKeys = keyText === undefined || keyText === '' ? undefined : parseSessionKeys(keyText);
    const sso = oidcSettingsFromEnv(env);
    return new InboxAuth(
      definedFields({
        token: token === '' ? undefined : token,
        users,
        sso: sso === undefined ? undefined : new OidcLogin(sso),
        sessionKeys,
      }),
    );
  }

  /** Whose token this is, or `undefined` for a wrong one. Every known token is compared, always. */
  holderOf(candidate: string): TokenHolder | undefined {
    let holder: TokenHolder | undefined;
    for (const user of this.users) {
      if (safeEqual(candidate, user.token) && holder === undefined)
        holder = { kind: 'user', name: user.name, groups: user.groups ?? [] };
    }
    if (this.token !== undefined && safeEqual(candidate, this.token) && holder === undefined) {
      holder = { kind: 'shared' };
    }
    return holder;
  }

  /**
   * Starts a page session for what `login` proved, and seals it for its cookie. A token login is named by its
   * holder (a user's token) or by the name given (the shared token), which the caller has checked.
   *
   * @throws Error for a token this inbox does not know; OidcLoginError when a single sign-on's groups are too
   *   many for a cookie to hold.
   */
  async createSession(
    login: SessionLogin,
    now = Date.now(),
  ): Promise<{ session: InboxSession; sealed: string }> {
    let claims: SessionClaims;
    const csrf = randomBytes(32).toString('base64url');
    if (login.via === 'sso') {
      if (this.sso === undefined) throw new Error('single sign-on is not configured');
      const groups = [...login.groups];
      claims = { name: login.name, groups, csrf, via: 'sso', proof: ssoProof(this.sso) };
    } else {
      const holder = this.holderOf(login.token);
      if (holder === undefined) throw new Error('a session needs a token of this inbox');
      const proof = fingerprint(login.token);
      claims =
        holder.kind === 'user'
          ? { name: holder.name, groups: [], csrf, via: 'user', proof }
          : { name: login.name, groups: [], csrf, via: 'shared', proof };
    }
    const id = randomBytes(32).toString('base64url');
    // Whole seconds, as the sealed expiry (`exp`) holds it.
    const expiresAt = Math.floor((now + this.sessionTtlMs) / 1000) * 1000;
    const sealed = await this.seal.seal('session', { ...claims }, id, expiresAt);
    if (sealed.length > MAX_SEALED_SESSION_LENGTH) {
      throw new OidcLoginError(
        `the ${this.sso?.groupsClaim ?? 'groups'} claim lists too many groups (${claims.groups.length}) for a login cookie to hold: have the provider send only the groups the inbox assigns to`,
      );
    }
    return { session: this.sessionOf(id, expiresAt, claims)!, sealed };
  }

  /**
   * The live session a cookie seals, or `undefined`: not sealed by this inbox's keys, expired at `now`, or
   * its proof no longer holds (the token removed or changed, single sign-on turned off or moved). Whether it
   * was ended by a logout is for the caller to ask (`session-revocations.ts`).
   */
  async openSession(sealed: string, now = Date.now()): Promise<InboxSession | undefined> {
    const payload = await this.seal.open('session', sealed, now);
    const claims = payload === undefined ? undefined : sessionClaims(payload);
    if (payload === undefined || claims === undefined) return undefined;
    return this.sessionOf(payload.jti!, payload.exp! * 1000, claims);
  }

  /** The session `claims` describe, as its proof stands now; `undefined` when the proof no longer holds. */
  private sessionOf(id: string, expiresAt: number, claims: SessionClaims): InboxSession | undefined {
    const session = { id, csrfToken: claims.csrf, expiresAt };
    switch (claims.via) {
      case 'shared':
        if (this.token === undefined || fingerprint(this.token) !== claims.proof) return undefined;
        return { ...session, name: claims.name, groups: [] };
      case 'user': {
        const user = this.usersByProof.get(claims.proof);
        return user === undefined ? undefined : { ...session, name: user.name, groups: user.groups ?? [] };
      }
      case 'sso':
        if (this.sso === undefined || ssoProof(this.sso) !== claims.proof) return undefined;
        return { ...session, name: claims.name, groups: claims.groups };
    }
  }
}
