/**
 * The inbox API's schemas and document without a server: the project's TypeScript types fit the documented
 * response schemas (checked by the compiler: a field added to a type and not to its schema fails the
 * typecheck), requests are refused with the field and the reason, and the generated document describes every
 * refusal with the `Error` schema.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import type { z } from '@hono/zod-openapi';
import type { Client } from '@temporalio/client';

import type { DecisionEffect } from '../../src/answer/decision-effect';
import { createInboxApp, InboxAuth, QuestionIndex } from '../../src/inbox';
import type { questionRowSchema } from '../../src/inbox/api-schemas';
import {
  answerBodySchema,
  decideBodySchema,
  extendBodySchema,
  listQuerySchema,
} from '../../src/inbox/api-request-schemas';
import { outcomeSchema, questionRecordSchema } from '../../src/inbox/api-schemas';
import { batchBodySchema, type batchResultSchema } from '../../src/inbox/batch-schemas';
import type { IndexedQuestion, IndexedRecord } from '../../src/inbox/question-index';
import type { BatchResult } from '../../src/ops';
import type { QuestionOutcome } from '../../src/types';

/** True when every `T` is a valid input of `S` and `S` knows every field of `T`. */
type Fits<T, S extends z.ZodType> = [T] extends [z.input<S>]
  ? [Exclude<keyof T, keyof z.input<S>>] extends [never]
    ? true
    : false
  : false;

type Assigned<T> = T & { assignedToYou?: true };

/** A record or outcome as the routes send it: an approval's, once decided, with what the agent receives. */
type WithEffect<T> = T & { effect?: DecisionEffect };

// Evaluated by the typecheck: `false` here does not compile.
const TYPES_FIT: [
  Fits<Assigned<IndexedQuestion>, typeof questionRowSchema>,
  Fits<Assigned<WithEffect<IndexedRecord>>, typeof questionRecordSchema>,
  Fits<WithEffect<QuestionOutcome> & { workflowId: string; kind?: 'approval' }, typeof outcomeSchema>,
  Fits<BatchResult, typeof batchResultSchema>,
] = [true, true, true, true];

const RECORD: IndexedRecord = {
  workflowId: 'ask-user-question/deploy-bot/call-1',
  questions: [{ id: 'env', question: 'Where?', options: [{ label: 'staging' }, { label: 'production' }] }],
  status: 'answered',
  agent: { id: 'deploy-bot' },
  toolCallId: 'call-1',
  askedAt: '2026-12-04T09:00:00.000Z',
  resolvedAt: '2026-12-04T09:01:00.000Z',
  answer: { answers: [{ id: 'env', selected: ['staging'] }] },
  answeredBy: 'alice',
  deadlineChanges: [
    { changedAt: '2026-12-04T09:00:30.000Z', to: '2026-12-04T11:00:00.000Z', extendedBy: 'bob' },
  ],
  rejectedAnswers: [
    { receivedAt: '2026-12-04T09:00:10.000Z', reason: 'answers[0].selected: "prod" is not an option' },
  ],
};

