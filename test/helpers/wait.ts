/**
 * Polling for tests that wait on something outside the test process: a workflow's state, a visibility list, a
 * webhook receiver. Two flavours, differing only in what an error from the probe means:
 * - {@link waitFor}: the probe is expected to work every time, so its first error fails the wait;
 * - {@link eventually}: the thing probed may not exist yet (a workflow not started, a query before the
 *   worker's first task), so errors count as "not yet" and the last one is reported on timeout.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';

/** How often a probe runs. */
const POLL_INTERVAL_MS = 200;

/** A probe: a value when the awaited thing is there, `undefined` while it is not. */
export type Probe<T> = () => Promise<T | undefined> | T | undefined;

/**
 * Polls `check` until it returns a value other than `undefined`, and resolves with it. An error thrown by
 * `check` fails the wait at once; after `timeoutMs` it fails naming `what`.
 */
export async function waitFor<T>(what: string, check: Probe<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(POLL_INTERVAL_MS);
  }
}

/**
 * Polls `check` until it returns a value other than `undefined`, and resolves with it. Errors thrown by
 * `check` are retried like `undefined`; after `timeoutMs` the wait fails naming `what` and the last error.
 */
export async function eventually<T>(what: string, check: Probe<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError === undefined ? '' : `; last error: ${inspect(lastError)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
    }
    await sleep(POLL_INTERVAL_MS);
  }
}
