/**
 * Turns whatever the model sent into validated arguments, or a `UserInteractionError` whose message names
 * each offending field and why (`invalid arguments: questions[0].header: must be at most 80 characters`).
 */
import type { z } from 'zod';
import { isPlainObject, issueTexts } from '../common';
import { UserInteractionError } from '../interaction/user-interaction-error';
import { assertHasQuestions } from '../interaction/ask-request-guard';
import { askUserQuestionArgsSchema, type AskUserQuestionArgs } from './ask-user-question-schema';

/** At most this many problems are listed, so a wildly wrong call does not flood the model's context. */
const MAX_REPORTED_PROBLEMS = 5;

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const withArticle: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
};

// Per-parse error map: zod's own wording ("Invalid input: expected string, received number") is replaced by
// a short reason; messages set on the schema's checks win over this map.
const errorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code !== 'invalid_type') return undefined;
  // A missing field is "required"; missing arguments as a whole (a loop that passes `undefined` for a call
  // without arguments) are reported like any other non-object.
  if (issue.input === undefined && (issue.path?.length ?? 0) > 0) return 'is required';
  const expected = withArticle[issue.expected] ?? issue.expected;
  return `must be ${expected}, received ${typeName(issue.input)}`;
};

/** A copy of `record` without the `keys` whose value is `null`; `record` itself when there are none. */
function withoutNulls(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  if (!keys.some((key) => record[key] === null)) return record;
  const copy = { ...record };
  for (const key of keys) if (copy[key] === null) delete copy[key];
  return copy;
}

/**
 * Reads `null` in an optional field as absent: OpenAI's strict mode sends every field, `null` when unused.
 * Required fields keep their `null`, which validation then reports.
 */
function dropOptionalNulls(args: unknown): unknown {
  if (!isPlainObject(args) || !Array.isArray(args.questions)) return args;
  return {
    ...args,
    questions: args.questions.map((question: unknown) => {
      if (!isPlainObject(question)) return question;
      const trimmed = withoutNulls(question, ['header', 'options', 'multi_select']);
      if (!Array.isArray(trimmed.options)) return trimmed;
      return {
        ...trimmed,
        options: trimmed.options.map((option: unknown) =>
          isPlainObject(option) ? withoutNulls(option, ['description']) : option,
        ),
      };
    }),
  };
}

/**
 * Validates the model's arguments against the contract. Unknown keys are dropped, and `null` in an optional
 * field is read as absent. The byte budget (`MAX_REQUEST_BYTES`) is checked once at the seam, on the request
 * the tool builds from these (`guardAskRequest`).
 *
 * @throws UserInteractionError `EMPTY_QUESTIONS` for `questions: []`, `INVALID_ARGS` for anything else wrong.
 */
export function parseAskUserQuestionArgs(rawArgs: unknown): AskUserQuestionArgs {
  const args = dropOptionalNulls(rawArgs);
  if (isPlainObject(args) && Array.isArray(args.questions) && args.questions.length === 0) {
    // Before the schema, whose `.min(1)` would say INVALID_ARGS: no questions has a code of its own.
    assertHasQuestions([]);
  }
  const result = askUserQuestionArgsSchema.safeParse(args, { error: errorMap });
  if (result.success) return result.data;
  throw UserInteractionError.invalidArgs(issueTexts(result.error.issues, MAX_REPORTED_PROBLEMS));
}
