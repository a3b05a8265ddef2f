/**
 * Serves MCP servers over streamable HTTP on a local port, one server per MCP session, as `ask-user mcp
 * --http PORT` does. It binds to 127.0.0.1 only and refuses requests whose `Host` or `Origin` is not that
 * address or `localhost` on that port, so that a web page cannot reach it through DNS rebinding.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { errorText } from '../common';

/** Options of {@link serveMcpOverHttp}. */
export interface McpHttpOptions {
  /** TCP port; 0 picks a free one (see the returned `url`). */
  port: number;
  /** Path of the MCP endpoint. Default `/mcp`. */
  path?: string;
  /** Creates the server of one new session. */
  createServer: () => Server;
}

/** A running HTTP endpoint. */
export interface McpHttpEndpoint {
  /** The endpoint URL, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string;
  /** Closes every session and stops listening. */
  close(): Promise<void>;
}

function sendJsonRpcError(response: http.ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * Listens on `127.0.0.1:port` and serves `createServer()`'s servers over streamable HTTP at `path`.
 *
 * @example
 * const endpoint = await serveMcpOverHttp({ port: 3000, createServer: () => createAskUserMcpServer({ userInteraction }) });
 */
export async function serveMcpOverHttp(options: McpHttpOptions): Promise<McpHttpEndpoint> {
  const host = '127.0.0.1';
  const endpointPath = options.path ?? '/mcp';
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();
  let allowedHosts: Set<string> = new Set();

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const hostHeader = request.headers.host ?? '';
    const origin = request.headers.origin;
    if (
      !allowedHosts.has(hostHeader) ||
      (origin !== undefined && !allowedHosts.has(origin.replace(/^https?:\/\//, '')))
    ) {
      sendJsonRpcError(response, 403, `host ${JSON.stringify(origin ?? hostHeader)} is not allowed`);
      return;
    }
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== endpointPath) {
      sendJsonRpcError(response, 404, `the MCP endpoint is ${endpointPath}`);
      return;
    }
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (session === undefined) {
        sendJsonRpcError(response, 404, 'unknown MCP session');
        return;
      }
      await session.transport.handleRequest(request, response);
      return;
    }
    if (request.method !== 'POST') {
      sendJsonRpcError(response, 400, 'an MCP session starts with an initialize POST');
      return;
    }
    const server = options.createServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server });
      },
    });
    server.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(request, response);
    // Not an initialize request: the transport refused it and no session began.
    if (transport.sessionId === undefined) await server.close();
  }

  const httpServer = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        sendJsonRpcError(response, 500, errorText(error));
      } else {
        response.end();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const { port } = httpServer.address() as AddressInfo;
  allowedHosts = new Set([`${host}:${port}`, `localhost:${port}`]);

  return {
    url: `http://${host}:${port}${endpointPath}`,
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map(({ server }) => server.close()));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
