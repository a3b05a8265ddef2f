/**
 * `ask-user mcp`, run for real (`node ./bin/ask-user.js mcp`) against a dev server and an ask-user worker,
 * driven by the MCP SDK's own `Client`: over stdio (the SDK spawns the server, as MCP clients do) and over
 * streamable HTTP. Humans answer through `QuestionClient` in another process (`ask-user answer`) or, with
 * `--ops`, through the server's own ops tools from a second MCP client.
 *
 * Every stdio server ends when its client closes stdin, which also happens when this test process dies; each is
 * SIGKILLed by PID on exit besides. The HTTP server is a tracked child (test/fixtures/child-process.ts).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import { askUserQuestionMcpTool } from '../../src/mcp';
import { checkAnswer, inputSha256 } from '../../src/answer';
import { TemporalUserInteraction } from '../../src/provider';
import type { ApprovalDecision } from '../../src/types';
import { PROJECT_ROOT, killChildren, startChild } from '../fixtures/child-process';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

const TASK_QUEUE = `mcp-${process.pid}`;

const ARGS = {
  questions: [
    {
      id: 'deploy',
      header: 'Deploy',
      question: 'Deploy build 1.4.2 to production now?',
      options: [{ label: 'Yes (Recommended)', description: 'All checks passed' }, { label: 'No' }],
    },
  ],
};
const ANSWER_TEXT = '{"answers":[{"id":"deploy","selected":["Yes (Recommended)"]}]}';
const EXPECTED_RESULT = {
  content: [{ type: 'text', text: ANSWER_TEXT }],
  structuredContent: JSON.parse(ANSWER_TEXT) as unknown,
};

let stack: DevServerWithClient;
let worker: RunningWorkers;
const clients = new Set<Client>();

before(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  stack = await startDevServerWithClient('mcp');
  worker = await startAskUserWorker(stack.server.address, TASK_QUEUE);
});

after(async () => {
  try {
    await Promise.allSettled([...clients].map((client) => client.close()));
    await killChildren();
  } finally {
    await worker?.stop();
    await stack?.stop();
  }
});

/** Dana edits the pending approval `workflowId` to 6 replicas through `decide_approval`: the tool's result. */
async function editToSixReplicas(person: Client, workflowId: string): Promise<unknown> {
  return await person.callTool({
    name: 'decide_approval',
    arguments: {
      id: workflowId,
      decision: 'edit',
      input: { service: 'checkout', replicas: 6 },
      decided_by: 'dana',
    },
  });
}

/** The agent's approval resolved with Dana's edit, exactly. */
function assertEditedToSix(decided: ApprovalDecision): void {
  assert.deepEqual(decided, {
    type: 'edit',
    input: { service: 'checkout', replicas: 6 },
    decidedBy: 'dana',
    decidedAt: decided.decidedAt,
    requestedInputSha256: inputSha256({ service: 'checkout', replicas: 3 }),
    inputSha256: inputSha256({ service: 'checkout', replicas: 6 }),
  });
}

function serverEnv(): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: stack.server.address,
    TEMPORAL_NAMESPACE: 'default',
    ASK_USER_TASK_QUEUE: TASK_QUEUE,
  };
}

async function connect(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(transport);
  clients.add(client);
  return client;
}

/** Spawns `ask-user mcp <args>` through the SDK's stdio transport, as an MCP client configured with it would. */
async function connectStdio(args: string[] = []): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['./bin/ask-user.js', 'mcp', ...args],
    cwd: PROJECT_ROOT,
    env: serverEnv(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = await connect(transport);
  const pid = transport.pid;
  if (pid !== null) {
    process.once('exit', () => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    });
  }
  return { client, stderr: () => stderr };
}

/** The workflow id of the pending question asked over MCP with `toolCallId`, once it is listed. */
async function questionFor(toolCallId: string): Promise<string> {
  const workflowId = await waitFor(`a pending question for tool call ${toolCallId}`, async () => {
    const pending = await stack.questions.list('pending');
    return pending.find((summary) => summary.agentId === 'mcp' && summary.toolCallId === toolCallId)
      ?.workflowId;
  });
  await waitForPendingRecord(stack.client, workflowId);
  return workflowId;
}

