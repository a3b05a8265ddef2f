import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(__dirname, '..');
const packageJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  name: string;
  type?: string;
  exports: Record<string, { types: string; default: string } | string>;
  bin: Record<string, string>;
};

/** Runs a snippet in a fresh Node process (with tsx for the TypeScript sources) and returns its stdout. */
function runNode(code: string): string {
  return execFileSync(process.execPath, ['--import', 'tsx', '-e', code], {
    cwd: root,
    encoding: 'utf8',
  }).trim();
}

test('the package is CommonJS with a root entry, a workflow-safe entry and the ask-user bin', () => {
  assert.equal(packageJson.name, 'durable-ask-user');
  assert.equal(packageJson.type, 'commonjs');
  assert.deepEqual(packageJson.exports['.'], { types: './dist/index.d.ts', default: './dist/index.js' });
  assert.deepEqual(packageJson.exports['./workflow'], {
    types: './dist/workflow.d.ts',
    default: './dist/workflow.js',
  });
  assert.equal(packageJson.bin['ask-user'], './bin/ask-user.js');
  // Each exported dist file is compiled from the source file of the same name.
  assert.ok(fs.existsSync(path.join(root, 'src', 'index.ts')));
  assert.ok(fs.existsSync(path.join(root, 'src', 'workflow.ts')));
  assert.ok(fs.existsSync(path.join(root, 'bin', 'ask-user.js')));
});

test('importing the package root does not load the worker or its native core', () => {
  const loaded = runNode(
    "require('./src/index.ts'); console.log(JSON.stringify(Object.keys(require.cache).filter((file) => file.includes('@temporalio/worker'))))",
  );
  assert.equal(loaded, '[]');
});

test('the root exports the contract surface', () => {
  const names = runNode("console.log(Object.keys(require('./src/index.ts')).sort().join(' '))").split(' ');
  for (const name of [
    'createAskUserQuestionTool',
    'UserInteractionService',
    'UserInteractionError',
    'formatToolError',
    'InMemoryUserInteraction',
    'TemporalUserInteraction',
    'createAskUserWorker',
    'QuestionClient',
    'checkAnswer',
    'serializeAnswer',
  ]) {
    assert.ok(names.includes(name), `missing export ${name}`);
  }
});

test('the workflow entry exports the child helper and message definitions, and nothing Node-only', () => {
  const names = runNode("console.log(Object.keys(require('./src/workflow.ts')).sort().join(' '))");
  assert.equal(
    names,
    [
      'ASK_USER_QUESTION_WORKFLOW_TYPE',
      'DEFAULT_TASK_QUEUE',
      'UserInteractionError',
      'WORKFLOW_ID_PREFIX',
      'answerSignal',
      'askUserQuestionAsChild',
      'askUserQuestionWorkflow',
      'checkAnswer',
      'declineUpdate',
      'formatToolError',
      'getQuestionQuery',
      'questionWorkflowId',
      'serializeAnswer',
      'submitAnswerUpdate',
      'webhookDeliveryWorkflow',
    ].join(' '),
  );
});
