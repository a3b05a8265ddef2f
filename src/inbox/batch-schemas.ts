/**
 * The bodies of the batch and audit routes as zod schemas, beside those of `api-schemas.ts`: what
 * `POST /api/batch` takes and answers, and what a line of `GET /api/audit` holds.
 */
import { z } from '@hono/zod-openapi';

import { MAX_BATCH_ITEMS } from '../ops/batch-decisions';
import { answerBodySchema } from './api-request-schemas';

const timestamp = z.string().openapi({ format: 'date-time', example: '2026-12-04T09:30:00.000Z' });

const selectSchema = z
  .union([
    z.strictObject({
      ids: z
        .array(z.string().min(1))
        .min(1)
        .max(MAX_BATCH_ITEMS)
        .openapi({ description: 'Workflow ids, as the list gives them; one named twice counts once.' }),
    }),
    z.strictObject({
      filter: z
        .strictObject({
          kind: z.enum(['approval', 'question']).optional(),
          toolName: z.string().optional().openapi({ description: 'Only approvals of this tool.' }),
          agentId: z.string().optional().openapi({ description: 'Only those this agent asked.' }),
          sameAs: z
            .string()
            .min(1)
            .optional()
            .openapi({ description: 'Only questions asking the same questions as this one (its id).' }),
        })
        .openapi({
          description: `Every pending one that matches, newest first, at most ${MAX_BATCH_ITEMS}.`,
        }),
    }),
  ])
  .openapi('BatchSelection', {
    description: 'The questions: named by id, or every pending one a filter selects.',
  });

export const batchBodySchema = z
  .discriminatedUnion('action', [
    z.strictObject({ action: z.literal('approve'), select: selectSchema }),
    z.strictObject({
      action: z.literal('deny'),
      select: selectSchema,
      reason: z.string().optional().openapi({ description: 'What the model (or the asking agent) reads.' }),
    }),
    z.strictObject({
      action: z.literal('answer'),
      select: selectSchema,
      answers: answerBodySchema.shape.answers,
    }),
  ])
  .openapi('BatchRequest', {
    description:
      'One action on many: `approve` approves approvals as asked, `deny` rejects approvals and declines questions, `answer` gives every selected question the same answers. Who acts comes from your login.',
  });

const batchItemSchema = z
  .union([
    z.strictObject({
      workflowId: z.string(),
      recorded: z.literal(true),
      status: z.enum(['pending', 'answered', 'declined', 'cancelled', 'expired']),
      awaitingWorker: z.literal(true).optional().openapi({
        description:
          'An answer no worker took yet: recorded for one to validate (see `Outcome.awaitingWorker`).',
      }),
      approvals: z.strictObject({ given: z.number().int(), required: z.number().int() }).optional().openapi({
        description:
          'An approval counted toward its `requiredApprovals` and still pending: recorded, 1 of 2 approvals.',
      }),
      rejections: z.strictObject({ given: z.number().int(), required: z.number().int() }).optional().openapi({
        description:
          'A deny counted toward its `requiredRejections` and still pending: recorded, 1 of 2 rejections.',
      }),
    }),
    z.strictObject({
      workflowId: z.string(),
      recorded: z.literal(false),
      refusal: z.enum([
        'already-resolved',
        'audience',
        'separation-of-duties',
        'invalid',
        'not-found',
        'failed',
      ]),
      error: z.string().openapi({ example: 'ALREADY_RESOLVED' }),
      message: z.string(),
      resolvedBy: z
        .string()
        .optional()
        .openapi({ description: 'Who answered, declined or decided it first.' }),
      resolvedAt: timestamp.optional(),
    }),
  ])
  .openapi('BatchItemResult');

export const batchResultSchema = z
  .strictObject({ results: z.array(batchItemSchema), recorded: z.number().int(), refused: z.number().int() })
  .openapi('BatchResult', {
    description:
      'Per item, in the order of the selection: recorded once, or refused with the reason and, for one already resolved, who won.',
  });

/** RFC 3339's date-time, as the document's `format: date-time` says: what `since` accepts, and nothing else. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * The time an RFC 3339 date-time names, or `undefined` for text that is not one. A leap second (`:60`) is read
 * as the second before it, which JavaScript's dates cannot hold.
 */
export function dateTimeOf(text: string): Date | undefined {
  if (!DATE_TIME.test(text)) return undefined;
  const time = new Date(text.toUpperCase().replace(/(T\d{2}:\d{2}):60/, '$1:59'));
  return Number.isNaN(time.getTime()) ? undefined : time;
}

export const auditQuerySchema = z.strictObject({
  since: z
    .string()
    .refine((text) => dateTimeOf(text) !== undefined, {
      error: 'must be a date-time such as 2026-12-01T00:00:00Z',
    })
    .openapi({ format: 'date-time', description: 'Requests asked at or after this time.' }),
  format: z
    .enum(['jsonl', 'csv'], { error: 'must be one of jsonl, csv' })
    .optional()
    .openapi({ description: 'Default `jsonl`.' }),
});

/** One line of the export (JSON lines); CSV has the same columns, nested values as JSON text. */
export const auditLineSchema = z
  .object({
    workflowId: z.string(),
    kind: z.enum(['question', 'approval']),
    status: z.enum(['pending', 'answered', 'declined', 'cancelled', 'expired']),
    askedAt: timestamp,
    agentId: z.string().optional(),
    sessionId: z.string().optional(),
    toolCallId: z.string().optional(),
    questions: z.array(z.unknown()).optional(),
    approval: z.unknown().optional(),
    deadline: timestamp.optional(),
    deadlineChanges: z.array(z.unknown()),
    remindersSent: z.number().int(),
    actions: z.array(z.unknown()),
    refusedAnswers: z.array(z.unknown()),
    resolvedAt: timestamp.optional(),
    resolvedBy: z.string().optional(),
  })
  .openapi('AuditLine', {
    description: 'One request: see docs/approvals.md, "Audit export", for every field.',
  });
