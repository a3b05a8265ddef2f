/**
 * The package as a user gets it: `npm pack` (whose `prepack` builds `dist/` and the workflow bundle), then
 * `npm install <tarball>` into an empty project, and there: the install runs no script of the package, the
 * README's links into `docs/` resolve, the three entries load, `npx ask-user --help` works, the tool-only entry
 * loads no gRPC and no Temporal module, and a worker started from the package uses the prebuilt workflow bundle
 * and runs a question on a real dev server, a malformed signal included.
 *
 * The pack runs in a copy of the sources (test/helpers/packed-package.ts). The install prefers npm's cache,
 * which `npm ci` has filled, and goes to the registry only for what the cache lacks.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { temporal } from '@temporalio/proto';

import { TemporalUserInteraction } from '../../src/provider';
import { createAskUserQuestionTool } from '../../src/tool';
import { PROJECT_ROOT, killChildren, startChild } from '../fixtures/child-process';
import { packPackage, run, runOk } from '../helpers/packed-package';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startDevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

let directory: string;
let consumer: string;
let packedFiles: string[];
/** What `npm install <tarball>` printed, warnings included. */
let installOutput: string;

/** The scripts npm runs when a package is installed (`prepare` too, for a git or folder dependency). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];

/** Runs `code` with plain node (no tsx) in the consumer project and returns its stdout. */
function nodeInConsumer(code: string): string {
  return runOk(process.execPath, ['-e', code], consumer).trim();
}

before(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ask-user-package-'));
  const packed = packPackage(directory);
  packedFiles = packed.files;
  consumer = path.join(directory, 'consumer');
  fs.mkdirSync(consumer);
  fs.writeFileSync(
    path.join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }),
  );
  // At the warn level, where npm lists the install scripts it has not been allowed to run.
  const install = run(
    'npm',
    ['install', packed.tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=warn'],
    consumer,
  );
  installOutput = `${install.stdout}${install.stderr}`;
  assert.equal(install.status, 0, `npm install failed:\n${installOutput}`);
});

after(async () => {
  await killChildren();
  if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
});

test('the tarball holds what runs: dist (with the workflow bundle and the Temporal CLI lookup), bin, LICENSE, and the docs', () => {
  const outside = packedFiles.filter((file) => !file.startsWith('dist/'));
  const docs = fs.readdirSync(path.join(PROJECT_ROOT, 'docs')).map((file) => `docs/${file}`);
  assert.deepEqual(outside, ['LICENSE', 'README.md', 'bin/ask-user.js', ...docs, 'package.json'].sort());
  for (const file of [
    'dist/index.js',
    'dist/workflow.js',
    'dist/tool-entry.js',
    'dist/ai-workflow.js',
    'dist/cli/main.js',
    'dist/workflow-bundle.js',
    'dist/workflow-bundle-worker-defaults.js',
  ]) {
    assert.ok(packedFiles.includes(file), `${file} is packed`);
  }
  assert.deepEqual(
    packedFiles.filter((file) => /(^|\/)test\/|\.test\.|record-histories/.test(file)),
    [],
  );
});

test('installing runs no script of the package, and npm lists none of it among install scripts to approve', () => {
  const installed = path.join(consumer, 'node_modules', 'durable-ask-user');
  const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  assert.deepEqual(
    INSTALL_SCRIPTS.filter((name) => manifest.scripts?.[name] !== undefined),
    [],
    'the published manifest carries an install-time script',
  );
  // npm 11 names each package whose install scripts are not allowed (`npm warn install-scripts   <name>@<version>
  // (<script>: ...)`); earlier versions print no such list, and the manifest check above stands alone.
  assert.deepEqual(
    installOutput.split('\n').filter((line) => /install-scripts\s+durable-ask-user@/.test(line)),
    [],
    installOutput,
  );
});

test("the README's links into docs/ resolve in the installed package", () => {
  const installed = path.join(consumer, 'node_modules', 'durable-ask-user');
  const readme = fs.readFileSync(path.join(installed, 'README.md'), 'utf8');
  const targets = [...new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((match) => match[1]!))];
  assert.ok(targets.length >= 5, `the README links ${targets.length} files of docs/`);
  assert.deepEqual(
    targets.filter((target) => !fs.existsSync(path.join(installed, target))),
    [],
  );
});