/** A human answers in another process: `ask-user answer <id> --select deploy=... --as alice`. */
async function answerFromAnotherProcess(workflowId: string, label = 'Yes (Recommended)'): Promise<void> {
  const answer = startChild(
    process.execPath,
    ['./bin/ask-user.js', 'answer', workflowId, '--select', `deploy=${label}`, '--as', 'alice'],
    serverEnv(),
  );
  const exit = await answer.waitForExit();
  assert.deepEqual(exit, { code: 0, signal: null }, answer.stderr());
}

async function statusOf(workflowId: string): Promise<string> {
  return (await stack.client.workflow.getHandle(workflowId).describe()).status.name;
}

async function waitForStatus(workflowId: string, status: string): Promise<void> {
  await waitFor(`${workflowId} to be ${status}`, async () =>
    (await statusOf(workflowId)) === status ? true : undefined,
  );
}

/** How the SDK's client rejects a call whose signal aborted (it has sent `notifications/cancelled`). */
const ABORTED = { name: 'McpError', message: 'MCP error -32001: AbortError: This operation was aborted' };

/** Resolves once `count` progress notifications have arrived; pass `record` as the call's `onprogress`. */
function progressRecorder(): {
  record: (progress: Progress) => void;
  received: Progress[];
  atLeast: (count: number) => Promise<void>;
} {
  const received: Progress[] = [];
  const waiters = new Set<() => void>();
  return {
    received,
    record(progress) {
      received.push(progress);
      for (const waiter of waiters) waiter();
    },
    atLeast: (count) =>
      new Promise((resolve) => {
        const check = (): void => {
          if (received.length < count) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
  };
}

describe('ask-user mcp over stdio', () => {
  let client: Client;
  before(async () => {
    ({ client } = await connectStdio(['--progress-interval', '1']));
  });

  test('lists ask_user_question with the tool JSON Schema and the output schema, within the token budget', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools, [askUserQuestionMcpTool()]);
    const [tool] = tools;
    assert.ok(tool !== undefined);
    const tokens =
      countTokens(tool.name) +
      countTokens(tool.description ?? '') +
      countTokens(JSON.stringify(tool.inputSchema)) +
      countTokens(JSON.stringify(tool.outputSchema));
    assert.ok(tokens <= 350, `the MCP listing costs ${tokens} tokens`);
  });

  test('bad arguments come back as the contract error text; an unknown tool is a protocol error', async () => {
    assert.deepEqual(await client.callTool({ name: 'ask_user_question', arguments: { questions: [] } }), {
      content: [{ type: 'text', text: 'Error: ask_user_question requires at least one question' }],
      isError: true,
    });
    assert.deepEqual(
      await client.callTool({ name: 'ask_user_question', arguments: { questions: [{ id: 'deploy' }] } }),
      {
        content: [{ type: 'text', text: 'Error: invalid arguments: questions[0].question: is required' }],
        isError: true,
      },
    );
    await assert.rejects(client.callTool({ name: 'list_pending_questions', arguments: {} }), {
      name: 'McpError',
      // The v1 client prefixes the code; the v2 server sends the message bare.
      message: 'MCP error -32602: unknown tool "list_pending_questions"',
    });
  });

  test('a call with a progress token gets progress, then the answer given in another process, as text and structured content', async () => {
    const toolCallId = `call-answered-${process.pid}`;
    const progress = progressRecorder();
    const call = client.callTool(
      { name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId } },
      undefined,
      {
        onprogress: progress.record,
      },
    );
    const workflowId = await questionFor(toolCallId);
    await progress.atLeast(1);
    await answerFromAnotherProcess(workflowId);

    assert.deepEqual(await call, EXPECTED_RESULT);
    const [first] = progress.received;
    assert.equal(first?.progress, 1);
    assert.match(first?.message ?? '', /^waiting for the human to answer \(\d+s\)$/);
    const record = await stack.questions.get(workflowId);
    assert.equal(record.answeredBy, 'alice');
    assert.deepEqual(record.agent, { id: 'mcp' });
    assert.equal(record.toolCallId, toolCallId);
  });

  test('cancelling the request cancels the question: the workflow ends Canceled', async () => {
    const toolCallId = `call-cancelled-${process.pid}`;
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId } },
      undefined,
      {
        signal: controller.signal,
      },
    );
    const workflowId = await questionFor(toolCallId);
    controller.abort();
    await assert.rejects(call, ABORTED);
    await waitForStatus(workflowId, 'CANCELLED');
    assert.equal((await stack.questions.get(workflowId)).status, 'cancelled');
  });

  test('without _meta.toolCallId the progress token is the key, scoped to the connection; without either, a fresh id', async () => {
    const controller = new AbortController();
    const token = `progress-${process.pid}`;
    const keyed = client.callTool(
      { name: 'ask_user_question', arguments: ARGS, _meta: { progressToken: token } },
      undefined,
      {
        signal: controller.signal,
      },
    );
    const unkeyed = client.callTool({ name: 'ask_user_question', arguments: ARGS }, undefined, {
      signal: controller.signal,
    });
    const keyedId = await questionFor(token);
    const record = await stack.questions.get(keyedId);
    assert.equal(record.agent?.id, 'mcp');
    assert.match(record.agent?.sessionId ?? '', /^[0-9a-f-]{36}$/);
    const unkeyedId = await waitFor('the question asked without a key', async () => {
      const pending = await stack.questions.list('pending');
      return pending.find((summary) => summary.agentId === 'mcp' && summary.toolCallId === undefined)
        ?.workflowId;
    });
    assert.match(unkeyedId, /^ask-user-question\/[0-9a-f-]{36}$/);
    controller.abort();
    await assert.rejects(keyed, ABORTED);
    await assert.rejects(unkeyed, ABORTED);
    await waitForStatus(keyedId, 'CANCELLED');
    await waitForStatus(unkeyedId, 'CANCELLED');
  });

  test('the client request timeout cancels the question, unless progress resets it: then a long wait succeeds', async () => {
    // The trap: a request timeout shorter than the human makes the client cancel, and the question goes.
    const trappedId = `call-timed-out-${process.pid}`;
    const timedOut = client.callTool(
      { name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId: trappedId } },
      undefined,
      {
        onprogress: () => undefined,
        timeout: 3_000,
      },
    );
    await assert.rejects(timedOut, {
      name: 'McpError',
      code: -32001,
      message: 'MCP error -32001: Request timed out',
    });
    await waitForStatus(
      await waitFor('the timed-out question', async () => {
        const all = await stack.questions.list('all');
        return all.find((summary) => summary.toolCallId === trappedId)?.workflowId;
      }),
      'CANCELLED',
    );

    // With resetTimeoutOnProgress, each progress notification (every second here) restarts the 3 s timeout.
    const toolCallId = `call-long-wait-${process.pid}`;
    const progress = progressRecorder();
    const call = client.callTool(
      { name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId } },
      undefined,
      {
        onprogress: progress.record,
        timeout: 3_000,
        resetTimeoutOnProgress: true,
      },
    );
    const workflowId = await questionFor(toolCallId);
    await progress.atLeast(6); // six notifications a second apart: about twice the request timeout
    await answerFromAnotherProcess(workflowId);
    assert.deepEqual(await call, EXPECTED_RESULT);
  });
});

