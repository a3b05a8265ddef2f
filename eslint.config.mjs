// ESLint flat config. Type-aware rules for TypeScript (through the project's tsconfig.json), plain rules for
// the CommonJS scripts, and the import restrictions that keep workflow code deterministic.
import { builtinModules } from 'node:module';

import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Workflow code runs in Temporal's sandbox and is replayed: Node built-ins, the non-workflow Temporal
// packages and this project's Node-side folders must not reach it. Lint sees direct imports only; the
// bundling test (`bundleWorkflowCode`) catches the indirect ones.
const WORKFLOW_MESSAGE =
  'workflow code must stay deterministic and sandbox-safe: import only @temporalio/workflow, @temporalio/common and dependency-free modules';
// The inbox page shows what a model wrote (a tool's name, its input) as text; nothing may parse it as HTML.
const MARKUP_MESSAGE = 'the page writes text, never markup: build elements with el() and set textContent';
const nodeBuiltins = builtinModules.filter((name) => !name.startsWith('_'));
const nonWorkflowTemporalPackages = ['client', 'worker', 'activity', 'testing', 'envconfig'].flatMap(
  (name) => [`@temporalio/${name}`, `@temporalio/${name}/*`],
);
// Type-only imports from these are erased at build time (e.g. `import type { createActivities }`).
const nodeSideProjectFolders = [
  'activities',
  'adapters',
  'cli',
  'connection',
  'dev-server',
  'inbox',
  'ops',
  'provider',
  'worker',
].flatMap((name) => [`../${name}`, `../${name}/*`]);

export default defineConfig(
  {
    // The agent workflow examples and test/consumers run in a project of their own (AI SDK 7,
    // @temporalio/openai-agents, not installed here): test/e2e/ai-sdk-7.test.ts and
    // test/e2e/openai-agents-workflow.test.ts install and typecheck them there.
    ignores: [
      'dist/',
      'packages/*/dist/',
      'packages/*/docs/',
      'packs/',
      'node_modules/',
      '.tools/',
      '.data/',
      'coverage/',
      'examples/agent-workflow/',
      'examples/openai-agents-workflow/',
      'test/consumers/',
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.cts', '.mts', '.js', '.cjs', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.cts', '.mts'] },
      'import-x/resolver-next': [
        createNodeResolver({ extensions: ['.ts', '.cts', '.mts', '.js', '.cjs', '.mjs', '.json', '.node'] }),
      ],
    },
    rules: {
      'import-x/no-cycle': 'error',
    },
  },
  {
    rules: {
      // A forgotten `await` on a Temporal call is a silent bug. node:test's `test()`/`describe()` return
      // promises that the runner itself awaits; not awaiting them is how the runner is meant to be used.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'it', 'describe', 'suite', 'only', 'skip', 'todo'],
            },
          ],
        },
      ],
      // Async functions without `await` are how interfaces that return promises (activities, providers,
      // test callbacks) are implemented synchronously; the rule finds style, not bugs.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // Small units: a file holds one concern, a function (closures included) one step. Blank lines and
    // comments do not count, so documenting a module never pushes it over.
    files: ['src/**/*.ts', 'src/**/*.js'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Everything that runs inside a workflow's sandbox obeys its rules: the workflows, and what they and the
    // workflow-safe entries (`workflow.ts`, `ai-workflow.ts`) import: the question model, the answer rules,
    // the seam, the tool, the shared helpers, the child-workflow provider and the AI SDK tool for agents that
    // are workflows.
    files: [
      'src/workflows/**/*.ts',
      'src/workflow-provider/**/*.ts',
      'src/question/**/*.ts',
      'src/answer/**/*.ts',
      'src/interaction/**/*.ts',
      'src/tool/**/*.ts',
      'src/common/**/*.ts',
      'src/adapters/ai-sdk-workflow.ts',
      'src/workflow.ts',
      'src/ai-workflow.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: WORKFLOW_MESSAGE })),
          patterns: [
            { group: ['node:*'], message: WORKFLOW_MESSAGE },
            { group: nonWorkflowTemporalPackages, message: WORKFLOW_MESSAGE },
            { group: nodeSideProjectFolders, message: WORKFLOW_MESSAGE, allowTypeImports: true },
          ],
        },
      ],
      // Globals that break determinism or do not exist in the sandbox: ids come from `uuid4`, time from
      // `Date.now()` (the task's time), waits from `sleep`/`condition`.
      'no-restricted-globals': [
        'error',
        ...[
          'crypto',
          'process',
          'setTimeout',
          'setInterval',
          'setImmediate',
          'clearTimeout',
          'clearInterval',
        ].map((name) => ({ name, message: WORKFLOW_MESSAGE })),
      ],
    },
  },
  {
    // Plain JavaScript (scripts, this file) is not part of tsconfig.json: no type information.
    files: ['**/*.{js,cjs,mjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['scripts/**/*.js', 'bin/**/*.js', 'src/dev-server/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    // The inbox page runs in the browser as ES modules; the APIs that parse HTML are refused in every one.
    files: ['src/inbox/page/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
    rules: {
      'no-restricted-properties': [
        'error',
        ...['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'setHTMLUnsafe', 'createContextualFragment'].map(
          (property) => ({ property, message: MARKUP_MESSAGE }),
        ),
        ...['write', 'writeln'].map((property) => ({
          object: 'document',
          property,
          message: MARKUP_MESSAGE,
        })),
      ],
    },
  },
);
