/**
 * `claudeCanUseTool` against the Claude Agent SDK's own types, as a user installs both: the packed package and
 * the SDK pinned in `test/consumers/claude-agent-sdk/package.json` go into a temporary project with
 * `npm install --omit=optional --ignore-scripts` (so without the SDK's platform binary, some 400 MB), and the
 * project's file, which assigns the callback to the SDK's `CanUseTool` and passes it in `query()`'s `Options`,
 * must typecheck there. The adapter's types are structural copies of the SDK's; when the SDK changes one of
 * them, this test fails.
 *
 * A control proves the check has teeth: a callback that reads a field the SDK does not pass, and one that
 * returns what `PermissionResult` does not allow, fail to compile in the same project.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { PROJECT_ROOT } from '../fixtures/child-process';
import { NPM_FLAGS, packPackages, run, runOk, writeConsumer } from '../helpers/packed-package';

const CONSUMER_SOURCE = path.join(PROJECT_ROOT, 'test', 'consumers', 'claude-agent-sdk');
const TSC = path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

let directory: string;
let consumer: string;

/** The SDK version the consumer pins. */
function pinnedSdkVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(CONSUMER_SOURCE, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  return manifest.dependencies['@anthropic-ai/claude-agent-sdk']!;
}

/** Runs the checkout's TypeScript on the consumer project. */
function typecheck(): ReturnType<typeof run> {
  return run(process.execPath, [TSC, '-p', consumer], consumer);
}

before(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ask-user-claude-agent-sdk-'));
  const packed = packPackages(directory);
  consumer = path.join(directory, 'consumer');
  fs.cpSync(CONSUMER_SOURCE, consumer, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(consumer, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  writeConsumer(consumer, packed, { manifest, packages: ['durable-ask-user'] });
  runOk(
    'npm',
    ['install', '--omit=optional', '--ignore-scripts', '--prefer-offline', ...NPM_FLAGS],
    consumer,
    600_000,
  );
});

after(() => {
  if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
});

test('the pinned SDK is installed without its platform binary', () => {
  const scope = path.join(consumer, 'node_modules', '@anthropic-ai');
  const sdk = JSON.parse(fs.readFileSync(path.join(scope, 'claude-agent-sdk', 'package.json'), 'utf8')) as {
    version: string;
  };
  assert.equal(sdk.version, pinnedSdkVersion());
  assert.deepEqual(
    fs.readdirSync(scope).filter((name) => name.startsWith('claude-agent-sdk-')),
    [],
    'no @anthropic-ai/claude-agent-sdk-<platform> package',
  );
});

test("claudeCanUseTool typechecks as the SDK's CanUseTool, in query()'s Options", () => {
  const result = typecheck();
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
});

test('the check has teeth: a field the SDK does not pass, or a result it does not take, fails to compile', () => {
  const drift = path.join(consumer, 'drift.ts');
  fs.writeFileSync(
    drift,
    [
      "import type { CanUseTool } from '@anthropic-ai/claude-agent-sdk';",
      'export const renamedField: CanUseTool = async (',
      '  toolName: string,',
      '  input: Record<string, unknown>,',
      '  context: { signal: AbortSignal; toolUseId: string },',
      ") => ({ behavior: 'deny', message: `${toolName} ${context.toolUseId} ${String(input.command)}` });",
      "export const wrongResult: CanUseTool = async () => ({ behavior: 'allow', updatedInput: 'rm -rf /' });",
      '',
    ].join('\n'),
  );
  try {
    const result = typecheck();
    assert.notEqual(result.status, 0, 'tsc accepted drift.ts');
    const errors = result.stdout
      .split('\n')
      .filter((line) => /error TS\d+/.test(line))
      .map((line) => line.replace(/\(\d+,\d+\).*?(error TS\d+).*/, ' $1'));
    assert.deepEqual(errors, ['drift.ts error TS2322', 'drift.ts error TS2322'], result.stdout);
  } finally {
    fs.rmSync(drift);
  }
});
