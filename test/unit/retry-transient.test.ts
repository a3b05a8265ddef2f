/** `retryTransient`, the one retry loop for calls to the Temporal server. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { retryTransient } from '../../src/connection/retry-transient';

describe('retryTransient', () => {
  test('tries again while retryIf says so, with growing pauses, and returns the first success', async () => {
    const startedAt: number[] = [];
    const result = await retryTransient(
      async (attempt) => {
        startedAt.push(Date.now());
        if (attempt < 3) throw new Error(`transient ${attempt}`);
        return 'done';
      },
      { retryIf: () => true },
    );
    assert.equal(result, 'done');
    assert.equal(startedAt.length, 3);
    const [first, second, third] = startedAt as [number, number, number];
    // 200 ms, then 400 ms (timers may fire a little late, never early).
    assert.ok(second - first >= 195 && third - second >= 395, `${second - first}, ${third - second}`);
  });

  test('rethrows the failure retryIf refuses, and what retryIf throws instead', async () => {
    const refused = new Error('not transient');
    await assert.rejects(
      retryTransient(() => Promise.reject(refused), { retryIf: () => false }),
      refused,
    );
    const translated = new Error('translated');
    await assert.rejects(
      retryTransient(() => Promise.reject(new Error('raw')), {
        retryIf: () => {
          throw translated;
        },
      }),
      translated,
    );
  });

  test('stops after maxAttempts, with the last failure, and asks retryIf about every failure', async () => {
    const asked: number[] = [];
    let calls = 0;
    await assert.rejects(
      retryTransient(
        () => {
          calls++;
          return Promise.reject(new Error(`failure ${calls}`));
        },
        { maxAttempts: 2, retryIf: (_error, attempt) => (asked.push(attempt), true) },
      ),
      /failure 2/,
    );
    assert.equal(calls, 2);
    assert.deepEqual(asked, [1, 2]);
  });

  test('an abort ends the pause at once; the deadline bounds the pauses and the attempts', async () => {
    const controller = new AbortController();
    let calls = 0;
    const began = Date.now();
    await assert.rejects(
      retryTransient(
        () => {
          calls++;
          if (calls === 1) setTimeout(() => controller.abort(), 20);
          return Promise.reject(new Error('down'));
        },
        { signal: controller.signal, retryIf: () => !controller.signal.aborted || calls < 2 },
      ),
      /down/,
    );
    assert.ok(Date.now() - began < 150, `the 200 ms pause ended with the abort (${Date.now() - began} ms)`);

    const deadline = Date.now() + 300;
    let attempts = 0;
    await assert.rejects(
      retryTransient(
        () => {
          attempts++;
          return Promise.reject(new Error('still down'));
        },
        { deadline, retryIf: () => true },
      ),
      /still down/,
    );
    // 200 ms, then a pause cut to the deadline, then no attempt after it.
    assert.equal(attempts, 3);
    assert.ok(Date.now() - deadline < 100);
  });
});
