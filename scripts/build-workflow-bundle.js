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
 * sandbox (its own) and those it is told to preload (`preloadModules`), which every workflow of the worker then
 * shares, frozen. Every module of ours is preloaded, the entry included, so a question evaluates none of its
 * own: none keeps state that differs between workflows. The one module-level variable, `worker-settings.ts`'s
 * flag, is the same for every workflow of a bundle (the entry with worker defaults sets it as it loads), and
 * the rest are functions, classes and constants. A workflow's state lives in the objects its run creates.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
/** The packages the SDK's own sandbox loads (already shared by every workflow). */
const SDK_PACKAGES = ['@temporalio/', 'nexus-rpc/', 'long/', 'ms/'];

/**
 * The modules of `code` to preload: every module of the bundle that the SDK does not load itself (the
 * project's own and the packages they import), by webpack's module ids (`./dist/answer/answer-rules.js`), as
 * absolute paths under `root`.
 */
function preloadableModules(code, root) {
  const ids = [...code.matchAll(/^\/\*\*\*\/ "(\.\/[^"]+)"/gm)].map((match) => match[1]);
  return ids
    .filter((id) => !SDK_PACKAGES.some((prefix) => id.startsWith(`./node_modules/${prefix}`)))
    .map((id) => path.join(root, id));
}

/**
 * Bundles the workflows of `workflowsPath` (an entry in `root`'s folder of workflows) with `payloadConverterPath`,
 * preloading every module of ours. Returns the code and the modules preloaded.
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
  const preloaded = preloadableModules((await bundle([])).code, root);
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
