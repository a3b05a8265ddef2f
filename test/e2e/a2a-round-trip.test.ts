/**
 * `durable-ask-user/a2a` against a real dev server and worker, with the SDK's own client over JSON-RPC and REST:
 * the agent server (test/helpers/a2a-agent-server.ts) is a child process, so it can be SIGKILLed and started
 * again on its task store.
 *
 * - a blocking SendMessage returns in input-required holding the question; a reply with a label not offered is
 *   refused (the task stays input-required, nothing recorded); a text reply completes it with the exact answer;
 * - an answer from the CLI (`ask-user answer`, another process) moves a subscriber's task to completed; one from
 *   the ops client, while no A2A request runs, is pushed to the task's push config;
 * - 20 clients replying at once record one answer: each reads that one, or is told by the SDK that the task has
 *   ended;
 * - the server SIGKILLed and restarted while the task waits, the task then completes: at the client's reply, or,
 *   answered from ops while the server was down, once the restarted server takes its waiting tasks up;
 * - an approval decided with a data part (`edit`) runs the tool with the edited input;
 * - cancelling the task cancels the question.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, type Client } from '@a2a-js/sdk/client';
import { A2A_METADATA_KEY } from '../../src/a2a';
import {
  PROJECT_ROOT,
  jsonLines,
  killChildren,
  startChild,
  startTsChild,
  type RunningChild,
} from '../fixtures/child-process';
import { historyEventTypes } from '../helpers/history';
import { waitFor } from '../helpers/wait';
import { freePort, startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';
import { DEPLOY_INPUT, ENVIRONMENT_QUESTION } from '../helpers/a2a-agent-server';

const TASK_QUEUE = `a2a-${process.pid}`;
const AGENT_SERVER = path.join(__dirname, '..', 'helpers', 'a2a-agent-server.ts');

let stack: DevServerWithClient;
let worker: RunningWorkers;
let server: RunningChild;
let port: number;
let dbFile: string;

/** Starts the agent server on `port` and `dbFile`, and waits until it serves. */
async function startAgentServer(): Promise<RunningChild> {
  const child = startTsChild(AGENT_SERVER, {
    TEMPORAL_ADDRESS: stack.server.address,
    TEMPORAL_NAMESPACE: 'default',
    ASK_USER_TASK_QUEUE: TASK_QUEUE,
    A2A_DB_FILE: dbFile,
    A2A_PORT: String(port),
  });
  await child.waitForLine((line) => line.includes('"event":"listening"'));
  return child;
}

/** Whether this Node has `node:sqlite` without a flag, and statements that list their columns (22.16+, 24). */
function hasNodeSqlite(): boolean {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { DatabaseSync } = require('node:sqlite') as {
      DatabaseSync: new (file: string) => { prepare(sql: string): { columns?: unknown } };
    };
    return typeof new DatabaseSync(':memory:').prepare('select 1').columns === 'function';
  } catch {
    return false;
  }
}

before(async () => {
  stack = await startDevServerWithClient('a2a');
  worker = await startAskUserWorker(stack.server.address, TASK_QUEUE);
  dbFile = path.join(stack.directory, 'a2a-tasks.sqlite');
  const migrate = startChild(process.execPath, [
    // Where Node has its own SQLite, better-sqlite3 (built for the Node that installed it) may not load: the
    // tool then gets the stand-in of test/fixtures/node-sqlite-hooks.mjs, as the agent server does.
    ...(hasNodeSqlite()
      ? ['--import', path.join(__dirname, '..', 'fixtures', 'node-sqlite-register.mjs')]
      : []),
    // The SDK's own schema tool (its `a2a-db` bin) creates the task store's tables.
    path.join(PROJECT_ROOT, 'node_modules', '@a2a-js', 'sdk', 'dist', 'cli', 'a2a_db.js'),
    'upgrade',
    '--url',
    `sqlite:${dbFile}`,
  ]);
  assert.equal((await migrate.waitForExit()).code, 0, migrate.stderr());
  port = await freePort();
  server = await startAgentServer();
});

