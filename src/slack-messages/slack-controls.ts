/**
 * How the bot's controls name what they answer: the `action_id`s, the `block_id`s, and the reference a button
 * carries in its value. The bot's messages write them and the interactions route reads them back, so both
 * import them from here.
 *
 * Every control refers to options by index, never by label: a label cut to fit Slack's 75 characters still
 * answers with the full label, and two labels that differ only past the cut stay apart. Buttons carry the
 * question's workflow id in their value (Slack allows 2,000 characters, workflow ids are at most 1,000); select
 * and checkbox options (150 characters) carry only the option's index, and the Submit button beside them carries
 * the id.
 */
import { isPlainObject } from '../common';

/** Slack's limits on what the bot writes. */
export const SLACK_LIMITS = {
  blocks: 50,
  buttonText: 75,
  buttonValue: 2000,
  actionId: 255,
  optionText: 75,
  optionDescription: 75,
  selectOptions: 100,
  checkboxOptions: 10,
  elementsPerActions: 25,
  modalTitle: 24,
  inputLabel: 2000,
  inputLength: 3000,
  privateMetadata: 3000,
} as const;

/** The `action_id`s of the controls (an option button's is `answer.<option index>`: unique in its block). */
export const SLACK_ACTIONS = {
  answer: 'ask_user.answer',
  select: 'ask_user.select',
  check: 'ask_user.check',
  multiSelect: 'ask_user.multi',
  other: 'ask_user.other',
  submit: 'ask_user.submit',
  decline: 'ask_user.decline',
  approve: 'ask_user.approve',
  deny: 'ask_user.deny',
  edit: 'ask_user.edit',
  open: 'ask_user.open',
} as const;

/** `block_id` of question `index`'s controls; `state.values` is keyed by it. */
export function questionBlockId(index: number): string {
  return `ask_user.q.${index}`;
}

/** What a button refers to: the question's workflow, and which question and option. */
export interface SlackActionRef {
  workflowId: string;
  question?: number;
  option?: number;
}

/** A button's value. */
export function encodeRef(ref: SlackActionRef): string {
  return JSON.stringify({ w: ref.workflowId, q: ref.question, o: ref.option });
}

/** A whole number from 0: an index of a question or of an option. */
export function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** The JSON object a string of ours holds; `undefined` for anything else (Slack echoes what the bot wrote). */
export function jsonObjectOf(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a button's value back; `undefined` for anything the bot did not write. */
export function decodeRef(value: unknown): SlackActionRef | undefined {
  const parsed = jsonObjectOf(value);
  if (parsed === undefined) return undefined;
  const { w, q, o } = parsed;
  if (typeof w !== 'string' || w === '') return undefined;
  if ((q !== undefined && !isIndex(q)) || (o !== undefined && !isIndex(o))) return undefined;
  const ref: SlackActionRef = { workflowId: w };
  if (isIndex(q)) ref.question = q;
  if (isIndex(o)) ref.option = o;
  return ref;
}
