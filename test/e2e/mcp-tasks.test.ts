/**
 * `ask_user_question` as an MCP task (protocol 2026-07-28, the Tasks extension), run for real: `ask-user mcp
 * --http` against a dev server and an ask-user worker, driven by the v2 SDK's `Client` with
 * `@modelcontextprotocol/ext-tasks`'s task session (test/helpers/mcp-task-client.ts). Humans answer in another
 * process (`ask-user answer`) or in the client's forms, through `tasks/update`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { checkAnswer } from '../../src/answer';
import { MAX_CUSTOM_LENGTH } from '../../src/answer/answer-rules';
import { askUserQuestionMcpTool } from '../../src/mcp';
import { TemporalUserInteraction } from '../../src/provider';
import { jsonLines, startChild, type RunningChild } from '../fixtures/child-process';
import { DEPLOY_ARGS as ARGS, NO_TEXT, YES_TEXT, startMcpStack, type McpStack } from '../helpers/mcp-fixture';
import { asTaskId, connectTaskClient, postRequest, type TaskClient } from '../helpers/mcp-task-client';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { freePort, type DevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

let mcp: McpStack;
let stack: DevServerWithClient;
let url: URL;
const clients = new Set<TaskClient>();

/** Starts `ask-user mcp --http <port>` (polls suggested every second) and waits until it listens. */
async function startServer(port: number): Promise<{ child: RunningChild; url: URL }> {
  return await mcp.startHttpServer({ port, args: ['--progress-interval', '1'] });
}

before(async () => {
  mcp = await startMcpStack('mcp-tasks');
  stack = mcp.dev;
  ({ url } = await startServer(0));
});

after(async () => {
  try {
    await Promise.allSettled([...clients].map((client) => client.close()));
  } finally {
    await mcp?.stop();
  }
});

async function connect(options: Parameters<typeof connectTaskClient>[1] = {}, at = url): Promise<TaskClient> {
  const client = await connectTaskClient(at, options);
  clients.add(client);
  return client;
}

/** Starts the question as a task; returns the execution and its task id. */
async function callAsTask(client: TaskClient): Promise<{
  execution: Awaited<ReturnType<TaskClient['session']['callTool']>>;
  taskId: string;
}> {
  const execution = await client.session.callTool('ask_user_question', ARGS);
  assert.ok(execution.kind === 'task');
  const taskId: string = execution.handle.taskId;
  assert.match(taskId, /^ask-user-question\/mcp\/[0-9a-f-]{36}$/);
  await waitForPendingRecord(stack.client, taskId);
  return { execution, taskId };
}

/** The text of a settled execution's completed result. */
async function settledText(execution: { settle(): Promise<{ outcome: unknown }> }): Promise<string> {
  const { outcome } = (await execution.settle()) as {
    outcome: { status: string; result?: { content: { text: string }[]; structuredContent?: unknown } };
  };
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
  const text = outcome.result!.content[0]!.text;
  assert.deepEqual(outcome.result!.structuredContent, JSON.parse(text));
  return text;
}

