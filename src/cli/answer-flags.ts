/**
 * Builds an answer from `--select QID=LABEL` and `--custom QID=TEXT` flags, in the order of the questions.
 * The answer rules themselves are applied where the answer is recorded (the workflow's validator).
 */
import type { AskUserQuestion, AskUserQuestionAnswerItem } from '../types';

/** Splits `QID=VALUE` at the first `=`. */
export function splitPair(flag: string, value: string): [string, string] {
  const index = value.indexOf('=');
  if (index <= 0) throw new CliUsageError(`${flag} ${JSON.stringify(value)}: expected QID=VALUE`);
  return [value.slice(0, index), value.slice(index + 1)];
}

/** A mistake in how a command was called; printed with the usage hint, exit code 2. */
export class CliUsageError extends Error {
  override name = 'CliUsageError';
}

/**
 * One answer item per question: labels from `--select`, text from `--custom`; questions not named are
 * skipped (`selected: []`).
 */
export function answersFromFlags(
  questions: readonly AskUserQuestion[],
  selects: readonly string[],
  customs: readonly string[],
): AskUserQuestionAnswerItem[] {
  const known = new Set(questions.map((question) => question.id));
  const items = new Map<string, AskUserQuestionAnswerItem>(
    questions.map((question) => [question.id, { id: question.id, selected: [] }]),
  );
  for (const [flag, values] of [
    ['--select', selects],
    ['--custom', customs],
  ] as const) {
    for (const value of values) {
      const [questionId, text] = splitPair(flag, value);
      if (!known.has(questionId)) {
        throw new CliUsageError(
          `${flag} ${JSON.stringify(value)}: no question with id ${JSON.stringify(questionId)}`,
        );
      }
      const item = items.get(questionId)!;
      if (flag === '--select') item.selected.push(text);
      else item.custom = text;
    }
  }
  return questions.map((question) => items.get(question.id)!);
}
