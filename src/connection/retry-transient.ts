/**
 * `retryTransient`: the package's one retry loop for calls to the Temporal server that the SDK's own gRPC
 * retries gave up on (a restart, a brief outage, a worker that crashed mid-update). Exponential backoff from
 * 200 ms to 2 s; the caller decides, failure by failure, whether to go on. The pause ends early when `signal`
 * aborts, and never runs past `deadline`.
 *
 * Why not a retry library: `exponential-backoff` and `async-retry` cannot end a pause on an abort signal, and
 * `p-retry` is ESM-only while this package is CommonJS. The loop is small; what it retries, and when it stops,
 * is each caller's own decision.
 */

/** Options of {@link retryTransient}. */
export interface RetryTransientOptions {
  /**
   * Whether to try again after `error`, the failure of attempt `attempt` (from 1). Returning false rethrows it;
   * throwing gives up with what was thrown.
   */
  retryIf: (error: unknown, attempt: number) => boolean;
  /** At most this many attempts. Default: no bound but `deadline`. */
  maxAttempts?: number;
  /** Epoch milliseconds: no attempt starts after it, and no pause reaches past it. */
  deadline?: number;
  /** Ends a pause at once when it aborts; `retryIf` then decides what the abort means. */
  signal?: AbortSignal;
}

const FIRST_DELAY_MS = 200;
const MAX_DELAY_MS = 2_000;

/** Waits `milliseconds`, or less when `signal` aborts first. */
export function pause(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, milliseconds);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs `operation` until it succeeds, `retryIf` says stop, the attempts run out or the deadline passes.
 *
 * @example
 * await retryTransient(() => handle.cancel(), { retryIf: isTransient, deadline: Date.now() + 15_000 });
 */
export async function retryTransient<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryTransientOptions,
): Promise<T> {
  let delayMs = FIRST_DELAY_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      // The caller's decision first: it may turn the failure into an error of its own.
      if (!options.retryIf(error, attempt)) throw error;
      const outOfAttempts = options.maxAttempts !== undefined && attempt >= options.maxAttempts;
      const remainingMs = options.deadline === undefined ? Infinity : options.deadline - Date.now();
      if (outOfAttempts || remainingMs <= 0) throw error;
      await pause(Math.min(delayMs, remainingMs), options.signal);
      delayMs = Math.min(delayMs * 2, MAX_DELAY_MS);
    }
  }
}