describe('ask-user mcp --keep-on-cancel, and clients that go away', () => {
  test('a cancel leaves the question pending; a second call with the same toolCallId re-attaches and gets the answer', async () => {
    const { client } = await connectStdio(['--keep-on-cancel']);
    const toolCallId = `call-kept-${process.pid}`;
    const controller = new AbortController();
    const first = client.callTool(
      { name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId } },
      undefined,
      {
        signal: controller.signal,
      },
    );
    const workflowId = await questionFor(toolCallId);
    const { runId } = await stack.client.workflow.getHandle(workflowId).describe();
    controller.abort();
    await assert.rejects(first, ABORTED);

    const second = client.callTool({ name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId } });
    // Sent after the cancel on the same stream, so the server has handled the cancel by now.
    const description = await stack.client.workflow.getHandle(workflowId).describe();
    assert.equal(description.status.name, 'RUNNING');
    assert.equal(description.runId, runId);
    await answerFromAnotherProcess(workflowId);
    assert.deepEqual(await second, EXPECTED_RESULT);
  });

  test('a client that exits leaves its question pending; restarted, it re-attaches with the same toolCallId', async () => {
    const toolCallId = `call-restarted-${process.pid}`;
    const before = await connectStdio();
    const abandoned = before.client.callTool({
      name: 'ask_user_question',
      arguments: ARGS,
      _meta: { toolCallId },
    });
    const workflowId = await questionFor(toolCallId);
    await before.client.close();
    await assert.rejects(abandoned, {
      name: 'McpError',
      code: -32000,
      message: 'MCP error -32000: Connection closed',
    });
    assert.equal(await statusOf(workflowId), 'RUNNING');

    const restarted = await connectStdio();
    const again = restarted.client.callTool({
      name: 'ask_user_question',
      arguments: ARGS,
      _meta: { toolCallId },
    });
    await answerFromAnotherProcess(workflowId);
    assert.deepEqual(await again, EXPECTED_RESULT);
    assert.equal(before.stderr(), '');
  });
});

