/**
 * How many login tries get through: counted per client address (wrong bearer tokens count there too) and per
 * name, with a 429 and `Retry-After` past the limit.
 */
import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { AttemptLimiter } from './attempt-limiter';
import { failure } from './inbox-hono';

/** How many login tries get through per minute (or per `windowMs`), counted per client address and per name. */
export interface LoginLimit {
  perAddress: number;
  perName: number;
  windowMs: number;
}

/**
 * 20 tries a minute from one address, 10 for one name: plenty for people who mistype, and a guess of a
 * 16-character token takes longer than the universe has left. Wrong bearer tokens count against the address.
 */
export const DEFAULT_LOGIN_LIMIT: LoginLimit = { perAddress: 20, perName: 10, windowMs: 60_000 };

/** The counters of one inbox process (each replica has its own): tries per client address, and per name. */
export class LoginTries {
  private readonly byAddress: AttemptLimiter;
  private readonly byName: AttemptLimiter;

  constructor(limit: LoginLimit) {
    this.byAddress = new AttemptLimiter({ perWindow: limit.perAddress, windowMs: limit.windowMs });
    this.byName = new AttemptLimiter({ perWindow: limit.perName, windowMs: limit.windowMs });
  }

  /**
   * How long a login from `address` (as `name`, when one is given) must wait; 0 when it may go ahead, and then
   * the try is counted, right or wrong, so the answer leaks nothing while limited.
   */
  tryLogin(address: string, name: string | undefined): number {
    const addressKeys = [`address:${address}`];
    const nameKeys = name === undefined ? [] : [`name:${name.trim().toLowerCase()}`];
    const waitMs = Math.max(this.byAddress.waitMs(addressKeys), this.byName.waitMs(nameKeys));
    if (waitMs > 0) return waitMs;
    this.byAddress.count(addressKeys);
    this.byName.count(nameKeys);
    return 0;
  }

  /** How long a bearer token from `address` must wait, after too many wrong ones. */
  tokenWaitMs(address: string): number {
    return this.byAddress.waitMs([`address:${address}`]);
  }

  /** Counts a wrong bearer token against `address`. */
  wrongToken(address: string): void {
    this.byAddress.count([`address:${address}`]);
  }
}

/** The client's address as the socket says (not a header a client can write); `unknown` off Node's server. */
export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** 429 with `Retry-After`. */
export function tooMany<C extends Context>(c: C, waitMs: number, what: string) {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  c.header('Retry-After', String(seconds));
  return failure(c, 429, 'TOO_MANY_REQUESTS', `${what}: try again in ${seconds} s`);
}
