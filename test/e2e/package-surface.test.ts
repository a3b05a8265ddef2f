/**
 * The public surface of each package of packages/layout.js: every entry of its manifest's `exports` (but
 * `./internal/*`, which is for its sibling packages, and `./package.json`) exports exactly the runtime names
 * pinned here, from the sources and from the package as built and packed. Adding a name, or an entry, is an
 * API decision, so it shows up here.
 *
 * Besides: every exports target and bin of every package is packed; what the agent package's root, hook and
 * workflow entries may not load; and the README's API table against the agent root. That the workflow entries
 * reach no Node built-in is test/unit/bundle.test.ts's, which bundles them as a worker would.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { PACKAGES } from '../../packages/layout';
import { packPackages, runOk, type PackedPackages } from '../helpers/packed-package';

const root = path.resolve(__dirname, '../..');

interface Manifest {
  name: string;
  type?: string;
  exports: Record<string, { types: string; default: string } | string>;
  bin?: Record<string, string>;
}

function readManifest(file: string): Manifest {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
}

/** Each package's manifest, by package name, in the layout's order. */
const manifests = new Map(
  PACKAGES.map((layout) => [
    layout.name,
    readManifest(path.join(root, 'packages', layout.directory, 'package.json')),
  ]),
);

/**
 * The agent root's runtime exports, sorted. At most about 30 names: internals stay behind their folders'
 * index files. The worker factory is `@durable-ask-user/worker`'s; the ops client is `durable-ask-user/ops`'s, an
 * entry of its own that the root does not load.
 */
