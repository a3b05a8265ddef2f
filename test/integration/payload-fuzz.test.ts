/**
 * Hostile payloads cannot jam a question. Anyone with namespace access can send the `answer` signal or the
 * `submitAnswer` update with any bytes and any metadata; the raw gRPC client sends exactly that here, against
 * a real dev server and a worker created by `createAskUserWorker`: arbitrary JSON, arbitrary bytes, unknown or
 * missing encodings, no payload or several. After each one the question must still be pending and answer its
 * query, no workflow task may have failed, and at the end a valid answer must reach the waiting agent exactly.
 *
 * What makes this hold is the worker's payload converter (src/question/payload-converter.ts: an undecodable
 * payload becomes an `UndecodablePayload` value instead of an exception) and `checkAnswer`, which refuses that
 * value and any other malformed answer without throwing.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, type Worker } from '@temporalio/worker';
import fc from 'fast-check';

import { TemporalUserInteraction } from '../../src/provider';
import { DEFAULT_MAX_CACHED_WORKFLOWS, payloadConverterPath } from '../../src/worker/worker';
import { createAskUserQuestionTool } from '../../src/tool';
import { getQuestionQuery } from '../../src/question/definitions';
import { historyEventTypes } from '../helpers/history';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startTestEnvironment } from '../helpers/temporal';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `payload-fuzz-${process.pid}`;
const NAMESPACE = 'default';
const FUZZ_RUNS = 30;
const CALL_DEADLINE_MS = 20_000;

const ARGS = {
  questions: [
    {
      id: 'go',
      question: 'Roll out the new billing code?',
      options: [{ label: 'Yes' }, { label: 'No' }],
    },
  ],
};
const VALID_ANSWER = { answers: [{ id: 'go', selected: ['Yes'] }], answeredBy: 'fuzz-admin' };
const VALID_RESULT = '{"answers":[{"id":"go","selected":["Yes"]}]}';

type Payload = temporal.api.common.v1.IPayload;

let env: TestWorkflowEnvironment;
let client: Client;
let worker: RunningWorkers;
let workerOptions: Worker['options'];

before(async () => {
  env = await startTestEnvironment();
  client = env.client;
  const created = await createAskUserTestWorker(env.nativeConnection, { taskQueue: TASK_QUEUE });
  workerOptions = created.options;
  worker = runWorkers([created]);
});

after(async () => {
  try {
    await worker?.stop();
  } finally {
    await env?.teardown();
  }
});

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** The signal, sent as raw gRPC: nothing on the client side encodes or checks the payloads. */
async function rawSignal(workflowId: string, payloads: Payload[]): Promise<void> {
  await client.connection.withDeadline(Date.now() + CALL_DEADLINE_MS, () =>
    client.workflowService.signalWorkflowExecution({
      namespace: NAMESPACE,
      workflowExecution: { workflowId },
      signalName: 'answer',
      input: { payloads },
      identity: 'payload-fuzz',
      requestId: randomUUID(),
    }),
  );
}

/** The update, sent as raw gRPC; resolves with the failure the workflow answered, or `undefined` if accepted. */
async function rawUpdate(
  workflowId: string,
  payloads: Payload[],
): Promise<temporal.api.failure.v1.IFailure | undefined> {
  const response = await client.connection.withDeadline(Date.now() + CALL_DEADLINE_MS, () =>
    client.workflowService.updateWorkflowExecution({
      namespace: NAMESPACE,
      workflowExecution: { workflowId },
      request: {
        meta: { updateId: randomUUID(), identity: 'payload-fuzz' },
        input: { name: 'submitAnswer', args: { payloads } },
      },
      waitPolicy: {
        lifecycleStage:
          temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage
            .UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED,
      },
    }),
  );
  assert.ok(response.outcome, `the update did not complete (stage ${String(response.stage)})`);
  return response.outcome.failure ?? undefined;
}

/** Asks through the real tool and provider; resolves once the question is pending. */
async function askQuestion(toolCallId: string): Promise<{ workflowId: string; result: Promise<string> }> {
  const provider = new TemporalUserInteraction({ client, taskQueue: TASK_QUEUE });
  const tool = createAskUserQuestionTool({ userInteraction: provider });
  const result = tool.execute(ARGS, { toolCallId, agent: { id: 'fuzz-agent' } });
  result.catch(() => undefined);
  const workflowId = `ask-user-question/fuzz-agent/${toolCallId}`;
  await waitForPendingRecord(client, workflowId);
  return { workflowId, result };
}

/** The question is still pending, answers its query, and no workflow task has failed. */
async function assertStillAnswerable(workflowId: string, what: string): Promise<void> {
  const record = await client.connection.withDeadline(Date.now() + CALL_DEADLINE_MS, () =>
    client.workflow.getHandle(workflowId).query(getQuestionQuery),
  );
  assert.equal(record.status, 'pending', what);
  assert.equal(record.answer, undefined, what);
  const types = await historyEventTypes(client, workflowId);
  assert.ok(
    !types.includes('EVENT_TYPE_WORKFLOW_TASK_FAILED'),
    `${what}: a workflow task failed: ${types.join(' ')}`,
  );
}

// ---- Arbitrary payloads ------------------------------------------------------------------------------------

const encodingArb = fc.oneof(
  fc.constantFrom(
    'json/plain',
    'binary/plain',
    'binary/null',
    'binary/x-oops',
    'json/protobuf',
    'binary/protobuf',
    'binary/encrypted',
    '',
  ),
  fc.string({ maxLength: 20 }),
);

