/**
 * Reading what Slack posts: fields of an interaction payload, the options a message's controls hold, and the
 * answer they make. Everything here is untrusted JSON (the signature proves Slack sent it, not that its state
 * is one the bot's controls can produce), so every read checks its type.
 */
import { isPlainObject } from '../common';
import { questionBlockId } from '../slack-messages';
import type { AskUserQuestion, AskUserQuestionAnswerItem } from '../types';

/** A JSON object of a payload. */
export type Json = Record<string, unknown>;

/** The object at `value[key]`, if it is one. */
export function objectAt(value: unknown, key: string): Json | undefined {
  const found = isPlainObject(value) ? value[key] : undefined;
  return isPlainObject(found) ? found : undefined;
}

/** The non-empty string at `value[key]`, if it is one. */
export function stringAt(value: unknown, key: string): string | undefined {
  const found = isPlainObject(value) ? value[key] : undefined;
  return typeof found === 'string' && found !== '' ? found : undefined;
}

/** The option indices one block's controls hold, or `null` when none of them holds a choice. */
function chosenInBlock(block: Json | undefined): number[] | null {
  let picked: number[] | null = null;
  for (const state of Object.values(block ?? {})) {
    if (!isPlainObject(state)) continue;
    const single = objectAt(state, 'selected_option');
    const many = Array.isArray(state.selected_options) ? (state.selected_options as unknown[]) : undefined;
    const options = single !== undefined ? [single] : many;
    if (options === undefined) continue;
    picked = options
      .map((option) => Number(stringAt(option, 'value')))
      .filter((value) => Number.isInteger(value) && value >= 0);
  }
  return picked;
}

/** The option indices each question's control holds in a message's `state.values`. */
export function chosenFromState(values: unknown, count: number): (number[] | null)[] {
  return Array.from({ length: count }, (_unused, index) =>
    chosenInBlock(objectAt(values, questionBlockId(index))),
  );
}

/**
 * The answer a message and a modal give: a question's text when one was written, else the labels of the
 * options chosen for it (by index), else nothing (skipped). An index no option has is refused, naming it.
 */
export function answerFrom(
  questions: readonly AskUserQuestion[],
  chosen: readonly (readonly number[] | null | undefined)[],
  texts: ReadonlyMap<number, string> = new Map(),
): { ok: true; answers: AskUserQuestionAnswerItem[] } | { ok: false; reason: string } {
  const answers: AskUserQuestionAnswerItem[] = [];
  for (const [index, question] of questions.entries()) {
    const text = texts.get(index);
    if (text !== undefined && text.trim() !== '') {
      answers.push({ id: question.id, selected: [], custom: text });
      continue;
    }
    const selected: string[] = [];
    for (const optionIndex of chosen[index] ?? []) {
      const label = question.options?.[optionIndex]?.label;
      if (label === undefined) {
        return {
          ok: false,
          reason: `answers[${index}].selected: option ${optionIndex} is not an option of question ${JSON.stringify(question.id)}`,
        };
      }
      selected.push(label);
    }
    answers.push({ id: question.id, selected });
  }
  return { ok: true, answers };
}