test('the root, the tool-only entry and the workflow entry load from the installed package', () => {
  const loaded = nodeInConsumer(
    [
      "const root = require('durable-ask-user');",
      "const tool = require('durable-ask-user/tool');",
      "const workflow = require('durable-ask-user/workflow');",
      'console.log([typeof root.createAskUserQuestionTool, typeof tool.createAskUserQuestionTool,',
      '  typeof workflow.askUserQuestionWorkflow].join(" "));',
    ].join('\n'),
  );
  assert.equal(loaded, 'function function function');
});

test('npx ask-user --help prints the usage and exits 0', () => {
  const result = run('npx', ['--no', '--', 'ask-user', '--help'], consumer);
  assert.equal(result.status, 0, result.stderr);
  assert.ok(result.stdout.startsWith('Usage: ask-user <command> [options]\n'), result.stdout);
});

test('the tool-only entry loads no @grpc/* and no @temporalio/* module', () => {
  const modules = JSON.parse(
    nodeInConsumer(
      "require('durable-ask-user/tool'); console.log(JSON.stringify(Object.keys(require.cache)))",
    ),
  ) as string[];
  assert.ok(
    modules.some((file) => file.endsWith(path.join('durable-ask-user', 'dist', 'tool-entry.js'))),
    'the recording sees the entry itself',
  );
  assert.deepEqual(
    modules.filter((file) => file.includes('/@grpc/') || file.includes('/@temporalio/')),
    [],
  );
  // The root, by contrast, does load the Temporal client: the check above can fail.
  const rootModules = JSON.parse(
    nodeInConsumer("require('durable-ask-user'); console.log(JSON.stringify(Object.keys(require.cache)))"),
  ) as string[];
  assert.ok(rootModules.some((file) => file.includes('/@temporalio/')));
});

test('a worker started from the installed package uses the prebuilt workflow bundles', () => {
  const worker = path.join(consumer, 'node_modules', 'durable-ask-user', 'dist', 'worker', 'worker.js');
  const bundles = nodeInConsumer(
    `const { prebuiltWorkflowBundlePath } = require(${JSON.stringify(worker)});
     console.log(prebuiltWorkflowBundlePath(), prebuiltWorkflowBundlePath(true))`,
  );
  const dist = path.join(consumer, 'node_modules', 'durable-ask-user', 'dist');
  assert.equal(
    bundles,
    `${path.join(dist, 'workflow-bundle.js')} ${path.join(dist, 'workflow-bundle-worker-defaults.js')}`,
  );
});

test('ask-user worker from the installed package runs a question, and a malformed signal does not jam it', async () => {
  const stack = await startDevServerWithClient('package-worker');
  const taskQueue = `package-install-${process.pid}`;
  const worker = startChild(
    process.execPath,
    [path.join(consumer, 'node_modules', 'durable-ask-user', 'bin', 'ask-user.js'), 'worker'],
    { TEMPORAL_ADDRESS: stack.server.address, TEMPORAL_NAMESPACE: 'default', ASK_USER_TASK_QUEUE: taskQueue },
  );
  try {
    await worker.waitForLine((line) => line.startsWith('ask-user worker polling'), 60_000);
    const provider = new TemporalUserInteraction({ client: stack.client, taskQueue });
    const tool = createAskUserQuestionTool({ userInteraction: provider });
    const result = tool.execute(
      { questions: [{ id: 'go', question: 'Ship it?', options: [{ label: 'Yes' }, { label: 'No' }] }] },
      { toolCallId: 'installed-1', agent: { id: 'package' } },
    );
    result.catch(() => undefined);
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
    let settled: string | undefined;
    void result.then((text) => (settled = text));
    await waitFor('the agent to receive the answer', () => settled, 60_000);
    assert.equal(settled, '{"answers":[{"id":"go","selected":["Yes"]}]}');
    const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
    // The malformed signal was refused as an answer, not a crash of the workflow task.
    const failedTask = temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED;
    assert.deepEqual(
      (history.events ?? []).filter((event) => event.eventType === failedTask),
      [],
    );
    assert.ok((history.events ?? []).length > 0);
    await provider.close();
    assert.deepEqual(await worker.kill('SIGTERM'), { code: 0, signal: null }, worker.stderr());
  } finally {
    await stack.stop();
  }
});
