/**
 * `withCallScope`: the deadline and abort signal it sets are what the SDK reads for the calls made within it, over
 * the caller's scope (its metadata kept, its deadline or signal kept where the scope sets none, and back once it
 * ends); on a connection whose storage it cannot read, the SDK's own `withDeadline` and `withAbortSignal` set them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, Connection, type CallContext } from '@temporalio/client';

import { callScopeStorage, withCallScope } from '../../src/connection/call-scope';

/** A client over a connection that never dials (`Connection.lazy`): its call scope is all that is read. */
function offlineClient(): { client: Client; connection: Connection } {
  const connection = Connection.lazy({ address: '127.0.0.1:1' });
  return { client: new Client({ connection }), connection };
}

test('sets the deadline and abort signal the SDK reads, over the caller’s metadata and deadline', async () => {
  const { client, connection } = offlineClient();
  const storage = callScopeStorage(client)!;
  const signal = new AbortController().signal;
  const outer = Date.now() + 30_000;
  const seen = await client.withMetadata({ 'x-caller': 'alice' }, () =>
    client.withDeadline(outer, async () => {
      const both = await withCallScope(client, { deadline: outer - 1_000, abortSignal: signal }, async () =>
        storage.getStore(),
      );
      const deadlineOnly = await withCallScope(client, { abortSignal: signal }, async () =>
        storage.getStore(),
      );
      return { both, deadlineOnly, after: storage.getStore() };
    }),
  );
  const expect = (context: CallContext | undefined, deadline: number, abortSignal?: AbortSignal): void => {
    assert.equal(context?.deadline, deadline);
    assert.equal(context?.abortSignal, abortSignal);
    assert.deepEqual(context?.metadata, { 'x-caller': 'alice' });
  };
  expect(seen.both, outer - 1_000, signal);
  expect(seen.deadlineOnly, outer, signal);
  expect(seen.after, outer);
  assert.equal(storage.getStore(), undefined, 'nothing is left set outside');
  await connection.close();
});

test('a failure of the work is thrown as it is', async () => {
  const { client, connection } = offlineClient();
  const failure = new Error('refused');
  await assert.rejects(
    withCallScope(client, { deadline: Date.now() + 1_000 }, async () => {
      throw failure;
    }),
    (error) => error === failure,
  );
  await connection.close();
});

test('without a storage to read, it goes through the SDK’s withAbortSignal and withDeadline', async () => {
  const set: string[] = [];
  const signal = new AbortController().signal;
  const client = {
    connection: {},
    withDeadline: async <R>(deadline: number, fn: () => Promise<R>): Promise<R> => {
      set.push(`deadline ${deadline}`);
      return await fn();
    },
    withAbortSignal: async <R>(abortSignal: AbortSignal, fn: () => Promise<R>): Promise<R> => {
      set.push(`signal ${abortSignal === signal}`);
      return await fn();
    },
  } as unknown as Client;
  assert.equal(await withCallScope(client, { deadline: 5, abortSignal: signal }, async () => 'done'), 'done');
  assert.deepEqual(set, ['signal true', 'deadline 5']);
  set.length = 0;
  await withCallScope(client, {}, async () => undefined);
  assert.deepEqual(set, [], 'an empty scope sets nothing');
});
