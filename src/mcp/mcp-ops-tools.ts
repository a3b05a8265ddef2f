/**
 * The tools of a person who answers from an MCP client (`ask-user mcp --ops`): list what waits, answer a
 * question, decide an approval. Never offered to an agent: it would answer its own questions.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { decisionEffect } from '../answer/decision-effect';
import { approvalProgress } from '../answer/two-person-rule';
import { definedFields, issueTexts } from '../common';
import { UserInteractionError } from '../interaction/user-interaction-error';
import type { QuestionClient } from '../ops/question-client';
import type { McpToolDefinition } from './mcp-tool-definition';
import { errorResult, textResult } from './mcp-tool-call';

/** What the ops tools need: the list, read, answer and decide operations of `QuestionClient`. */
export type McpQuestionOperations = Pick<QuestionClient, 'list' | 'get' | 'answer' | 'decide'>;

/** How many pending questions `list_pending_questions` returns at most. */
const LISTED_QUESTIONS = 20;

/** How many argument problems an ops tool names at most. */
const REPORTED_ISSUES = 5;

const listPendingInput = z.object({});

const answerQuestionInput = z.object({
  id: z.string().min(1, 'must not be empty').describe('Question id from list_pending_questions'),
  answers: z
    .array(
      z.object({
        id: z.string().describe('Id of the question item'),
        selected: z.array(z.string()).optional().describe('Chosen option labels'),
        custom: z.string().optional().describe('Free-form answer; overrides selected'),
      }),
    )
    .describe('One answer per question item, in order'),
  answered_by: z.string().optional().describe('Who answers'),
});

const decideApprovalInput = z.object({
  id: z.string().min(1, 'must not be empty').describe('Approval id from list_pending_questions'),
  decision: z
    .enum(['approve', 'edit', 'reject', 'respond'])
    .describe(
      'approve as asked; edit: approve with `input`; reject with an optional `reason`; respond with `text`',
    ),
  input: z.unknown().optional().describe('For edit: the input the tool runs with instead'),
  reason: z.string().optional().describe('For reject: why, in words the model reads'),
  stop: z.boolean().optional().describe("For reject: also stop the agent's run, not only this call"),
  text: z.string().optional().describe("For respond: what the model reads in place of the tool's result"),
  decided_by: z.string().optional().describe('Who decides'),
});

function jsonSchemaOf(schema: z.ZodType): McpToolDefinition['inputSchema'] {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input' });
  return json as McpToolDefinition['inputSchema'];
}

/** Parses ops tool arguments, or explains the first problems as the ask tool does (`<path>: <reason>`). */
function parseOpsArguments<T extends z.ZodType>(schema: T, args: unknown): z.output<T> {
  const result = schema.safeParse(args ?? {});
  if (result.success) return result.data;
  throw UserInteractionError.invalidArgs(issueTexts(result.error.issues, REPORTED_ISSUES));
}

/** One ops tool's call; `answerer` is who the record names when the arguments name nobody. */
type OpsToolCall = (
  operations: McpQuestionOperations,
  args: unknown,
  answerer: string,
) => Promise<CallToolResult>;

const listPendingQuestions: OpsToolCall = async (operations, args) => {
  parseOpsArguments(listPendingInput, args);
  const pending = [];
  for (const summary of await operations.list('pending', LISTED_QUESTIONS)) {
    let record;
    try {
      record = await operations.get(summary.workflowId);
    } catch {
      continue; // resolved or gone between the list and the read
    }
    if (record.status !== 'pending') continue;
    pending.push({
      id: summary.workflowId,
      askedAt: record.askedAt,
      ...definedFields({ agent: record.agent }),
      ...(record.approval === undefined
        ? { questions: record.questions }
        : { kind: 'approval', approval: record.approval }),
    });
  }
  return textResult(JSON.stringify({ pending }));
};

const answerQuestion: OpsToolCall = async (operations, args, answerer) => {
  const input = parseOpsArguments(answerQuestionInput, args);
  const answeredBy = input.answered_by ?? answerer;
  const outcome = await operations.answer(input.id, {
    answers: input.answers.map((item) =>
      definedFields({ id: item.id, selected: item.selected ?? [], custom: item.custom }),
    ),
    answeredBy,
  });
  const { awaitingWorker: waiting } = outcome;
  // Not "answered": the question stays pending until a worker takes the answer, and that worker may refuse it.
  if (waiting !== undefined) {
    return textResult(
      `Recorded an answer to ${input.id} as ${answeredBy} (answer ${waiting.answerId}); no worker took it, so it waits for a worker on task queue ${waiting.taskQueue} to validate it. The question stays pending until then; a refusal is listed in its record's rejectedAnswers.`,
    );
  }
  return textResult(`Answered ${input.id} as ${answeredBy}.`);
};

const decideApproval: OpsToolCall = async (operations, args, answerer) => {
  const input = parseOpsArguments(decideApprovalInput, args);
  const decidedBy = input.decided_by ?? answerer;
  // Only the fields the arguments hold: the decision rules name any that do not belong to the decision.
  const outcome = await operations.decide(input.id, {
    type: input.decision,
    ...definedFields({ input: input.input, reason: input.reason, text: input.text, stop: input.stop }),
    decidedBy,
  });
  const progress = outcome.status === 'pending' ? approvalProgress(outcome) : undefined;
  // Counted toward the two-person rule: nothing is decided yet, and the agent still waits.
  if (progress !== undefined) {
    return textResult(
      `Recorded the ${input.decision} of ${input.id} as ${decidedBy}: ${progress}; it waits for the rest.`,
    );
  }
  const decided = `Decided ${input.id}: ${input.decision}, as ${decidedBy}.`;
  // The person is told when the agent's hook turns the decision into something else (an edit into a denial).
  const effect =
    outcome.approval === undefined ? undefined : decisionEffect(outcome.approval, { type: input.decision });
  return textResult(effect === undefined || effect.asDecided ? decided : `${decided} ${effect.text}`);
};

interface OpsTool {
  definition: McpToolDefinition;
  call: OpsToolCall;
}

const OPS_TOOLS: readonly OpsTool[] = [
  {
    definition: {
      name: 'list_pending_questions',
      description:
        'List the questions agents are waiting on, with their items and options, newest first (at most 20).',
      inputSchema: jsonSchemaOf(listPendingInput),
    },
    call: listPendingQuestions,
  },
  {
    definition: {
      name: 'answer_question',
      description:
        'Answer a pending question: one item per question item, in order, with selected option labels or a custom text.',
      inputSchema: jsonSchemaOf(answerQuestionInput),
    },
    call: answerQuestion,
  },
  {
    definition: {
      name: 'decide_approval',
      description:
        'Decide a pending approval of a tool call: approve it, approve it with an edited input, reject it with a reason, or respond with a text the model reads instead.',
      inputSchema: jsonSchemaOf(decideApprovalInput),
    },
    call: decideApproval,
  },
];

/** The ops tools as `tools/list` returns them. */
export const opsToolDefinitions: readonly McpToolDefinition[] = OPS_TOOLS.map((tool) => tool.definition);

/**
 * Runs the ops tool `name`, or returns `undefined` when there is none of that name. A failure is the tool's
 * result (`Error: <message>`), as for the ask tool.
 */
export async function callOpsTool(
  name: string,
  operations: McpQuestionOperations,
  args: unknown,
  answerer: string,
): Promise<CallToolResult | undefined> {
  const tool = OPS_TOOLS.find((candidate) => candidate.definition.name === name);
  if (tool === undefined) return undefined;
  try {
    return await tool.call(operations, args, answerer);
  } catch (error) {
    return errorResult(error);
  }
}
