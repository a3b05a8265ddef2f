/**
 * `ask-user mcp` asking the person at the agent's own MCP client through `elicitation/create` (form mode), run
 * for real (`node ./bin/ask-user.js mcp`) against a dev server and an ask-user worker, driven by the MCP SDK's
 * own `Client` declaring `elicitation: { form: {} }`: over stdio (the SDK spawns the server) and over streamable
 * HTTP. Ops answer through `QuestionClient` in this process, racing with the form.
 *
 * The form handler of each client hands every form to the test, which inspects it and replies when it chooses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  type ClientNotification,
  type ClientRequest,
  type ElicitRequestFormParams,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';

import { PROJECT_ROOT, startChild } from '../fixtures/child-process';
import { DEPLOY_ARGS as ARGS, NO_TEXT, YES_TEXT, startMcpStack, type McpStack } from '../helpers/mcp-fixture';
import { waitForPendingRecord } from '../helpers/pending-questions';
import type { DevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const CLIENT_NAME = 'elicit-client';

function toolResult(text: string): unknown {
  return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as unknown };
}

const INTRO =
  'An agent is waiting for your answer. Decline refuses the question; closing the form leaves it open for others to answer.';

/** How the SDK's client rejects a call whose signal aborted (it has sent `notifications/cancelled`). */
const ABORTED = { name: 'McpError', message: 'MCP error -32001: AbortError: This operation was aborted' };

let mcp: McpStack;
let stack: DevServerWithClient;
const clients = new Set<Client>();

before(async () => {
  // Operator policy: questions of agent `guarded` are alice's, those of `desk` carol's.
  mcp = await startMcpStack('mcp-elicitation', {
    worker: {
      policy: {
        agents: { guarded: { audience: { users: ['alice'] } }, desk: { audience: { users: ['carol'] } } },
      },
    },
  });
  stack = mcp.dev;
});

after(async () => {
  try {
    await Promise.allSettled([...clients].map((client) => client.close()));
  } finally {
    await mcp?.stop();
  }
});

/** A form the server sent, as the client's handler received it; `reply` answers it. */
interface OpenForm {
  params: ElicitRequestFormParams;
  extra: RequestHandlerExtra<ClientRequest, ClientNotification>;
  reply(result: ElicitResult): void;
}

/** An MCP client that shows forms: each one is handed to the test through `nextForm()`. */
interface FormClient {
  client: Client;
  nextForm(): Promise<OpenForm>;
  /** How many forms arrived so far. */
  formCount(): number;
}

async function connectFormClient(transport: Transport, name = CLIENT_NAME): Promise<FormClient> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const arrived: OpenForm[] = [];
  const waiting: ((form: OpenForm) => void)[] = [];
  let count = 0;
  client.setRequestHandler(
    ElicitRequestSchema,
    (request, extra) =>
      new Promise<ElicitResult>((resolve) => {
        count += 1;
        const form: OpenForm = { params: request.params as ElicitRequestFormParams, extra, reply: resolve };
        const waiter = waiting.shift();
        if (waiter === undefined) arrived.push(form);
        else waiter(form);
      }),
  );
  await client.connect(transport);
  clients.add(client);
  return {
    client,
    nextForm: () => {
      const form = arrived.shift();
      return form === undefined ? new Promise((resolve) => waiting.push(resolve)) : Promise.resolve(form);
    },
    formCount: () => count,
  };
}

