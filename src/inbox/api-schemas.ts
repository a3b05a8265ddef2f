/**
 * The inbox API's responses as zod schemas, which the OpenAPI document at `/api/openapi.json` is generated from
 * (the requests are `api-request-schemas.ts`). Responses are described, never checked at run time: the document's fuzz
 * (Schemathesis, `test/e2e/inbox-openapi.test.ts`) compares what the server sends with this document, and
 * `test/unit/inbox-api-schemas.test.ts` checks at compile time that the TypeScript types fit these schemas.
 */
import { z } from '@hono/zod-openapi';

// --- Shared parts ------------------------------------------------------------------------------------------

const timestamp = z.string().openapi({ format: 'date-time', example: '2026-12-04T09:30:00.000Z' });

/** `{ error, message }` of every refusal; `rule` names the answer or decision rule a `BAD_ANSWER` broke. */
export const errorSchema = z
  .strictObject({
    error: z.string().openapi({ example: 'BAD_REQUEST' }),
    message: z.string().openapi({ example: 'status: must be one of pending, answered, resolved, all' }),
    rule: z.string().optional(),
  })
  .openapi('Error');

const audienceSchema = z
  .strictObject({ users: z.array(z.string()).optional(), groups: z.array(z.string()).optional() })
  .openapi('Audience', { description: 'Who may answer or decide; absent: anyone logged in.' });

const agentSchema = z.strictObject({ id: z.string(), sessionId: z.string().optional() }).openapi('Agent');

const questionSchema = z
  .strictObject({
    id: z.string(),
    question: z.string(),
    header: z.string().optional(),
    options: z.array(z.strictObject({ label: z.string(), description: z.string().optional() })).optional(),
    multiSelect: z.boolean().optional(),
  })
  .openapi('Question');

const questionStatusSchema = z.enum(['pending', 'answered', 'declined', 'cancelled', 'expired']);
export const decisionTypeSchema = z.enum(['approve', 'edit', 'reject', 'respond'], {
  error: 'must be one of approve, edit, reject, respond',
});

const answerItemSchema = z
  .strictObject({ id: z.string(), selected: z.array(z.string()), custom: z.string().optional() })
  .openapi('AnswerItem');

const recordedAnswerSchema = z.strictObject({ answers: z.array(answerItemSchema) }).openapi('Answer');

const str = z.string().optional();
const decidedFields = { decidedBy: str, decidedAt: timestamp, requestedInputSha256: str, inputSha256: str };
const decided = <Shape extends z.ZodRawShape>(shape: Shape) => z.strictObject({ ...shape, ...decidedFields });

const decisionSchema = z
  .discriminatedUnion('type', [
    decided({ type: z.literal('approve') }),
    decided({ type: z.literal('edit'), input: z.unknown() }),
    decided({ type: z.literal('reject'), reason: str, stop: z.boolean().optional() }),
    decided({ type: z.literal('respond'), text: z.string() }),
  ])
  .openapi('Decision', { description: "An approval's decision; an edit's `input` is the edited one." });

const approvalSchema = z
  .strictObject({
    toolName: z.string(),
    input: z.unknown(),
    description: z.string().optional(),
    inputSchema: z.record(z.string(), z.unknown()).optional(),
    onEdit: z.enum(['run', 'suggest']).optional().openapi({
      description:
        "What the agent does with an `edit`: runs the tool with the edited input (`run`, also when absent), or, under a hook that runs a call only with the model's own input, receives a denial that suggests the edited input (`suggest`).",
    }),
    requestedBy: z.string().optional().openapi({
      description:
        'Who asked for the call, as the code wrapping the tool gave it: under `forbidSelfApproval` they may not decide it.',
    }),
  })
  .openapi('Approval', {
    description: 'The tool call an approval is about, with the input the agent asked.',
  });

const decisionEffectSchema = z
  .strictObject({
    asDecided: z.boolean().openapi({
      description: '`false` when the hook turns the decision into something else (an edit into a denial).',
    }),
    text: z.string().openapi({
      example:
        'deploy does not run: this agent runs a call only with the input its model gave, so it receives a denial that suggests calling deploy again with the edited input.',
    }),
  })
  .openapi('DecisionEffect', {
    description:
      'Present once an approval is decided: what the agent receives for the decision, in words for the person who decided.',
  });

