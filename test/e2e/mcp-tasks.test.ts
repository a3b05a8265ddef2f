/**
 * `ask_user_question` as an MCP task (protocol 2026-07-28, the Tasks extension), run for real: `ask-user mcp
 * --http` against a dev server and an ask-user worker, driven by the v2 SDK's `Client` with
 * `@modelcontextprotocol/ext-tasks`'s task session (test/helpers/mcp-task-client.ts). Humans answer in another
 * process (`ask-user answer`) or in the client's forms, through `tasks/update`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import { checkAnswer } from '../../src/answer';
import { MAX_CUSTOM_LENGTH } from '../../src/answer/answer-rules';
import { askUserQuestionMcpTool } from '../../src/mcp';
import { TemporalUserInteraction } from '../../src/provider';
import { jsonLines, killChildren, startChild, type RunningChild } from '../fixtures/child-process';
import { asTaskId, connectTaskClient, postRequest, type TaskClient } from '../helpers/mcp-task-client';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { freePort, startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

const TASK_QUEUE = `mcp-tasks-${process.pid}`;

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
const YES_TEXT = '{"answers":[{"id":"deploy","selected":["Yes (Recommended)"]}]}';
const NO_TEXT = '{"answers":[{"id":"deploy","selected":["No"]}]}';

let stack: DevServerWithClient;
let worker: RunningWorkers;
let url: URL;
const clients = new Set<TaskClient>();

function serverEnv(): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: stack.server.address,
    TEMPORAL_NAMESPACE: 'default',
    ASK_USER_TASK_QUEUE: TASK_QUEUE,
  };
}

/** Starts `ask-user mcp --http <port>` (polls suggested every second) and waits until it listens. */
async function startServer(port: number): Promise<{ child: RunningChild; url: URL }> {
  const child = startChild(
    process.execPath,
    ['./bin/ask-user.js', 'mcp', '--http', String(port), '--progress-interval', '1'],
    serverEnv(),
  );
  const line = await child.waitForLine((text) => text.startsWith('ask-user mcp: streamable HTTP on '));
  return { child, url: new URL(line.slice('ask-user mcp: streamable HTTP on '.length)) };
}

before(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  stack = await startDevServerWithClient('mcp-tasks');
  worker = await startAskUserWorker(stack.server.address, TASK_QUEUE);
  ({ url } = await startServer(0));
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

async function connect(options: Parameters<typeof connectTaskClient>[1] = {}, at = url): Promise<TaskClient> {
  const client = await connectTaskClient(at, options);
  clients.add(client);
  return client;
}

/** A human answers in another process: `ask-user answer <id> --select deploy=<label> --as alice`. */
async function answerFromAnotherProcess(workflowId: string, label = 'Yes (Recommended)'): Promise<void> {
  const answer = startChild(
    process.execPath,
    ['./bin/ask-user.js', 'answer', workflowId, '--select', `deploy=${label}`, '--as', 'alice'],
    serverEnv(),
  );
  assert.deepEqual(await answer.waitForExit(), { code: 0, signal: null }, answer.stderr());
}

/** How many updates the workflow accepted: one per recorded answer or decline. */
async function acceptedUpdates(workflowId: string): Promise<number> {
  const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)
    .length;
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
    await answerFromAnotherProcess(taskId);
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
    assert.equal(await acceptedUpdates(taskId), 1);
    assert.deepEqual((await stack.questions.get(taskId)).answer, JSON.parse(YES_TEXT));
    const again = await client.session.task(asTaskId(taskId)).result();
    assert.equal(again.status, 'completed');
  });

  test('a refused answer records nothing; the next status and form say why, and the next answer lands', async () => {
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
    const record = await stack.questions.get(taskId);
    assert.deepEqual(record.rejectedAnswers, []);
    assert.equal(await acceptedUpdates(taskId), 1);
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
    const provider = new TemporalUserInteraction({ client: stack.client, taskQueue: TASK_QUEUE });
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
    await answerFromAnotherProcess(taskId);
    await startServer(port);
    assert.equal(await settled, YES_TEXT);
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
    await answerFromAnotherProcess(taskId, 'No');
    assert.deepEqual(await poller.waitForExit(), { code: 0, signal: null }, poller.stderr());
    const [line] = jsonLines(poller.stdout()) as {
      status: string;
      result: { content: { text: string }[] };
    }[];
    assert.equal(line?.status, 'completed');
    assert.equal(line?.result.content[0]?.text, NO_TEXT);
  });
});
