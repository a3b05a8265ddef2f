/**
 * Serves MCP servers over streamable HTTP on a local port, as `ask-user mcp --http PORT` does, to both eras on
 * one endpoint:
 * - a 2026-07-28 request (it carries its version and capabilities in `_meta`) goes to the SDK's
 *   `createMcpHandler`, which builds a server for that one request: nothing lives between requests, so any
 *   instance can serve any request;
 * - a 2025-11-25 client gets an MCP session (`initialize`, then `Mcp-Session-Id`), one server per session, as
 *   before: that era's forms are server-to-client requests, which need the session's open stream. Its streams
 *   are resumable (see `mcp-event-store.ts`).
 *
 * It binds to 127.0.0.1 only, and the SDK's host and origin checks refuse a request whose `Host` or `Origin` is
 * not a loopback name, so that a web page cannot reach it through DNS rebinding.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler, type NodeIncomingMessageLike } from '@modelcontextprotocol/node';
import {
  type Server,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import { McpSessionEventStore } from './mcp-event-store';

/** Options of {@link serveMcpOverHttp}. */
export interface McpHttpOptions {
  /** TCP port; 0 picks a free one (see the returned `url`). */
  port: number;
  /** Path of the MCP endpoint. Default `/mcp`. */
  path?: string;
  /** Creates the server of one 2025-11-25 session, or of one 2026-07-28 request. */
  createServer: () => Server;
  /** Where errors outside any request go (one line each). Default: nowhere. */
  log?: (line: string) => void;
}

/** A running HTTP endpoint. */
export interface McpHttpEndpoint {
  /** The endpoint URL, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string;
  /** Closes every session and stops listening. */
  close(): Promise<void>;
}

/** How soon a client whose stream dropped should reconnect, as every stream's priming event says. */
const SSE_RETRY_MS = 3_000;

function jsonRpcError(status: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status });
}

/** The 2025-11-25 sessions: one server and transport each, found again by `Mcp-Session-Id`. */
class LegacySessions {
  private readonly sessions = new Map<
    string,
    { transport: WebStandardStreamableHTTPServerTransport; server: Server }
  >();

  constructor(private readonly createServer: () => Server) {}

  async fetch(request: Request): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
      const session = this.sessions.get(sessionId);
      if (session === undefined) return jsonRpcError(404, 'unknown MCP session');
      return await session.transport.handleRequest(request);
    }
    if (request.method !== 'POST') return jsonRpcError(400, 'an MCP session starts with an initialize POST');
    const server = this.createServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Resumable streams: each opens with a priming event (an id, and how soon to reconnect), and a client
      // whose stream dropped reconnects with `Last-Event-ID` to get what it missed.
      eventStore: new McpSessionEventStore(),
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, server });
      },
    });
    server.onclose = () => {
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    // Not an initialize request: the transport refused it and no session began.
    if (transport.sessionId === undefined) await server.close();
    return response;
  }

  async close(): Promise<void> {
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(open.map(({ server }) => server.close()));
  }
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
  const onerror = (error: Error): void => options.log?.(`http: ${error.message}`);
  const legacy = new LegacySessions(options.createServer);
  const modern = createMcpHandler(() => options.createServer(), { legacy: 'reject', onerror });

  async function route(request: Request): Promise<Response> {
    const refused =
      hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
      originValidationResponse(request, localhostAllowedOrigins());
    if (refused !== undefined) return refused;
    if (new URL(request.url).pathname !== endpointPath) {
      return jsonRpcError(404, `the MCP endpoint is ${endpointPath}`);
    }
    return (await isLegacyRequest(request)) ? await legacy.fetch(request) : await modern.fetch(request);
  }

  const handle = toNodeHandler({ fetch: route }, { onerror });
  const httpServer = http.createServer((request, response) => {
    // The adapter's request type spells `method?: string`, which Node's (`string | undefined`) satisfies only
    // without exactOptionalPropertyTypes.
    handle(request as NodeIncomingMessageLike, response).catch((error: unknown) => {
      onerror(error instanceof Error ? error : new Error(String(error)));
      if (!response.headersSent) response.writeHead(500);
      response.end();
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

  return {
    url: `http://${host}:${port}${endpointPath}`,
    async close() {
      await legacy.close();
      await modern.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
