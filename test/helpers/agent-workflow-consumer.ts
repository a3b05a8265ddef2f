/**
 * The example agent projects installed as a user installs them, with this package from a freshly packed
 * tarball and the test's agents copied into their `src/`: `examples/agent-workflow` (AI SDK 7,
 * `@temporalio/ai-sdk`) with `test/consumers/ai-sdk-7`, and `examples/openai-agents-workflow`
 * (`@temporalio/openai-agents`) with `test/consumers/openai-agents`. Used by test/e2e/ai-sdk-7.test.ts,
 * test/e2e/openai-agents-workflow.test.ts and the benchmark's waiting agent workflows.
 */
import fs from 'node:fs';
import path from 'node:path';

import { PROJECT_ROOT } from '../fixtures/child-process';
import { NPM_FLAGS, packPackages, runOk, writeConsumer } from './packed-package';

/** AI SDK 7 and `@temporalio/ai-sdk` (and the OpenAI Agents example, with the same engines) need Node 22.12 or later. */
export function nodeRunsAiSdk7(version: string = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 12);
}

/** An example project and the folder of `test/consumers` whose agents go into its `src/`. */
export const AGENT_WORKFLOW_EXAMPLES = {
  'ai-sdk': { example: 'agent-workflow', agents: 'ai-sdk-7' },
  'openai-agents': { example: 'openai-agents-workflow', agents: 'openai-agents' },
} as const;

/** Which example: the AI SDK agent workflow or the OpenAI Agents one. */
export type AgentWorkflowExample = keyof typeof AGENT_WORKFLOW_EXAMPLES;

/**
 * Packs the packages into `directory`, copies the example there (`<directory>/<example>`) with the test
 * agents, points its `durable-ask-user` dependency at the agent package's tarball, adds the CLI package (whose
 * `ask-user worker` serves the questions) and installs it with strict peer dependencies, so that an unmet peer
 * range (the adapter's `ai`, `@temporalio/ai-sdk`'s or `@temporalio/openai-agents`') fails here. Returns the
 * project's folder.
 */
export function installAgentWorkflowConsumer(
  directory: string,
  which: AgentWorkflowExample = 'ai-sdk',
): string {
  const { example, agents: agentsFolder } = AGENT_WORKFLOW_EXAMPLES[which];
  const packed = packPackages(directory);
  const consumer = path.join(directory, example);
  fs.cpSync(path.join(PROJECT_ROOT, 'examples', example), consumer, { recursive: true });
  const agents = path.join(PROJECT_ROOT, 'test', 'consumers', agentsFolder);
  for (const file of fs.readdirSync(agents)) {
    fs.copyFileSync(path.join(agents, file), path.join(consumer, 'src', file));
  }
  const manifestPath = path.join(consumer, 'package.json');
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
  writeConsumer(consumer, packed, { manifest, packages: ['durable-ask-user', '@durable-ask-user/cli'] });
  runOk('npm', ['install', '--strict-peer-deps', '--prefer-offline', ...NPM_FLAGS], consumer, 600_000);
  return consumer;
}
