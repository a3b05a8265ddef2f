/**
 * `ask-user mcp --http` at scale and over bad networks, run for real against a dev server and an ask-user
 * worker: two instances behind a round-robin proxy serve one 2026-07-28 client's task (nothing of it lives in
 * either), and a 2025-11-25 client whose stream drops mid-wait resumes it with `Last-Event-ID`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { DEPLOY_ARGS as ARGS, YES_TEXT, startMcpStack, type McpStack } from '../helpers/mcp-fixture';
import { asTaskId, connectTaskClient, type TaskClient } from '../helpers/mcp-task-client';
import { startRoundRobinProxy, type RoundRobinProxy } from '../helpers/mcp-round-robin-proxy';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { waitFor } from '../helpers/wait';

const LEGACY_VERSION = '2025-11-25';

let mcp: McpStack;
const proxies: RoundRobinProxy[] = [];
const clients: TaskClient[] = [];

/** Starts `ask-user mcp --http` (progress, and polls suggested, every second) and returns its URL. */
async function startServer(): Promise<URL> {
  return (await mcp.startHttpServer({ args: ['--progress-interval', '1'] })).url;
}

before(async () => {
  mcp = await startMcpStack('mcp-http');
});

after(async () => {
  try {
    await Promise.allSettled(clients.map((client) => client.close()));
    await Promise.allSettled(proxies.map((proxy) => proxy.close()));
  } finally {
    await mcp?.stop();
  }
});

describe('the stateless era scales out', () => {
  test('two instances behind a round-robin proxy complete one task, its polls split across both', async () => {
    const proxy = await startRoundRobinProxy([await startServer(), await startServer()]);
    proxies.push(proxy);
    const client = await connectTaskClient(proxy.url);
    clients.push(client);
    const execution = await client.session.callTool('ask_user_question', ARGS);
    assert.ok(execution.kind === 'task');
    const taskId: string = execution.handle.taskId;
    await waitForPendingRecord(mcp.dev.client, taskId);
    const polls = (index: number): number => proxy.served[index]!['tasks/get'] ?? 0;
    await waitFor('two polls on each instance', () => (polls(0) >= 2 && polls(1) >= 2 ? true : undefined));
    await mcp.answerFromAnotherProcess(taskId);
    const { outcome } = await execution.settle();
    assert.ok(outcome.status === 'completed', JSON.stringify(outcome));
    assert.deepEqual((outcome.result as { content: unknown }).content, [{ type: 'text', text: YES_TEXT }]);
    const calls = proxy.served.map((served) => served['tools/call'] ?? 0);
    assert.equal(calls[0]! + calls[1]!, 1);
    // Read back through the other instance too: the task is the question, whichever instance reads it.
    assert.equal((await client.session.task(asTaskId(taskId)).snapshot()).status, 'completed');
  });
});

/** One server-sent event. */
interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** Reads SSE events from `body` until `until` says stop; returns them. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  until: (event: SseEvent, all: SseEvent[]) => boolean,
): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event: SseEvent = { data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) event.id = line.slice(3).trim();
        else if (line.startsWith('retry:')) event.retry = Number(line.slice(6));
        else if (line.startsWith('data:')) event.data += line.slice(5).trim();
      }
      if (event.id === undefined && event.data === '') continue; // a keep-alive comment
      events.push(event);
      if (until(event, events)) return events;
    }
  }
  return events;
}

describe('2025-11-25 streams are resumable', () => {
  test('a stream that drops while the question waits resumes with Last-Event-ID and gets the answer', async () => {
    const url = await startServer();
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LEGACY_VERSION,
    };
    const initialize = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: LEGACY_VERSION,
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    const sessionId = initialize.headers.get('mcp-session-id')!;
    await initialize.text();
    const session = { ...headers, 'mcp-session-id': sessionId };
    await fetch(url, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    }).then((response) => response.text());

    const toolCallId = `resumed-${process.pid}`;
    const dropped = new AbortController();
    const call = await fetch(url, {
      method: 'POST',
      headers: session,
      signal: dropped.signal,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId, progressToken: 'p' } },
      }),
    });
    // The priming event first (an id, no data, and how soon to reconnect), then progress, each with an id.
    const before = await readEvents(call.body!, (_event, all) => all.length === 2);
    assert.equal(before[0]?.data, '');
    assert.equal(before[0]?.retry, 3000);
    assert.match(before[1]?.data ?? '', /"method":"notifications\/progress"/);
    dropped.abort();

    const workflowId = `ask-user-question/mcp/${toolCallId}`;
    await mcp.answerFromAnotherProcess(workflowId);
    const resumed = await fetch(url, {
      headers: { ...session, accept: 'text/event-stream', 'last-event-id': before[1]!.id! },
    });
    assert.equal(resumed.status, 200);
    const after = await readEvents(resumed.body!, (event) => event.data.includes('"id":2'));
    const response = JSON.parse(after.at(-1)!.data) as { result: { content: unknown } };
    assert.deepEqual(response.result.content, [{ type: 'text', text: YES_TEXT }]);
  });
});