/** Spawns `ask-user mcp <args>` through the SDK's stdio transport, with a client that shows forms. */
async function connectStdio(args: string[]): Promise<FormClient & { stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['./bin/ask-user.js', 'mcp', ...args],
    cwd: PROJECT_ROOT,
    env: mcp.env(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const connected = await connectFormClient(transport);
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
  return { ...connected, stderr: () => stderr };
}

async function waitForLog(stderr: () => string, line: string): Promise<void> {
  await waitFor(`stderr to say ${JSON.stringify(line)}`, () =>
    stderr().split('\n').includes(line) ? true : undefined,
  );
}

async function statusOf(workflowId: string): Promise<string> {
  return (await stack.client.workflow.getHandle(workflowId).describe()).status.name;
}

describe('ask-user mcp with a client that shows forms (stdio)', () => {
  let agent: FormClient & { stderr: () => string };
  before(async () => {
    agent = await connectStdio(['--agent', 'elicit']);
  });

  test("the person answers in the form: the agent gets the workflow's answer text, recorded as mcp:<client name>", async () => {
    const toolCallId = `call-form-${process.pid}`;
    const workflowId = `ask-user-question/elicit/${toolCallId}`;
    const call = agent.client.callTool({ name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId } });
    const form = await agent.nextForm();
    assert.deepEqual(form.params, {
      mode: 'form',
      message: `${INTRO}\n\nDeploy: Deploy build 1.4.2 to production now?`,
      requestedSchema: {
        type: 'object',
        properties: {
          deploy: {
            type: 'string',
            title: 'Deploy',
            description: 'Deploy build 1.4.2 to production now?\nYes (Recommended): All checks passed',
            enum: ['Yes (Recommended)', 'No'],
          },
          deploy_other: {
            type: 'string',
            title: 'Deploy: other answer',
            description: 'Your own answer, instead of the choices above',
            maxLength: 10_000,
          },
        },
      },
    });
    form.reply({ action: 'accept', content: { deploy: 'Yes (Recommended)' } });

    assert.deepEqual(await call, toolResult(YES_TEXT));
    const record = await stack.questions.get(workflowId);
    assert.equal(record.status, 'answered');
    assert.equal(record.answeredBy, `mcp:${CLIENT_NAME}`);
    assert.deepEqual(record.answer, JSON.parse(YES_TEXT));
    await waitForLog(
      agent.stderr,
      `ask-user mcp: ${workflowId}: answered at the client as mcp:${CLIENT_NAME}`,
    );
  });

  test('multi-select and "other" map to labels and custom; ids become safe unique field names; refused content is asked for once more', async () => {
    const questions = [
      {
        id: 'regions',
        question: 'Which regions?',
        options: [{ label: 'eu-west' }, { label: 'us-east' }, { label: 'ap-south' }],
        multi_select: true,
      },
      {
        id: 'size-class',
        header: 'Size',
        question: 'Which size?',
        options: [{ label: 'S' }, { label: 'M' }],
      },
      { id: 'size_class', question: 'Anything else?' },
    ];
    // No _meta.toolCallId and no progress token: the form still names its question (a fresh tool call id).
    const call = agent.client.callTool({ name: 'ask_user_question', arguments: { questions } });
    const first = await agent.nextForm();
    assert.equal(
      first.params.message,
      `${INTRO}\n\n1. Which regions?\n2. Size: Which size?\n3. Anything else?`,
    );
    assert.deepEqual(first.params.requestedSchema.properties, {
      regions: {
        type: 'array',
        title: 'Which regions?',
        description: 'Choose any number.',
        items: { type: 'string', enum: ['eu-west', 'us-east', 'ap-south'] },
      },
      regions_other: {
        type: 'string',
        title: 'Which regions?: other answer',
        description: 'Your own answer, instead of the choices above',
        maxLength: 10_000,
      },
      size_class: { type: 'string', title: 'Size', description: 'Which size?', enum: ['S', 'M'] },
      size_class_other: {
        type: 'string',
        title: 'Size: other answer',
        description: 'Your own answer, instead of the choices above',
        maxLength: 10_000,
      },
      size_class_2: { type: 'string', title: 'Anything else?', maxLength: 10_000 },
    });
    first.reply({ action: 'accept', content: { regions: ['Mars'] } });

    const second = await agent.nextForm();
    assert.equal(
      second.params.message,
      `Your answer was not recorded: Elicitation response content does not match requested schema: data/regions/0 must be equal to one of the allowed values.\n\n${INTRO}\n\n1. Which regions?\n2. Size: Which size?\n3. Anything else?`,
    );
    assert.deepEqual(second.params.requestedSchema, first.params.requestedSchema);
    second.reply({
      action: 'accept',
      content: {
        regions: ['us-east', 'eu-west', 'us-east'],
        size_class: 'S',
        size_class_other: 'XL, please',
        size_class_2: 'ship it',
      },
    });

    const text =
      '{"answers":[{"id":"regions","selected":["us-east","eu-west"]},{"id":"size-class","selected":[],"custom":"XL, please"},{"id":"size_class","selected":[],"custom":"ship it"}]}';
    assert.deepEqual(await call, toolResult(text));
    const summary = await waitFor('the question asked without a key', async () =>
      (await stack.questions.list('all')).find(
        (question) => question.agentId === 'elicit' && /^[0-9a-f-]{36}$/.test(question.toolCallId ?? ''),
      ),
    );
    assert.equal(summary.workflowId, `ask-user-question/elicit/${summary.toolCallId}`);
    const record = await stack.questions.get(summary.workflowId);
    assert.equal(record.answeredBy, `mcp:${CLIENT_NAME}`);
    assert.deepEqual(record.answer, JSON.parse(text));
    assert.equal(agent.formCount(), 3);
  });

  test("ops answer first: the form is cancelled, the client's late reply is ignored and logged, and the agent gets ops' answer once", async () => {
    const toolCallId = `call-ops-first-${process.pid}`;
    const workflowId = `ask-user-question/elicit/${toolCallId}`;
    const call = agent.client.callTool({ name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId } });
    const form = await agent.nextForm();
    await stack.questions.answer(workflowId, {
      answers: [{ id: 'deploy', selected: ['No'] }],
      answeredBy: 'alice',
    });

    assert.deepEqual(await call, toolResult(NO_TEXT));
    // The server cancelled the form before it sent the tool's result: the handler's signal has aborted.
    assert.equal(form.extra.signal.aborted, true);
    assert.equal(form.extra.signal.reason, 'the question was answered elsewhere');
    await waitForLog(
      agent.stderr,
      `ask-user mcp: ${workflowId}: the question was answered elsewhere; the form at the client was cancelled`,
    );

    // A client that replies anyway (the SDK's own client drops replies to cancelled requests, so it is sent raw).
    const late = { action: 'accept', content: { deploy: 'Yes (Recommended)' } };
    await agent.client.transport!.send({ jsonrpc: '2.0', id: form.extra.requestId, result: late });
    await waitForLog(
      agent.stderr,
      `ask-user mcp: protocol: Received a response for an unknown message ID: ${JSON.stringify({ jsonrpc: '2.0', id: form.extra.requestId, result: late })}`,
    );
    const record = await stack.questions.get(workflowId);
    assert.equal(record.answeredBy, 'alice');
    assert.deepEqual(record.answer, JSON.parse(NO_TEXT));
    assert.deepEqual(record.rejectedAnswers, []);
    assert.equal(await mcp.acceptedUpdates(workflowId), 1);
    form.reply({ action: 'cancel' }); // lets the handler end; the SDK sends nothing for a cancelled request
  });

  test('Decline in the form declines the question: the agent reads ASK_CANCELLED', async () => {
    const toolCallId = `call-declined-${process.pid}`;
    const workflowId = `ask-user-question/elicit/${toolCallId}`;
    const call = agent.client.callTool({ name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId } });
    (await agent.nextForm()).reply({ action: 'decline' });

    assert.deepEqual(await call, {
      content: [{ type: 'text', text: 'Error: the user cancelled ask_user_question' }],
      isError: true,
    });
    const record = await stack.questions.get(workflowId);
    assert.equal(record.status, 'declined');
    assert.equal(record.declinedBy, `mcp:${CLIENT_NAME}`);
  });

  test('closing the form (cancel) leaves the question pending for ops', async () => {
    const toolCallId = `call-dismissed-${process.pid}`;
    const workflowId = `ask-user-question/elicit/${toolCallId}`;
    const call = agent.client.callTool({ name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId } });
    (await agent.nextForm()).reply({ action: 'cancel' });
    await waitForLog(
      agent.stderr,
      `ask-user mcp: ${workflowId}: the form was dismissed at the client; the question stays pending`,
    );
    assert.equal((await stack.questions.get(workflowId)).status, 'pending');

    await stack.questions.answer(workflowId, {
      answers: [{ id: 'deploy', selected: ['Yes (Recommended)'] }],
      answeredBy: 'alice',
    });
    assert.deepEqual(await call, toolResult(YES_TEXT));
    assert.equal((await stack.questions.get(workflowId)).answeredBy, 'alice');
  });

  test('cancelling the tool call cancels the question and the form', async () => {
    const toolCallId = `call-withdrawn-${process.pid}`;
    const workflowId = `ask-user-question/elicit/${toolCallId}`;
    const controller = new AbortController();
    const call = agent.client.callTool(
      { name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId } },
      undefined,
      { signal: controller.signal },
    );
    const form = await agent.nextForm();
    controller.abort();
    await assert.rejects(call, ABORTED);
    await waitFor('the form to be cancelled', () => (form.extra.signal.aborted ? true : undefined));
    assert.equal(form.extra.signal.reason, 'the tool call was cancelled');
    await waitFor(`${workflowId} to be cancelled`, async () =>
      (await statusOf(workflowId)) === 'CANCELLED' ? true : undefined,
    );
    assert.equal((await stack.questions.get(workflowId)).status, 'cancelled');
    form.reply({ action: 'cancel' });
  });
});

