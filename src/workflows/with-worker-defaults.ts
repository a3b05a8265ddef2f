/**
 * The workflows of a worker that has question defaults (webhook URLs or a policy): the same workflows as
 * `index.ts`, whose questions fetch those defaults as they start. `createAskUserWorker` picks this entry (or
 * its prebuilt bundle, `dist/worker/workflow-bundle-worker-defaults.js`) by itself; a worker that bundles the workflows
 * on its own and registers the webhook activities with settings must bundle this entry too.
 */
import { markWorkerDefaults } from './worker-settings';

markWorkerDefaults();

export * from './index';
