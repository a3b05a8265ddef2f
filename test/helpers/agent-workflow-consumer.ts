/**
 * The example agent project (`examples/agent-workflow`: AI SDK 7, `@temporalio/ai-sdk`) installed as a user
 * installs it, with this package from a freshly packed tarball and the agents of `test/consumers/ai-sdk-7`
 * copied into its `src/`. Used by test/e2e/ai-sdk-7.test.ts and by the benchmark's waiting agent workflows.
 */
import fs from 'node:fs';
import path from 'node:path';

import { PROJECT_ROOT } from '../fixtures/child-process';
import { NPM_FLAGS, packPackages, runOk, writeConsumer } from './packed-package';

/** AI SDK 7 and `@temporalio/ai-sdk` need Node 22.12 or later. */
export function nodeRunsAiSdk7(version: string = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 12);
}

/**
 * Packs the packages into `directory`, copies the example there (`<directory>/agent-workflow`) with the test
 * agents, points its `durable-ask-user` dependency at the agent package's tarball, adds the CLI package (whose
 * `ask-user worker` serves the questions) and installs it with strict peer dependencies, so that an unmet peer
 * range (the adapter's `ai`, or `@temporalio/ai-sdk`'s) fails here. Returns the project's folder.
 */
export function installAgentWorkflowConsumer(directory: string): string {
  const packed = packPackages(directory);
  const consumer = path.join(directory, 'agent-workflow');
  fs.cpSync(path.join(PROJECT_ROOT, 'examples', 'agent-workflow'), consumer, { recursive: true });
  const agents = path.join(PROJECT_ROOT, 'test', 'consumers', 'ai-sdk-7');
  for (const file of fs.readdirSync(agents)) {
    fs.copyFileSync(path.join(agents, file), path.join(consumer, 'src', file));
  }
  const manifestPath = path.join(consumer, 'package.json');
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
  writeConsumer(consumer, packed, { manifest, packages: ['durable-ask-user', '@durable-ask-user/cli'] });
  runOk('npm', ['install', '--strict-peer-deps', '--prefer-offline', ...NPM_FLAGS], consumer, 600_000);
  return consumer;
}
