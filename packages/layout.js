/**
 * What installs, by role: the packages built from the one source tree, in dependency order (a package may
 * depend only on packages above it), and the folders of `src/` each one holds. Every folder belongs to exactly
 * one package. `npm run build` assembles each package's `dist/` from these folders
 * (scripts/assemble-packages.js); test/unit/package-graph.test.ts holds the imports to the order; docs/design.md
 * ("Packages by role") says why the cut is where it is.
 *
 * `entry` is the top of `src/` (index.ts, tool-entry.ts, ai.ts …) and `types` is src/types/.
 */
'use strict';

/** @typedef {{ directory: string, name: string, role: string, folders: string[] }} PackageLayout */

/** @type {PackageLayout[]} */
const PACKAGES = [
  {
    directory: 'agent',
    name: 'durable-ask-user',
    role: 'agent: the tool, the seam, the Temporal provider, the ops client, the framework adapters, the workflow-safe entries',
    folders: [
      'entry',
      'types',
      'common',
      'answer',
      'interaction',
      'tool',
      'question',
      'connection',
      'provider',
      'ops',
      'workflow-provider',
      'adapters',
      'ag-ui',
      'a2a',
    ],
  },
  {
    directory: 'slack-messages',
    name: '@durable-ask-user/slack-messages',
    role: 'the Slack messages the worker posts and the Slack route rewrites',
    folders: ['slack-messages'],
  },
  {
    directory: 'worker',
    name: '@durable-ask-user/worker',
    role: 'worker: the question workflows, their activities and createAskUserWorker',
    folders: ['worker', 'workflows', 'activities'],
  },
  {
    directory: 'ops',
    name: '@durable-ask-user/ops',
    role: 'answering servers: the inbox server and the Slack interactions route',
    folders: ['inbox', 'slack'],
  },
  {
    directory: 'mcp',
    name: '@durable-ask-user/mcp',
    role: 'the MCP server',
    folders: ['mcp'],
  },
  {
    directory: 'cli',
    name: '@durable-ask-user/cli',
    role: 'the ask-user command, which brings them all together (dev server included)',
    folders: ['cli', 'dev-server'],
  },
];

/** The package that holds `folder`, or undefined for a folder no package lists. */
function packageOfFolder(folder) {
  return PACKAGES.find((layout) => layout.folders.includes(folder));
}

module.exports = { PACKAGES, packageOfFolder };
