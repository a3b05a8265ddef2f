/**
 * The one way this package opens a client connection: settings from `@temporalio/envconfig` (the standard
 * `TEMPORAL_*` variables and config profiles, TLS and API keys included), one bounded connect, one error.
 * Used by `TemporalUserInteraction`, `QuestionClient.connect` and the CLI.
 */
import { Client, Connection } from '@temporalio/client';
import { definedFields } from '../common';
import { unavailableToAsk, type ConnectFailure } from './connect-failure';
import { loadTemporalSettings, type TemporalSettings } from './connection-config';
import { reasonOf } from './grpc-failures';

export { unavailableToAnswer, type ConnectFailure } from './connect-failure';

/**
 * gRPC keepalive of every connection opened here: a ping every 10 s, and a connection whose ping goes 5 s
 * unanswered is closed. That is what notices a network that silently drops everything (no reset, no refusal):
 * without it the channel stays READY, and calls hang, until the ping fails, which with the SDK's defaults
 * (30 s + 15 s) takes up to 45 s. 10 s is as often as a Temporal server accepts pings on a connection that
 * receives nothing (its `frontend.keepAliveMinTime` default; more often and it closes the connection with
 * `too_many_pings`); grpc-js schedules each ping 10 s after the previous one was answered, so it never pings
 * sooner. Pass the same `channelArgs` to a `Connection` you give `TemporalUserInteraction`.
 */
export const KEEPALIVE_CHANNEL_ARGS = {
  'grpc.keepalive_time_ms': 10_000,
  'grpc.keepalive_timeout_ms': 5_000,
  'grpc.keepalive_permit_without_calls': 1,
} as const;

/** Options of `connectToTemporal`. */
export interface ConnectOptions {
  /** Config profile; default from `TEMPORAL_PROFILE`, else `default`. */
  profile?: string;
  /** Environment to read instead of `process.env`. */
  env?: Record<string, string | undefined>;
  /** How long to try to connect. Default 10 s. */
  connectTimeoutMs?: number;
  /**
   * Keep the SDK's gRPC retry interceptor (default true). The durable provider turns it off and retries on its
   * own terms: the interceptor's retry timers cannot be cancelled, so a call it retries during an outage outlives
   * an abort and, once the connection is closed, throws "Channel has been shut down" from a timer.
   */
  sdkRetries?: boolean;
}

/** An open connection and a client on it; whoever connected closes `connection`. */
export interface TemporalConnection {
  client: Client;
  connection: Connection;
  settings: TemporalSettings;
}

/**
 * Connects to the Temporal server named by the environment.
 *
 * @throws the error `failure` builds (default: UserInteractionError `ASK_UNAVAILABLE` naming the address) when the
 *   server cannot be reached.
 */
export async function connectToTemporal(
  options: ConnectOptions = {},
  failure: ConnectFailure = unavailableToAsk,
): Promise<TemporalConnection> {
  const settings = loadTemporalSettings(definedFields({ profile: options.profile, env: options.env }));
  try {
    const connection = await Connection.connect({
      ...settings.connectionOptions,
      channelArgs: { ...KEEPALIVE_CHANNEL_ARGS },
      connectTimeout: options.connectTimeoutMs ?? 10_000,
      ...(options.sdkRetries === false ? { interceptors: [] } : {}),
    });
    return { client: new Client({ connection, namespace: settings.namespace }), connection, settings };
  } catch (error) {
    throw failure(settings.address, reasonOf(error), error);
  }
}
