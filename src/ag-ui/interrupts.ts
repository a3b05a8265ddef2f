/**
 * A pending question or approval as an AG-UI interrupt: its id is the question's workflow id (the durable key,
 * which every other surface names it by too), its `responseSchema` the JSON Schema of what a resume's
 * `payload` must be: the answer (`{ answers: [...] }`, one item per question, in order) or the decision
 * (`{ type: "approve" | "edit" | "reject" | "respond", ... }`).
 */
import type { Interrupt } from '@ag-ui/core';
import { MAX_CUSTOM_LENGTH } from '../answer/answer-rules';
import { DECISION_TYPES } from '../answer/decision-rules';
import { definedFields } from '../common';
import { approvalTitle } from '../question/question-text';
import type { ApprovalSubject, AskUserQuestion, JsonSchemaObject, QuestionRecord } from '../types';

/** The reason of a question's interrupt: the run needs a person's input. */
export const QUESTION_REASON = 'input_required';
/** The reason of an approval's interrupt: a tool call waits for a decision. */
export const APPROVAL_REASON = 'tool_call';

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** The JSON Schema of one answer item: the question's id, its offered labels, or a free-form text. */
function answerItemSchema(question: AskUserQuestion): JsonSchemaObject {
  const labels = (question.options ?? []).map((option) => option.label);
  const selected: JsonSchemaObject =
    labels.length === 0
      ? { type: 'array', maxItems: 0 }
      : {
          type: 'array',
          uniqueItems: true,
          maxItems: question.multiSelect === true ? labels.length : 1,
          items: {
            anyOf: (question.options ?? []).map((option) =>
              definedFields({ const: option.label, description: option.description }),
            ),
          },
        };
  return {
    type: 'object',
    description: question.question,
    required: ['id'],
    additionalProperties: false,
    properties: {
      id: { const: question.id },
      selected,
      custom: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_CUSTOM_LENGTH,
        description: 'A free-form answer, instead of selected labels',
      },
    },
  };
}

/** The JSON Schema of an answer to `questions`: one item per question, in the order asked. */
export function answerResponseSchema(questions: readonly AskUserQuestion[]): JsonSchemaObject {
  return {
    $schema: DIALECT,
    type: 'object',
    required: ['answers'],
    additionalProperties: false,
    properties: {
      answers: {
        type: 'array',
        minItems: questions.length,
        maxItems: questions.length,
        prefixItems: questions.map(answerItemSchema),
        items: false,
      },
    },
  };
}

/** The fields each decision carries besides its type, as JSON Schemas. */
function decisionFields(subject: ApprovalSubject): Record<string, Record<string, JsonSchemaObject>> {
  return {
    approve: {},
    edit: { input: subject.inputSchema ?? {} },
    reject: { reason: { type: 'string', description: 'Why, in words the model reads' } },
    respond: {
      text: {
        type: 'string',
        minLength: 1,
        description: "What the model reads instead of the tool's result",
      },
    },
  };
}

/** The JSON Schema of a decision on `subject`: one of the four decisions, an edit's input under its schema. */
export function decisionResponseSchema(subject: ApprovalSubject): JsonSchemaObject {
  const fields = decisionFields(subject);
  const required: Record<string, string[]> = { edit: ['input'], respond: ['text'] };
  return {
    $schema: DIALECT,
    oneOf: DECISION_TYPES.map((type) => ({
      type: 'object',
      required: ['type', ...(required[type] ?? [])],
      additionalProperties: false,
      properties: { type: { const: type }, ...fields[type] },
    })),
  };
}

/** What the person reads: each question with its header, or the tool call to decide on. */
function messageOf(record: QuestionRecord): string {
  if (record.approval !== undefined) return approvalTitle(record.approval);
  return record.questions
    .map((question) =>
      question.header === undefined ? question.question : `${question.header}: ${question.question}`,
    )
    .join('\n');
}

/**
 * The interrupt of a pending question or approval whose workflow id is `workflowId`. Its `metadata` carries the
 * questions (or the tool call) as recorded, for a front end that renders more than the schema says.
 */
export function interruptOf(workflowId: string, record: QuestionRecord): Interrupt {
  const approval = record.approval;
  return definedFields({
    id: workflowId,
    reason: approval === undefined ? QUESTION_REASON : APPROVAL_REASON,
    message: messageOf(record),
    toolCallId: record.toolCallId,
    responseSchema:
      approval === undefined ? answerResponseSchema(record.questions) : decisionResponseSchema(approval),
    expiresAt: record.expiresAt,
    metadata:
      approval === undefined
        ? { questions: record.questions }
        : { toolName: approval.toolName, input: approval.input },
  });
}
