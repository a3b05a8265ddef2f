/**
 * Workflow code must stay sandbox-safe. Lint sees only direct imports; the bundler follows every import all
 * the way down. These tests bundle the worker's workflows (`src/workflows`) and the package's workflow-safe
 * entries (`src/workflow.ts` and `src/ai-workflow.ts`, exported as `durable-ask-user/workflow` and
 * `durable-ask-user/ai-workflow`) with the SDK's `bundleWorkflowCode`, which
 * refuses Node built-ins and the non-workflow Temporal packages, and record every module request the bundle
 * makes so that even the built-ins the SDK tolerates (`assert`, `url`, `util`) cannot creep in from this
 * project's code. A last test feeds the bundler a module that does import a built-in, so the check is shown
 * to fail when it should.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { describe, test } from 'node:test';

import { DefaultLogger, bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';

import { workflowsPath } from '../../src/worker';
import { payloadConverterPath } from '../../src/worker/worker';

const ROOT = path.join(__dirname, '../..');
const SRC = path.join(ROOT, 'src');

interface Request {
  request: string;
  issuer: string;
}

/** Bundles `entry` and returns the bundle's code and every module request made from this project's sources. */
async function bundle(
  entry: string,
  options: Pick<BundleOptions, 'payloadConverterPath'> = {},
): Promise<{ code: string; requests: Request[] }> {
  const requests: Request[] = [];
  const record = async (data: {
    request?: string;
    contextInfo?: { issuer?: string };
  }): Promise<undefined> => {
    const issuer = data.contextInfo?.issuer ?? '';
    if (data.request !== undefined && issuer.startsWith(SRC))
      requests.push({ request: data.request, issuer });
    return undefined;
  };
  const webpackConfigHook: BundleOptions['webpackConfigHook'] = (config) => {
    const externals = config.externals === undefined ? [] : [config.externals].flat();
    return { ...config, externals: [record, ...externals] };
  };
  const { code } = await bundleWorkflowCode({
    workflowsPath: entry,
    ...options,
    logger: new DefaultLogger('ERROR'),
    webpackConfigHook,
  });
  return { code, requests };
}

function builtinsIn(requests: Request[]): string[] {
  return requests
    .filter(({ request }) => isBuiltin(request))
    .map(({ request, issuer }) => `${path.relative(ROOT, issuer)} imports ${request}`);
}

describe('workflow bundles', () => {
  test("the worker's workflows (src/workflows) and payload converter bundle with no Node built-in from this project", async () => {
    assert.equal(path.relative(ROOT, workflowsPath), path.join('src', 'workflows', 'index.ts'));
    assert.equal(
      path.relative(ROOT, payloadConverterPath),
      path.join('src', 'question', 'payload-converter.ts'),
    );
    // As the worker bundles them (and `npm run build` does for dist/worker/workflow-bundle.js).
    const { code, requests } = await bundle(workflowsPath, { payloadConverterPath });
    assert.ok(code.includes('askUserQuestionWorkflow'));
    assert.ok(code.includes('webhookDeliveryWorkflow'));
    assert.ok(code.includes('TolerantPayloadConverter'));
    // The recorder saw the project's own imports, so an empty list below means something.
    assert.ok(requests.some(({ request }) => request === './ask-user-question-workflow'));
    assert.deepEqual(builtinsIn(requests), []);
  });

  test('the workflow-safe entry (durable-ask-user/workflow) bundles with no Node built-in from this project', async () => {
    const manifest = JSON.parse(
      readFileSync(path.join(ROOT, 'packages', 'agent', 'package.json'), 'utf8'),
    ) as {
      exports: Record<string, { default?: string }>;
    };
    assert.equal(manifest.exports['./workflow']?.default, './dist/workflow.js');
    const entry = path.join(SRC, 'workflow.ts');

    const { code, requests } = await bundle(entry);
    assert.ok(code.includes('askUserQuestionAsChild'));
    assert.ok(requests.some(({ request }) => request === './workflow-provider/ask-user-question-child'));
    assert.deepEqual(builtinsIn(requests), []);
  });

  test('the AI SDK workflow entry (durable-ask-user/ai-workflow) bundles with no Node built-in from this project', async () => {
    const manifest = JSON.parse(
      readFileSync(path.join(ROOT, 'packages', 'agent', 'package.json'), 'utf8'),
    ) as {
      exports: Record<string, { default?: string }>;
    };
    assert.equal(manifest.exports['./ai-workflow']?.default, './dist/ai-workflow.js');
    // `ai` comes from the agent's project, as it does when an agent's workflow bundle imports this entry.
    const { code, requests } = await bundle(path.join(SRC, 'ai-workflow.ts'));
    assert.ok(code.includes('askUserQuestionWorkflowAiTool'));
    assert.ok(requests.some(({ request }) => request === './adapters/ai-sdk-workflow'));
    assert.deepEqual(builtinsIn(requests), []);
  });

  test('a workflow module that pulls in a Node built-in is refused by the bundler', async () => {
    const entry = path.join(__dirname, '..', 'fixtures', 'leaky-workflows.ts');
    await assert.rejects(
      // A silent logger: webpack's report of the refused module is expected here, not news.
      bundleWorkflowCode({ workflowsPath: entry, logger: new DefaultLogger('ERROR', () => undefined) }),
      (error: Error) => {
        assert.match(error.message, /importing the following disallowed modules:\n {2}- 'crypto'\n/);
        return true;
      },
    );
  });
});
