/**
 * The answer rules: the one place that decides whether an answer fits its questions, and the one serialiser
 * that turns an answer into the exact text the model reads.
 *
 * Every entry point uses this module: the tool (before it serialises what a provider returned), the workflow
 * (the `submitAnswer` validator and the `answer` signal), the in-memory provider and the CLI, and every answering surface added later.
 * It is dependency-free and deterministic, so it runs inside Temporal's workflow sandbox too.
 */
import { isPlainObject } from '../common';
import type { AskUserQuestion, AskUserQuestionAnswer, AskUserQuestionAnswerItem } from '../types';
import { isUndecodablePayload } from './undecodable-payload';
import { codePointLength, jsonByteLength } from './json-size';

/** The longest `custom` text, in characters (Unicode code points, as the tool's own text limits count). */
export const MAX_CUSTOM_LENGTH = 10_000;

/**
 * The largest whole answer (the `answer` signal's or `submitAnswer` update's argument, `answeredBy` included),
 * in bytes of UTF-8 JSON. The workflow stores an answer in several payloads (the update's input and result, the
 * `getQuestion` record next to the questions, the workflow's result); at 256 KiB, questions and answer together
 * stay at a quarter of the Temporal server's 2 MB payload limit and near its 512 KB warning threshold, while
 * 20 answers that each use most of `MAX_CUSTOM_LENGTH` in plain text still fit.
 */
export const MAX_ANSWER_BYTES = 256 * 1024;

/** The rule an invalid answer broke. Stable: tests, logs and HTTP clients may match on it. */
export type AnswerRule =
  /** Not the expected JSON shape (answers array of `{ id, selected, custom? }`). */
  | 'shape'
  /** Wrong number of answers, or ids not matching the questions in order. */
  | 'ids'
  /** A selected label that the question did not offer. */
  | 'unknown-label'
  /** Several labels on a single-select question. */
  | 'single-select'
  /** The same label selected twice. */
  | 'duplicate-label'
  /** A `custom` text that is empty or only whitespace. */
  | 'blank-custom'
  /** A `custom` text longer than `MAX_CUSTOM_LENGTH` characters. */
  | 'custom-too-long'
  /** A whole answer larger than `MAX_ANSWER_BYTES` as UTF-8 JSON. */
  | 'too-large'
  /** A payload the worker could not decode (unknown encoding, broken JSON); see `UndecodablePayload`. */
  | 'undecodable'
  /** A `custom` text together with selected labels. */
  | 'custom-with-labels';

/** Outcome of `checkAnswer`: the normalised answer, or the broken rule and a reason naming the field. */
export type AnswerCheck =
  { ok: true; answer: AskUserQuestionAnswer } | { ok: false; rule: AnswerRule; reason: string };

function fail(rule: AnswerRule, reason: string): AnswerCheck {
  return { ok: false, rule, reason };
}

/** Shows a value in an error message without letting a huge input flood it. */
function quote(text: string): string {
  const shown = text.length > 60 ? `${text.slice(0, 57)}...` : text;
  return JSON.stringify(shown);
}

/** Reads one raw answer item into `{ id, selected, custom? }`, or says what is wrong with its shape. */
function readItem(raw: unknown, path: string): AskUserQuestionAnswerItem | string {
  if (!isPlainObject(raw)) return `${path} must be an object`;
  const { id, selected = [], custom } = raw;
  if (typeof id !== 'string') return `${path}.id must be a string`;
  if (!Array.isArray(selected) || !selected.every((label) => typeof label === 'string')) {
    return `${path}.selected must be an array of strings`;
  }
  if (custom !== undefined && typeof custom !== 'string') return `${path}.custom must be a string`;
  const item: AskUserQuestionAnswerItem = { id, selected: [...selected] };
  if (custom !== undefined) item.custom = custom;
  return item;
}