describe('no form', () => {
  test('--no-elicit: a client that shows forms gets none; ops answer', async () => {
    const quiet = await connectStdio(['--agent', 'quiet', '--no-elicit']);
    const toolCallId = `call-quiet-${process.pid}`;
    const workflowId = `ask-user-question/quiet/${toolCallId}`;
    const call = quiet.client.callTool({ name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId } });
    await waitForPendingRecord(stack.client, workflowId);
    // With forms on, one is sent within a few hundred milliseconds of the question being pending.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await stack.questions.answer(workflowId, {
      answers: [{ id: 'deploy', selected: ['No'] }],
      answeredBy: 'alice',
    });
    assert.deepEqual(await call, toolResult(NO_TEXT));
    assert.equal(quiet.formCount(), 0);
    assert.equal(quiet.stderr(), '');
  });

  test("a question assigned to others: the client's person is not in its audience, so no form", async () => {
    const guarded = await connectStdio(['--agent', 'guarded']);
    const toolCallId = `call-guarded-${process.pid}`;
    const workflowId = `ask-user-question/guarded/${toolCallId}`;
    const call = guarded.client.callTool({
      name: 'ask_user_question',
      arguments: ARGS,
      _meta: { toolCallId },
    });
    await waitForLog(
      guarded.stderr,
      `ask-user mcp: ${workflowId}: no form at the client: "mcp:${CLIENT_NAME}" may not answer it, it is assigned to users alice`,
    );
    await stack.questions.answer(workflowId, {
      answers: [{ id: 'deploy', selected: ['No'] }],
      answeredBy: 'alice',
    });
    assert.deepEqual(await call, toolResult(NO_TEXT));
    assert.equal(guarded.formCount(), 0);
  });
});