function issues(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('inbox API schemas', () => {
  test('the TypeScript types fit the response schemas, and a real record parses', () => {
    assert.deepEqual(TYPES_FIT, [true, true, true, true]);
    assert.deepEqual(issues(questionRecordSchema, RECORD), []);
    assert.deepEqual(issues(questionRecordSchema, { ...RECORD, extra: 1 }), [': Unrecognized key: "extra"']);
  });

  test("a decided approval's outcome documents what its hook does with an edit and what the agent receives", () => {
    const outcome = {
      workflowId: 'ask-user-question/deploy-bot/call-2',
      kind: 'approval',
      approval: { toolName: 'deploy', input: { version: '1.4.2' }, onEdit: 'suggest' },
      decision: { type: 'edit', input: { version: '1.4.3' }, decidedBy: 'alice', decidedAt: RECORD.askedAt },
      effect: { asDecided: false, text: 'deploy does not run: …' },
      status: 'answered',
      askedAt: RECORD.askedAt,
      rejectedAnswers: [],
    };
    assert.deepEqual(issues(outcomeSchema, outcome), []);
    assert.deepEqual(
      issues(outcomeSchema, { ...outcome, approval: { ...outcome.approval, onEdit: 'drop' } }),
      ['approval.onEdit: Invalid option: expected one of "run"|"suggest"'],
    );
    assert.deepEqual(issues(outcomeSchema, { ...outcome, effect: { asDecided: false } }), [
      'effect.text: Invalid input: expected string, received undefined',
    ]);
  });

  test('requests are refused with the field and the reason', () => {
    assert.deepEqual(issues(listQuerySchema, { status: 'done' }), [
      'status: must be one of pending, answered, resolved, all',
    ]);
    assert.deepEqual(issues(listQuerySchema, { pageSize: '0' }), [
      'pageSize: must be an integer from 1 to 1000',
    ]);
    assert.deepEqual(issues(listQuerySchema, { pageSize: '2.5' }), [
      'pageSize: must be an integer from 1 to 1000',
    ]);
    assert.deepEqual(issues(listQuerySchema, { assigned: 'you' }), [
      'assigned: must be "me" (the questions assigned to you)',
    ]);
    assert.deepEqual(issues(answerBodySchema, { answers: [] }), [
      'answers: Too small: expected array to have >=1 items',
    ]);
    assert.deepEqual(issues(answerBodySchema, { answers: [{ id: 'env', selected: 'staging' }] }), [
      'answers.0.selected: Invalid input: expected array, received string',
    ]);
    assert.deepEqual(issues(decideBodySchema, { type: 'allow' }), [
      'type: must be one of approve, edit, reject, respond',
    ]);
    assert.deepEqual(issues(extendBodySchema, { by: 'soon' }), ['by: must be a duration such as 2h or -30m']);
    assert.deepEqual(issues(extendBodySchema, { by: '-1h30m' }), []);
    assert.deepEqual(issues(extendBodySchema, { by: 90_000 }), []);
    // Lengths are the answer and decision rules' to check (in characters, as the document's maxLength counts):
    // 10,000 emoji are 20,000 UTF-16 units, which a zod `.max()` would refuse.
    assert.deepEqual(
      issues(answerBodySchema, { answers: [{ id: 'note', custom: '😀'.repeat(10_000) }] }),
      [],
    );
    assert.deepEqual(issues(decideBodySchema, { type: 'respond', text: '😀'.repeat(10_000) }), []);
    // A batch names its questions by id or by a filter, never both; only an answer carries answers.
    assert.deepEqual(issues(batchBodySchema, { action: 'approve', select: { ids: ['q/1'] } }), []);
    assert.deepEqual(issues(batchBodySchema, { action: 'deny', select: { filter: { toolName: 'x' } } }), []);
    assert.notDeepEqual(
      issues(batchBodySchema, { action: 'approve', select: { ids: ['q/1'], filter: {} } }),
      [],
    );
    assert.notDeepEqual(
      issues(batchBodySchema, { action: 'approve', select: { ids: ['q/1'] }, answers: [{ id: 'a' }] }),
      [],
    );
    assert.notDeepEqual(issues(batchBodySchema, { action: 'answer', select: { ids: ['q/1'] } }), []);
  });

  test('the document: every operation has an id and security, and every refusal is an Error', () => {
    // The document is generated without touching Temporal: the index is never asked anything.
    const { app } = createInboxApp({
      index: new QuestionIndex({} as Client),
      auth: new InboxAuth({ token: 'unit-test-token-0123456789' }),
    });
    const document = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'inbox', version: '1' } });
    const operations = Object.values(document.paths ?? {}).flatMap((item) =>
      (['get', 'post'] as const).flatMap((method) => (item[method] === undefined ? [] : [item[method]])),
    );
    assert.equal(operations.length, 16); // the 13 question and session routes, and the 3 grant routes
    const answerItem = (
      document.components?.schemas?.AnswerRequest as {
        properties: { answers: { items: { properties: { custom: { maxLength?: number } } } } };
      }
    ).properties.answers.items.properties.custom;
    assert.equal(answerItem.maxLength, 10_000);
    const schemas = document.components?.schemas as Record<string, { properties: Record<string, unknown> }>;
    assert.deepEqual((schemas.Approval?.properties.onEdit as { enum?: unknown }).enum, ['run', 'suggest']);
    assert.deepEqual(Object.keys(schemas.DecisionEffect?.properties ?? {}), ['asDecided', 'text']);
    assert.deepEqual(schemas.Outcome?.properties.effect, { $ref: '#/components/schemas/DecisionEffect' });
    for (const operation of operations) {
      assert.ok(operation.operationId, JSON.stringify(operation));
      assert.ok(Array.isArray(operation.security), `${operation.operationId}: no security`);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (Number(status) < 400) continue;
        const schema = (response as { content?: Record<string, { schema?: { $ref?: string } }> }).content?.[
          'application/json'
        ]?.schema;
        assert.equal(schema?.$ref, '#/components/schemas/Error', `${operation.operationId} ${status}`);
      }
    }
  });
});
