/**
 * `ConnectionHealth`: outage detection once per connection, not once per waiting question.
 *
 * Two questions, answered apart:
 * - Is the server unreachable now? The gRPC channel's own connectivity state says so (a local read, no server
 *   call): anything but READY is a connection that is not there. A network that silently drops everything
 *   leaves the channel READY until the transport's keepalive ping goes unanswered; the provider's connection
 *   pings every 10 s and gives up after 5 s (`KEEPALIVE_CHANNEL_ARGS` in src/connection/connect.ts), so that
 *   takes at most 15 s, against the SDK's default 45 s. A call that failed to reach the server says so too.
 * - Since when? The outage clock runs from the last evidence that the server answered: a call that succeeded,
 *   a channel that (re)connected, or, when nothing else has answered for a while, a health probe
 *   (`getSystemInfo`, one at a time for the whole connection). A channel merely READY is not evidence, as a
 *   silent network keeps it READY until the keepalive gives up: counting it would start the clock at the
 *   keepalive's verdict, up to 15 s late.
 *
 * A slow server is not down: as long as the channel is connected, nobody is told the server is unreachable,
 * however long calls (the probe included) take.
 *
 * For a client whose connection exposes no gRPC channel, the probe decides both.
 */
import type { Client } from '@temporalio/client';
import { isDeadlineExceeded, isTransient } from '../connection/grpc-failures';
import { UserInteractionError } from '../interaction/user-interaction-error';

/** gRPC channel connectivity states (`@grpc/grpc-js` `connectivityState`). */
const ChannelState = { IDLE: 0, CONNECTING: 1, READY: 2, TRANSIENT_FAILURE: 3, SHUTDOWN: 4 } as const;

interface Channel {
  getConnectivityState(tryToConnect: boolean): number;
}

/**
 * The connection's gRPC channel, when it has one. The SDK exposes no connectivity state: its answer to
 * temporalio/sdk-typescript#312 is `healthService.check()`, a server call, which is what the fallback does
 * (`getSystemInfo`, once per interval). Reading the channel's state is a local read with no call at all, so
 * it is kept as the smallest workaround: `Connection.client` (the SDK's grpc-js client) is protected in the
 * typings. `test/unit/sdk-workarounds.test.ts` fails loudly if an SDK release removes it.
 */
export function channelOf(client: Pick<Client, 'connection'>): Channel | undefined {
  const grpcClient = (client.connection as unknown as { client?: { getChannel?: () => Channel } }).client;
  return typeof grpcClient?.getChannel === 'function' ? grpcClient.getChannel() : undefined;
}

/** Options of `ConnectionHealth`. */
export interface ConnectionHealthOptions {
  /** How long the server may be unreachable before waiting callers fail with `ASK_UNAVAILABLE`. */
  unavailableTimeoutMs: number;
  /** How often the channel is checked while someone waits. Default 500 ms. */
  checkIntervalMs?: number;
  /**
   * After this long without evidence that the server answers, one probe call is sent. Default a fifth of
   * `unavailableTimeoutMs`, from 1 s to 5 s: the outage clock starts at most that much before the network went
   * silent.
   */
  probeIntervalMs?: number;
}

/** Watches one connection for as long as at least one caller is interested. */
export class ConnectionHealth {
  private readonly channel: Channel | undefined;
  private readonly checkIntervalMs: number;
  private readonly probeIntervalMs: number;
  private readonly listeners = new Set<(error: UserInteractionError) => void>();
  private users = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Last evidence that the server answers: a call that succeeded, a (re)connect, a probe. */
  private lastHealthyAt = Date.now();
  /** The channel was READY at the previous check: READY again is no news. */
  private wasReady = false;
  /** Set while the connection is seen failing: the outage clock runs from `lastHealthyAt`. */
  private failing = false;
  private probing = false;
  private lastProbeAt = 0;

  constructor(
    private readonly client: Client,
    private readonly options: ConnectionHealthOptions,
  ) {
    this.channel = channelOf(client);
    this.checkIntervalMs = options.checkIntervalMs ?? 500;
    this.probeIntervalMs =
      options.probeIntervalMs ?? Math.min(5_000, Math.max(1_000, options.unavailableTimeoutMs / 5));
  }

