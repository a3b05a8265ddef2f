/**
 * `durable-ask-user/a2a` as a user installs it, on Node 24 and its npm: the packed agent package beside
 * `@a2a-js/sdk` 1.3 (and Express, for the SDK's HTTP handlers), with no `--force` and no `--legacy-peer-deps`.
 * There the entry serves an agent over JSON-RPC to the SDK's own client; the package's root loads none of it.
 * Beside a project without the SDK, the root still loads, and the entry says what is missing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { PROJECT_ROOT } from '../fixtures/child-process';
import {
  installWithNode,
  node24Binary,
  nodeIn,
  packPackages,
  run,
  writeConsumer,
  type PackedPackages,
} from '../helpers/packed-package';

const AGENT = 'durable-ask-user';
const ROOT_MANIFEST = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
/** What a user of the entry installs, at the versions the tests run against. */
const SDKS = {
  '@a2a-js/sdk': ROOT_MANIFEST.devDependencies['@a2a-js/sdk']!,
  express: ROOT_MANIFEST.devDependencies.express!,
};

let directory: string;
let node24: string;
let packed: PackedPackages;

/** A snippet printing, as JSON, the files of ours or of the A2A SDK that requiring `specifier` loaded. */
function loadedBy(specifier: string): string {
  return `require(${JSON.stringify(specifier)});
    console.log(JSON.stringify(Object.keys(require.cache).filter((file) =>
      /[\\\\/]@a2a-js[\\\\/]|[\\\\/]dist[\\\\/]a2a[\\\\/]/.test(file))));`;
}

before(() => {
  node24 = node24Binary();
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ask-user-a2a-package-'));
  packed = packPackages(directory);
});

after(() => {
  if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
});

test('beside @a2a-js/sdk on Node 24 it installs with no --force, serves the SDK client, and the root does not load it', () => {
  const consumer = path.join(directory, 'with-sdk');
  writeConsumer(consumer, packed, { packages: [AGENT], dependencies: SDKS });
  const output = installWithNode(node24, consumer);
  assert.doesNotMatch(output, /ERESOLVE|overriding peer dependency|Conflicting peer dependency/i, output);
  assert.equal(nodeIn(node24, consumer, 'console.log(process.version.split(".")[0])'), 'v24');

  assert.equal(nodeIn(node24, consumer, loadedBy(AGENT)), '[]');
  assert.notEqual(nodeIn(node24, consumer, loadedBy(`${AGENT}/a2a`)), '[]');

  // The entry as installed serves an agent (one that asks nothing) to the SDK's client over JSON-RPC.
  fs.writeFileSync(
    path.join(consumer, 'serve.js'),
    `const { Client, Connection } = require('@temporalio/client');
    const express = require('express');
    const { TemporalUserInteraction } = require('durable-ask-user');
    const { QuestionClient } = require('durable-ask-user/ops');
    const { AskUserA2AHandler } = require('durable-ask-user/a2a');
    const { Role, TaskState } = require('@a2a-js/sdk');
    const { InMemoryTaskStore } = require('@a2a-js/sdk/server');
    const { jsonRpcHandler, UserBuilder } = require('@a2a-js/sdk/server/express');
    const { ClientFactory } = require('@a2a-js/sdk/client');
    (async () => {
      // No question is asked, so the connection is never opened.
      const client = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
      const app = express();
      const listening = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => listening.once('listening', resolve));
      const url = 'http://127.0.0.1:' + listening.address().port + '/a2a';
      const handler = new AskUserA2AHandler({
        agentCard: {
          name: 'installed', description: 'installed', version: '1.0.0',
          supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
          capabilities: { streaming: true, pushNotifications: false, extensions: [] },
          securitySchemes: {}, securityRequirements: [], defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'], skills: [], signatures: [],
        },
        taskStore: new InMemoryTaskStore(),
        agentId: 'installed',
        userInteraction: new TemporalUserInteraction({ client }),
        questions: new QuestionClient(client),
        run: async ({ text }) => 'You said: ' + text,
      });
      app.use('/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
      const a2a = await new ClientFactory().createFromAgentCard(await handler.getAgentCard());
      const task = await a2a.sendMessage({
        tenant: '', configuration: undefined, metadata: {},
        message: {
          messageId: 'm1', taskId: '', contextId: '', role: Role.ROLE_USER, metadata: {}, extensions: [],
          referenceTaskIds: [],
          parts: [{ content: { $case: 'text', value: 'hi' }, mediaType: 'text/plain', filename: '', metadata: {} }],
        },
      });
      const said = task.status.message.parts.map((part) => part.content.value);
      console.log(JSON.stringify({ completed: task.status.state === TaskState.TASK_STATE_COMPLETED, said }));
      listening.close();
    })().catch((error) => { console.error(error); process.exit(1); });`,
  );
  const result = run(node24, ['serve.js'], consumer, 120_000);
  assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
  const reported = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as unknown;
  assert.deepEqual(reported, { completed: true, said: ['You said: hi'] });
});

test('without @a2a-js/sdk the root loads, and the entry names the missing package', () => {
  const consumer = path.join(directory, 'without-sdk');
  writeConsumer(consumer, packed, { packages: [AGENT] });
  installWithNode(node24, consumer);
  assert.equal(fs.existsSync(path.join(consumer, 'node_modules', '@a2a-js', 'sdk')), false);
  assert.equal(nodeIn(node24, consumer, loadedBy(AGENT)), '[]');
  const entry = run(node24, ['-e', `require('${AGENT}/a2a')`], consumer);
  assert.notEqual(entry.status, 0);
  assert.match(entry.stderr, /Cannot find module '@a2a-js\/sdk[^']*'/);
});
