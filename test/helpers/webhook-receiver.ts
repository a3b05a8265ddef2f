/**
 * A webhook receiver for tests: an HTTP server on 127.0.0.1 that answers 204 to every POST and keeps what it
 * got, so a test can count a question's notifications (pending, reminders, escalation, resolved).
 */
import assert from 'node:assert/strict';
import http, { type IncomingHttpHeaders } from 'node:http';

import type { WebhookEvent } from '../../src/question/webhook-event';

/** One POST the receiver got. */
export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  event: WebhookEvent;
}

/** A webhook receiver on 127.0.0.1 that answers 204 and keeps every POST. */
export interface Receiver {
  url(path: string): string;
  deliveries: Delivery[];
  /** The deliveries of one question, in the order received, optionally of one event and to one path. */
  of(workflowId: string, event?: WebhookEvent['event'], path?: string): Delivery[];
  close(): Promise<void>;
}

/** Starts a receiver on a free port of 127.0.0.1; `close()` stops it. */
export async function startReceiver(): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const server = http.createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      deliveries.push({
        path: incoming.url ?? '',
        headers: incoming.headers,
        event: JSON.parse(Buffer.concat(chunks).toString('utf8')) as WebhookEvent,
      });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return {
    url: (path) => `http://127.0.0.1:${address.port}${path}`,
    deliveries,
    of: (workflowId, event, path) =>
      deliveries.filter(
        (delivery) =>
          delivery.event.workflowId === workflowId &&
          (event === undefined || delivery.event.event === event) &&
          (path === undefined || delivery.path === path),
      ),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
