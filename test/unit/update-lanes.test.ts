/**
 * `UpdateLanes`: at most the limit of one workflow's calls run at once, the others wait their turn in order,
 * another workflow's calls are not held up, a failed call frees its slot, and nothing is kept once all are done;
 * a queued call runs in its own caller's async context (the SDK's deadline and abort signal live there), and a
 * turn that does not come by the deadline is given up.
 */
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { test } from 'node:test';

import { isDeadlineExceeded } from '../../src/connection/grpc-failures';
import { TurnTimedOut, UpdateLanes } from '../../src/connection/update-lanes';

/** A call that runs until `release()`, noting when it starts. */
function heldCall(started: string[], name: string): { call: () => Promise<string>; release: () => void } {
  let release = (): void => undefined;
  const done = new Promise<void>((resolve) => (release = resolve));
  return {
    call: async () => {
      started.push(name);
      await done;
      return name;
    },
    release: () => release(),
  };
}

/** Lets queued promise callbacks run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('one workflow runs at most its limit at once, the rest in the order they came', async () => {
  const lanes = new UpdateLanes(5);
  const started: string[] = [];
  const calls = Array.from({ length: 7 }, (_, index) => heldCall(started, `a${index}`));
  const results = calls.map(({ call }) => lanes.run('workflow-a', call));
  await settle();
  assert.deepEqual(started, ['a0', 'a1', 'a2', 'a3', 'a4']);

  // Another workflow's call starts at once.
  const other = heldCall(started, 'b0');
  const otherResult = lanes.run('workflow-b', other.call);
  await settle();
  assert.equal(started.at(-1), 'b0');
  assert.equal(lanes.size, 2);

  calls[3]!.release();
  await settle();
  assert.deepEqual(started.slice(-1), ['a5']);
  calls[0]!.release();
  await settle();
  assert.deepEqual(started.slice(-1), ['a6']);

  for (const { release } of [...calls, other]) release();
  assert.deepEqual(await Promise.all(results), ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
  assert.equal(await otherResult, 'b0');
  assert.equal(lanes.size, 0);
});

test('a failed call gives its error to its caller and frees its slot', async () => {
  const lanes = new UpdateLanes(1);
  const failed = lanes.run('workflow-a', () => Promise.reject(new Error('refused')));
  const next = lanes.run('workflow-a', () => Promise.resolve('taken'));
  await assert.rejects(failed, /refused/);
  assert.equal(await next, 'taken');
  assert.equal(lanes.size, 0);
});

test("a queued call runs in its own caller's async context, not in that of the call that freed its turn", async () => {
  const lanes = new UpdateLanes(1);
  const scope = new AsyncLocalStorage<string>();
  const first = heldCall([], 'first');
  const running = scope.run('caller-1', () => lanes.run('workflow-a', first.call));
  const seen = scope.run('caller-2', () => lanes.run('workflow-a', async () => scope.getStore()));
  await settle();
  scope.run('caller-3', () => first.release());
  await running;
  assert.equal(await seen, 'caller-2');
});

test('a turn that does not come by the deadline is given up with TurnTimedOut, and the call is not run', async () => {
  const lanes = new UpdateLanes(1);
  const first = heldCall([], 'first');
  const running = lanes.run('workflow-a', first.call);
  let ran = false;
  const late = lanes.run(
    'workflow-a',
    async () => {
      ran = true;
    },
    Date.now() + 20,
  );
  await assert.rejects(late, TurnTimedOut);
  assert.ok(isDeadlineExceeded(new TurnTimedOut()), 'counted as a deadline passing');
  first.release();
  assert.equal(await running, 'first');
  assert.equal(ran, false);
  assert.equal(lanes.size, 0);
});