describe('ask-user mcp --http: the question as a task', () => {
  test('the server declares the Tasks extension to a 2026-07-28 client and lists the same tool', async () => {
    const { client } = await connect();
    assert.deepEqual(client.getServerCapabilities()?.extensions, { 'io.modelcontextprotocol/tasks': {} });
    assert.deepEqual((await client.listTools()).tools, [askUserQuestionMcpTool()]);
  });

  test('answered from the CLI in another process: the settled result is the exact answer text', async () => {
    const client = await connect();
    const { execution, taskId } = await callAsTask(client);
    const snapshot = await client.session.task(asTaskId(taskId)).snapshot();
    assert.equal(snapshot.status, 'working');
    assert.equal(snapshot.retentionMs, null);
    assert.equal(snapshot.suggestedPollIntervalMs, 1000);
    await mcp.answerFromAnotherProcess(taskId);
    assert.equal(await settledText(execution), YES_TEXT);
  });

  test("answered in the client's form through tasks/update, exactly once: a second update is ignored", async () => {
    const forms: { params: Readonly<Record<string, unknown>>; inputId: string | undefined }[] = [];
    const client = await connect({
      name: 'form-client',
      forms: (params, inputId) => {
        forms.push({ params, inputId });
        return { action: 'accept', content: { deploy: 'Yes (Recommended)' } };
      },
    });
    const { execution, taskId } = await callAsTask(client);
    assert.equal(await settledText(execution), YES_TEXT);
    assert.equal(forms.length, 1);
    assert.equal(forms[0]?.inputId, 'question-1');
    assert.deepEqual((forms[0]?.params.requestedSchema as { properties: object }).properties, {
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
        maxLength: MAX_CUSTOM_LENGTH,
      },
    });
    const record = await stack.questions.get(taskId);
    assert.equal(record.answeredBy, 'mcp:form-client');

    await client.session
      .task(asTaskId(taskId))
      .update({ 'question-1': { action: 'accept', content: { deploy: 'No' } } });
    assert.equal(await mcp.acceptedUpdates(taskId), 1);
    assert.deepEqual((await stack.questions.get(taskId)).answer, JSON.parse(YES_TEXT));
    const again = await client.session.task(asTaskId(taskId)).result();
    assert.equal(again.status, 'completed');
  });

  test('a refused answer records no answer; its refusal is kept, the next form says why, and the next answer lands', async () => {
    const forms: { message: string; inputId: string | undefined }[] = [];
    const client = await connect({
      forms: (params, inputId) => {
        forms.push({ message: String(params.message), inputId });
        const deploy = forms.length === 1 ? 'Maybe' : 'No';
        return { action: 'accept', content: { deploy } };
      },
    });
    const { execution, taskId } = await callAsTask(client);
    assert.equal(await settledText(execution), NO_TEXT);
    const checked = checkAnswer(ARGS.questions, { answers: [{ id: 'deploy', selected: ['Maybe'] }] });
    assert.equal(checked.ok, false);
    const note = `Your answer was not recorded: ${checked.ok ? '' : checked.reason}.`;
    assert.deepEqual(
      forms.map((form) => form.inputId),
      ['question-1', 'question-1-retry-1'],
    );
    assert.ok(!forms[0]!.message.includes(note));
    assert.ok(forms[1]!.message.startsWith(`${note}\n\n`), forms[1]!.message);
    // The refused update left no trace; the same answer as the signal put the refusal in the record.
    const record = await stack.questions.get(taskId);
    assert.deepEqual(
      record.rejectedAnswers.map(({ answeredBy, reason, answerId }) => ({ answeredBy, reason, answerId })),
      [
        {
          answeredBy: 'mcp:task-client',
          reason: checked.ok ? '' : checked.reason,
          answerId: record.rejectedAnswers[0]?.answerId,
        },
      ],
    );
    assert.match(record.rejectedAnswers[0]?.answerId ?? '', /^mcp-form-0-[0-9a-f-]{36}$/);
    assert.equal(await mcp.acceptedUpdates(taskId), 1);
  });

  test("Decline in the client's form: the task fails with the tool's error text", async () => {
    const client = await connect({ forms: () => ({ action: 'decline' }) });
    const { execution, taskId } = await callAsTask(client);
    const { outcome } = await execution.settle();
    assert.equal(outcome.status, 'failed');
    assert.equal(
      outcome.status === 'failed' ? outcome.error.message : '',
      'Error: the user cancelled ask_user_question',
    );
    assert.equal(
      outcome.status === 'failed' ? JSON.stringify(outcome.error.data) : '',
      '{"code":"ASK_CANCELLED"}',
    );
    assert.equal((await stack.questions.get(taskId)).status, 'declined');
  });

  test('tasks/cancel cancels the question: the workflow ends Canceled and the task is cancelled', async () => {
    const client = await connect();
    const { execution, taskId } = await callAsTask(client);
    await execution.cancel();
    const { outcome } = await execution.settle();
    assert.equal(outcome.status, 'cancelled');
    await waitFor(`${taskId} to be cancelled`, async () =>
      (await stack.client.workflow.getHandle(taskId).describe()).status.name === 'CANCELLED'
        ? true
        : undefined,
    );
    assert.equal((await client.session.task(asTaskId(taskId)).snapshot()).status, 'cancelled');
  });

  test('an unknown task id is an error, and so is a question this server did not ask', async () => {
    const provider = new TemporalUserInteraction({ client: stack.client, taskQueue: mcp.taskQueue });
    const controller = new AbortController();
    const othersId = `ask-user-question/someone-else/call-${process.pid}`;
    const asked = provider.ask({
      questions: ARGS.questions,
      agent: { id: 'someone-else' },
      toolCallId: `call-${process.pid}`,
      signal: controller.signal,
    });
    try {
      await waitForPendingRecord(stack.client, othersId);
      for (const taskId of ['ask-user-question/mcp/no-such-call', othersId]) {
        const response = await postRequest(url, {
          method: 'tasks/get',
          params: {
            taskId,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {
                extensions: { 'io.modelcontextprotocol/tasks': {} },
              },
            },
          },
        });
        assert.deepEqual(response, {
          kind: 'error',
          error: { code: -32602, message: `unknown task ${JSON.stringify(taskId)}` },
        });
      }
    } finally {
      controller.abort();
      await asked.catch(() => undefined);
      await provider.close();
    }
  });
});