/** Checks one well-shaped item against its question. Returns `undefined` when it fits. */
function checkItem(
  question: AskUserQuestion,
  item: AskUserQuestionAnswerItem,
  path: string,
): AnswerCheck | undefined {
  if (item.id !== question.id) {
    return fail('ids', `${path}.id: expected ${quote(question.id)}, received ${quote(item.id)}`);
  }
  const seen = new Set<string>();
  for (const label of item.selected) {
    if (seen.has(label)) return fail('duplicate-label', `${path}.selected: duplicate label ${quote(label)}`);
    seen.add(label);
  }
  const offered = new Set((question.options ?? []).map((option) => option.label));
  for (const label of item.selected) {
    if (!offered.has(label)) {
      return fail(
        'unknown-label',
        `${path}.selected: ${quote(label)} is not an option of question ${quote(question.id)}`,
      );
    }
  }
  if (question.multiSelect !== true && item.selected.length > 1) {
    return fail(
      'single-select',
      `${path}.selected: question ${quote(question.id)} allows one label, received ${item.selected.length}`,
    );
  }
  if (item.custom !== undefined) {
    const length = codePointLength(item.custom);
    if (length > MAX_CUSTOM_LENGTH) {
      return fail(
        'custom-too-long',
        `${path}.custom: must be at most ${MAX_CUSTOM_LENGTH} characters, received ${length}`,
      );
    }
    if (item.custom.trim() === '') return fail('blank-custom', `${path}.custom: must not be blank`);
    if (item.selected.length > 0) {
      return fail('custom-with-labels', `${path}: custom cannot be combined with selected labels`);
    }
  }
  return undefined;
}

/**
 * Checks a raw answer (any JSON, or the payload converter's `UndecodablePayload`) against the questions it
 * answers.
 *
 * On success the answer comes back normalised: only `id`, `selected` and `custom` (when given) are kept,
 * and a missing `selected` is read as `[]`. Never throws: whatever arrives, the result names the broken rule and
 * the field.
 */
export function checkAnswer(questions: readonly AskUserQuestion[], raw: unknown): AnswerCheck {
  try {
    return checkRawAnswer(questions, raw);
  } catch (error) {
    // Only a hostile in-process value (a throwing getter or proxy) gets here; decoded JSON never does.
    return fail(
      'shape',
      `the answer could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function checkRawAnswer(questions: readonly AskUserQuestion[], raw: unknown): AnswerCheck {
  if (isUndecodablePayload(raw)) {
    return fail('undecodable', `the answer could not be decoded: ${raw.undecodable}`);
  }
  const bytes = jsonByteLength(raw);
  if (bytes !== undefined && bytes > MAX_ANSWER_BYTES) {
    return fail('too-large', `the answer is ${bytes} bytes, over the ${MAX_ANSWER_BYTES}-byte limit`);
  }
  if (!isPlainObject(raw)) return fail('shape', 'the answer must be an object with an "answers" array');
  const rawItems = raw.answers;
  if (!Array.isArray(rawItems)) return fail('shape', 'answers must be an array');
  const items: AskUserQuestionAnswerItem[] = [];
  for (const [index, rawItem] of rawItems.entries()) {
    const item = readItem(rawItem, `answers[${index}]`);
    if (typeof item === 'string') return fail('shape', item);
    items.push(item);
  }
  if (items.length !== questions.length) {
    return fail(
      'ids',
      `expected ${questions.length} answer${questions.length === 1 ? '' : 's'} (one per question, in order), received ${items.length}`,
    );
  }
  for (const [index, question] of questions.entries()) {
    const problem = checkItem(question, items[index]!, `answers[${index}]`);
    if (problem !== undefined) return problem;
  }
  return { ok: true, answer: { answers: items } };
}

/**
 * Serialises a checked answer to the exact compact text the model reads:
 * `{"answers":[{"id":"...","selected":["..."],"custom":"..."}]}`, keys in that order, `custom` only when given.
 */
export function serializeAnswer(answer: AskUserQuestionAnswer): string {
  return JSON.stringify({
    answers: answer.answers.map((item) =>
      item.custom === undefined
        ? { id: item.id, selected: item.selected }
        : { id: item.id, selected: item.selected, custom: item.custom },
    ),
  });
}

/** The label suffix by which the model marks the choice it recommends. */
export const RECOMMENDED_SUFFIX = ' (Recommended)';

/** True when a label carries the model's recommendation; answering UIs show a badge for it. */
export function isRecommendedLabel(label: string): boolean {
  return label.endsWith(RECOMMENDED_SUFFIX);
}
