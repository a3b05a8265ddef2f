/**
 * A client's call scope: the deadline, abort signal and metadata that the SDK's `withDeadline`, `withAbortSignal`
 * and `withMetadata` set for the calls made within them, kept in the connection's `callContextStorage`. That is
 * public on the SDK's `Connection`, but not on every `ConnectionLike`: another kind of connection (or one from
 * another copy of the SDK) has none to read here.
 */
import type { AsyncLocalStorage } from 'node:async_hooks';
import { Connection, type CallContext, type Client } from '@temporalio/client';

/** The storage of `client`'s call scope, when its connection is the SDK's `Connection`. */
export function callScopeStorage(client: Client): AsyncLocalStorage<CallContext> | undefined {
  return client.connection instanceof Connection ? client.connection.callContextStorage : undefined;
}

/** The deadline (epoch ms) the caller's scope set on `client`'s calls (`client.withDeadline`), if any. */
export function scopeDeadline(client: Client): number | undefined {
  const deadline = callScopeStorage(client)?.getStore()?.deadline;
  return deadline instanceof Date ? deadline.getTime() : deadline;
}
