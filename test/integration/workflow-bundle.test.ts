/**
 * The prebuilt workflow bundle (`scripts/build-workflow-bundle.js`) preloads every module of ours, so the SDK
 * evaluates them once per worker instead of once per question. Built here from the sources as the build makes it
 * from `dist/`, and run by real workers on a dev server: what is preloaded, and that questions and approvals,
 * several at once, behave as with a bundle that preloads nothing (the answer rules refuse a wrong answer, the
 * JSON Schema validator an edit outside the tool's schema, the worker's policy reaches only its own questions).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import {
  TemporalUserInteraction,
  createAskUserQuestionTool,
  questionWorkflowId,
  requireApproval,
} from '../../src';
import { QuestionOperationError } from '../../src/interaction/question-operation-error';
import { QuestionClient } from '../../src/ops';
import { workflowsPath, workflowsWithWorkerDefaultsPath } from '../../src/worker';
import { payloadConverterPath } from '../../src/worker/worker';
import { bundleWithPreloads } from '../../scripts/build-workflow-bundle';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startTestEnvironment } from '../helpers/temporal';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const ROOT = path.join(__dirname, '../..');
const TASK_QUEUE = 'workflow-bundle';
/** The queue of a worker with defaults of its own (a policy), which runs the other bundle. */
const DEFAULTS_QUEUE = 'workflow-bundle-worker-defaults';
const AGENT = { id: 'bundle-agent' };
const ARGS = {
  questions: [{ id: 'q1', question: 'Ship it?', options: [{ label: 'Yes' }, { label: 'No' }] }],
};
const SCHEMA = {
  type: 'object',
  properties: { service: { type: 'string' }, replicas: { type: 'integer', maximum: 10 } },
  required: ['service'],
  additionalProperties: false,
};