const ROOT_EXPORTS = [
  'ASK_USER_QUESTION_WORKFLOW_TYPE',
  'AskUserError',
  'DEFAULT_TASK_QUEUE',
  'InMemoryUserInteraction',
  'QuestionOperationError',
  'TemporalUserInteraction',
  'UserInteractionError',
  'UserInteractionService',
  'answerSignal',
  'approvalKey',
  'checkAnswer',
  'checkDecision',
  'createAskUserQuestionTool',
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

/** Every public entry of every package and its runtime exports, sorted. */
const SURFACE: Record<string, Record<string, string[]>> = {
  'durable-ask-user': {
    '.': ROOT_EXPORTS,
    './workflow': [
      'ASK_USER_QUESTION_WORKFLOW_TYPE',
      'AskUserError',
      'DEFAULT_TASK_QUEUE',
      'UserInteractionError',
      'WORKFLOW_ID_PREFIX',
      'answerSignal',
      'askUserQuestionAsChild',
      'checkAnswer',
      'childWorkflowUserInteraction',
      'createAskUserQuestionTool',
      'decideUpdate',
      'declineUpdate',
      'extendDeadlineUpdate',
      'formatToolError',
      'getQuestionQuery',
      'questionWorkflowId',
      'requireApproval',
      'serializeAnswer',
      'submitAnswerUpdate',
    ],
    './tool': [
      'ASK_USER_QUESTION_DESCRIPTION',
      'ASK_USER_QUESTION_TOOL_NAME',
      'AskUserError',
      'DECISION_TYPES',
      'InMemoryUserInteraction',
      'LIMITS',
      'MAX_ANSWER_BYTES',
      'MAX_CUSTOM_LENGTH',
      'MAX_REQUEST_BYTES',
      'UserInteractionError',
      'UserInteractionService',
      'approvalKey',
      'askUserQuestionArgsSchema',
      'askUserQuestionJsonSchema',
      'checkAnswer',
      'checkDecision',
      'createAskUserQuestionTool',
      'formatToolError',
      'rejectionText',
      'requireApproval',
      'serializeAnswer',
    ],
    './ai': [
      'aiToolApprovalPolicy',
      'approvalStopped',
      'askUserQuestionAiTool',
      'durableApprovalAiTool',
      'openAiTool',
      'resolveAiToolApprovals',
      'toStrictJsonSchema',
    ],
    './ai-workflow': [
      'approvalStopped',
      'askUserQuestionWorkflowAiTool',
      'childWorkflowUserInteraction',
      'durableApprovalWorkflowAiTool',
    ],
    './claude': ['claudeCanUseTool'],
    './openai-agents': ['editedCallText', 'resolveInterruptions', 'withDurableApproval'],
    './ops': [
      'AUDIT_FORMATS',
      'BATCH_ACTIONS',
      'GrantClient',
      'MAX_BATCH_ITEMS',
      'MAX_PAGE_SIZE',
      'QUESTION_INDEX_STATUSES',
      'QuestionClient',
      'QuestionWatcher',
      'alreadyResolvedError',
      'auditHeader',
      'auditLines',
      'auditText',
      'isAssignedTo',
      'runBatch',
      'selectPending',
      'toWorkflowId',
    ],
    './ag-ui': [
      'APPROVAL_REASON',
      'QUESTION_REASON',
      'agUiRequestListener',
      'answerResponseSchema',
      'decisionResponseSchema',
      'runAgUiAgent',
      'serveAgUiAgent',
    ],
    './a2a': ['A2A_METADATA_KEY', 'AskUserA2AExecutor', 'AskUserA2AHandler'],
  },
  '@durable-ask-user/slack-messages': {
    '.': [
      'MAX_BUTTONS',
      'MAX_CHECKBOXES',
      'SECTION_TEXT_LIMIT',
      'SLACK_ACTIONS',
      'SLACK_API_URL',
      'SLACK_LIMITS',
      'changedEffect',
      'checkSlackApiUrl',
      'decodeRef',
      'editableInput',
      'encodeRef',
      'escapeMrkdwn',
      'interactiveMessage',
      'isIndex',
      'jsonObjectOf',
      'loadSlackWebApi',
      'plain',
      'questionBlockId',
      'slackBotSettingsFromEnv',
      'slackMessage',
      'slackWebClient',
      'staticMessage',
      'threadReply',
      'truncate',
    ],
  },
  '@durable-ask-user/worker': {
    '.': ['createAskUserWorker', 'payloadConverterPath', 'workflowsPath', 'workflowsWithWorkerDefaultsPath'],
    './workflows': ['askUserGrantsWorkflow', 'askUserQuestionWorkflow', 'webhookDeliveryWorkflow'],
    './activities': ['createActivities', 'createGrantActivities', 'webhookOptionsFromEnv'],
  },
  '@durable-ask-user/ops': {
    '.': [
      'CONTENT_SECURITY_POLICY',
      'DEFAULT_GROUPS_CLAIM',
      'DEFAULT_INBOX_HOST',
      'DEFAULT_INBOX_PORT',
      'DEFAULT_LOGIN_LIMIT',
      'DEFAULT_MAX_BODY_BYTES',
      'DEFAULT_SCOPES',
      'DEFAULT_STREAM_LIFETIME_MS',
      'InboxAuth',
      'MAX_STREAMS_PER_LOGIN',
      'MIN_TOKEN_LENGTH',
      'OidcLogin',
      'OidcLoginError',
      'PENDING_LOGIN_TTL_MS',
      'QUESTION_INDEX_STATUSES',
      'QuestionIndex',
      'SESSION_COOKIE',
      'SESSION_TTL_MS',
      'SSO_LOGIN_COOKIE',
      'createInboxApp',
      'generateToken',
      'inboxLink',
      'isAssignedTo',
      'oidcSettingsFromEnv',
      'parseUsersFile',
      'startInboxServer',
    ],
    './slack': [
      'INPUT_BLOCK',
      'REASON_BLOCK',
      'SLACK_INTERACTIONS_PATH',
      'SLACK_VIEWS',
      'STOP_BLOCK',
      'STOP_VALUE',
      'SlackUserNames',
      'createSlackInteractions',
      'slackInteractionSettingsFromEnv',
      'textBlockId',
    ],
  },
  '@durable-ask-user/mcp': {
    '.': [
      'DEFAULT_MCP_AGENT_ID',
      'DEFAULT_PROGRESS_INTERVAL_MS',
      'TASKS_EXTENSION_ID',
      'askUserQuestionMcpTool',
      'askUserQuestionOutputJsonSchema',
      'connectMcpOverStdio',
      'createAskUserMcpServer',
      'mcpDurableKey',
      'serveMcpOverHttp',
    ],
  },
  '@durable-ask-user/cli': {
    '.': ['main'],
  },
};

/** One public entry: `<package><subpath>` as a user imports it, and the source module it is built from. */
interface Entry {
  packageName: string;
  subpath: string;
  specifier: string;
  source: string;
}

/** The public entries of every package, from the manifests: every exports key but ./internal/* and ./package.json. */
const ENTRIES: Entry[] = [...manifests].flatMap(([packageName, manifest]) =>
  Object.entries(manifest.exports)
    .filter(([subpath]) => !subpath.startsWith('./internal/') && subpath !== './package.json')
    .map(([subpath, target]) => {
      assert.ok(typeof target === 'object', `${packageName} ${subpath} has conditions`);
      return {
        packageName,
        subpath,
        specifier: subpath === '.' ? packageName : `${packageName}/${subpath.slice(2)}`,
        source: target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'),
      };
    }),
);

/** Runs a snippet in a fresh Node process (with tsx for the TypeScript sources) and returns its stdout. */
function runNode(code: string): string {
  return execFileSync(process.execPath, ['--import', 'tsx', '-e', code], {
    cwd: root,
    encoding: 'utf8',
  }).trim();
}

/** A snippet that prints, as JSON, each module's sorted export names by `key`. */
function printExportNames(modules: Record<string, string>): string {
  return `const modules = ${JSON.stringify(modules)};
    console.log(JSON.stringify(Object.fromEntries(Object.entries(modules).map(([key, request]) =>
      [key, Object.keys(require(request)).sort()]))));`;
}

/** The pinned surface in the shape {@link printExportNames} prints: names by `<package> <subpath>`. */
function pinnedNames(): Record<string, string[]> {
  return Object.fromEntries(
    ENTRIES.map(({ packageName, subpath }) => [
      `${packageName} ${subpath}`,
      SURFACE[packageName]?.[subpath] ?? [],
    ]),
  );
}

/** The sources' export names by `<package> <subpath>`, loaded once. */
let sourceNames: Record<string, string[]>;

before(() => {
  sourceNames = JSON.parse(
    runNode(
      printExportNames(
        Object.fromEntries(
          ENTRIES.map(({ packageName, subpath, source }) => [`${packageName} ${subpath}`, `./${source}`]),
        ),
      ),
    ),
  ) as Record<string, string[]>;
});

test('every package is CommonJS, and its public entries are exactly those pinned here', () => {
  for (const [name, manifest] of manifests) assert.equal(manifest.type, 'commonjs', name);
  assert.deepEqual(
    Object.fromEntries(
      [...manifests.keys()].map((name) => [
        name,
        ENTRIES.filter((entry) => entry.packageName === name).map((entry) => entry.subpath),
      ]),
    ),
    Object.fromEntries(Object.entries(SURFACE).map(([name, entries]) => [name, Object.keys(entries)])),
  );
  assert.deepEqual(manifests.get('@durable-ask-user/cli')?.bin, { 'ask-user': './bin/ask-user.js' });
});

for (const layout of PACKAGES) {
  test(`${layout.name}: each entry's source exports exactly its pinned runtime names`, () => {
    const pinned = pinnedNames();
    const keys = Object.keys(pinned).filter((key) => key.startsWith(`${layout.name} `));
    assert.ok(keys.length > 0);
    assert.deepEqual(
      Object.fromEntries(keys.map((key) => [key, sourceNames[key]])),
      Object.fromEntries(keys.map((key) => [key, pinned[key]])),
    );
  });
}

test('the worker factory and the question workflows left the agent package; the ops client is an entry of its own', () => {
  const names = (key: string): string[] => sourceNames[key] ?? [];
  assert.deepEqual(
    names('durable-ask-user .').filter((name) => ['QuestionClient', 'createAskUserWorker'].includes(name)),
    [],
  );
  assert.ok(names('durable-ask-user ./ops').includes('QuestionClient'));
  assert.ok(names('@durable-ask-user/ops .').includes('startInboxServer'));
  assert.ok(names('@durable-ask-user/worker .').includes('createAskUserWorker'));
  const workflows = ['askUserGrantsWorkflow', 'askUserQuestionWorkflow', 'webhookDeliveryWorkflow'];
  assert.deepEqual(
    names('durable-ask-user ./workflow').filter((name) => workflows.includes(name)),
    [],
  );
  assert.deepEqual(names('@durable-ask-user/worker ./workflows'), workflows);
});

test("the README's API section lists exactly the agent root's exports", () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## API\n');
  assert.ok(start >= 0, 'the README has an API section');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const listed = [...section.matchAll(/^\| `([A-Za-z_]+)`\s*\|/gm)].map((match) => match[1]).sort();
  assert.deepEqual(listed, sourceNames['durable-ask-user .']);
  assert.ok(ROOT_EXPORTS.length <= 30, `${ROOT_EXPORTS.length} root exports`);
});

