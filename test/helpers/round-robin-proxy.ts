/**
 * A load balancer in miniature, on loopback: each request (not each connection: a browser keeps its
 * connections alive) goes to the next upstream in turn, with its Host header kept, so the upstreams see the
 * proxy's origin as their own. It records which upstream served each request.
 */
import http from 'node:http';

/** One request the proxy passed on. */
export interface ProxiedRequest {
  method: string;
  path: string;
  /** Index of the upstream that served it. */
  upstream: number;
  status: number;
}

/** A running proxy. */
export interface RoundRobinProxy {
  /** Base URL, e.g. `http://127.0.0.1:4321/`. */
  url: string;
  /** The requests passed on so far, in the order they came. */
  served: ProxiedRequest[];
  close(): Promise<void>;
}

/** Passes one request to `upstream` and its response back; 502 when the upstream cannot be reached. */
function forward(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  upstream: URL,
  record: (status: number) => void,
): void {
  const outgoing = http.request(
    {
      hostname: upstream.hostname,
      port: upstream.port,
      method: request.method,
      path: request.url,
      headers: request.headers,
      agent: false,
    },
    (answer) => {
      record(answer.statusCode ?? 0);
      response.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(response);
    },
  );
  outgoing.on('error', (error) => {
    record(502);
    if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
    response.end(`proxy: ${upstream.href} unreachable: ${error.message}\n`);
  });
  // A client that goes away (an event stream closed) ends the upstream request too.
  response.on('close', () => outgoing.destroy());
  request.pipe(outgoing);
}

/** Starts a proxy on 127.0.0.1:`port` over `upstreams` (base URLs), taking them in turn from the first. */
export async function startRoundRobinProxy(
  upstreams: readonly string[],
  port: number,
): Promise<RoundRobinProxy> {
  const targets = upstreams.map((each) => new URL(each));
  const served: ProxiedRequest[] = [];
  let next = 0;
  const server = http.createServer((request, response) => {
    const upstream = next++ % targets.length;
    const entry = { method: request.method ?? 'GET', path: request.url ?? '/', upstream, status: 0 };
    served.push(entry);
    forward(request, response, targets[upstream]!, (status) => (entry.status = status));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
