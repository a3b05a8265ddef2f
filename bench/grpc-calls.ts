/**
 * Counts the gRPC calls a `@temporalio/client` connection makes, by method and by final status.
 *
 * How: `Connection.connect({ interceptors })` takes grpc-js client interceptors. Passing a list replaces the
 * SDK's default one, so the list is the SDK's own retry interceptor followed by the counter. The counter sits
 * inside the retry interceptor and therefore sees every attempt that goes on the wire, retries included. A
 * call is counted when it is started and again by its final status code when it ends (a long poll that is
 * still open at a reading has been started but not ended).
 */
import type { Metadata } from '@grpc/grpc-js';
import { status, type Interceptor, InterceptingCall } from '@grpc/grpc-js';
import {
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';

/** Calls by method name (`StartWorkflowExecution`, ...) and ended calls by status name (`OK`, ...). */
export interface CallCounts {
  byMethod: Record<string, number>;
  byStatus: Record<string, number>;
  total: number;
}

/** A running tally, read at any time with {@link CallCounter.read} and compared with {@link diffCounts}. */
export class CallCounter {
  private readonly byMethod = new Map<string, number>();
  private readonly byStatus = new Map<string, number>();
  private total = 0;

  /** The grpc-js interceptor that feeds this counter. */
  readonly interceptor: Interceptor = (options, nextCall) => {
    const path = options.method_definition.path;
    const method = path.slice(path.lastIndexOf('/') + 1);
    this.total += 1;
    this.byMethod.set(method, (this.byMethod.get(method) ?? 0) + 1);
    return new InterceptingCall(nextCall(options), {
      start: (metadata: Metadata, _listener, next) => {
        next(metadata, {
          onReceiveStatus: (received, nextStatus) => {
            const name = status[received.code] ?? String(received.code);
            this.byStatus.set(name, (this.byStatus.get(name) ?? 0) + 1);
            nextStatus(received);
          },
        });
      },
    });
  };

  /** A copy of the counts so far. */
  read(): CallCounts {
    return {
      byMethod: Object.fromEntries(this.byMethod),
      byStatus: Object.fromEntries(this.byStatus),
      total: this.total,
    };
  }
}

/** What was counted between two readings. */
export function diffCounts(before: CallCounts, after: CallCounts): CallCounts {
  const diff = (from: Record<string, number>, to: Record<string, number>): Record<string, number> => {
    const result: Record<string, number> = {};
    for (const [key, value] of Object.entries(to)) {
      const delta = value - (from[key] ?? 0);
      if (delta !== 0) result[key] = delta;
    }
    return result;
  };
  return {
    byMethod: diff(before.byMethod, after.byMethod),
    byStatus: diff(before.byStatus, after.byStatus),
    total: after.total - before.total,
  };
}

/** Adds `more` into `into`, method by method and status by status. */
export function addCounts(into: CallCounts, more: CallCounts): CallCounts {
  const add = (a: Record<string, number>, b: Record<string, number>): Record<string, number> => {
    const result = { ...a };
    for (const [key, value] of Object.entries(b)) result[key] = (result[key] ?? 0) + value;
    return result;
  };
  return {
    byMethod: add(into.byMethod, more.byMethod),
    byStatus: add(into.byStatus, more.byStatus),
    total: into.total + more.total,
  };
}

/** No calls. */
export function noCalls(): CallCounts {
  return { byMethod: {}, byStatus: {}, total: 0 };
}

/** A connection whose calls are counted by `counter`, with the SDK's default retries kept. */
export async function countedConnection(
  counter: CallCounter,
  options: ConnectionOptions,
): Promise<Connection> {
  return await Connection.connect({
    ...options,
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), counter.interceptor],
  });
}