describe('a task outlives the processes around it', () => {
  test('the MCP server SIGKILLed and restarted between polls: the task completes with the answer', async () => {
    const port = await freePort();
    const first = await startServer(port);
    const client = await connect({}, first.url);
    const { execution, taskId } = await callAsTask(client);
    const settled = settledText(execution);
    assert.deepEqual(await first.child.kill('SIGKILL'), { code: null, signal: 'SIGKILL' });
    await mcp.answerFromAnotherProcess(taskId);
    await startServer(port);
    assert.equal(await settled, YES_TEXT);
  });

  test("a refused answer's reason is read from the record: another instance shows it, and its next forms take the answer", async () => {
    const forms: (string | undefined)[] = [];
    const client = await connect({
      name: 'refusing-client',
      forms: (_params, inputId) => {
        forms.push(inputId);
        // The first answer is refused; the next forms are dismissed here and answered at the other instance.
        return forms.length === 1 ? { action: 'accept', content: { deploy: 'Maybe' } } : { action: 'cancel' };
      },
    });
    const { execution, taskId } = await callAsTask(client);
    const settled = settledText(execution);
    await waitFor('the forms after the refusal', async () => (forms.length >= 2 ? true : undefined));
    assert.deepEqual(forms.slice(0, 2), ['question-1', 'question-1-retry-1']);

    const other = await startServer(0);
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'refusing-client', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {
        extensions: { 'io.modelcontextprotocol/tasks': {} },
        elicitation: { form: {} },
      },
    };
    const checked = checkAnswer(ARGS.questions, { answers: [{ id: 'deploy', selected: ['Maybe'] }] });
    const note = `Your answer was not recorded: ${checked.ok ? '' : checked.reason}.`;
    const status = await postRequest(other.url, { method: 'tasks/get', params: { taskId, _meta } });
    assert.equal(status.kind, 'result', JSON.stringify(status));
    const task = (status as { result: Record<string, unknown> }).result as {
      status: string;
      statusMessage: string;
      inputRequests: Record<string, { params: { message: string } }>;
    };
    assert.equal(task.status, 'input_required');
    assert.equal(task.statusMessage, note);
    assert.deepEqual(Object.keys(task.inputRequests), ['question-1-retry-1']);
    assert.ok(task.inputRequests['question-1-retry-1']!.params.message.startsWith(`${note}\n\n`));

    const update = await postRequest(other.url, {
      method: 'tasks/update',
      params: {
        taskId,
        inputResponses: { 'question-1-retry-1': { action: 'accept', content: { deploy: 'No' } } },
        _meta,
      },
    });
    assert.equal(update.kind, 'result', JSON.stringify(update));
    assert.equal(await settled, NO_TEXT);
    const record = await stack.questions.get(taskId);
    assert.equal(record.answeredBy, 'mcp:refusing-client');
    assert.equal(record.rejectedAnswers.length, 1);
  });

  test('a new client process polling the same task id gets the answer', async () => {
    const first = await connect();
    const { execution, taskId } = await callAsTask(first);
    // The first client goes away as a process does, without a word to the server. (Closing its task session
    // would cancel the task: the session cancels what it started.)
    await execution.detach();
    clients.delete(first);
    await first.client.close();
    const poller = startChild(process.execPath, [
      '--import',
      'tsx',
      'test/helpers/mcp-task-poller.ts',
      url.href,
      taskId,
    ]);
    await mcp.answerFromAnotherProcess(taskId, 'No');
    assert.deepEqual(await poller.waitForExit(), { code: 0, signal: null }, poller.stderr());
    const [line] = jsonLines(poller.stdout()) as {
      status: string;
      result: { content: { text: string }[] };
    }[];
    assert.equal(line?.status, 'completed');
    assert.equal(line?.result.content[0]?.text, NO_TEXT);
  });
});