/** Data that is JSON (anything, or answers that break a rule), or not JSON at all. */
const dataArb: fc.Arbitrary<Uint8Array | undefined> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((value) => utf8(JSON.stringify(value))),
  fc
    .constantFrom<unknown>(
      { answers: [{ id: 'go', selected: ['Maybe'] }] },
      { answers: [{ id: 'go', selected: ['Yes', 'No'] }] },
      { answers: [{ id: 'go', selected: [], custom: ' ' }] },
      { answers: [{ id: 'other', selected: [] }] },
      { answers: [{ id: 'go', selected: ['Yes'], custom: 'both' }] },
      { undecodable: 'a forged stand-in' },
    )
    .map((value) => utf8(JSON.stringify(value))),
  fc.uint8Array({ maxLength: 64 }),
  fc.string({ maxLength: 40 }).map(utf8),
  fc.constant(undefined),
);

const metadataArb: fc.Arbitrary<Record<string, Uint8Array> | undefined> = fc.oneof(
  encodingArb.map((encoding) => ({ encoding: utf8(encoding) })),
  fc
    .tuple(
      encodingArb,
      fc.dictionary(fc.string({ maxLength: 12 }), fc.uint8Array({ maxLength: 16 }), { maxKeys: 3 }),
    )
    .map(([encoding, extra]) => ({ ...extra, encoding: utf8(encoding) })),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.uint8Array({ maxLength: 16 }), { maxKeys: 3 }),
  fc.constant(undefined),
);

const payloadArb: fc.Arbitrary<Payload> = fc
  .record({ metadata: metadataArb, data: dataArb })
  .map(({ metadata, data }) => ({
    ...(metadata === undefined ? {} : { metadata }),
    ...(data === undefined ? {} : { data }),
  }));

const caseArb = fc.record({
  via: fc.constantFrom<'signal' | 'update'>('signal', 'update'),
  payloads: fc.array(payloadArb, { minLength: 0, maxLength: 2 }),
});

function describePayloads(payloads: Payload[]): string {
  return JSON.stringify(
    payloads.map((payload) => ({
      metadata: Object.fromEntries(
        Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString()]),
      ),
      data:
        payload.data === undefined || payload.data === null
          ? undefined
          : Buffer.from(payload.data).toString(),
    })),
  );
}

// ---- Tests ---------------------------------------------------------------------------------------------------

describe('the worker createAskUserWorker makes', () => {
  test('decodes with the tolerant payload converter and caches at most 100 questions, both overridable', async () => {
    assert.equal(workerOptions.dataConverter?.payloadConverterPath, payloadConverterPath);
    assert.equal(DEFAULT_MAX_CACHED_WORKFLOWS, 100);
    assert.equal(workerOptions.maxCachedWorkflows, 100);

    const tuned = await createAskUserTestWorker(env.nativeConnection, {
      taskQueue: `${TASK_QUEUE}-tuned`,
      maxCachedWorkflows: 7,
    });
    try {
      assert.equal(tuned.options.maxCachedWorkflows, 7);
    } finally {
      await runWorkers([tuned]).stop();
    }
  });
});

describe('hostile answer payloads', () => {
  test('encoding=binary/x-oops, by signal and by update: refused, recorded, and the question stays answerable', async () => {
    const { workflowId, result } = await askQuestion('oops-1');
    const oops: Payload = { metadata: { encoding: utf8('binary/x-oops') }, data: utf8('"x"') };

    await rawSignal(workflowId, [oops]);
    const failure = await rawUpdate(workflowId, [oops]);
    assert.equal(failure?.message, 'the answer could not be decoded: Unknown encoding: binary/x-oops');
    assert.equal(failure?.applicationFailureInfo?.type, 'BAD_ANSWER');

    await assertStillAnswerable(workflowId, 'after binary/x-oops');
    const record = await client.workflow.getHandle(workflowId).query(getQuestionQuery);
    assert.deepEqual(
      record.rejectedAnswers.map((rejected) => rejected.reason),
      ['the answer could not be decoded: Unknown encoding: binary/x-oops'],
    );

    await client.workflow.getHandle(workflowId).signal('answer', VALID_ANSWER);
    assert.equal(await result, VALID_RESULT);
  });

  test(`${FUZZ_RUNS} arbitrary signals and updates, then a valid answer reaches the agent exactly`, async () => {
    const { workflowId, result } = await askQuestion('fuzz-1');
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ via, payloads }) => {
        const what = `${via} with ${describePayloads(payloads)}`;
        if (via === 'signal') {
          await rawSignal(workflowId, payloads);
        } else {
          const failure = await rawUpdate(workflowId, payloads);
          assert.ok(failure !== undefined, `${what} was accepted`);
          assert.equal(failure.applicationFailureInfo?.type, 'BAD_ANSWER', `${what}: ${failure.message}`);
          assert.ok((failure.message ?? '') !== '', what);
        }
        await assertStillAnswerable(workflowId, what);
      }),
      { numRuns: FUZZ_RUNS },
    );

    const outcome = await client.workflow
      .getHandle(workflowId)
      .executeUpdate('submitAnswer', { args: [VALID_ANSWER] });
    assert.equal((outcome as { status: string }).status, 'answered');
    assert.equal(await result, VALID_RESULT);
    const record = await client.workflow.getHandle(workflowId).query(getQuestionQuery);
    assert.equal(record.answeredBy, 'fuzz-admin');
    assert.deepEqual(record.answer, { answers: [{ id: 'go', selected: ['Yes'] }] });
  });
});
