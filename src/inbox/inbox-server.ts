/**
 * `startInboxServer`: the inbox app on a Node HTTP server, bound to 127.0.0.1 unless told otherwise.
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createInboxApp, type InboxAppOptions } from './inbox-app';

/** Default port of `ask-user inbox` (the Temporal Web UI of `ask-user dev` is on 8233). */
export const DEFAULT_INBOX_PORT = 8234;
/** Default address: this machine only. */
export const DEFAULT_INBOX_HOST = '127.0.0.1';

/** Options of {@link startInboxServer}. */
export interface InboxServerOptions extends InboxAppOptions {
  /** Interface to bind. Default `127.0.0.1`; `0.0.0.0` or `::` to serve other machines. */
  host?: string;
  /** Port; 0 picks a free one. Default {@link DEFAULT_INBOX_PORT}. */
  port?: number;
}

/** A running inbox. */
export interface InboxServer {
  /** Base URL, e.g. `http://127.0.0.1:8234/`. */
  url: string;
  host: string;
  port: number;
  /** Ends the open event streams and connections and stops listening. */
  close(): Promise<void>;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts the inbox.
 *
 * @example
 * const inbox = await startInboxServer({ index: new QuestionIndex(client), auth: InboxAuth.fromEnv() });
 * console.log(`Inbox ${inbox.url}`);
 * await inbox.close();
 */
export async function startInboxServer(options: InboxServerOptions): Promise<InboxServer> {
  const { host = DEFAULT_INBOX_HOST, port = DEFAULT_INBOX_PORT, ...appOptions } = options;
  const { app, closeStreams } = createInboxApp(appOptions);
  const server = await new Promise<ServerType>((resolve, reject) => {
    const started = serve({ fetch: (request) => app.fetch(request), hostname: host, port }, () =>
      resolve(started),
    );
    started.once('error', reject);
  });
  const bound = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost(host)}:${bound.port}/`,
    host,
    port: bound.port,
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        closeStreams();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        // Event streams and keep-alive connections would hold `close()` open.
        if ('closeAllConnections' in server) server.closeAllConnections();
      })),
  };
}