test('importing the agent root does not load the worker or its native core', () => {
  const loaded = runNode(
    "require('./src/index.ts'); console.log(JSON.stringify(Object.keys(require.cache).filter((file) => /[\\\\/]@temporalio[\\\\/](worker|core-bridge)[\\\\/]/.test(file))))",
  );
  assert.equal(loaded, '[]');
  // The recording does see what the root loads: the Temporal client.
  assert.equal(
    runNode(
      "require('./src/index.ts'); console.log(Object.keys(require.cache).some((file) => file.includes('@temporalio/client')))",
    ),
    'true',
  );
});

test('the framework hook entries load no Temporal module and no framework code', () => {
  const loaded = (entry: string): string =>
    runNode(
      `require('./src/${entry}.ts'); ` +
        'console.log(JSON.stringify(Object.keys(require.cache).filter((file) => /node_modules[\\\\/](@temporalio|@grpc|@openai|@anthropic-ai|ai)[\\\\/]/.test(file))))',
    );
  assert.equal(loaded('claude'), '[]');
  assert.equal(loaded('openai-agents'), '[]');
});

describe('the packages as built and packed', () => {
  let directory: string;
  let packed: PackedPackages;
  /** The tarballs unpacked as npm lays packages out: `<directory>/unpacked/node_modules/<name>`. */
  let nodeModules: string;

  before(() => {
    // Built in a copy of the sources (test/helpers/packed-package.ts): the checkout's dist/ is not touched,
    // and a stale one proves nothing.
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ask-user-surface-'));
    packed = packPackages(directory);
    nodeModules = path.join(directory, 'unpacked', 'node_modules');
    for (const [name, { tarball }] of Object.entries(packed)) {
      const folder = path.join(nodeModules, name);
      fs.mkdirSync(folder, { recursive: true });
      runOk('tar', ['-xzf', tarball, '--strip-components=1', '-C', folder], directory);
    }
  });

  after(() => {
    if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
  });

  /**
   * Runs `node` without tsx in the unpacked tree, so nothing but the compiled packages can load; third-party
   * dependencies come from the checkout's node_modules (NODE_PATH), which holds none of our packages.
   */
  function runCompiled(args: string[]): string {
    return execFileSync(process.execPath, args, {
      cwd: path.dirname(nodeModules),
      encoding: 'utf8',
      env: { ...process.env, NODE_PATH: path.join(root, 'node_modules') },
    });
  }

  test('every exports target (types and default) and bin of every package is packed', () => {
    const missing: string[] = [];
    for (const [name, { files }] of Object.entries(packed)) {
      const manifest = readManifest(path.join(nodeModules, name, 'package.json'));
      const targets = [
        ...Object.entries(manifest.exports)
          .filter(([subpath]) => !subpath.includes('*'))
          .flatMap(([, target]) => (typeof target === 'string' ? [target] : [target.types, target.default])),
        ...Object.values(manifest.bin ?? {}),
      ];
      assert.ok(targets.length >= 3, `${name}: ${targets.join(' ')}`);
      for (const target of targets) {
        if (!files.includes(path.posix.normalize(target))) missing.push(`${name}: ${target}`);
      }
    }
    assert.deepEqual(missing, []);
    // What the worker runs without a bundler.
    for (const file of ['workflow-bundle.js', 'workflow-bundle-worker-defaults.js']) {
      assert.ok(packed['@durable-ask-user/worker']?.files.includes(`dist/worker/${file}`), file);
    }
  });

  test("every import of a sibling's ./internal/* names a file that sibling packs", () => {
    const internal = /["']((?:@durable-ask-user\/[\w-]+|durable-ask-user))\/internal\/([^"']+)["']/g;
    const imports: string[] = [];
    const missing: string[] = [];
    for (const [name, { files }] of Object.entries(packed)) {
      for (const file of files.filter((packedFile) => /\.(js|d\.ts)$/.test(packedFile))) {
        const text = fs.readFileSync(path.join(nodeModules, name, file), 'utf8');
        const extension = file.endsWith('.d.ts') ? '.d.ts' : '.js';
        for (const [, target, rest] of text.matchAll(internal)) {
          const wanted = `dist/${rest!}${extension}`;
          imports.push(`${target!}/internal/${rest!}`);
          if (!packed[target!]?.files.includes(wanted))
            missing.push(`${name}/${file} -> ${target!}: ${wanted}`);
        }
      }
    }
    // The siblings do import one another's internals, so the empty list below means something.
    assert.ok(imports.length > 0);
    assert.deepEqual(missing, []);
  });

  test('the compiled entries, imported by package name, export the same names as the sources', () => {
    const compiled = JSON.parse(
      runCompiled([
        '-e',
        printExportNames(
          Object.fromEntries(
            ENTRIES.map(({ packageName, subpath, specifier }) => [`${packageName} ${subpath}`, specifier]),
          ),
        ),
      ]),
    ) as Record<string, string[]>;
    assert.deepEqual(compiled, pinnedNames());
  });

  test("the CLI package's bin and entry run `help` from the compiled build", () => {
    const cli = path.join(nodeModules, '@durable-ask-user', 'cli');
    // execFileSync throws on a non-zero exit, with the process's stderr.
    for (const args of [
      [path.join(cli, 'bin', 'ask-user.js'), 'help'],
      ['-e', "require('@durable-ask-user/cli').main(['help'])"],
    ]) {
      const stdout = runCompiled(args);
      assert.ok(stdout.startsWith('Usage: ask-user <command> [options]\n'), stdout);
    }
  });
});
