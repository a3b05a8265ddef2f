/**
 * `GET /api/events`: server-sent events of questions becoming pending and being resolved, from the index's
 * watcher. A stream lives a bounded time and then ends (the browser reconnects, proving its login again, so a
 * logout on any replica ends its streams within that time), one login holds a bounded number of them on each
 * replica, and the inbox can end them all when it shuts down.
 */
import type { SSEStreamingApi } from 'hono/streaming';
import { streamSSE } from 'hono/streaming';
import { definedFields, errorText } from '../common';
import type { QuestionEvent } from '../ops/question-watcher';
import { streamEventsRoute } from './api-routes';
import { failure, inboxHono, type Identity, type InboxHono } from './inbox-hono';
import type { QuestionIndex } from './question-index';
import { withAssignment } from './question-routes';

/** Default of `InboxAppOptions.streamLifetimeMs`: 15 minutes. */
export const DEFAULT_STREAM_LIFETIME_MS = 15 * 60_000;

/**
 * Most event streams one login (a session, or a token's holder) may hold open on one inbox process. Counted
 * per replica: the cap bounds the connections and watchers of a process, which is what it protects, and a
 * count shared by replicas would outlive a replica that died holding streams.
 */
export const MAX_STREAMS_PER_LOGIN = 5;

/** How soon a browser reconnects a stream the inbox ended (the `retry` field of the first event). */
const RECONNECT_MS = 1000;

/** How often an idle event stream carries a comment, so proxies keep it open. */
const KEEPALIVE_MS = 20_000;

/** The event route, and a way to end its open streams (for a server that is shutting down). */
export interface EventRoutes {
  routes: InboxHono;
  closeStreams: () => void;
}

/** Sends one stream's events in the order they come, a write never overtaking the one before. */
class EventWriter {
  private writing = Promise.resolve();

  constructor(private readonly stream: SSEStreamingApi) {}

  send(event: string, data: unknown, retry?: number): void {
    const message = definedFields({ event, data: JSON.stringify(data), retry });
    this.writing = this.writing.then(() => this.stream.writeSSE(message)).catch(() => undefined);
  }

  keepalive(): void {
    this.writing = this.writing
      .then(() => this.stream.write(': keepalive\n\n'))
      .then(
        () => undefined,
        () => undefined,
      );
  }

  /** Resolves once every write sent so far has been made (or failed). */
  async flushed(): Promise<void> {
    await this.writing;
  }
}

/** One stream: whose it is, how long it may live, and the set of open streams the inbox can end. */
interface StreamContext {
  index: QuestionIndex;
  identity: Identity;
  lifetimeMs: number;
  open: Set<() => void>;
  /** Called as the stream ends, before its last writes are flushed: it no longer counts against its login. */
  release: () => void;
}

/** Runs one stream until it is aborted, closed by the inbox, or its lifetime ends. */
async function runStream(
  stream: SSEStreamingApi,
  { index, identity, lifetimeMs, open, release }: StreamContext,
): Promise<void> {
  const writer = new EventWriter(stream);
  const subscription = index.subscribe((event: QuestionEvent) =>
    writer.send(event.type, withAssignment(event.question, identity)),
  );
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const end = (): void => finish();
  open.add(end);
  stream.onAbort(end);
  const keepalive = setInterval(() => writer.keepalive(), KEEPALIVE_MS);
  const lifetime = setTimeout(end, lifetimeMs);
  try {
    await subscription.ready;
    writer.send('ready', {}, RECONNECT_MS);
    await finished;
  } catch (error) {
    writer.send('error', { message: errorText(error) });
  } finally {
    clearInterval(keepalive);
    clearTimeout(lifetime);
    subscription.close();
    open.delete(end);
    release();
    await writer.flushed();
  }
}

/** The event stream route over `index`; each stream ends after `lifetimeMs`. */
export function eventRoutes(index: QuestionIndex, lifetimeMs: number): EventRoutes {
  const routes = inboxHono();
  const open = new Set<() => void>();
  const streamsPerLogin = new Map<string, number>();
  routes.openapi(streamEventsRoute, (c) => {
    const identity = c.get('identity');
    const login =
      identity.session === undefined ? `token:${identity.name}` : `session:${identity.session.id}`;
    const count = streamsPerLogin.get(login) ?? 0;
    if (count >= MAX_STREAMS_PER_LOGIN) {
      return failure(
        c,
        429,
        'TOO_MANY_REQUESTS',
        `at most ${MAX_STREAMS_PER_LOGIN} event streams per login: close one (another tab) first`,
      );
    }
    streamsPerLogin.set(login, count + 1);
    const release = (): void => {
      const left = (streamsPerLogin.get(login) ?? 1) - 1;
      if (left > 0) streamsPerLogin.set(login, left);
      else streamsPerLogin.delete(login);
    };
    return streamSSE(c, (stream) => runStream(stream, { index, identity, lifetimeMs, open, release }));
  });
  return {
    routes,
    closeStreams: () => {
      for (const end of [...open]) end();
    },
  };
}
