/**
 * `ask-user watch`, `ask-user inbox` and the inbox of `ask-user dev`, run for real (`node ./bin/ask-user.js`)
 * against a dev server: what they print, their exit codes (0 ok, 1 failure, 2 usage), and that the inbox they
 * serve answers with the token they were given or printed.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import { TemporalUserInteraction } from '../../src/provider';
import {
  killChildren,
  startChild,
  type RunningChild,
  type StartChildOptions,
} from '../fixtures/child-process';
import { waitUntilListedPending } from '../helpers/pending-questions';
import { freePort, startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `inbox-cli-${process.pid}`;
const AGENT_ID = 'watch-agent';
const TOKEN = 'cli-inbox-token-0123456789abcdef';

let stack: DevServerWithClient;
let worker: RunningWorkers;
let provider: TemporalUserInteraction;
const controllers: AbortController[] = [];

before(async () => {
  stack = await startDevServerWithClient('inbox-cli');
  worker = await startAskUserWorker(stack.server.address, TASK_QUEUE);
  provider = new TemporalUserInteraction({ client: stack.client, taskQueue: TASK_QUEUE });
});

after(async () => {
  try {
    for (const controller of controllers) controller.abort();
    await killChildren();
    await provider?.close();
    await worker?.stop();
  } finally {
    await stack?.stop();
  }
});

/** Starts `ask-user <args>` against the test server. */
function startCli(
  args: string[],
  env: Record<string, string> = {},
  options: StartChildOptions = {},
): RunningChild {
  return startChild(
    process.execPath,
    ['./bin/ask-user.js', ...args],
    {
      TEMPORAL_ADDRESS: stack.server.address,
      TEMPORAL_NAMESPACE: 'default',
      ASK_USER_TASK_QUEUE: TASK_QUEUE,
      ASK_USER_INBOX_TOKEN: '',
      ASK_USER_INBOX_USERS: '',
      ...env,
    },
    options,
  );
}

let calls = 0;

/** Asks a question in this process (withdrawn in `after()`) and waits until it is listed pending. */
async function ask(header: string): Promise<string> {
  const toolCallId = `call-${++calls}`;
  const controller = new AbortController();
  controllers.push(controller);
  provider
    .ask({
      questions: [{ id: 'q', header, question: `${header}?`, options: [{ label: 'Yes' }, { label: 'No' }] }],
      agent: { id: AGENT_ID },
      toolCallId,
      signal: controller.signal,
    })
    .catch(() => undefined);
  const workflowId = `ask-user-question/${AGENT_ID}/${toolCallId}`;
  await waitUntilListedPending(stack.questions, workflowId);
  return workflowId;
}

/** Asks to approve a `deploy` call in this process (withdrawn in `after()`); waits until it is listed pending. */
async function askApproval(description: string): Promise<string> {
  const toolCallId = `call-${++calls}`;
  const controller = new AbortController();
  controllers.push(controller);
  provider
    .requestApproval({
      toolName: 'deploy',
      toolCallId,
      input: { service: 'checkout' },
      description,
      agent: { id: AGENT_ID },
      signal: controller.signal,
    })
    .catch(() => undefined);
  const workflowId = `ask-user-question/${AGENT_ID}/${toolCallId}`;
  await waitUntilListedPending(stack.questions, workflowId);
  return workflowId;
}

/** The summary `ask-user list --json` would show for the question. */
async function summaryOf(workflowId: string): Promise<Record<string, unknown>> {
  const found = (await stack.questions.list('pending')).find(
    (question) => question.workflowId === workflowId,
  );
  assert.ok(found !== undefined, `${workflowId} is listed`);
  return found as unknown as Record<string, unknown>;
}

async function untilWatching(watch: RunningChild): Promise<void> {
  await waitFor('watch to take stock', () =>
    watch.stderr().includes('watching for new questions') ? true : undefined,
  );
}

function stdoutLines(child: RunningChild): string[] {
  return child.stdout().split('\n').slice(0, -1);
}

