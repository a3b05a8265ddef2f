/**
 * The inbox from a test's side: an inbox server over a client, HTTP calls with a bearer token or a page
 * session, and a reader of its server-sent events.
 */
import type { Client } from '@temporalio/client';

import {
  InboxAuth,
  QuestionIndex,
  startInboxServer,
  type InboxServer,
  type InboxUser,
} from '../../src/inbox';

/** The shared token of test inboxes: long enough to be accepted. */
export const INBOX_TOKEN = 'test-inbox-token-0123456789abcdef';

/** Starts an inbox on a free port of 127.0.0.1 that polls visibility every 200 ms. */
export async function startTestInbox(
  client: Client,
  options: { users?: InboxUser[]; maxBodyBytes?: number } = {},
): Promise<InboxServer> {
  return await startInboxServer({
    index: new QuestionIndex(client, { pollIntervalMs: 200 }),
    auth: new InboxAuth({
      token: INBOX_TOKEN,
      ...(options.users === undefined ? {} : { users: options.users }),
    }),
    port: 0,
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
  });
}

/** A response, read whole. */
export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  json: unknown;
}

/** Sends a request to the inbox and reads the whole response. */
export async function request(
  inbox: InboxServer,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<HttpResult> {
  const response = await fetch(new URL(path, inbox.url), {
    method,
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Headers of a JSON request with the shared token. */
export function bearer(token = INBOX_TOKEN): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
}

/** The API path of a question, its id encoded as the page encodes it. */
export function questionPath(workflowId: string, action?: 'answer' | 'decline'): string {
  return `/api/questions/${encodeURIComponent(workflowId)}${action === undefined ? '' : `/${action}`}`;
}

/** One server-sent event. */
export interface ServerEvent {
  event: string;
  data: unknown;
}

/** An open `/api/events` stream: the events so far, a wait for the next matching one, and `close()`. */
export interface EventStream {
  events: ServerEvent[];
  next(match: (event: ServerEvent) => boolean, timeoutMs?: number): Promise<ServerEvent>;
  close(): void;
}

/** Opens `/api/events` with `headers` and collects what it sends. */
export async function openEvents(inbox: InboxServer, headers: Record<string, string>): Promise<EventStream> {
  const controller = new AbortController();
  const response = await fetch(new URL('/api/events', inbox.url), { headers, signal: controller.signal });
  if (response.status !== 200 || response.body === null) {
    throw new Error(`/api/events answered ${response.status}: ${await response.text()}`);
  }
  const events: ServerEvent[] = [];
  const waiters = new Set<() => void>();
  let ended = false;
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (data.length === 0) continue; // a keepalive comment
          events.push({ event, data: JSON.parse(data.join('\n')) });
          for (const waiter of waiters) waiter();
        }
      }
    } catch {
      // Closed by the test.
    } finally {
      ended = true;
      for (const waiter of waiters) waiter();
    }
  })();
  let seen = 0;
  return {
    events,
    next: (match, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          while (seen < events.length) {
            const event = events[seen++]!;
            if (match(event)) return finish(() => resolve(event));
          }
          if (ended) return finish(() => reject(new Error('the event stream ended')));
          return undefined;
        };
        const timer = setTimeout(
          () =>
            finish(() =>
              reject(new Error(`no matching event after ${timeoutMs} ms; got ${JSON.stringify(events)}`)),
            ),
          timeoutMs,
        );
        const finish = (settle: () => void): void => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      }),
    close: () => controller.abort(),
  };
}
