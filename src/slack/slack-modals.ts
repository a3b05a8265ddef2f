/**
 * The modals the interactions route opens from a message's buttons (Other…, Decline…, Deny…, Edit…), the ids
 * of their inputs, and what a modal remembers of the message it was opened from (its `private_metadata`).
 */
import type * as types from '@slack/types';
import { definedFields } from '../common';
import type { AskUserQuestion, QuestionRecord } from '../types';
import {
  SECTION_TEXT_LIMIT,
  SLACK_LIMITS,
  changedEffect,
  editableInput,
  escapeMrkdwn,
  isIndex,
  jsonObjectOf,
  plain,
  truncate,
} from '../slack-messages';

type KnownBlock = types.KnownBlock;
type ModalView = types.ModalView;

/** The `callback_id`s of the modals. */
export const SLACK_VIEWS = {
  other: 'ask_user.view.other',
  decline: 'ask_user.view.decline',
  deny: 'ask_user.view.deny',
  edit: 'ask_user.view.edit',
} as const;

/** `block_id` of a modal's text input for question `index`. */
export function textBlockId(index: number): string {
  return `ask_user.text.${index}`;
}

/** `block_id` of the reason input (decline, deny) and of the edited JSON. */
export const REASON_BLOCK = 'ask_user.reason';
export const INPUT_BLOCK = 'ask_user.input';
/** `block_id` of the Deny… modal's checkbox that also stops the agent's run, and the value it holds when ticked. */
export const STOP_BLOCK = 'ask_user.stop';
export const STOP_VALUE = 'stop';
/** `action_id` of every modal input. */
export const INPUT_ACTION = 'value';

/** What a modal remembers (`private_metadata`): the question, the message to update, and the message's state. */
export interface SlackViewContext {
  workflowId: string;
  /** The message the modal was opened from. */
  channel: string;
  ts: string;
  /** Other…: the question whose button opened it. */
  question?: number;
  /**
   * Other… of a multi-question message: the options chosen in the message when it opened, per question (option
   * indices), so the modal's submission answers every question.
   */
  chosen?: (number[] | null)[];
}

/** A modal's `private_metadata`; `undefined` when it would not fit Slack's 3,000 characters. */
export function encodeViewContext(context: SlackViewContext): string | undefined {
  const { workflowId: w, channel: c, ts: t, question: q, chosen: s } = context;
  const text = JSON.stringify({ w, c, t, q, s });
  return text.length <= SLACK_LIMITS.privateMetadata ? text : undefined;
}

/** Option indices per question, `null` for a question nothing was chosen for. */
function isChosen(value: unknown): value is (number[] | null)[] {
  return (
    Array.isArray(value) &&
    value.every((entry) => entry === null || (Array.isArray(entry) && entry.every(isIndex)))
  );
}

/** Reads a modal's `private_metadata` back; `undefined` for anything this module did not write. */
export function decodeViewContext(text: unknown): SlackViewContext | undefined {
  const parsed = jsonObjectOf(text);
  if (parsed === undefined) return undefined;
  const { w, c, t, q, s } = parsed;
  if (typeof w !== 'string' || typeof c !== 'string' || typeof t !== 'string') return undefined;
  if ((q !== undefined && !isIndex(q)) || (s !== undefined && !isChosen(s))) return undefined;
  const context: SlackViewContext = { workflowId: w, channel: c, ts: t };
  if (isIndex(q)) context.question = q;
  if (isChosen(s)) context.chosen = s;
  return context;
}

function modal(
  callbackId: string,
  title: string,
  submit: string,
  metadata: string,
  blocks: KnownBlock[],
): ModalView {
  return {
    type: 'modal',
    callback_id: callbackId,
    title: plain(title, SLACK_LIMITS.modalTitle),
    submit: plain(submit, SLACK_LIMITS.modalTitle),
    close: plain('Cancel', SLACK_LIMITS.modalTitle),
    private_metadata: metadata,
    blocks,
  };
}

