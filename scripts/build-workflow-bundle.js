#!/usr/bin/env node
/**
 * Writes the workflow code bundled once at build time with the Temporal SDK's `bundleWorkflowCode`, so that a
 * worker started from the package loads it instead of running webpack at every start (seconds of start-up and
 * tens of MB of memory): `dist/worker/workflow-bundle.js` (`dist/workflows`, for a worker with no webhook URLs or
 * policy) and `dist/worker/workflow-bundle-worker-defaults.js` (`dist/workflows/with-worker-defaults`, for a worker
 * with some). Run by `npm run build` after `tsc`; `createAskUserWorker` uses them only when it runs from
 * `dist/`, so a source checkout never runs a stale one.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const DIST = path.resolve(__dirname, '..', 'dist');
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
  const { DefaultLogger, bundleWorkflowCode } = require('@temporalio/worker');
  for (const { entry, output } of BUNDLES) {
    if (!fs.existsSync(entry)) {
      throw new Error(
        `${path.relative(process.cwd(), entry)} is missing: run tsc -p tsconfig.build.json first`,
      );
    }
    const { code } = await bundleWorkflowCode({
      workflowsPath: entry,
      // The worker's tolerant payload converter, compiled into the bundle: the prebuilt bundle must decode (and
      // refuse) malformed signals exactly as a bundle made at start would.
      payloadConverterPath: PAYLOAD_CONVERTER,
      logger: new DefaultLogger('WARN'),
    });
    fs.writeFileSync(output, code);
    console.log(
      `build-workflow-bundle: wrote ${path.relative(process.cwd(), output)} (${Math.round(code.length / 1024)} KiB)`,
    );
  }
}

main().catch((error) => {
  console.error(`build-workflow-bundle: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
