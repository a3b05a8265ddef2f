/**
 * The packages as a user installs them: built and packed in a copy of the sources
 * (test/helpers/packed-package.ts), then each installed alone in an empty project, its sibling packages coming
 * from their tarballs as they would from the registry. There:
 * - the agent package, `durable-ask-user`, stays small and holds no worker, Slack, HTTP server, MCP or OpenID
 *   code and none of our other packages; its entries load with plain node, the tool-only entry without
 *   Temporal or gRPC, and its README's links into docs/ resolve;
 * - installing runs no install script of ours;
 * - a worker of `@durable-ask-user/worker`, on the prebuilt workflow bundles, answers an agent of the agent
 *   package's project, on a real dev server, a malformed signal included;
 * - `ask-user` of `@durable-ask-user/cli` runs as the README runs it: help, dev, ask, list, answer, inbox, MCP;
 * - and, for the record, what each package costs to install alone (printed, not asserted).
 *
 * Installs prefer npm's cache, which `npm ci` has filled, and go to the registry only for what it lacks.
 * Everything runs with plain node, the Node that runs the tests (20, and 24 in CI).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { temporal } from '@temporalio/proto';

import { jsonLines, killChildren } from '../fixtures/child-process';
import {
  OUR_PACKAGES,
  askUser,
  figuresTable,
  installConsumer,
  installFigures,
  installedPackages,
  interruptGroup,
  matchesPackage,
  nodeIn,
  ourInstallScripts,
  packagesWithInstallScripts,
  startAskUser,
  startScript,
  type Consumer,
} from '../helpers/package-consumers';
import { folderBytes, packPackages, type PackedPackages } from '../helpers/packed-package';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { isRunning } from '../helpers/processes';
import { freePort, startDevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const AGENT = 'durable-ask-user';
const WORKER = '@durable-ask-user/worker';
const CLI = '@durable-ask-user/cli';

/** The agent package's budget: its node_modules, counted as the sum of its files' sizes (folderBytes). */
const AGENT_MAX_BYTES = 60 * 2 ** 20;

/** What an agent that only asks must not install: the worker's native core, Slack, the inbox's HTTP stack, MCP, SSO. */
const NOT_IN_AGENT = [
  '@temporalio/worker',
  '@temporalio/core-bridge',
  '@slack/*',
  'hono',
  '@hono/*',
  '@modelcontextprotocol/*',
  'openid-client',
  '@durable-ask-user/*',
];

let directory: string;
let packed: PackedPackages;
let agent: Consumer;
let worker: Consumer;
let cli: Consumer;

before(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ask-user-packages-'));
  packed = packPackages(directory);
  agent = installConsumer(path.join(directory, 'agent'), packed, AGENT);
  worker = installConsumer(path.join(directory, 'worker'), packed, WORKER);
  cli = installConsumer(path.join(directory, 'cli'), packed, CLI);
});

after(async () => {
  await killChildren();
  if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
});

test('the agent package alone: node_modules at most 60 MiB, without the worker, Slack, Hono, MCP, OpenID or our other packages', () => {
  const bytes = folderBytes(agent.nodeModules);
  assert.ok(bytes <= AGENT_MAX_BYTES, `node_modules holds ${(bytes / 2 ** 20).toFixed(1)} MiB`);
  const names = installedPackages(agent.nodeModules).map(({ name }) => name);
  // The listing sees what the agent does need, so the empty list below means something.
  assert.ok(names.includes(AGENT) && names.includes('@temporalio/client'), names.join(' '));
  assert.deepEqual(
    names.filter((name) => NOT_IN_AGENT.some((pattern) => matchesPackage(name, pattern))),
    [],
  );
});

test('installing runs no install script of ours, and npm lists none of ours among the install scripts to approve', () => {
  // Where this npm lists install scripts at all (npm 11), the parse sees protobufjs's (a dependency of the
  // Temporal client), so the empty lists below mean something.
  if (agent.installOutput.includes('npm warn install-scripts')) {
    assert.ok(packagesWithInstallScripts(agent.installOutput).includes('protobufjs'), agent.installOutput);
  }
  // The CLI's project holds all six of our packages; the agent's and the worker's hold theirs alone.
  const installed = ourInstallScripts(cli);
  assert.deepEqual(Object.keys(installed).sort(), [...OUR_PACKAGES].sort());
  for (const consumer of [agent, worker, cli]) {
    assert.deepEqual(
      Object.entries(ourInstallScripts(consumer)).filter(([, scripts]) => scripts.length > 0),
      [],
      `a package of ours installed for ${consumer.name} carries an install-time script`,
    );
    assert.deepEqual(
      packagesWithInstallScripts(consumer.installOutput).filter((name) => OUR_PACKAGES.includes(name)),
      [],
      consumer.installOutput,
    );
  }
});