test('bad options are usage errors naming the option', async () => {
  for (const [args, message] of [
    [['--http', 'nope'], '--http must be a port number from 0 to 65535'],
    [['--progress-interval', '0'], '--progress-interval must be a positive number of seconds, got "0"'],
    [['--agent', ''], '--agent must not be empty'],
  ] as const) {
    const child = startChild(process.execPath, ['./bin/ask-user.js', 'mcp', ...args], serverEnv());
    assert.deepEqual(await child.waitForExit(), { code: 2, signal: null });
    assert.equal(child.stderr(), `ask-user: ${message}\nRun \`ask-user mcp --help\` for usage.\n`);
  }
});

describe('ask-user mcp --http --ops', () => {
  let url: URL;
  before(async () => {
    const server = startChild(
      process.execPath,
      ['./bin/ask-user.js', 'mcp', '--http', '0', '--ops'],
      serverEnv(),
    );
    const line = await server.waitForLine((text) => text.startsWith('ask-user mcp: streamable HTTP on '));
    url = new URL(line.slice('ask-user mcp: streamable HTTP on '.length));
  });

  test('an agent asks over HTTP; a person answers with list_pending_questions and answer_question from another client', async () => {
    const agent = await connect(new StreamableHTTPClientTransport(url));
    const person = await connect(new StreamableHTTPClientTransport(url));
    assert.deepEqual(
      (await agent.listTools()).tools.map((tool) => tool.name),
      ['ask_user_question', 'list_pending_questions', 'answer_question', 'decide_approval'],
    );

    const toolCallId = `call-http-${process.pid}`;
    const call = agent.callTool({ name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId } });
    const workflowId = await questionFor(toolCallId);

    const listed = await person.callTool({ name: 'list_pending_questions', arguments: {} });
    const [listedText] = listed.content as { type: string; text: string }[];
    const { pending } = JSON.parse(listedText?.text ?? '') as {
      pending: { id: string; questions: unknown }[];
    };
    const mine = pending.find((question) => question.id === workflowId);
    assert.deepEqual(mine?.questions, ARGS.questions);

    const badAnswer = { answers: [{ id: 'deploy', selected: ['Maybe'] }] };
    const checked = checkAnswer(ARGS.questions, badAnswer);
    assert.equal(checked.ok, false);
    assert.deepEqual(
      await person.callTool({ name: 'answer_question', arguments: { id: workflowId, ...badAnswer } }),
      {
        content: [
          {
            type: 'text',
            text: `Error: ask_user_question received an invalid answer: ${checked.ok ? '' : checked.reason}`,
          },
        ],
        isError: true,
      },
    );
    assert.deepEqual(
      await person.callTool({
        name: 'answer_question',
        arguments: {
          id: workflowId,
          answers: [{ id: 'deploy', selected: ['Yes (Recommended)'] }],
          answered_by: 'bob',
        },
      }),
      { content: [{ type: 'text', text: `Answered ${workflowId} as bob.` }] },
    );
    assert.deepEqual(await call, EXPECTED_RESULT);
    assert.equal((await stack.questions.get(workflowId)).answeredBy, 'bob');
  });

  test('a person lists a pending approval and decides it with decide_approval: a bad edit is refused, an edit lands', async () => {
    const person = await connect(new StreamableHTTPClientTransport(url));
    const provider = new TemporalUserInteraction({ client: stack.client, taskQueue: TASK_QUEUE });
    try {
      const subject = {
        toolName: 'scale',
        input: { service: 'checkout', replicas: 3 },
        description: 'Scale checkout',
        inputSchema: {
          type: 'object',
          properties: { service: { type: 'string' }, replicas: { type: 'integer', maximum: 10 } },
          required: ['service'],
        },
      };
      const toolCallId = `approval-${process.pid}`;
      const decision = provider.requestApproval({ ...subject, toolCallId, agent: { id: 'mcp-approver' } });
      const workflowId = `ask-user-question/mcp-approver/${toolCallId}`;
      await waitForPendingRecord(stack.client, workflowId);

      const pendingOf = async (): Promise<{ id: string; kind?: string; approval?: unknown }[]> => {
        const listed = await person.callTool({ name: 'list_pending_questions', arguments: {} });
        const [text] = listed.content as { text: string }[];
        return (JSON.parse(text?.text ?? '') as { pending: { id: string }[] }).pending;
      };
      const mine = await waitFor('the approval to be listed', async () =>
        (await pendingOf()).find((item) => item.id === workflowId),
      );
      assert.deepEqual(mine, {
        id: workflowId,
        askedAt: (mine as { askedAt?: string }).askedAt,
        agent: { id: 'mcp-approver' },
        kind: 'approval',
        approval: subject,
      });

      assert.deepEqual(
        await person.callTool({
          name: 'decide_approval',
          arguments: { id: workflowId, decision: 'edit', input: { service: 'checkout', replicas: 40 } },
        }),
        {
          content: [{ type: 'text', text: 'Error: invalid decision: input.replicas: 40 is greater than 10' }],
          isError: true,
        },
      );
      assert.deepEqual(
        await person.callTool({ name: 'decide_approval', arguments: { id: workflowId, decision: 'maybe' } }),
        {
          content: [
            {
              type: 'text',
              text: 'Error: invalid arguments: decision: Invalid option: expected one of "approve"|"edit"|"reject"|"respond"',
            },
          ],
          isError: true,
        },
      );
      // `stop` reaches the decision rules, which keep it to a reject.
      assert.deepEqual(
        await person.callTool({
          name: 'decide_approval',
          arguments: { id: workflowId, decision: 'approve', stop: true },
        }),
        {
          content: [
            {
              type: 'text',
              text: 'Error: invalid decision: decision.stop: not part of approve: only reject carries it',
            },
          ],
          isError: true,
        },
      );
      assert.deepEqual(await editToSixReplicas(person, workflowId), {
        content: [{ type: 'text', text: `Decided ${workflowId}: edit, as dana.` }],
      });
      assertEditedToSix(await decision);
    } finally {
      await provider.close();
    }
  });

  test('decide_approval says what the agent receives when its hook turns an edit into a denial', async () => {
    const person = await connect(new StreamableHTTPClientTransport(url));
    const provider = new TemporalUserInteraction({ client: stack.client, taskQueue: TASK_QUEUE });
    try {
      const toolCallId = `suggest-${process.pid}`;
      const decision = provider.requestApproval({
        toolName: 'scale',
        input: { service: 'checkout', replicas: 3 },
        onEdit: 'suggest',
        toolCallId,
        agent: { id: 'mcp-approver' },
      });
      const workflowId = `ask-user-question/mcp-approver/${toolCallId}`;
      await waitForPendingRecord(stack.client, workflowId);
      assert.deepEqual(await editToSixReplicas(person, workflowId), {
        content: [
          {
            type: 'text',
            text:
              `Decided ${workflowId}: edit, as dana. scale does not run: this agent runs a call only with the ` +
              'input its model gave, so it receives a denial that suggests calling scale again with the edited input.',
          },
        ],
      });
      assertEditedToSix(await decision);
    } finally {
      await provider.close();
    }
  });

  test('a request naming another host is refused (DNS rebinding)', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const request = http.request(
        url,
        { method: 'POST', headers: { host: `attacker.example:${url.port}` } },
        (response) => {
          response.resume();
          resolve(response.statusCode);
        },
      );
      request.on('error', reject);
      request.end('{}');
    });
    assert.equal(status, 403);
  });
});
