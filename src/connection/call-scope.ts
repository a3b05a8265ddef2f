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

/** What {@link withCallScope} sets on the calls made within it. */
export interface CallScope {
  /** Epoch milliseconds. */
  deadline?: number;
  abortSignal?: AbortSignal;
}

/**
 * Runs `work` with `client`'s calls under `scope`, over the caller's own scope (its metadata, and its deadline or
 * abort signal where `scope` sets none): what `client.withAbortSignal(signal, () => client.withDeadline(deadline,
 * work))` does, in one async context scope instead of two, without the SDK's four async wrappers, which an answer
 * paid for on every call. Through the SDK's own methods when the connection keeps no storage to read here.
 */
export async function withCallScope<T>(client: Client, scope: CallScope, work: () => Promise<T>): Promise<T> {
  const storage = callScopeStorage(client);
  if (storage === undefined) {
    const { deadline, abortSignal } = scope;
    const withDeadline = (): Promise<T> =>
      deadline === undefined ? work() : client.withDeadline(deadline, work);
    return await (abortSignal === undefined
      ? withDeadline()
      : client.withAbortSignal(abortSignal, withDeadline));
  }
  const context: CallContext = { ...storage.getStore() };
  if (scope.deadline !== undefined) context.deadline = scope.deadline;
  if (scope.abortSignal !== undefined) context.abortSignal = scope.abortSignal;
  return await storage.run(context, work);
}