describe('ask-user watch', () => {
  test('prints one line per question that becomes pending after it started, and exits 0 on Ctrl-C', async () => {
    const before = await ask('Before watch');
    const watch = startCli(['watch', '--interval', '0.2']);
    await untilWatching(watch);
    assert.equal(
      watch.stderr(),
      `ask-user watch: watching for new questions in namespace default at ${stack.server.address} (Ctrl-C to stop)\n`,
    );
    const first = await ask('Rotate keys');
    await watch.waitForLine((line) => line.includes(first));
    const second = await ask('Restart the cache');
    await watch.waitForLine((line) => line.includes(second));
    const approval = await askApproval('Roll out checkout');
    await watch.waitForLine((line) => line.includes(approval));
    assert.deepEqual(await watch.kill('SIGINT'), { code: 0, signal: null });
    const expected = await Promise.all(
      [first, second, approval].map(async (workflowId) => {
        const summary = await summaryOf(workflowId);
        const kind = workflowId === approval ? 'approval' : 'question';
        return `${summary.askedAt as string}  ${workflowId}  ${kind}  ${AGENT_ID}  ${summary.title as string}`;
      }),
    );
    assert.equal(
      expected[2]?.endsWith(`  approval  ${AGENT_ID}  Approve deploy: Roll out checkout`),
      true,
      expected[2],
    );
    assert.deepEqual(stdoutLines(watch), expected);
    assert.ok(!watch.stdout().includes(before), 'a question pending before watch started is not printed');
  });

  test('--json prints one summary object per line', async () => {
    const watch = startCli(['watch', '--json', '--interval', '0.2']);
    await untilWatching(watch);
    const workflowId = await ask('Scale the workers');
    await watch.waitForLine((line) => line.includes(workflowId));
    assert.deepEqual(await watch.kill('SIGINT'), { code: 0, signal: null });
    const lines = stdoutLines(watch);
    assert.equal(lines.length, 1);
    assert.deepEqual(JSON.parse(lines[0]!), await summaryOf(workflowId));
    assert.deepEqual(Object.keys(JSON.parse(lines[0]!) as object), [
      'workflowId',
      'title',
      'status',
      'questionCount',
      'askedAt',
      'agentId',
      'toolCallId',
    ]);
  });

  test('usage mistakes exit 2; an unreachable server exits 1', async () => {
    for (const [args, message] of [
      [['watch', '--interval', '0'], 'ask-user: --interval must be a number of seconds from 0.1 to 3600'],
      [['watch', 'extra'], 'ask-user: watch takes no arguments (got extra)'],
      [['inbox', '--port', 'http'], 'ask-user: --port must be a port number from 0 to 65535'],
    ] as const) {
      const child = startCli([...args]);
      assert.deepEqual(await child.waitForExit(), { code: 2, signal: null }, child.stderr());
      assert.equal(child.stderr(), `${message}\nRun \`ask-user ${args[0]} --help\` for usage.\n`);
      assert.equal(child.stdout(), '');
    }
    const unknown = startCli(['watch', '--follow']);
    assert.deepEqual(await unknown.waitForExit(), { code: 2, signal: null });
    assert.match(unknown.stderr(), /^ask-user: Unknown option '--follow'/);

    const nowhere = `127.0.0.1:${await freePort()}`;
    const unreachable = startCli(['watch'], { TEMPORAL_ADDRESS: nowhere });
    assert.deepEqual(await unreachable.waitForExit(), { code: 1, signal: null });
    assert.match(unreachable.stderr(), new RegExp(`^ask-user: cannot reach Temporal at ${nowhere}: `));
  });
});

describe('ask-user inbox', () => {
  test('serves the API with ASK_USER_INBOX_TOKEN on 127.0.0.1 and stops on Ctrl-C', async () => {
    const workflowId = await ask('Inbox from the CLI');
    const port = await freePort();
    const inbox = startCli(['inbox', '--port', String(port)], { ASK_USER_INBOX_TOKEN: TOKEN });
    const line = await inbox.waitForLine((text) => text.startsWith('Inbox'));
    assert.equal(line, `Inbox     http://127.0.0.1:${port}/`);
    const base = `http://127.0.0.1:${port}`;
    assert.equal((await fetch(`${base}/api/questions`)).status, 401);
    const response = await fetch(`${base}/api/questions`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { questions: { workflowId: string }[] };
    assert.ok(body.questions.some((question) => question.workflowId === workflowId));
    assert.deepEqual(await inbox.kill('SIGINT'), { code: 0, signal: null });
    assert.equal(inbox.stderr(), '');
  });

  test('without a token, or with a token or session key too short to be safe, it refuses to start (exit 2)', async () => {
    for (const [env, message] of [
      [
        {},
        'the inbox needs a way in: set ASK_USER_INBOX_TOKEN, ASK_USER_INBOX_USERS or ASK_USER_OIDC_ISSUER',
      ],
      [{ ASK_USER_INBOX_TOKEN: 'short' }, 'ASK_USER_INBOX_TOKEN: a token must be at least 16 characters'],
      [
        { ASK_USER_INBOX_TOKEN: TOKEN, ASK_USER_INBOX_SESSION_KEY: 'short-key' },
        'ASK_USER_INBOX_SESSION_KEY: the key has 9 characters, at least 32 are needed (e.g. openssl rand -base64 32)',
      ],
      [
        { ASK_USER_INBOX_USERS: path.join(stack.directory, 'missing-users') },
        `ASK_USER_INBOX_USERS: cannot read ${path.join(stack.directory, 'missing-users')}: ENOENT: no such file or directory, open '${path.join(stack.directory, 'missing-users')}'`,
      ],
    ] as const) {
      const child = startCli(['inbox', '--port', '0'], env);
      assert.deepEqual(await child.waitForExit(), { code: 2, signal: null }, child.stderr());
      assert.equal(child.stderr(), `ask-user: ${message}\nRun \`ask-user inbox --help\` for usage.\n`);
    }
  });
});

describe('ask-user dev', () => {
  test('serves the inbox and prints its link with a generated token that logs in', async () => {
    const port = await freePort();
    const inboxPort = await freePort();
    const dev = startCli(
      [
        'dev',
        '--port',
        String(port),
        '--headless',
        '--inbox-port',
        String(inboxPort),
        '--db',
        path.join(stack.directory, 'dev.sqlite'),
      ],
      {},
      { detached: true },
    );
    try {
      const line = await dev.waitForLine((text) => text.startsWith('Inbox'), 120_000);
      const match = /^Inbox {16}(http:\/\/127\.0\.0\.1:(\d+)\/)#token=([\w-]{43})$/.exec(line);
      assert.ok(match !== null, line);
      assert.equal(Number(match[2]), inboxPort);
      const login = await fetch(new URL('/api/login', match[1]), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: match[3], name: 'dev-user' }),
      });
      assert.equal(login.status, 200);
      assert.deepEqual(Object.keys((await login.json()) as object), ['name', 'groups', 'csrfToken']);
      assert.deepEqual(await dev.kill('SIGINT'), { code: 0, signal: null }, dev.stderr());
    } finally {
      await dev.killGroup();
    }
  });
});
