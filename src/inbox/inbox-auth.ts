/**
 * Who may use the inbox, and as whom. A shared token (`ASK_USER_INBOX_TOKEN`) lets anyone who has it in, under
 * the name they give at login; per-user tokens (a file named by `ASK_USER_INBOX_USERS`) name the user
 * themselves; single sign-on (`ASK_USER_OIDC_ISSUER`, see `oidc-login.ts`) lets the provider say who logs in.
 * Tokens are compared in constant time. The page's logins are server-side sessions, each with its
 * own CSRF token.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { answererGroups } from '../answer/audience-rules';
import { definedFields, errorText } from '../common';
import { UserInteractionError } from '../interaction/user-interaction-error';
import { OidcLogin, oidcSettingsFromEnv } from './oidc-login';

/** Tokens shorter than this are refused: they could be guessed. */
export const MIN_TOKEN_LENGTH = 16;
/** How long a page login lasts. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Longest answerer name. */
const MAX_NAME_LENGTH = 100;

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
}

/** Who a token belongs to: a named user, or the holder of the shared token (who names themselves). */
export type TokenHolder = { kind: 'user'; name: string; groups: readonly string[] } | { kind: 'shared' };

/** A page login. */
export interface InboxSession {
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
  private readonly sessions = new Map<string, InboxSession>();
  /** Single sign-on, when configured. */
  readonly sso: OidcLogin | undefined;

  /** @throws Error when no token, user or single sign-on is given, or a token is too short. */
  constructor(options: InboxAuthOptions) {
    if (options.token !== undefined) checkToken(options.token, 'inbox token');
    for (const user of options.users ?? []) checkToken(user.token, `inbox token of ${user.name}`);
    if (options.token === undefined && (options.users ?? []).length === 0 && options.sso === undefined) {
      throw UserInteractionError.invalidSetting(
        'the inbox needs a way in: set ASK_USER_INBOX_TOKEN, ASK_USER_INBOX_USERS or ASK_USER_OIDC_ISSUER',
      );
    }
    this.token = options.token;
    this.users = [...(options.users ?? [])];
    this.sso = options.sso;
  }

  /** How people log in on the page: with a token, through single sign-on, or both. */
  get loginMethods(): ('token' | 'sso')[] {
    const methods: ('token' | 'sso')[] = [];
    if (this.token !== undefined || this.users.length > 0) methods.push('token');
    if (this.sso !== undefined) methods.push('sso');
    return methods;
  }

  /**
   * From `ASK_USER_INBOX_TOKEN` (shared token), `ASK_USER_INBOX_USERS` (path of a per-user token file) and
   * `ASK_USER_OIDC_*` (single sign-on; see `oidcSettingsFromEnv`).
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
    const sso = oidcSettingsFromEnv(env);
    return new InboxAuth(
      definedFields({
        token: token === '' ? undefined : token,
        users,
        sso: sso === undefined ? undefined : new OidcLogin(sso),
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

  /** Starts a page session for `name`, a member of `groups`. */
  createSession(name: string, groups: readonly string[] = [], now = Date.now()): InboxSession {
    this.prune(now);
    const session: InboxSession = {
      id: randomBytes(32).toString('base64url'),
      name,
      groups,
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAt: now + SESSION_TTL_MS,
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session with this id, or `undefined`. */
  session(id: string, now = Date.now()): InboxSession | undefined {
    const session = this.sessions.get(id);
    if (session === undefined) return undefined;
    if (session.expiresAt <= now) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  /** Ends a session (logout). */
  endSession(id: string): void {
    this.sessions.delete(id);
  }

  private prune(now: number): void {
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id);
  }
}