after(async () => {
  await killChildren();
  await worker?.stop();
  await stack?.stop();
});

/** A client of the agent server over `transport`, as `ClientFactory` makes one from the agent card. */
async function clientOver(transport: 'JSONRPC' | 'HTTP+JSON'): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] }),
  );
  return await factory.createFromUrl(`http://127.0.0.1:${port}`);
}

function text(value: string): Part {
  return { content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: {} };
}

function data(value: unknown): Part {
  return { content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: {} };
}

function userMessage(parts: Part[], task?: Task): Message {
  return {
    messageId: randomUUID(),
    taskId: task?.id ?? '',
    contextId: task?.contextId ?? '',
    role: Role.ROLE_USER,
    parts,
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

/** Sends `parts` (on `task`, when given) as a blocking SendMessage and returns the task it ends at. */
async function send(client: Client, parts: Part[], task?: Task): Promise<Task> {
  const result = await client.sendMessage({
    tenant: '',
    message: userMessage(parts, task),
    configuration: undefined,
    metadata: {},
  });
  assert.ok('status' in result, `a task, not ${JSON.stringify(result)}`);
  return result;
}

/** The task's status message: its data part and its text. */
function statusParts(task: Task): { data: Record<string, unknown> | undefined; text: string } {
  const parts = task.status?.message?.parts ?? [];
  let found: Record<string, unknown> | undefined;
  const texts: string[] = [];
  for (const part of parts) {
    if (part.content?.$case === 'data') found = part.content.value as Record<string, unknown>;
    if (part.content?.$case === 'text') texts.push(part.content.value);
  }
  return { data: found, text: texts.join('\n') };
}

/** The question's workflow id the waiting task names. */
function questionIdOf(task: Task): string {
  const entry = task.status?.message?.metadata?.[A2A_METADATA_KEY] as { questionId?: string } | undefined;
  assert.ok(entry?.questionId !== undefined, `no question id in ${JSON.stringify(task.status)}`);
  return entry.questionId;
}

/** Starts a task that asks the environment question and checks what the client sees. */
async function askedTask(client: Client): Promise<Task> {
  const task = await send(client, [text('Deploy build 1.4.2.')]);
  assert.equal(task.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
  const { data: shown, text: rendered } = statusParts(task);
  assert.equal(shown?.kind, 'question');
  const [question] = shown?.questions as (typeof ENVIRONMENT_QUESTION)[];
  assert.equal(question?.id, ENVIRONMENT_QUESTION.id);
  assert.equal(question?.question, ENVIRONMENT_QUESTION.question);
  assert.deepEqual(
    question?.options.map((option) => option.label),
    ['staging', 'production'],
  );
  assert.match(rendered, /Where should I deploy build 1\.4\.2\?/);
  assert.equal(questionIdOf(task), `ask-user-question/deploy-assistant/${task.id}/call_ask`);
  return task;
}

/** How many updates the question's workflow accepted (a refused one leaves no event). */
async function acceptedUpdates(workflowId: string): Promise<number> {
  const types = await historyEventTypes(stack.client, workflowId);
  return types.filter((type) => type === 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED').length;
}

for (const transport of ['JSONRPC', 'HTTP+JSON'] as const) {
  test(`${transport}: input-required with the question; a label not offered is refused; a text reply completes it`, async () => {
    const client = await clientOver(transport);
    const task = await askedTask(client);
    const workflowId = questionIdOf(task);

    const refused = await send(client, [data({ answers: [{ id: 'environment', selected: ['qa'] }] })], task);
    assert.equal(refused.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    assert.match(statusParts(refused).text, /refused, and nothing was recorded: .*qa/);
    assert.equal(statusParts(refused).data?.questionId, workflowId);
    const pending = await stack.questions.get(workflowId);
    assert.equal(pending.status, 'pending');
    assert.equal(pending.answer, undefined);
    assert.equal(await acceptedUpdates(workflowId), 0);

    const done = await send(client, [text('production')], task);
    assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(done.status));
    const expected = { answers: [{ id: 'environment', selected: ['production'] }] };
    assert.equal(statusParts(done).text, `Done. The tool returned: ${JSON.stringify(expected)}`);
    const record = await stack.questions.get(workflowId);
    assert.equal(record.status, 'answered');
    assert.deepEqual(record.answer, expected);
    assert.deepEqual(
      (await client.getTask({ tenant: '', id: task.id })).status?.state,
      TaskState.TASK_STATE_COMPLETED,
    );
  });
}

test('an answer from the CLI, in another process, moves a subscribed task to completed', async () => {
  const client = await clientOver('JSONRPC');
  const task = await askedTask(client);
  const states: TaskState[] = [];
  const subscribed = (async () => {
    for await (const event of client.resubscribeTask({ tenant: '', id: task.id })) {
      const payload = event.payload;
      if (payload?.$case === 'statusUpdate' && payload.value.status !== undefined) {
        states.push(payload.value.status.state);
        if (payload.value.status.state === TaskState.TASK_STATE_COMPLETED)
          return statusParts({ ...task, status: payload.value.status });
      }
    }
    return undefined;
  })();
  const cli = startChild(
    process.execPath,
    ['./bin/ask-user.js', 'answer', questionIdOf(task), '--select', 'environment=staging', '--as', 'alice'],
    { TEMPORAL_ADDRESS: stack.server.address, TEMPORAL_NAMESPACE: 'default' },
  );
  assert.equal((await cli.waitForExit()).code, 0, cli.stderr());
  const completed = await subscribed;
  assert.ok(completed !== undefined, `the stream ended at ${JSON.stringify(states)}`);
  assert.equal(
    completed.text,
    `Done. The tool returned: ${JSON.stringify({ answers: [{ id: 'environment', selected: ['staging'] }] })}`,
  );
  assert.equal(
    (await client.getTask({ tenant: '', id: task.id })).status?.state,
    TaskState.TASK_STATE_COMPLETED,
  );
});

/** A push notification receiver on 127.0.0.1 that answers 200 and keeps every body it is sent. */
async function startPushReceiver(): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const receiver = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      bodies.push(body);
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port: receiverPort } = receiver.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${receiverPort}/push`,
    bodies,
    close: () => new Promise((resolve) => receiver.close(() => resolve())),
  };
}

test('an answer from the ops client, with no A2A request running, is pushed to the push config as completed', async () => {
  const client = await clientOver('HTTP+JSON');
  const task = await askedTask(client);
  const receiver = await startPushReceiver();
  try {
    await client.createTaskPushNotificationConfig({
      tenant: '',
      id: 'push-1',
      taskId: task.id,
      url: receiver.url,
      token: 'secret-token',
      authentication: undefined,
    });
    await stack.questions.answer(questionIdOf(task), {
      answers: [{ id: 'environment', selected: ['production'] }],
      answeredBy: 'ops',
    });
    const pushed = await waitFor('the completed status pushed', () =>
      receiver.bodies.find((body) => body.includes('TASK_STATE_COMPLETED')),
    );
    assert.match(pushed, /Done\. The tool returned: /);
    assert.match(pushed, new RegExp(task.id));
  } finally {
    await receiver.close();
  }
});

test('20 clients replying at once record one answer, and each reads that one', async () => {
  const first = await clientOver('JSONRPC');
  const task = await askedTask(first);
  const clients = await Promise.all(
    Array.from({ length: 20 }, (_, index) => clientOver(index % 2 === 0 ? 'JSONRPC' : 'HTTP+JSON')),
  );
  const settled = await Promise.allSettled(
    clients.map((client, index) => send(client, [text(`reply ${index}`)], task)),
  );
  // A reply that reaches the server once the task has completed is refused by the SDK itself.
  const results: Task[] = [];
  for (const outcome of settled) {
    if (outcome.status === 'fulfilled') results.push(outcome.value);
    else assert.match(String(outcome.reason), /is in a terminal state .* cannot be modified/);
  }
  assert.ok(results.length >= 1);
  const record = await stack.questions.get(questionIdOf(task));
  assert.equal(record.status, 'answered');
  const winner = record.answer?.answers[0]?.custom;
  assert.match(winner ?? '', /^reply \d+$/);
  assert.equal(await acceptedUpdates(questionIdOf(task)), 1);
  const stored = await first.getTask({ tenant: '', id: task.id });
  assert.equal(stored.status?.state, TaskState.TASK_STATE_COMPLETED);
  assert.match(statusParts(stored).text, new RegExp(`"custom":"${winner}"`));
  for (const result of results) {
    assert.equal(result.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(result.status));
    assert.match(statusParts(result).text, new RegExp(`"custom":"${winner}"`));
  }
});

test('the agent server SIGKILLed and restarted while the task waits: the reply then completes the task', async () => {
  const task = await askedTask(await clientOver('HTTP+JSON'));
  await server.kill('SIGKILL');
  server = await startAgentServer();
  const client = await clientOver('HTTP+JSON');
  const waiting = await client.getTask({ tenant: '', id: task.id });
  assert.equal(waiting.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
  const done = await send(
    client,
    [data({ answers: [{ id: 'environment', selected: ['staging'] }] })],
    waiting,
  );
  assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(done.status));
  assert.equal(
    statusParts(done).text,
    `Done. The tool returned: ${JSON.stringify({ answers: [{ id: 'environment', selected: ['staging'] }] })}`,
  );
  assert.equal(await acceptedUpdates(questionIdOf(task)), 1);
});

test('answered from the ops client while the agent server is down: the restarted server takes the task up and completes it', async () => {
  const client = await clientOver('JSONRPC');
  const task = await askedTask(client);
  await server.kill('SIGKILL');
  await stack.questions.answer(questionIdOf(task), {
    answers: [{ id: 'environment', selected: ['production'] }],
    answeredBy: 'ops',
  });
  server = await startAgentServer();
  const listening = jsonLines(server.stdout()).find((event) => event.event === 'listening');
  assert.ok(Number(listening?.resumed) >= 1, JSON.stringify(listening));
  const after = await clientOver('JSONRPC');
  const done = await waitFor('the task completed', async () => {
    const current = await after.getTask({ tenant: '', id: task.id });
    return current.status?.state === TaskState.TASK_STATE_COMPLETED ? current : undefined;
  });
  assert.equal(
    statusParts(done).text,
    `Done. The tool returned: ${JSON.stringify({ answers: [{ id: 'environment', selected: ['production'] }] })}`,
  );
});

test('an approval decided with a data part runs the tool with the edited input', async () => {
  const client = await clientOver('JSONRPC');
  const task = await send(client, [text('deploy build 1.4.2')]);
  assert.equal(task.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
  const { data: shown } = statusParts(task);
  assert.equal(shown?.kind, 'approval');
  assert.equal(shown?.toolName, 'deploy');
  assert.deepEqual(shown?.input, DEPLOY_INPUT);
  assert.deepEqual(shown?.decisions, ['approve', 'edit', 'reject', 'respond']);
  const edited = { version: '1.4.2', env: 'production' };

  const invalid = await send(
    client,
    [data({ type: 'edit', input: { version: '1.4.2', env: 'moon' } })],
    task,
  );
  assert.equal(invalid.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
  assert.match(statusParts(invalid).text, /refused, and nothing was recorded/);

  const done = await send(client, [data({ type: 'edit', input: edited })], task);
  assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(done.status));
  assert.equal(statusParts(done).text, `Done. The tool returned: deployed ${JSON.stringify(edited)}`);
  const deployed = jsonLines(server.stdout()).filter(
    (event) => event.event === 'deployed' && event.taskId === task.id,
  );
  assert.deepEqual(
    deployed.map((event) => event.input),
    [edited],
  );
  const record = await stack.questions.get(questionIdOf(task));
  assert.equal(record.decision?.type, 'edit');
});

test('cancelling the task cancels its question', async () => {
  const client = await clientOver('HTTP+JSON');
  const task = await askedTask(client);
  const cancelled = await client.cancelTask({ tenant: '', id: task.id, metadata: {} });
  assert.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED);
  const record = await stack.questions.get(questionIdOf(task));
  assert.equal(record.status, 'cancelled');
});
