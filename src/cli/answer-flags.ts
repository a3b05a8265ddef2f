/**
 * Builds an answer from `--select QID=LABEL` and `--custom QID=TEXT` flags, in the order of the questions.
 * The answer rules themselves are applied where the answer is recorded (the workflow's validator).
 */
import type { AskUserQuestion, AskUserQuestionAnswerItem } from '../types';
import { CliUsageError } from './parse';

/**
 * Splits `QID=VALUE` after the longest known question id that `value` starts with followed by `=`, so that an
 * id holding `=` itself (`q=1`) is answerable (`--select "q=1=Yes"`). With no known id at the start, it splits
 * at the first `=`, for the error message.
 */
export function splitPair(flag: string, value: string, knownIds: Iterable<string> = []): [string, string] {
  let longest: string | undefined;
  for (const id of knownIds) {
    if (value.startsWith(`${id}=`) && (longest === undefined || id.length > longest.length)) longest = id;
  }
  if (longest !== undefined) return [longest, value.slice(longest.length + 1)];
  const index = value.indexOf('=');
  if (index <= 0) throw new CliUsageError(`${flag} ${JSON.stringify(value)}: expected QID=VALUE`);
  return [value.slice(0, index), value.slice(index + 1)];
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
      const [questionId, text] = splitPair(flag, value, known);
      const item = items.get(questionId);
      if (item === undefined) {
        throw new CliUsageError(
          `${flag} ${JSON.stringify(value)}: no question with id ${JSON.stringify(questionId)}`,
        );
      }
      if (flag === '--select') item.selected.push(text);
      else item.custom = text;
    }
  }
  return questions.map((question) => items.get(question.id)!);
}