describe('the prebuilt workflow bundle', () => {
  let env: TestWorkflowEnvironment;
  let workers: RunningWorkers;
  let questions: QuestionClient;
  let provider: TemporalUserInteraction;
  let preloaded: string[];
  let preloadedWithDefaults: string[];

  before(async () => {
    const bundled = await bundleWithPreloads({ workflowsPath, payloadConverterPath, root: ROOT });
    preloaded = bundled.preloaded.map((file) => path.relative(ROOT, file));
    const withDefaults = await bundleWithPreloads({
      workflowsPath: workflowsWithWorkerDefaultsPath,
      payloadConverterPath,
      root: ROOT,
    });
    preloadedWithDefaults = withDefaults.preloaded.map((file) => path.relative(ROOT, file));
    env = await startTestEnvironment();
    // Two workers in one process, each with its own sandbox: the flag one bundle's entry sets as it loads must
    // not reach the other.
    workers = runWorkers([
      await createAskUserTestWorker(env.nativeConnection, {
        taskQueue: TASK_QUEUE,
        workflowBundle: { code: bundled.code },
      }),
      await createAskUserTestWorker(env.nativeConnection, {
        taskQueue: DEFAULTS_QUEUE,
        workflowBundle: { code: withDefaults.code },
        policy: { expireAfter: '1h' },
      }),
    ]);
    questions = new QuestionClient(env.client);
    provider = new TemporalUserInteraction({ client: env.client, taskQueue: TASK_QUEUE });
  });

  after(async () => {
    await workers?.stop();
    await env?.teardown();
  });

  test("preloads every module of ours, the workflows' own and the entry included, and none of the SDK's", () => {
    for (const expected of [
      'src/answer/answer-rules.ts',
      'src/answer/decision-rules.ts',
      'src/question/definitions.ts',
      'src/question/question-policy.ts',
      'src/workflows/index.ts',
      'src/workflows/ask-user-question-workflow.ts',
      'src/workflows/question-state.ts',
      'src/workflows/worker-settings.ts',
    ]) {
      assert.ok(preloaded.includes(expected), `${expected} is not preloaded: ${preloaded.join(', ')}`);
    }
    assert.ok(preloaded.some((file) => file.startsWith('node_modules/@cfworker/json-schema/')));
    assert.deepEqual(
      preloaded.filter((file) => file.includes('@temporalio/')),
      [],
    );
  });

  test("the worker-defaults entry is preloaded too, and its worker's policy reaches its questions only", async () => {
    assert.ok(preloadedWithDefaults.includes('src/workflows/with-worker-defaults.ts'));
    const ask = (userInteraction: TemporalUserInteraction, toolCallId: string) => {
      const received = createAskUserQuestionTool({ userInteraction }).execute(ARGS, {
        toolCallId,
        agent: AGENT,
      });
      received.catch(() => undefined);
      return { workflowId: questionWorkflowId({ agent: AGENT, toolCallId }, randomUUID), received };
    };
    const withDefaults = ask(
      new TemporalUserInteraction({ client: env.client, taskQueue: DEFAULTS_QUEUE }),
      'with-defaults',
    );
    const plain = ask(provider, 'plain');
    for (const { workflowId } of [withDefaults, plain]) await waitForPendingRecord(env.client, workflowId);
    const withDefaultsRecord = await questions.get(withDefaults.workflowId);
    assert.ok(withDefaultsRecord.expiresAt !== undefined, 'the worker policy set no deadline');
    const hour = Date.parse(withDefaultsRecord.expiresAt) - Date.parse(withDefaultsRecord.askedAt);
    assert.equal(hour, 3_600_000);
    assert.equal((await questions.get(plain.workflowId)).expiresAt, undefined);
    for (const { workflowId } of [withDefaults, plain]) {
      await questions.answer(workflowId, { answers: [{ id: 'q1', selected: ['Yes'] }] });
    }
    const expected = JSON.stringify({ answers: [{ id: 'q1', selected: ['Yes'] }] });
    assert.deepEqual(await Promise.all([withDefaults.received, plain.received]), [expected, expected]);
  });

  test('questions asked at once are answered each with its own answer, a wrong one refused', async () => {
    const tool = createAskUserQuestionTool({ userInteraction: provider });
    const keys = Array.from({ length: 8 }, (_unused, index) => `question-${index}`);
    const asked = keys.map((toolCallId) => {
      const received = tool.execute(ARGS, { toolCallId, agent: AGENT });
      received.catch(() => undefined);
      return { workflowId: questionWorkflowId({ agent: AGENT, toolCallId }, randomUUID), received };
    });
    for (const { workflowId } of asked) await waitForPendingRecord(env.client, workflowId);
    await assert.rejects(
      questions.answer(asked[0]!.workflowId, { answers: [{ id: 'q1', selected: ['Maybe'] }] }),
      (error: unknown) => QuestionOperationError.isInstance(error) && error.code === 'BAD_ANSWER',
    );
    await Promise.all(
      asked.map(({ workflowId }, index) =>
        questions.answer(workflowId, {
          answers: [{ id: 'q1', selected: [], custom: `answer ${index}` }],
          answeredBy: `person ${index}`,
        }),
      ),
    );
    const received = await Promise.all(asked.map(({ received: text }) => text));
    assert.deepEqual(
      received,
      keys.map((_key, index) =>
        JSON.stringify({ answers: [{ id: 'q1', selected: [], custom: `answer ${index}` }] }),
      ),
    );
  });

  test("an edit outside the tool's schema is refused naming its path; a valid one runs the tool", async () => {
    const runs: unknown[] = [];
    const deploy = requireApproval(
      {
        name: 'deploy',
        execute: (input: { service: string; replicas?: number }) => {
          runs.push(input);
          return `deployed ${input.service}`;
        },
      },
      { userInteraction: provider, inputSchema: SCHEMA },
    );
    const toolCallId = 'approval';
    const workflowId = questionWorkflowId({ agent: AGENT, toolCallId }, randomUUID);
    const result = deploy.execute({ service: 'api' }, { toolCallId, agent: AGENT });
    await waitForPendingRecord(env.client, workflowId);
    await assert.rejects(
      questions.decide(workflowId, { type: 'edit', input: { service: 'api', replicas: 50 } }),
      (error: unknown) =>
        QuestionOperationError.isInstance(error) &&
        error.message === 'invalid decision: input.replicas: 50 is greater than 10',
    );
    await questions.decide(workflowId, { type: 'edit', input: { service: 'web', replicas: 2 } });
    assert.equal(await result, 'deployed web');
    assert.deepEqual(runs, [{ service: 'web', replicas: 2 }]);
  });
});
