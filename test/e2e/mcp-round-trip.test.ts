/**
 * `ask_user_question` as a multi round-trip call (protocol 2026-07-28, SEP-2322) for a client that shows forms
 * but takes no tasks, run for real: `ask-user mcp --http` against a dev server and an ask-user worker. Driven by
 * the v2 SDK's `Client`, which fulfils the forms and retries by itself, and by raw requests for what a client
 * must not be able to do (tamper with, replay or outlive a `requestState`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import { checkAnswer } from '../../src/answer';
import { startChild } from '../fixtures/child-process';
import { DEPLOY_ARGS as ARGS, NO_TEXT, YES_TEXT, startMcpStack, type McpStack } from '../helpers/mcp-fixture';
import { MODERN_PROTOCOL_VERSION, postRequest } from '../helpers/mcp-task-client';
import { waitForPendingRecord } from '../helpers/pending-questions';
import type { DevServerWithClient } from '../helpers/temporal';

const STATE_KEY = 'a test key of more than thirty-two bytes, shared';

const OTHER_ARGS = {
  questions: [{ ...ARGS.questions[0]!, question: 'Deploy build 1.4.3 to production now?' }],
};
const REFUSED = {
  kind: 'error',
  error: {
    code: -32602,
    message: 'Invalid or expired requestState',
    data: { reason: 'invalid_request_state' },
  },
};

let mcp: McpStack;
let stack: DevServerWithClient;
let url: URL;
const clients = new Set<Client>();

/** Starts `ask-user mcp --http 0` and returns its endpoint once it listens. */
async function startServer(env: Record<string, string> = {}): Promise<URL> {
  return (await mcp.startHttpServer({ env })).url;
}

before(async () => {
  mcp = await startMcpStack('mcp-round-trip', { env: { ASK_USER_MCP_STATE_KEY: STATE_KEY } });
  stack = mcp.dev;
  url = await startServer();
});

after(async () => {
  try {
    await Promise.allSettled([...clients].map((client) => client.close()));
  } finally {
    await mcp?.stop();
  }
});

async function rawCall(
  at: URL,
  args: unknown,
  retry: { inputResponses?: unknown; requestState?: string } = {},
  clientName = 'raw-client',
): Promise<{ kind: string; result?: unknown; error?: unknown }> {
  return await postRequest(at, {
    method: 'tools/call',
    params: {
      name: 'ask_user_question',
      arguments: args as never,
      ...(retry as Record<string, never>),
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: clientName, version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      },
    },
  });
}

/** The first round of a raw call: its forms, its state, and the workflow id the state names. */
async function firstRound(
  at = url,
  args: unknown = ARGS,
): Promise<{ inputRequests: Record<string, unknown>; requestState: string; workflowId: string }> {
  const response = await rawCall(at, args);
  assert.equal(response.kind, 'result', JSON.stringify(response));
  const result = response.result as {
    resultType: string;
    inputRequests: Record<string, unknown>;
    requestState: string;
  };
  assert.equal(result.resultType, 'input_required');
  assert.deepEqual(Object.keys(result.inputRequests), ['question-1']);
  // Signed, not encrypted: its payload is readable ("v1." base64url(body) "." mac).
  const body = JSON.parse(Buffer.from(result.requestState.split('.')[1]!, 'base64url').toString('utf8')) as {
    p: { w: string };
  };
  await waitForPendingRecord(stack.client, body.p.w);
  return { ...result, workflowId: body.p.w };
}

const ACCEPT_NO = { 'question-1': { action: 'accept', content: { deploy: 'No' } } };

/** The answer text of a raw call's final result. */
function resultText(response: { kind: string; result?: unknown }): string {
  assert.equal(response.kind, 'result', JSON.stringify(response));
  const result = response.result as { resultType: string; content: { text: string }[] };
  assert.equal(result.resultType, 'complete');
  return result.content[0]!.text;
}

/** A v2 SDK client in the stateless era that shows forms through `reply`, and records them. */
async function formClient(
  reply: (message: string) => string,
): Promise<{ client: Client; messages: string[] }> {
  const messages: string[] = [];
  const client = new Client(
    { name: 'sdk-form-client', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } },
    },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    const message = String(request.params.message);
    messages.push(message);
    return { action: 'accept', content: { deploy: reply(message) } };
  });
  await client.connect(new StreamableHTTPClientTransport(url));
  clients.add(client);
  return { client, messages };
}

