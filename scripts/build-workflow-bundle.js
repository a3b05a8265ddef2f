#!/usr/bin/env node
/**
 * Writes the workflow code bundled once at build time with the Temporal SDK's `bundleWorkflowCode`, so that a
 * worker started from the package loads it instead of running webpack at every start (seconds of start-up and
 * tens of MB of memory): `dist/worker/workflow-bundle.js` (`dist/workflows`, for a worker with no webhook URLs or
 * policy) and `dist/worker/workflow-bundle-worker-defaults.js` (`dist/workflows/with-worker-defaults`, for a worker
 * with some). Run by `npm run build` after `tsc`; `createAskUserWorker` uses them only when it runs from
 * `dist/`, so a source checkout never runs a stale one.
 *
 * The SDK evaluates a bundle's modules again for every workflow it runs, except those loaded as it sets up its
 * sandbox (its own). The modules the workflows import from outside `dist/workflows` (the answer rules, the
 * question's definitions and policy, the JSON Schema validator of an edited approval) keep no state between
 * calls, so they are preloaded (`preloadModules`): evaluated once per worker instead of once per question. The
 * workflows' own modules hold per-workflow state (the worker's settings) and stay per workflow.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
/** The packages the SDK's own sandbox loads (already shared by every workflow). */
const SDK_PACKAGES = ['@temporalio/', 'nexus-rpc/', 'long/', 'ms/'];

/**
 * The modules of `code` (a bundle of the workflows in `workflowsDirectory`, a folder of `root`) to preload: the
 * project's own outside that folder, and the packages they import that the SDK does not load itself, by
 * webpack's module ids (`./dist/answer/answer-rules.js`), as absolute paths.
 */
function stateFreeModules(code, root, workflowsDirectory) {
  const ids = [...code.matchAll(/^\/\*\*\*\/ "(\.\/[^"]+)"/gm)].map((match) => match[1]);
  const workflows = `./${path.relative(root, workflowsDirectory)}/`;
  const own = ids.filter((id) => !id.startsWith('./node_modules/') && !id.startsWith(workflows));
  const packages = ids
    .filter((id) => id.startsWith('./node_modules/'))
    .filter((id) => !SDK_PACKAGES.some((prefix) => id.startsWith(`./node_modules/${prefix}`)));
  return [...own, ...packages].map((id) => path.join(root, id));
}

/**
 * Bundles the workflows of `workflowsPath` (an entry in `root`'s folder of workflows) with `payloadConverterPath`,
 * preloading what they import from outside their folder. Returns the code and the modules preloaded.
 */
async function bundleWithPreloads({ workflowsPath, payloadConverterPath, root }) {
  const { DefaultLogger, bundleWorkflowCode } = require('@temporalio/worker');
  const bundle = (preloadModules) =>
    bundleWorkflowCode({
      workflowsPath,
      // The worker's tolerant payload converter, compiled into the bundle: the prebuilt bundle must decode (and
      // refuse) malformed signals exactly as a bundle made at start would.
      payloadConverterPath,
      preloadModules,
      logger: new DefaultLogger('WARN'),
    });
  // Bundled once to learn which modules the workflows reach, then again with those preloaded.
  const preloaded = stateFreeModules((await bundle([])).code, root, path.dirname(workflowsPath));
  const { code } = await bundle(preloaded);
  return { code, preloaded };
}

const PAYLOAD_CONVERTER = path.join(DIST, 'question', 'payload-converter.js');
/** Each bundle: the entry it is made from, and the file it is written to. */
const BUNDLES = [
  {
    entry: path.join(DIST, 'workflows', 'index.js'),
    output: path.join(DIST, 'worker', 'workflow-bundle.js'),
  },
  {
    entry: path.join(DIST, 'workflows', 'with-worker-defaults.js'),
    output: path.join(DIST, 'worker', 'workflow-bundle-worker-defaults.js'),
  },
];

async function main() {
  for (const { entry, output } of BUNDLES) {
    if (!fs.existsSync(entry)) {
      throw new Error(
        `${path.relative(process.cwd(), entry)} is missing: run tsc -p tsconfig.build.json first`,
      );
    }
    const { code, preloaded } = await bundleWithPreloads({
      workflowsPath: entry,
      payloadConverterPath: PAYLOAD_CONVERTER,
      root: ROOT,
    });
    fs.writeFileSync(output, code);
    console.log(
      `build-workflow-bundle: wrote ${path.relative(process.cwd(), output)} (${Math.round(code.length / 1024)} KiB, ` +
        `${preloaded.length} modules preloaded)`,
    );
  }
}

module.exports = { bundleWithPreloads };

if (require.main === module) {
  main().catch((error) => {
    console.error(`build-workflow-bundle: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
