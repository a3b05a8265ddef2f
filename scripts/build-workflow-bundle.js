#!/usr/bin/env node
/**
 * Writes `dist/workflow-bundle.js`: the workflow code (`dist/workflows`) bundled once at build time with the
 * Temporal SDK's `bundleWorkflowCode`, so that a worker started from the package loads it instead of running
 * webpack at every start (seconds of start-up and tens of MB of memory). Run by `npm run build` after `tsc`;
 * `createAskUserWorker` uses the bundle only when it runs from `dist/`, so a source checkout never runs a stale
 * one.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const DIST = path.resolve(__dirname, '..', 'dist');
const WORKFLOWS = path.join(DIST, 'workflows', 'index.js');
const PAYLOAD_CONVERTER = path.join(DIST, 'workflows', 'payload-converter.js');
const OUTPUT = path.join(DIST, 'workflow-bundle.js');

async function main() {
  if (!fs.existsSync(WORKFLOWS)) {
    throw new Error(
      `${path.relative(process.cwd(), WORKFLOWS)} is missing: run tsc -p tsconfig.build.json first`,
    );
  }
  const { DefaultLogger, bundleWorkflowCode } = require('@temporalio/worker');
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS,
    // The worker's tolerant payload converter, compiled into the bundle: the prebuilt bundle must decode (and
    // refuse) malformed signals exactly as a bundle made at start would.
    payloadConverterPath: PAYLOAD_CONVERTER,
    logger: new DefaultLogger('WARN'),
  });
  fs.writeFileSync(OUTPUT, code);
  console.log(
    `build-workflow-bundle: wrote ${path.relative(process.cwd(), OUTPUT)} (${Math.round(code.length / 1024)} KiB)`,
  );
}

main().catch((error) => {
  console.error(`build-workflow-bundle: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