test("the agent package's entries load with plain node", () => {
  // One export of each entry that shows it is the entry it claims to be.
  const entries: Record<string, string> = {
    [AGENT]: 'TemporalUserInteraction',
    [`${AGENT}/tool`]: 'createAskUserQuestionTool',
    [`${AGENT}/workflow`]: 'askUserQuestionAsChild',
    [`${AGENT}/ai`]: 'askUserQuestionAiTool',
    [`${AGENT}/ai-workflow`]: 'askUserQuestionWorkflowAiTool',
    [`${AGENT}/claude`]: 'claudeCanUseTool',
    [`${AGENT}/openai-agents`]: 'resolveInterruptions',
  };
  const loaded = JSON.parse(
    nodeIn(
      agent,
      `const entries = ${JSON.stringify(entries)};
       console.log(JSON.stringify(Object.fromEntries(Object.entries(entries).map(([entry, name]) =>
         [entry, typeof require(entry)[name]]))));`,
    ),
  ) as Record<string, string>;
  assert.deepEqual(loaded, Object.fromEntries(Object.keys(entries).map((entry) => [entry, 'function'])));
});

test('the tool-only entry loads no @grpc/* and no @temporalio/* module; the root does load Temporal', () => {
  const modulesOf = (entry: string): string[] =>
    JSON.parse(
      nodeIn(
        agent,
        `require(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(require.cache)))`,
      ),
    ) as string[];
  const tool = modulesOf(`${AGENT}/tool`);
  assert.ok(
    tool.some((file) => file.endsWith(path.join(AGENT, 'dist', 'tool-entry.js'))),
    'the recording sees the entry itself',
  );
  const grpcOrTemporal = /[\\/]node_modules[\\/](@grpc|@temporalio)[\\/]/;
  assert.deepEqual(
    tool.filter((file) => grpcOrTemporal.test(file)),
    [],
  );
  // The root does load the Temporal client: the check above can fail.
  assert.ok(modulesOf(AGENT).some((file) => grpcOrTemporal.test(file)));
});