/** The fields a record and the outcome of an answer, decline, decision or extension share. */
const outcomeFields = {
  approval: approvalSchema.optional(),
  decision: decisionSchema.optional(),
  effect: decisionEffectSchema.optional(),
  grantNotUsed: z.strictObject({ id: z.string(), reason: z.string() }).optional().openapi({
    description:
      'A standing grant that covered the call but may not decide it under the policy (the two-person rule), and why.',
  }),
  audience: audienceSchema.optional(),
  requiredApprovals: z.number().int().optional().openapi({
    description:
      "How many distinct people must approve the call (a policy's `requiredApprovals`), when more than one.",
  }),
  approvals: z
    .array(
      z.strictObject({
        decidedBy: z.string(),
        decidedAt: timestamp,
        type: z.enum(['approve', 'edit']),
        inputSha256: z.string(),
        input: z.unknown().optional(),
      }),
    )
    .optional()
    .openapi({
      description: 'The approvals given so far toward `requiredApprovals`, oldest first: "1 of 2 approvals".',
    }),
  requiredRejections: z.number().int().optional().openapi({
    description:
      "How many distinct people must reject the call to deny it (a policy's `requiredRejections`), when more than one.",
  }),
  rejections: z
    .array(
      z.strictObject({
        decidedBy: z.string(),
        decidedAt: timestamp,
        type: z.enum(['reject', 'respond']),
        reason: z.string().optional(),
        text: z.string().optional(),
      }),
    )
    .optional()
    .openapi({ description: 'The rejections given so far toward `requiredRejections`, oldest first.' }),
  status: questionStatusSchema,
  agent: agentSchema.optional(),
  toolCallId: z.string().optional(),
  askedAt: timestamp,
  resolvedAt: timestamp.optional(),
  answer: recordedAnswerSchema.optional(),
  answeredBy: z.string().optional(),
  declineReason: z.string().optional(),
  declinedBy: z.string().optional(),
  expiresAt: timestamp.optional(),
  deadlineChanges: z
    .array(
      z.strictObject({
        changedAt: timestamp,
        from: timestamp.optional(),
        to: timestamp,
        extendedBy: z.string().optional(),
      }),
    )
    .optional(),
  remindersSent: z.number().int().optional(),
  escalatedAt: timestamp.optional(),
  rejectedAnswers: z.array(
    z.strictObject({
      receivedAt: timestamp,
      answeredBy: z.string().optional(),
      reason: z.string(),
      answerId: z.string().optional(),
    }),
  ),
  answerId: z.string().optional().openapi({ description: 'The `answerId` of the recorded answer.' }),
  unvalidatedAnswers: z
    .array(
      z.strictObject({
        receivedAt: timestamp,
        answeredBy: z.string().optional(),
        answerId: z.string().optional(),
      }),
    )
    .optional()
    .openapi({
      description:
        'Answers the server holds that no worker has validated yet (given while none ran): each is taken or refused, into `rejectedAnswers` under its `answerId`, when a worker runs the question.',
    }),
  noWorker: z.strictObject({ taskQueue: z.string() }).optional().openapi({
    description:
      'Present when no worker runs the question now: answers are still recorded, and wait for a worker on this task queue to validate them.',
  }),
};

const assignedToYou = z
  .literal(true)
  .optional()
  .openapi({ description: "Present when the question's audience names you or one of your groups." });

// --- Responses ---------------------------------------------------------------------------------------------

/** One row of a list, and what an event of `/api/events` carries. */
export const questionRowSchema = z
  .strictObject({
    workflowId: z.string(),
    title: z.string(),
    status: questionStatusSchema,
    questionCount: z.number().int(),
    askedAt: timestamp,
    resolvedAt: timestamp.optional(),
    agentId: z.string().optional(),
    sessionId: z.string().optional(),
    toolCallId: z.string().optional(),
    expiresAt: timestamp.optional(),
    kind: z.literal('approval').optional(),
    toolName: z.string().optional(),
    decision: decisionTypeSchema.optional(),
    audience: audienceSchema.optional(),
    resolvedBy: z.string().optional(),
    effect: decisionEffectSchema.optional(),
    assignedToYou,
  })
  .openapi('QuestionRow', {
    description:
      'In lists of resolved questions, `resolvedBy` names who resolved it and, for a decided approval, `effect` says what the agent received.',
  });

export const questionPageSchema = z
  .strictObject({
    questions: z.array(questionRowSchema),
    nextPageToken: z.string().optional(),
    counts: z.strictObject({
      pending: z.number().int(),
      resolved: z.number().int(),
      total: z.number().int(),
    }),
  })
  .openapi('QuestionPage');

/** The full record of one question or approval. */
export const questionRecordSchema = z
  .strictObject({
    workflowId: z.string(),
    kind: z.literal('approval').optional(),
    questions: z.array(questionSchema),
    ...outcomeFields,
    assignedToYou,
  })
  .openapi('QuestionRecord');

/**
 * What an answer, decline or extension returns: the record without its questions, with the workflow id; an
 * answer no worker took in time has `awaitingWorker` (202).
 */
export const outcomeSchema = z
  .strictObject({
    workflowId: z.string(),
    kind: z.literal('approval').optional(),
    ...outcomeFields,
    awaitingWorker: z
      .strictObject({ answerId: z.string(), receivedAt: timestamp, taskQueue: z.string() })
      .optional()
      .openapi({
        description:
          'Your answer is recorded and waits for a worker to validate it (no worker took it in time). Find it by `answerId`: taken as the answer, or refused into `rejectedAnswers`.',
      }),
  })
  .openapi('Outcome');

/** One event of `GET /api/events`, as a client's parser reads it. */
export const serverSentEventSchema = z
  .object({
    event: z.enum(['ready', 'question.pending', 'question.resolved', 'error']),
    data: z.string().openapi({
      description:
        '`{}` for `ready`; a question row (`QuestionRow`) as JSON for `question.*`; `{ "message" }` for `error`.',
    }),
    retry: z.number().int().optional().openapi({ description: 'On `ready`: how soon to reconnect, in ms.' }),
  })
  .openapi('ServerSentEvent', {
    description: 'One server-sent event (OpenAPI 3.1: the schema of each event).',
  });

export const loginMethodsSchema = z
  .strictObject({ methods: z.array(z.enum(['token', 'sso'])) })
  .openapi('LoginMethods');

export const sessionSchema = z
  .strictObject({
    name: z.string(),
    groups: z.array(z.string()),
    csrfToken: z.string().optional().openapi({ description: 'Present for a page session (cookie) only.' }),
  })
  .openapi('Session');