test('over streamable HTTP, --elicit-as names the answerer, who is in the audience: the form answers', async () => {
  const { url } = await mcp.startHttpServer({ args: ['--agent', 'desk', '--elicit-as', 'carol'] });
  const desk = await connectFormClient(new StreamableHTTPClientTransport(url));

  const toolCallId = `call-http-${process.pid}`;
  const workflowId = `ask-user-question/desk/${toolCallId}`;
  const call = desk.client.callTool({ name: 'ask_user_question', arguments: ARGS, _meta: { toolCallId } });
  (await desk.nextForm()).reply({ action: 'accept', content: { deploy: 'No', deploy_other: '  ' } });

  assert.deepEqual(await call, toolResult(NO_TEXT));
  const record = await stack.questions.get(workflowId);
  assert.equal(record.answeredBy, 'carol');
  assert.deepEqual(record.audience, { users: ['carol'] });
});

test('bad form options are usage errors naming the option', async () => {
  for (const [args, message] of [
    [['--elicit-as', ' '], '--elicit-as must not be empty'],
    [['--elicit-as', 'carol', '--no-elicit'], '--elicit-as cannot go with --no-elicit'],
  ] as const) {
    const child = startChild(process.execPath, ['./bin/ask-user.js', 'mcp', ...args], mcp.env());
    assert.deepEqual(await child.waitForExit(), { code: 2, signal: null });
    assert.equal(child.stderr(), `ask-user: ${message}\nRun \`ask-user mcp --help\` for usage.\n`);
  }
});