test('the README in the agent package: its links into docs/ resolve inside the installed package', () => {
  const installed = path.join(agent.nodeModules, AGENT);
  const readmeFile = path.join(installed, 'README.md');
  assert.ok(
    fs.existsSync(readmeFile),
    `the agent package ships no README.md: ${packed[AGENT]!.files.join(' ')}`,
  );
  const readme = fs.readFileSync(readmeFile, 'utf8');
  const targets = [
    ...new Set([...readme.matchAll(/\]\((?:\.\/)?(docs\/[^)#\s]+)/g)].map((match) => match[1]!)),
  ];
  assert.ok(targets.length >= 1, 'the README links no file of docs/');
  assert.deepEqual(
    targets.filter((target) => !fs.existsSync(path.join(installed, target))),
    [],
  );
});

/** A worker of the worker package, as a user's project starts it; it prints the workflow code it was given. */
const WORKER_SCRIPT = `'use strict';
const { createAskUserWorker } = require('@durable-ask-user/worker');
const { prebuiltWorkflowBundlePath } = require('@durable-ask-user/worker/internal/worker/worker');

// A worker plugin sees the options createAskUserWorker hands to Worker.create.
const recordWorkflowCode = {
  name: 'record-workflow-code',
  configureWorker(options) {
    const workflowBundle = options.workflowBundle && options.workflowBundle.codePath;
    console.log(JSON.stringify({ workflowBundle, workflowsPath: options.workflowsPath }));
    return options;
  },
};

async function main() {
  const worker = await createAskUserWorker({
    taskQueue: process.env.ASK_USER_TASK_QUEUE,
    shutdownForceTime: '10s',
    plugins: [recordWorkflowCode],
  });
  console.log(JSON.stringify({ workerDefaultsBundle: prebuiltWorkflowBundlePath(true) }));
  console.log('worker running');
  await worker.run();
}
main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;

/** An agent of the agent package's project: it asks once and prints what the model would read. */
const AGENT_SCRIPT = `'use strict';
const { TemporalUserInteraction, createAskUserQuestionTool } = require('durable-ask-user');

async function main() {
  const userInteraction = new TemporalUserInteraction({ taskQueue: process.env.ASK_USER_TASK_QUEUE });
  try {
    const tool = createAskUserQuestionTool({ userInteraction });
    const text = await tool.execute(
      { questions: [{ id: 'go', question: 'Ship it?', options: [{ label: 'Yes' }, { label: 'No' }] }] },
      { toolCallId: 'installed-1', agent: { id: 'package' } },
    );
    console.log(text);
  } finally {
    await userInteraction.close();
  }
}
main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;

test("a worker of @durable-ask-user/worker, on the prebuilt bundles, answers an agent of the agent package's project; a malformed signal does not jam it", async () => {
  const stack = await startDevServerWithClient('package-worker');
  const env = {
    TEMPORAL_ADDRESS: stack.server.address,
    TEMPORAL_NAMESPACE: 'default',
    ASK_USER_TASK_QUEUE: `package-install-${process.pid}`,
  };
  try {
    const running = startScript(worker, 'ask-user-worker.js', WORKER_SCRIPT, env);
    await running.waitForLine((line) => line === 'worker running', 60_000);
    const dist = path.join(worker.nodeModules, WORKER, 'dist', 'worker');
    assert.deepEqual(jsonLines(running.stdout()), [
      { workflowBundle: path.join(dist, 'workflow-bundle.js') },
      { workerDefaultsBundle: path.join(dist, 'workflow-bundle-worker-defaults.js') },
    ]);

    const asking = startScript(agent, 'ask.js', AGENT_SCRIPT, env);
    const workflowId = 'ask-user-question/package/installed-1';
    await waitForPendingRecord(stack.client, workflowId);
    await stack.client.workflowService.signalWorkflowExecution({
      namespace: 'default',
      workflowExecution: { workflowId },
      signalName: 'answer',
      input: {
        payloads: [{ metadata: { encoding: Buffer.from('binary/x-oops') }, data: Buffer.from('"x"') }],
      },
    });
    await stack.client.workflow
      .getHandle(workflowId)
      .signal('answer', { answers: [{ id: 'go', selected: ['Yes'] }] });
    // A jammed question never answers: bounded, so that shows as a failure rather than a hang.
    assert.deepEqual(await asking.waitForExit(60_000), { code: 0, signal: null }, asking.stderr());
    assert.equal(asking.stdout(), '{"answers":[{"id":"go","selected":["Yes"]}]}\n');

    const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
    assert.ok((history.events ?? []).length > 0);
    // The malformed signal was refused as an answer, not a crash of the workflow task.
    const failedTask = temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED;
    assert.deepEqual(
      (history.events ?? []).filter((event) => event.eventType === failedTask),
      [],
    );
    assert.deepEqual(await running.kill('SIGTERM'), { code: 0, signal: null }, running.stderr());
  } finally {
    await killChildren();
    await stack.stop();
  }
});

describe('ask-user from @durable-ask-user/cli installed alone', () => {
  test('npx ask-user --help prints the usage and exits 0', async () => {
    const stdout = await askUser(cli, ['--help']);
    assert.ok(stdout.startsWith('Usage: ask-user <command> [options]\n'), stdout);
  });

  test('npx ask-user dev, and against it: ask, list, inbox, answer, and mcp over stdio', async () => {
    const port = await freePort();
    const inboxPort = await freePort();
    const dev = startAskUser(cli, [
      'dev',
      '--port',
      String(port),
      '--inbox-port',
      String(inboxPort),
      '--headless',
      '--db',
      path.join(directory, 'dev.sqlite'),
    ]);
    try {
      const line = await dev.waitForLine((text) => text.startsWith('Inbox'), 120_000);
      assert.match(line, new RegExp(`^Inbox +http://127\\.0\\.0\\.1:${inboxPort}/#token=[\\w-]{43}$`));
      const env = { TEMPORAL_ADDRESS: `127.0.0.1:${port}` };
      await askListAnswer(env);
      await mcpOverStdio(env);
      await interruptGroup(dev);
    } finally {
      await dev.killGroup();
    }
  });
});

/** `ask` in the background, `list` shows it, the inbox serves it, `answer` answers it, and `ask` prints that. */
async function askListAnswer(env: Record<string, string>): Promise<void> {
  const asking = startAskUser(
    cli,
    [
      'ask',
      '--tool-call-id',
      'package-1',
      '--question',
      'Ship the packages?',
      '--option',
      'Yes',
      '--option',
      'No',
    ],
    env,
  );
  const workflowId = 'ask-user-question/cli/package-1';
  await waitFor('ask-user list --json to show the question', async () => {
    const listed = JSON.parse(await askUser(cli, ['list', '--json'], env)) as { workflowId: string }[];
    return listed.some((question) => question.workflowId === workflowId) ? true : undefined;
  });
  const table = await askUser(cli, ['list'], env);
  assert.match(table, /^ID +KIND +STATUS +ASKED +AGENT +QUESTION\n/);
  assert.match(table, new RegExp(`^${workflowId} +question +pending .* Ship the packages\\?$`, 'm'));

  await inboxServes(env, workflowId);

  assert.ok(isRunning(asking.process), `ask-user ask has ended:\n${asking.stdout()}${asking.stderr()}`);
  await askUser(cli, ['answer', 'cli/package-1', '--select', 'q1=Yes', '--as', 'package-test'], env);
  assert.deepEqual(await asking.waitForExit(), { code: 0, signal: null }, asking.stderr());
  assert.equal(asking.stdout(), '{"answers":[{"id":"q1","selected":["Yes"]}]}\n');
}

/** `ask-user inbox` on a port of its own serves GET /api/questions to the bearer of ASK_USER_INBOX_TOKEN. */
async function inboxServes(env: Record<string, string>, workflowId: string): Promise<void> {
  const token = 'package-install-inbox-token';
  const port = await freePort();
  const inbox = startAskUser(cli, ['inbox', '--port', String(port)], { ...env, ASK_USER_INBOX_TOKEN: token });
  try {
    assert.equal(
      await inbox.waitForLine((text) => text.startsWith('Inbox')),
      `Inbox     http://127.0.0.1:${port}/`,
    );
    const url = `http://127.0.0.1:${port}/api/questions`;
    assert.equal((await fetch(url)).status, 401);
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await response.json()) as { questions: { workflowId: string }[] };
    assert.deepEqual(
      body.questions.map((question) => question.workflowId),
      [workflowId],
    );
    await interruptGroup(inbox);
    assert.equal(inbox.stderr(), '');
  } finally {
    await inbox.killGroup();
  }
}

/** `ask-user mcp` on stdio, spawned as an MCP client's configuration does: initialize, then tools/list. */
async function mcpOverStdio(env: Record<string, string>): Promise<void> {
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['--no', '--', 'ask-user', 'mcp'],
    cwd: cli.directory,
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'package-install', version: '1.0.0' });
  try {
    // connect() sends `initialize` and waits for its result, which names the server: the installed package.
    await client.connect(transport);
    const { version } = JSON.parse(
      fs.readFileSync(path.join(cli.nodeModules, CLI, 'package.json'), 'utf8'),
    ) as { version: string };
    assert.deepEqual(client.getServerVersion(), { name: CLI, version }, stderr);
    const { tools } = await client.listTools();
    assert.ok(
      tools.some((tool) => tool.name === 'ask_user_question'),
      tools.map((tool) => tool.name).join(' '),
    );
  } finally {
    // Closing stdin ends the server, as the client's exit would.
    const pid = transport.pid;
    await client.close();
    if (pid !== null) {
      await waitFor(
        `ask-user mcp (pid ${pid}) to exit`,
        () => (isPidRunning(pid) ? undefined : true),
        15_000,
      );
    }
  }
}

function isPidRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('what each package costs installed alone (printed; only the agent package has a budget, held above)', () => {
  const others = ['@durable-ask-user/slack-messages', '@durable-ask-user/ops', '@durable-ask-user/mcp'].map(
    (name) => installConsumer(path.join(directory, name.replace('@durable-ask-user/', '')), packed, name),
  );
  const consumers = [agent, worker, cli, ...others];
  for (const consumer of others) {
    assert.deepEqual(
      packagesWithInstallScripts(consumer.installOutput).filter((name) => OUR_PACKAGES.includes(name)),
      [],
      consumer.installOutput,
    );
  }
  const figures = OUR_PACKAGES.map((name) =>
    installFigures(consumers.find((consumer) => consumer.name === name)!),
  );
  console.log(
    `Each package installed alone in an empty project (${process.version}):\n${figuresTable(figures)}`,
  );
  assert.ok(figures.every((row) => row.installedPackages >= 1 + row.directDependencies));
});
