/**
 * Who may use the inbox, and as whom. A shared token (`ASK_USER_INBOX_TOKEN`) lets anyone who has it in, under
 * the name they give at login; per-user tokens (a file named by `ASK_USER_INBOX_USERS`) name the user
 * themselves. Tokens are compared in constant time. The page's logins are server-side sessions, each with its
 * own CSRF token.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { UserInteractionError } from '../interaction/user-interaction-error';

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
}

/** Options of {@link InboxAuth}: at least one of them. */
export interface InboxAuthOptions {
  /** Shared token: whoever has it logs in under a name of their choosing. */
  token?: string;
  /** Per-user tokens: the token says who is answering. */
  users?: readonly InboxUser[];
}

/** Who a token belongs to: a named user, or the holder of the shared token (who names themselves). */
export type TokenHolder = { kind: 'user'; name: string } | { kind: 'shared' };

/** A page login. */
export interface InboxSession {
  id: string;
  name: string;
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
 * Reads a per-user token file: one user per line as `name:token`; blank lines and lines starting with `#` are
 * skipped. Names and tokens must be unique.
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
    const colon = trimmed.lastIndexOf(':');
    if (colon <= 0) throw UserInteractionError.invalidSetting(`${where}: expected name:token`);
    const name = checkName(trimmed.slice(0, colon));
    if (!name.ok) throw UserInteractionError.invalidSetting(`${where}: ${name.reason}`);
    const token = trimmed.slice(colon + 1).trim();
    checkToken(token, where);
    if (users.some((user) => user.name === name.name)) {
      throw UserInteractionError.invalidSetting(
        `${where}: user ${JSON.stringify(name.name)} is listed twice`,
      );
    }
    if (users.some((user) => user.token === token))
      throw UserInteractionError.invalidSetting(`${where}: token already used by another user`);
    users.push({ name: name.name, token });
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

  /** @throws Error when neither a token nor users are given, or a token is too short. */
  constructor(options: InboxAuthOptions) {
    if (options.token !== undefined) checkToken(options.token, 'inbox token');
    for (const user of options.users ?? []) checkToken(user.token, `inbox token of ${user.name}`);
    if (options.token === undefined && (options.users ?? []).length === 0) {
      throw UserInteractionError.invalidSetting(
        'the inbox needs a token: set ASK_USER_INBOX_TOKEN or ASK_USER_INBOX_USERS',
      );
    }
    this.token = options.token;
    this.users = [...(options.users ?? [])];
  }

  /**
   * From `ASK_USER_INBOX_TOKEN` (shared token) and `ASK_USER_INBOX_USERS` (path of a per-user token file).
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
          `ASK_USER_INBOX_USERS: cannot read ${usersFile}: ${error instanceof Error ? error.message : String(error)}`,
          error,
        );
      }
      users = parseUsersFile(text, usersFile);
    }
    if (token !== undefined && token !== '') checkToken(token, 'ASK_USER_INBOX_TOKEN');
    return new InboxAuth({
      ...(token === undefined || token === '' ? {} : { token }),
      ...(users === undefined ? {} : { users }),
    });
  }

  /** Whose token this is, or `undefined` for a wrong one. Every known token is compared, always. */
  holderOf(candidate: string): TokenHolder | undefined {
    let holder: TokenHolder | undefined;
    for (const user of this.users) {
      if (safeEqual(candidate, user.token) && holder === undefined)
        holder = { kind: 'user', name: user.name };
    }
    if (this.token !== undefined && safeEqual(candidate, this.token) && holder === undefined) {
      holder = { kind: 'shared' };
    }
    return holder;
  }

  /** Starts a page session for `name`. */
  createSession(name: string, now = Date.now()): InboxSession {
    this.prune(now);
    const session: InboxSession = {
      id: randomBytes(32).toString('base64url'),
      name,
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
