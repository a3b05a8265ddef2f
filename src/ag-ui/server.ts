/**
 * The AG-UI HTTP endpoint: `POST` a `RunAgentInput` as JSON, read the run's events as server-sent events
 * (`data: <event JSON>`), as `@ag-ui/client`'s `HttpAgent` sends and reads them. A body that is no run input is
 * refused with 400 and the field; everything after that is said in the event stream.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunAgentInput } from '@ag-ui/core';
import { isPlainObject } from '../common';
import type { Answerer } from '../ops';
import { runAgUiAgent, type AgUiAgentOptions } from './run';

/** The largest request body read: a thread's messages, with room to spare. */
const MAX_BODY_BYTES = 8 * 2 ** 20;

/** Options of {@link agUiRequestListener}. */
export interface AgUiEndpointOptions extends AgUiAgentOptions {
  /**
   * Who answers through a request, recorded with each answer and decision and checked against a question's
   * audience. Authenticate the request here (a session, a bearer token); throw to refuse it with 401.
   * Default `{ name: 'ag-ui' }`.
   */
  answerer?: (request: http.IncomingMessage) => Answerer | Promise<Answerer>;
}

class BadRequest extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/** The problems of a body as a run input, each naming its field. */
function inputProblems(body: unknown): string[] {
  if (!isPlainObject(body)) return ['body: must be a JSON object (RunAgentInput)'];
  const problems: string[] = [];
  for (const field of ['threadId', 'runId'] as const) {
    if (!nonEmptyString(body[field])) problems.push(`${field}: must be a non-empty string`);
  }
  if (!Array.isArray(body.messages)) problems.push('messages: must be an array');
  else {
    body.messages.forEach((message: unknown, index) => {
      if (!isPlainObject(message) || !nonEmptyString(message.role))
        problems.push(`messages[${index}].role: must be a string`);
    });
  }
  if (body.resume !== undefined) {
    if (!Array.isArray(body.resume)) problems.push('resume: must be an array');
    else {
      body.resume.forEach((entry: unknown, index) => {
        if (!isPlainObject(entry) || !nonEmptyString(entry.interruptId)) {
          problems.push(`resume[${index}].interruptId: must be a non-empty string`);
        } else if (entry.status !== 'resolved' && entry.status !== 'cancelled') {
          problems.push(`resume[${index}].status: must be "resolved" or "cancelled"`);
        }
      });
    }
  }
  return problems;
}

async function readBody(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BadRequest(413, `body: over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch (error) {
    throw new BadRequest(400, `body: not JSON (${(error as Error).message})`);
  }
}

async function runInput(request: http.IncomingMessage): Promise<RunAgentInput> {
  const body = await readBody(request);
  const problems = inputProblems(body);
  if (problems.length > 0) throw new BadRequest(400, problems.slice(0, 5).join('; '));
  const input = body as RunAgentInput;
  return { ...input, tools: input.tools ?? [], context: input.context ?? [] };
}

function refuse(response: http.ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: message }));
}

/**
 * A Node request listener that serves the agent's runs on `POST`: mount it in your own server, or use
 * {@link serveAgUiAgent}.
 */
export function agUiRequestListener(
  options: AgUiEndpointOptions,
): (request: http.IncomingMessage, response: http.ServerResponse) => void {
  return (request, response) => {
    void (async () => {
      if (request.method !== 'POST') return refuse(response, 405, 'method: POST a RunAgentInput');
      let input: RunAgentInput;
      let answerer: Answerer;
      try {
        input = await runInput(request);
      } catch (error) {
        if (error instanceof BadRequest) return refuse(response, error.status, error.message);
        throw error;
      }
      try {
        answerer = (await options.answerer?.(request)) ?? { name: 'ag-ui' };
      } catch (error) {
        return refuse(response, 401, `unauthorized: ${(error as Error).message}`);
      }
      const gone = new AbortController();
      response.on('close', () => {
        if (!response.writableFinished) gone.abort();
      });
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      for await (const event of runAgUiAgent(input, { ...options, answerer }, gone.signal)) {
        response.write(`data: ${JSON.stringify(event)}\n\n`);
      }
      response.end();
    })().catch((error: unknown) => {
      if (!response.headersSent) refuse(response, 500, (error as Error).message);
      else response.destroy(error as Error);
    });
  };
}

/** A running {@link serveAgUiAgent}. */
export interface AgUiEndpoint {
  /** Where `HttpAgent` posts: `http://<host>:<port><path>`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the agent as an AG-UI endpoint on `host:port` (default `127.0.0.1`, a free port) at `path` (default
 * `/`); any other path is 404.
 *
 * @example
 * const endpoint = await serveAgUiAgent({
 *   questions: await QuestionClient.connect(),
 *   agentId: 'deploy-bot',
 *   createAgent: (userInteraction) =>
 *     new ToolLoopAgent({ model, tools: { ask_user_question: askUserQuestionAiTool(userInteraction) } }),
 *   port: 8000,
 * });
 * const agent = new HttpAgent({ url: endpoint.url });
 */
export async function serveAgUiAgent(
  options: AgUiEndpointOptions & { host?: string; port?: number; path?: string },
): Promise<AgUiEndpoint> {
  const { host = '127.0.0.1', port = 0, path = '/' } = options;
  const listener = agUiRequestListener(options);
  const server = http.createServer((request, response) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== path)
      return refuse(response, 404, `path: serve ${path}`);
    listener(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}${path}`,
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
