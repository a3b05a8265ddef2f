/**
 * `durable-ask-user/ag-ui` as a user installs it, on Node 24 and its npm: the packed agent package beside
 * `@ag-ui/core` and `@ag-ui/client` 1.0 and `ai` 6, with no `--force` and no `--legacy-peer-deps`. There the
 * entry serves an AI SDK agent (the SDK's own scripted model) to `HttpAgent`; the package's root loads none of
 * it. Beside a project without `@ag-ui/core`, the root still loads, and the entry says what is missing.
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
/** The SDKs a user of the entry installs, at the versions the tests run against. */
const SDKS = {
  '@ag-ui/core': '1.0.0',
  '@ag-ui/client': '1.0.0',
  ai: ROOT_MANIFEST.devDependencies.ai!,
};

let directory: string;
let node24: string;
let packed: PackedPackages;

/** A snippet printing, as JSON, the files of ours or of AG-UI that requiring `specifier` loaded. */
function loadedBy(specifier: string): string {
  return `require(${JSON.stringify(specifier)});
    console.log(JSON.stringify(Object.keys(require.cache).filter((file) =>
      /[\\\\/](@ag-ui|ai)[\\\\/]|[\\\\/]dist[\\\\/]ag-ui[\\\\/]/.test(file))));`;
}

before(() => {
  node24 = node24Binary();
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ask-user-ag-ui-package-'));
  packed = packPackages(directory);
});

after(() => {
  if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
});

test('beside @ag-ui/core, @ag-ui/client and ai on Node 24 it installs with no --force, serves HttpAgent, and the root does not load it', async () => {
  const consumer = path.join(directory, 'with-sdk');
  writeConsumer(consumer, packed, { packages: [AGENT], dependencies: SDKS });
  const output = installWithNode(node24, consumer);
  assert.doesNotMatch(output, /ERESOLVE|overriding peer dependency|Conflicting peer dependency/i, output);
  assert.equal(nodeIn(node24, consumer, 'console.log(process.version.split(".")[0])'), 'v24');

  assert.equal(nodeIn(node24, consumer, loadedBy(AGENT)), '[]');
  assert.notEqual(nodeIn(node24, consumer, loadedBy(`${AGENT}/ag-ui`)), '[]');

  // The entry as installed serves a run of an AI SDK agent to the AG-UI client, over HTTP.
  fs.writeFileSync(
    path.join(consumer, 'serve.js'),
    `const { Client, Connection } = require('@temporalio/client');
    const { QuestionClient } = require('durable-ask-user/ops');
    const { serveAgUiAgent } = require('durable-ask-user/ag-ui');
    const { askUserQuestionAiTool } = require('durable-ask-user/ai');
    const { HttpAgent } = require('@ag-ui/client');
    const { ToolLoopAgent, simulateReadableStream } = require('ai');
    const { MockLanguageModelV3 } = require('ai/test');
    const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'stream-start', warnings: [] },
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'Hello from the installed entry' },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
          ],
        }),
      }),
    });
    (async () => {
      // No question is asked, so the connection is never opened.
      const client = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
      const endpoint = await serveAgUiAgent({
        questions: new QuestionClient(client),
        agentId: 'installed',
        createAgent: (userInteraction) =>
          new ToolLoopAgent({ model, tools: { ask_user_question: askUserQuestionAiTool(userInteraction) } }),
      });
      const agent = new HttpAgent({ url: endpoint.url, threadId: 'thread-1' });
      agent.addMessage({ id: 'm1', role: 'user', content: 'hi' });
      const types = [];
      await agent.runAgent({}, { onEvent: ({ event }) => { types.push(event.type); } });
      const said = agent.messages.filter((message) => message.role === 'assistant').map((message) => message.content);
      console.log(JSON.stringify({ types, said }));
      await endpoint.close();
    })().catch((error) => { console.error(error); process.exit(1); });`,
  );
  const result = run(node24, ['serve.js'], consumer, 120_000);
  assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
  const { types, said } = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as {
    types: string[];
    said: string[];
  };
  assert.deepEqual(types, [
    'RUN_STARTED',
    'TEXT_MESSAGE_START',
    'TEXT_MESSAGE_CONTENT',
    'TEXT_MESSAGE_END',
    'RUN_FINISHED',
  ]);
  assert.deepEqual(said, ['Hello from the installed entry']);
});

test('without @ag-ui/core the root loads, and the entry names the missing package', () => {
  const consumer = path.join(directory, 'without-sdk');
  writeConsumer(consumer, packed, { packages: [AGENT] });
  installWithNode(node24, consumer);
  assert.equal(fs.existsSync(path.join(consumer, 'node_modules', '@ag-ui', 'core')), false);
  assert.equal(nodeIn(node24, consumer, loadedBy(AGENT)), '[]');
  const entry = run(node24, ['-e', `require('${AGENT}/ag-ui')`], consumer);
  assert.notEqual(entry.status, 0);
  assert.match(entry.stderr, /Cannot find module '@ag-ui\/core'/);
});
