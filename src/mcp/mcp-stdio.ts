/**
 * The stdio transport, kept beside the HTTP one so that the MCP SDK is this package's dependency alone: the CLI
 * serves over either without importing the SDK itself.
 *
 * The SDK's `serveStdio` serves both eras on one pipe: a client that opens with `initialize` (2025-11-25) gets a
 * connection pinned to that era, one that opens with `server/discover` (2026-07-28) the stateless protocol.
 * One server per connection either way, from `createServer`.
 */
import type { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

/** A stdio connection being served. */
export interface McpStdioConnection {
  /** Closes the connection's server and the transport. */
  close(): Promise<void>;
}

/** Serves `createServer()`'s server on this process's stdin and stdout. */
export function connectMcpOverStdio(
  createServer: () => Server,
  onerror?: (error: Error) => void,
): McpStdioConnection {
  return serveStdio(() => createServer(), onerror === undefined ? {} : { onerror });
}