describe('ask-user mcp --http: a multi round-trip call with forms', () => {
  test("the SDK's client fills the form and retries: the answer is recorded once and comes back", async () => {
    const { client, messages } = await formClient(() => 'Yes (Recommended)');
    const result = await client.callTool({ name: 'ask_user_question', arguments: ARGS });
    assert.deepEqual(result.content, [{ type: 'text', text: YES_TEXT }]);
    assert.equal(messages.length, 1);
    const [answered] = (await stack.questions.list('all')).filter(
      (summary) => summary.status === 'answered' && summary.agentId === 'mcp',
    );
    assert.ok(answered !== undefined);
    const record = await stack.questions.get(answered.workflowId);
    assert.equal(record.answeredBy, 'mcp:sdk-form-client');
    assert.equal(await mcp.acceptedUpdates(answered.workflowId), 1);
  });

  test('a refused answer records nothing and comes back as a new form with the reason; the next one lands', async () => {
    const { client, messages } = await formClient(() => (messages.length === 1 ? 'Maybe' : 'No'));
    const result = await client.callTool({ name: 'ask_user_question', arguments: ARGS });
    assert.deepEqual(result.content, [{ type: 'text', text: NO_TEXT }]);
    const checked = checkAnswer(ARGS.questions, { answers: [{ id: 'deploy', selected: ['Maybe'] }] });
    const note = `Your answer was not recorded: ${checked.ok ? '' : checked.reason}.`;
    assert.equal(messages.length, 2);
    assert.ok(messages[1]!.startsWith(`${note}\n\n`), messages[1]);
  });

  test('answered elsewhere before the retry: the retry records nothing more and returns that answer', async () => {
    const { requestState, workflowId } = await firstRound();
    await mcp.answerFromAnotherProcess(workflowId);
    assert.equal(resultText(await rawCall(url, ARGS, { inputResponses: ACCEPT_NO, requestState })), YES_TEXT);
    assert.equal(await mcp.acceptedUpdates(workflowId), 1);
    assert.equal((await stack.questions.get(workflowId)).answeredBy, 'alice');
  });

  test('a tampered, re-bound or replayed requestState is refused and records nothing', async () => {
    const { requestState, workflowId } = await firstRound();
    const [version, body, mac] = requestState.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8')) as { p: { a: number } };
    payload.p.a = 5;
    const tampered = [version, Buffer.from(JSON.stringify(payload)).toString('base64url'), mac].join('.');
    assert.deepEqual(
      await rawCall(url, ARGS, { inputResponses: ACCEPT_NO, requestState: tampered }),
      REFUSED,
    );
    // Another client (the state is bound to the client's name).
    assert.deepEqual(
      await rawCall(url, ARGS, { inputResponses: ACCEPT_NO, requestState }, 'another-client'),
      REFUSED,
    );
    // The state of one call with the arguments of another.
    assert.deepEqual(await rawCall(url, OTHER_ARGS, { inputResponses: ACCEPT_NO, requestState }), {
      kind: 'error',
      error: { code: -32602, message: 'Invalid requestState: it belongs to another question' },
    });
    const record = await stack.questions.get(workflowId);
    assert.equal(record.status, 'pending');
    assert.equal(await mcp.acceptedUpdates(workflowId), 0);
    // The genuine retry still works.
    assert.equal(resultText(await rawCall(url, ARGS, { inputResponses: ACCEPT_NO, requestState })), NO_TEXT);
  });

  test('an expired requestState is refused and records nothing', async () => {
    const shortLived = await startServer({ ASK_USER_MCP_STATE_TTL: '1' });
    const { requestState, workflowId } = await firstRound(shortLived);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    assert.deepEqual(await rawCall(shortLived, ARGS, { inputResponses: ACCEPT_NO, requestState }), REFUSED);
    assert.equal((await stack.questions.get(workflowId)).status, 'pending');
    assert.equal(await mcp.acceptedUpdates(workflowId), 0);
    await stack.questions.decline(workflowId, { declinedBy: 'test' });
  });

  test('the key comes from configuration: another instance with the same key takes the retry', async () => {
    const other = await startServer();
    const { requestState, workflowId } = await firstRound();
    assert.equal(
      resultText(await rawCall(other, ARGS, { inputResponses: ACCEPT_NO, requestState })),
      NO_TEXT,
    );
    assert.equal(await mcp.acceptedUpdates(workflowId), 1);
  });

  test('a key shorter than 32 bytes, or a bad lifetime, is a usage error naming the variable', async () => {
    for (const [env, message] of [
      [{ ASK_USER_MCP_STATE_KEY: 'too short' }, 'ASK_USER_MCP_STATE_KEY must be at least 32 bytes'],
      [
        { ASK_USER_MCP_STATE_TTL: '0' },
        'ASK_USER_MCP_STATE_TTL must be a positive number of seconds, got "0"',
      ],
    ] as const) {
      const child = startChild(process.execPath, ['./bin/ask-user.js', 'mcp'], mcp.env(env));
      assert.deepEqual(await child.waitForExit(), { code: 2, signal: null });
      assert.equal(child.stderr(), `ask-user: ${message}\nRun \`ask-user mcp --help\` for usage.\n`);
    }
  });
});
