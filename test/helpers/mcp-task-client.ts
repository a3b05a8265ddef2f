/**
 * A 2026-07-28 MCP client for the tests of `ask-user mcp --http`: the v2 SDK's `Client` (pinned to the
 * stateless era) with `@modelcontextprotocol/ext-tasks`'s task session on top.
 *
 * The task session sends its task traffic (`tools/call` with the Tasks capability, `tasks/*`) through a raw
 * dispatch the host provides, because the SDK client's own codecs do not carry those wire shapes; here that is
 * one HTTP POST per request, with the standard headers the SDK's server checks (`MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`), read back from JSON or from an SSE stream.
 *
 * ext-tasks is published as ES modules only, so it is loaded with `import()`.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type {
  ApplicationElicitResult,
  ApplicationInputRequest,
  JsonRpcResponse,
  TaskEnabledSession,
} from '@modelcontextprotocol/ext-tasks/client' with { 'resolution-mode': 'import' };
import type { TaskId } from '@modelcontextprotocol/ext-tasks/core' with { 'resolution-mode': 'import' };

export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** A form the server asked the client to show, and what the test replies. */
export type FormHandler = (
  params: Readonly<Record<string, unknown>>,
  inputId: string | undefined,
) => ApplicationElicitResult | Promise<ApplicationElicitResult>;

/** Options of {@link connectTaskClient}. */
export interface TaskClientOptions {
  /** Declares form elicitation and shows every form through this handler. Default: no forms. */
  forms?: FormHandler;
  name?: string;
  /** Called with the method of every raw request. */
  onDispatch?: (method: string) => void;
}

/** A connected client and its task session. */
export interface TaskClient {
  client: Client;
  session: TaskEnabledSession;
  close(): Promise<void>;
}

/** A task id as ext-tasks types it (a branded string). */
export function asTaskId(id: string): TaskId {
  return id as TaskId;
}

let nextRequestId = 1;

/** The JSON-RPC response in an HTTP response body: plain JSON, or the SSE event that carries it. */
function responseMessage(text: string, contentType: string, id: number): Record<string, unknown> {
  if (!contentType.includes('text/event-stream')) return JSON.parse(text) as Record<string, unknown>;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice('data:'.length).trim();
    if (data === '') continue;
    const message = JSON.parse(data) as Record<string, unknown>;
    if (message.id === id) return message;
  }
  throw new Error(`no response to request ${id} in the stream:\n${text}`);
}

/** How long a request keeps trying to reach a server that is not listening (one being restarted). */
const RECONNECT_FOR_MS = 60_000;

/** `fetch`, tried again while nothing listens at the address (the server is restarting). */
async function fetchRetrying(url: URL, init: RequestInit): Promise<Response> {
  const deadline = Date.now() + RECONNECT_FOR_MS;
  for (;;) {
    try {
      return await fetch(url, init);
    } catch (error) {
      const refused = (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
      if (!refused || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** One raw JSON-RPC request over HTTP, as the task session frames it. */
export async function postRequest(url: URL, request: Record<string, unknown>): Promise<JsonRpcResponse> {
  const id = nextRequestId++;
  const method = String(request.method);
  const params = (request.params ?? {}) as Record<string, unknown>;
  const name = method === 'tools/call' ? params.name : params.taskId;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
    'mcp-method': method,
  };
  if (typeof name === 'string') headers['mcp-name'] = name;
  const response = await fetchRetrying(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, ...request }),
  });
  const message = responseMessage(await response.text(), response.headers.get('content-type') ?? '', id);
  if (message.error !== undefined) return { kind: 'error', error: message.error as never };
  return { kind: 'result', result: message.result as never };
}

/** Connects to `url` in the stateless era and opens a task session on it. */
export async function connectTaskClient(url: URL, options: TaskClientOptions = {}): Promise<TaskClient> {
  const tasks = await import('@modelcontextprotocol/ext-tasks/client');
  const clientInfo = { name: options.name ?? 'task-client', version: '1.0.0' };
  const capabilities = options.forms === undefined ? {} : { elicitation: { form: {} } };
  const client = new Client(clientInfo, {
    capabilities,
    versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } },
  });
  await client.connect(new StreamableHTTPClientTransport(url));
  const forms = options.forms;
  // ext-tasks types its Client from the SDK's ES module declarations, this file from the CommonJS ones: the
  // same class.
  const session = tasks.createTaskSessionFromClient(client as never, {
    endpointId: url.href,
    rawDispatch: async (request) => {
      const framed = request as Record<string, unknown>;
      options.onDispatch?.(String(framed.method));
      return await postRequest(url, framed);
    },
    v2RequestFraming: {
      protocolVersion: MODERN_PROTOCOL_VERSION,
      clientInfo,
      clientCapabilities: capabilities,
    },
    ...(forms === undefined
      ? {}
      : {
          onInputRequest: async (request: ApplicationInputRequest, context: { inputId?: string }) => {
            if (request.kind !== 'elicitation') throw new Error(`unexpected ${request.kind} request`);
            return (await forms(request.params, context.inputId)) as never;
          },
        }),
  });
  return {
    client,
    session,
    close: async () => {
      await session.close();
      await client.close();
    },
  };
}