function textInput(
  blockId: string,
  label: string,
  options: { optional: boolean; initial?: string; hint?: string },
): KnownBlock {
  return definedFields({
    type: 'input' as const,
    block_id: blockId,
    optional: options.optional,
    label: plain(label, SLACK_LIMITS.inputLabel),
    hint: options.hint === undefined ? undefined : plain(options.hint, SLACK_LIMITS.inputLabel),
    element: definedFields({
      type: 'plain_text_input' as const,
      action_id: INPUT_ACTION,
      multiline: true,
      max_length: SLACK_LIMITS.inputLength,
      initial_value: options.initial,
    }),
  });
}

/**
 * The Other… modal: a free text for the question whose button opened it and, in a multi-question message,
 * an optional one for each of the others (a question answered here ignores what the message chose for it).
 */
export function otherModal(
  questions: readonly AskUserQuestion[],
  metadata: string,
  question: number,
): ModalView {
  const asked = questions[question];
  const blocks: KnownBlock[] = [];
  if (questions.length === 1 && asked !== undefined) {
    blocks.push(
      textInput(textBlockId(0), asked.header ?? asked.question, { optional: false, hint: asked.question }),
    );
  } else {
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: 'Write an answer for any question. The others keep what you chose in the message; Submit sends them all.',
      },
    });
    questions.forEach((each, index) => {
      blocks.push(
        textInput(textBlockId(index), `${index + 1}. ${each.header ?? each.question}`, {
          optional: index !== question,
          hint: each.question,
        }),
      );
    });
  }
  return modal(SLACK_VIEWS.other, 'Answer', 'Submit', metadata, blocks);
}

/**
 * The Decline… modal of a question, and the Deny… modal of an approval: an optional reason and, on a denial, a
 * checkbox that also stops the agent's run (the decision's `stop`), as the inbox's and the CLI's deny offer.
 */
export function reasonModal(kind: 'decline' | 'deny', metadata: string): ModalView {
  const reason = textInput(REASON_BLOCK, 'Reason (the agent reads it)', { optional: true });
  if (kind === 'decline')
    return modal(SLACK_VIEWS.decline, 'Decline the question', 'Decline', metadata, [reason]);
  const stop: KnownBlock = {
    type: 'input',
    block_id: STOP_BLOCK,
    optional: true,
    label: plain('The agent', SLACK_LIMITS.inputLabel),
    element: {
      type: 'checkboxes',
      action_id: INPUT_ACTION,
      options: [
        {
          text: plain("Also stop the agent's run", SLACK_LIMITS.inputLabel),
          description: plain('Not only this call: the agent ends its turn.', SLACK_LIMITS.inputLabel),
          value: STOP_VALUE,
        },
      ],
    },
  };
  return modal(SLACK_VIEWS.deny, 'Deny the tool call', 'Deny', metadata, [reason, stop]);
}

/**
 * The Edit… modal of an approval: the tool's input as JSON, to run with instead. Where the agent's hook runs a call
 * only with its model's input (`onEdit: 'suggest'`), the modal says before it is submitted that the edit reaches
 * the agent as a denial suggesting the edited input, and its title and button say so too.
 */
export function editModal(record: QuestionRecord, metadata: string): ModalView {
  const subject = record.approval!;
  const tool = `*${escapeMrkdwn(subject.toolName)}*`;
  const changed = changedEffect(subject, { type: 'edit' });
  const [title, submit, lead] =
    changed === undefined
      ? ['Edit and approve', 'Approve edit', `${tool} runs with this input instead:`]
      : ['Suggest an input', 'Deny and suggest', `*An edit does not approve this call.* ${changed}`];
  return modal(SLACK_VIEWS.edit, title, submit, metadata, [
    { type: 'section', text: { type: 'mrkdwn', text: truncate(lead, SECTION_TEXT_LIMIT) } },
    textInput(INPUT_BLOCK, 'Tool input (JSON)', {
      optional: false,
      initial: editableInput(subject.input) ?? '',
    }),
  ]);
}