  /**
   * Registers interest while `work` runs: the connection is watched, and `onOutage` is called once the server
   * has been unreachable for longer than the bound. Returns `work`'s result.
   */
  async watch<T>(work: () => Promise<T>, onOutage?: (error: UserInteractionError) => void): Promise<T> {
    const unsubscribe = this.subscribe(onOutage);
    try {
      return await work();
    } finally {
      unsubscribe();
    }
  }

  /**
   * Registers interest until the returned function is called: the connection is watched, and `onOutage` is
   * called once the server has been unreachable for longer than the bound. For a holder of many waits, such as
   * `QuestionWaiter`, which subscribes once for all of them rather than once per wait.
   */
  subscribe(onOutage?: (error: UserInteractionError) => void): () => void {
    if (onOutage !== undefined) this.listeners.add(onOutage);
    this.retain();
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      if (onOutage !== undefined) this.listeners.delete(onOutage);
      this.release();
    };
  }

  /** The `ASK_UNAVAILABLE` error when the outage has lasted past the bound, else `undefined`. */
  outage(): UserInteractionError | undefined {
    this.check();
    if (!this.failing) return undefined;
    const elapsedMs = Date.now() - this.lastHealthyAt;
    if (elapsedMs < this.options.unavailableTimeoutMs) return undefined;
    return UserInteractionError.unavailable(
      `the server has been unreachable for ${Math.round(elapsedMs / 1000)}s`,
    );
  }

  /** Notes that a call just succeeded: the server answers. */
  markHealthy(): void {
    this.failing = false;
    this.lastHealthyAt = Date.now();
  }

  /** Notes that a call just failed to reach the server. */
  markFailing(): void {
    this.failing = true;
  }

  private retain(): void {
    this.users += 1;
    if (this.timer !== undefined) return;
    // Nobody watched until now: what happened before says nothing about the connection today.
    if (!this.failing) this.lastHealthyAt = Date.now();
    // Not unref'd: a process with a question pending stays alive, as it would on a long poll.
    this.timer = setInterval(() => this.tick(), this.checkIntervalMs);
  }

  private release(): void {
    this.users -= 1;
    if (this.users > 0 || this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    const error = this.outage();
    if (error === undefined) return;
    for (const listener of [...this.listeners]) listener(error);
  }

  private check(): void {
    if (this.channel === undefined) {
      this.probe(Math.max(2_000, this.options.unavailableTimeoutMs / 4), true);
      return;
    }
    // `true`: an idle channel (its connection dropped) tries to reconnect, so a dead server shows up as
    // TRANSIENT_FAILURE within one interval instead of sitting IDLE.
    let state: number;
    try {
      state = this.channel.getConnectivityState(true);
    } catch {
      state = ChannelState.SHUTDOWN; // the connection was closed under us
    }
    const ready = state === ChannelState.READY;
    // A channel that just (re)connected completed an HTTP/2 handshake with the server: evidence. One that stays
    // READY is not (see the header); a probe keeps the evidence fresh when no call brings any.
    if (ready && !this.wasReady) this.markHealthy();
    else if (!ready) this.markFailing();
    this.wasReady = ready;
    if (ready) this.probe(this.probeIntervalMs, false);
  }

  /**
   * One probe call at a time for the whole connection, once nothing answered for `intervalMs`. Its success is
   * evidence; its failure to reach the server marks the connection failing, but only `decides` (no channel to
   * read) lets a probe that ran out of time do so: with a channel, a slow answer is a slow server.
   */
  private probe(intervalMs: number, decides: boolean): void {
    const now = Date.now();
    if (this.probing || now - Math.max(this.lastHealthyAt, this.lastProbeAt) < intervalMs) return;
    this.probing = true;
    this.lastProbeAt = now;
    const deadline = now + Math.min(5_000, this.options.unavailableTimeoutMs);
    this.client
      .withDeadline(deadline, () => this.client.workflowService.getSystemInfo({}))
      .then(
        () => this.markHealthy(),
        (error: unknown) => {
          if (decides || (isTransient(error) && !isDeadlineExceeded(error))) this.markFailing();
        },
      )
      .finally(() => {
        this.probing = false;
      });
  }
}
