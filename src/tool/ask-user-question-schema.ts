/**
 * What the model sees: the zod 4 schema of `ask_user_question`'s arguments, the JSON Schema generated from it,
 * and the tool description. Both are sent on every request where the tool is visible, so every word here
 * costs tokens on every turn: keep them short, and measure them with `npm run schema`.
 */
import { z } from 'zod';

/** Limits of the public contract (section 1). */
export const LIMITS = {
  questions: 20,
  idLength: 100,
  questionLength: 4000,
  headerLength: 80,
  options: 20,
  labelLength: 200,
  descriptionLength: 1000,
} as const;

/** The byte budget of a request, checked once at the seam (`guardAskRequest`). */
export { MAX_REQUEST_BYTES } from '../interaction/ask-request-guard';

const notBlank = (text: string): boolean => text.trim() !== '';

/**
 * A refinement reporting every item whose `key` repeats an earlier item's, at that item's path. It sits on the
 * array itself, so it still runs when a sibling field of the array has its own error.
 */
function uniqueBy<K extends string>(key: K) {
  return (items: readonly Record<K, string>[], context: z.RefinementCtx): void => {
    const seen = new Set<string>();
    for (const [index, item] of items.entries()) {
      const value = item[key];
      if (seen.has(value)) {
        context.addIssue({
          code: 'custom',
          path: [index, key],
          message: `duplicate ${key} ${JSON.stringify(value)}`,
        });
      }
      seen.add(value);
    }
  };
}

const optionSchema = z.object({
  label: z
    .string()
    .max(LIMITS.labelLength, `must be at most ${LIMITS.labelLength} characters`)
    .refine(notBlank, 'must not be blank')
    .describe('Non-blank, unique in its question'),
  description: z
    .string()
    .max(LIMITS.descriptionLength, `must be at most ${LIMITS.descriptionLength} characters`)
    .optional(),
});

const questionSchema = z.object({
  id: z
    .string()
    .min(1, 'must not be empty')
    .max(LIMITS.idLength, `must be at most ${LIMITS.idLength} characters`)
    .describe('Unique in the call; echoed in the answer'),
  question: z
    .string()
    .max(LIMITS.questionLength, `must be at most ${LIMITS.questionLength} characters`)
    .refine(notBlank, 'must not be blank')
    .describe('Non-blank'),
  header: z.string().max(LIMITS.headerLength, `must be at most ${LIMITS.headerLength} characters`).optional(),
  options: z
    .array(optionSchema)
    .max(LIMITS.options, `must have at most ${LIMITS.options} items`)
    .superRefine(uniqueBy('label'))
    .optional()
    .describe('Omit or [] for free-form only'),
  multi_select: z.boolean().optional().describe('Allow several choices; default false'),
});

/** The zod schema of the tool's arguments. Unknown keys are stripped, never refused. */
export const askUserQuestionArgsSchema = z.object({
  questions: z
    .array(questionSchema)
    .min(1, 'must have at least 1 item')
    .max(LIMITS.questions, `must have at most ${LIMITS.questions} items`)
    .superRefine(uniqueBy('id')),
});

/** The tool's arguments as the model sends them, after validation. */
export type AskUserQuestionArgs = z.output<typeof askUserQuestionArgsSchema>;

/** The tool's name, as the model calls it. */
export const ASK_USER_QUESTION_TOOL_NAME = 'ask_user_question';

/**
 * The tool description the model reads: when to ask, the Recommended convention, the answer. The rules the
 * JSON Schema can carry (limits, which fields are optional, id and label uniqueness) are in the schema and its
 * field descriptions, not repeated here.
 */
export const ASK_USER_QUESTION_DESCRIPTION = [
  'Ask the human and wait for the answers. Use it when you need a confirmation, a choice or missing information; do not ask what you can find out yourself.',
  'To recommend an option, put it first and append " (Recommended)" to its label.',
  'Returns {"answers":[{"id":"...","selected":["..."],"custom":"..."}]}, one per question: selected holds the chosen labels; custom, a free-form answer, overrides them; selected [] without custom means skipped.',
].join(' ');

function buildJsonSchema(): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(askUserQuestionArgsSchema, { io: 'input' });
  return schema;
}

/** The JSON Schema the model sees, generated from `askUserQuestionArgsSchema`. */
export const askUserQuestionJsonSchema: Record<string, unknown> = buildJsonSchema();
