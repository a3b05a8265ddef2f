/**
 * A loopback HTTP proxy that sends each request to the next of its backends in turn (round robin), as a load
 * balancer with no affinity would, and counts which backend served which JSON-RPC method (`Mcp-Method`).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running proxy. */
export interface RoundRobinProxy {
  /** The proxy's MCP endpoint: the backends' path on the proxy's port. */
  url: URL;
  /** Per backend (in the order given), how many requests of each method it served. */
  served: Record<string, number>[];
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 in front of `backends` (MCP endpoint URLs on one path). */
export async function startRoundRobinProxy(backends: readonly URL[]): Promise<RoundRobinProxy> {
  const served = backends.map((): Record<string, number> => ({}));
  let next = 0;
  const server = http.createServer((request, response) => {
    const index = next;
    next = (next + 1) % backends.length;
    const method = request.headers['mcp-method'];
    const key = typeof method === 'string' ? method : `${request.method ?? 'GET'} (no Mcp-Method)`;
    served[index]![key] = (served[index]![key] ?? 0) + 1;
    const target = backends[index]!;
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: request.url,
        method: request.method,
        headers: request.headers,
      },
      (reply) => {
        response.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(response);
      },
    );
    upstream.on('error', () => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}${backends[0]!.pathname}`),
    served,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
