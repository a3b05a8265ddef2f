/**
 * Counts attempts per key in fixed one-minute windows: what bounds login tries per client address and per
 * name, so a token cannot be guessed by brute force. In memory, per inbox process: a restart forgets the
 * counts, which costs an attacker one more window, not a bypass, and each of N replicas counts its own, which
 * gives N times the tries: still far too few to guess a token of 16 characters. A shared count would need a
 * store every login writes to; a load balancer can limit across replicas instead (docs/inbox.md).
 *
 * Written here rather than taken from a rate-limit package because the rules are two: a login is checked and
 * counted against two keys together (address and name), and a bearer token only counts its failures; no
 * store, headers or policies to configure.
 */

/** How many attempts a key may make per window, and the window. */
export interface AttemptLimit {
  perWindow: number;
  windowMs: number;
}

interface Window {
  startedAt: number;
  count: number;
}

/** Most keys tracked at once; beyond it the oldest windows are dropped (a flood of keys cannot grow memory). */
const MAX_KEYS = 100_000;

/** Fixed-window counters for a set of keys. */
export class AttemptLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(readonly limit: AttemptLimit) {}

  /** Milliseconds until every key may try again: 0 when none of them is out of attempts. */
  waitMs(keys: readonly string[], now = Date.now()): number {
    let waitMs = 0;
    for (const key of keys) {
      const window = this.current(key, now);
      if (window !== undefined && window.count >= this.limit.perWindow) {
        waitMs = Math.max(waitMs, window.startedAt + this.limit.windowMs - now);
      }
    }
    return waitMs;
  }

  /** Counts one attempt against every key. */
  count(keys: readonly string[], now = Date.now()): void {
    for (const key of keys) {
      const window = this.current(key, now);
      if (window === undefined) this.start(key, now);
      else window.count += 1;
    }
  }

  private current(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    if (window === undefined) return undefined;
    if (now - window.startedAt >= this.limit.windowMs) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  private start(key: string, now: number): void {
    while (this.windows.size >= MAX_KEYS) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(key, { startedAt: now, count: 1 });
  }
}
