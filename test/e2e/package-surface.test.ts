import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

const root = path.resolve(__dirname, '../..');
const packageJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  name: string;
  type?: string;
  exports: Record<string, { types: string; default: string } | string>;
  bin: Record<string, string>;
};

/**
 * The root's runtime exports, sorted: adding one is an API decision, so it shows up here. At most about 30
 * names: internals stay behind their folders' index files.
 */
const ROOT_EXPORTS = [
  'ASK_USER_QUESTION_WORKFLOW_TYPE',
  'AskUserError',
  'DEFAULT_TASK_QUEUE',
  'InMemoryUserInteraction',
  'QuestionClient',
  'QuestionOperationError',
  'TemporalUserInteraction',
  'UserInteractionError',
  'UserInteractionService',
  'answerSignal',
  'approvalKey',
  'checkAnswer',
  'checkDecision',
  'createAskUserQuestionTool',
  'createAskUserWorker',
  'decideUpdate',
  'declineUpdate',
  'extendDeadlineUpdate',
  'formatToolError',
  'getQuestionQuery',
  'openAiTool',
  'questionWorkflowId',
  'requireApproval',
  'serializeAnswer',
  'submitAnswerUpdate',
];

/** The workflow-safe entry's runtime exports, sorted. */
const WORKFLOW_EXPORTS = [
  'ASK_USER_QUESTION_WORKFLOW_TYPE',
  'AskUserError',
  'DEFAULT_TASK_QUEUE',
  'UserInteractionError',
  'WORKFLOW_ID_PREFIX',
  'answerSignal',
  'askUserQuestionAsChild',
  'askUserQuestionWorkflow',
  'checkAnswer',
  'childWorkflowUserInteraction',
  'decideUpdate',
  'declineUpdate',
  'extendDeadlineUpdate',
  'formatToolError',
  'getQuestionQuery',
  'questionWorkflowId',
  'serializeAnswer',
  'submitAnswerUpdate',
  'webhookDeliveryWorkflow',
];

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
  assert.ok(fs.existsSync(path.join(root, 'bin', 'ask-user.js')));
});

test('importing the package root does not load the worker or its native core', () => {
  const loaded = runNode(
    "require('./src/index.ts'); console.log(JSON.stringify(Object.keys(require.cache).filter((file) => file.includes('@temporalio/worker'))))",
  );
  assert.equal(loaded, '[]');
});

test('the root exports exactly the public runtime surface', () => {
  const names = runNode("console.log(Object.keys(require('./src/index.ts')).sort().join(' '))");
  assert.equal(names, ROOT_EXPORTS.join(' '));
});

test("the README's API section lists exactly the root's exports", () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('\n## API\n'),
    readme.indexOf('\n## ', readme.indexOf('\n## API\n') + 1),
  );
  const listed = [...section.matchAll(/^\| `([A-Za-z_]+)`\s*\|/gm)].map((match) => match[1]).sort();
  assert.deepEqual(listed, ROOT_EXPORTS);
  assert.ok(ROOT_EXPORTS.length <= 30, `${ROOT_EXPORTS.length} root exports`);
});

test('the workflow entry exports the child helper and message definitions, and nothing Node-only', () => {
  const names = runNode("console.log(Object.keys(require('./src/workflow.ts')).sort().join(' '))");
  assert.equal(names, WORKFLOW_EXPORTS.join(' '));
});

test('the framework hook entries export their hooks and load no Temporal module and no framework code', () => {
  const loaded = (entry: string): string =>
    runNode(
      `const names = Object.keys(require('./src/${entry}.ts')).sort().join(' '); ` +
        'const modules = Object.keys(require.cache).filter((file) => /node_modules[\\/](@temporalio|@openai|@anthropic-ai)[\\/]/.test(file)); ' +
        "console.log(names + ' | ' + modules.length)",
    );
  assert.equal(loaded('claude'), 'claudeCanUseTool | 0');
  assert.equal(loaded('openai-agents'), 'editedCallText resolveInterruptions withDurableApproval | 0');
});

describe('the compiled package, as published and as the container image runs it', () => {
  // Compiled into a folder of its own, laid out as the package ships (dist/, bin/, scripts/, package.json),
  // so a stale dist/ of the checkout proves nothing. It stays inside the repository so that Node finds
  // node_modules the way it would beside an installed package.
  const packageRoot = path.join(root, '.data', `package-surface-${process.pid}`);
  const inPackage = (...parts: string[]): string => path.join(packageRoot, ...parts);

  before(() => {
    fs.rmSync(packageRoot, { recursive: true, force: true });
    fs.mkdirSync(packageRoot, { recursive: true });
    const tsc = spawnSync(
      process.execPath,
      [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', inPackage('dist')],
      { cwd: root, encoding: 'utf8' },
    );
    assert.equal(tsc.status, 0, `npm run build fails:\n${tsc.stdout}${tsc.stderr}`);
    // What `npm run build` copies besides tsc's output (scripts/copy-assets.js): the Temporal CLI lookup.
    for (const file of ['ensure-temporal.js', 'ensure-temporal.d.ts']) {
      fs.copyFileSync(path.join(root, 'src', 'dev-server', file), inPackage('dist', 'dev-server', file));
    }
    fs.cpSync(path.join(root, 'bin'), inPackage('bin'), { recursive: true });
    fs.copyFileSync(path.join(root, 'package.json'), inPackage('package.json'));
    fs.symlinkSync(path.join(root, 'node_modules'), inPackage('node_modules'), 'dir');
  });

  after(() => {
    fs.rmSync(packageRoot, { recursive: true, force: true });
  });

  /** Runs `node` without tsx, so nothing but compiled JavaScript can load. */
  function runCompiled(args: string[]): string {
    return execFileSync(process.execPath, args, { cwd: packageRoot, encoding: 'utf8' });
  }

  test('every target of package.json exports is built', () => {
    const targets = Object.values(packageJson.exports).flatMap((target) =>
      typeof target === 'string' ? [target] : [target.types, target.default],
    );
    assert.deepEqual(targets, [
      './dist/index.d.ts',
      './dist/index.js',
      './dist/workflow.d.ts',
      './dist/workflow.js',
      './dist/tool-entry.d.ts',
      './dist/tool-entry.js',
      './dist/ai.d.ts',
      './dist/ai.js',
      './dist/ai-workflow.d.ts',
      './dist/ai-workflow.js',
      './dist/claude.d.ts',
      './dist/claude.js',
      './dist/openai-agents.d.ts',
      './dist/openai-agents.js',
      './package.json',
    ]);
    for (const target of targets) {
      assert.ok(fs.existsSync(inPackage(target)), `${target} was not built`);
    }
  });

  test('the compiled entries export the same names as the sources', () => {
    const exportsOf = (file: string): string =>
      runCompiled([
        '-e',
        `console.log(Object.keys(require(${JSON.stringify(file)})).sort().join(' '))`,
      ]).trim();
    assert.equal(exportsOf(inPackage('dist', 'index.js')), ROOT_EXPORTS.join(' '));
    assert.equal(exportsOf(inPackage('dist', 'workflow.js')), WORKFLOW_EXPORTS.join(' '));
  });

  test('the compiled CLI runs: dist/cli/main.js and the bin the image starts', () => {
    for (const entry of [inPackage('dist', 'cli', 'main.js'), inPackage('bin', 'ask-user.js')]) {
      // execFileSync throws on a non-zero exit, with the process's stderr.
      const stdout = runCompiled([entry, 'help']);
      assert.ok(stdout.startsWith('Usage: ask-user <command> [options]\n'), stdout);
    }
  });
});
