/**
 * The bot's interactive Block Kit messages and modals: what a question or an approval looks like in Slack when
 * it can be answered there, and how every control names what it answers.
 *
 * Every control refers to options by index, never by label: a label cut to fit Slack's 75 characters still
 * answers with the full label, and two labels that differ only past the cut stay apart. Buttons carry the
 * question's workflow id in their value (Slack allows 2,000 characters, workflow ids are at most 1,000); select
 * and checkbox options (150 characters) carry only the option's index, and the Submit button beside them carries
 * the id.
 *
 * Layout:
 * - one question, single-select, up to {@link MAX_BUTTONS} options: a button per option, which answers at once;
 * - otherwise a `static_select` (single-select), `checkboxes` (multi-select, up to {@link MAX_CHECKBOXES}
 *   options) or a `multi_static_select` (more) per question, and one Submit button that sends them all;
 * - per question an "Other…" button (a free-form question's only control, "Answer…") that opens a modal for a
 *   free text; one "Decline…" button that opens a modal for a reason;
 * - an approval: Approve, Deny… (a modal for the reason) and Edit… (a modal with the input as JSON).
 */
import type { types } from '@slack/bolt';
import { isRecommendedLabel } from '../answer/answer-rules';
import type { AskUserQuestion, QuestionRecord } from '../types';
import type { WebhookEvent } from '../question/webhook-event';
import {
  HEADER_TEXT_LIMIT,
  SECTION_TEXT_LIMIT,
  URL_LIMIT,
  agentName,
  approvalSection,
  escapeMrkdwn,
  headline,
  questionSection,
  slackMessage,
  truncate,
  type SlackMessageEvent,
} from './slack-message';

type KnownBlock = types.KnownBlock;
type ActionsElement = types.ActionsBlockElement;
type ModalView = types.ModalView;

/** Slack's limits on what this module writes. */
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

/** Most options shown as buttons that answer at once (a single single-select question). */
export const MAX_BUTTONS = 5;
/** Most options of a multi-select question shown as checkboxes; more get a multi-select menu. */
export const MAX_CHECKBOXES = SLACK_LIMITS.checkboxOptions;

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

/** The `callback_id`s of the modals. */
export const SLACK_VIEWS = {
  other: 'ask_user.view.other',
  decline: 'ask_user.view.decline',
  deny: 'ask_user.view.deny',
  edit: 'ask_user.view.edit',
} as const;

/** `block_id` of question `index`'s controls; `state.values` is keyed by it. */
export function questionBlockId(index: number): string {
  return `ask_user.q.${index}`;
}

/** `block_id` of a modal's text input for question `index`. */
export function textBlockId(index: number): string {
  return `ask_user.text.${index}`;
}

/** `block_id` of the reason input (decline, deny) and of the edited JSON. */
export const REASON_BLOCK = 'ask_user.reason';
export const INPUT_BLOCK = 'ask_user.input';
/** `action_id` of every modal input. */
export const INPUT_ACTION = 'value';

/** What a button refers to: the question's workflow, and which question and option. */
export interface SlackActionRef {
  workflowId: string;
  question?: number;
  option?: number;
}

/** A button's value. */
export function encodeRef(ref: SlackActionRef): string {
  return JSON.stringify({
    w: ref.workflowId,
    ...(ref.question === undefined ? {} : { q: ref.question }),
    ...(ref.option === undefined ? {} : { o: ref.option }),
  });
}

const isIndex = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** The JSON object a string of ours holds; `undefined` for anything else (Slack echoes what we wrote). */
function jsonObjectOf(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a button's value back; `undefined` for anything this module did not write. */
export function decodeRef(value: unknown): SlackActionRef | undefined {
  const parsed = jsonObjectOf(value);
  if (parsed === undefined) return undefined;
  const { w, q, o } = parsed;
  if (typeof w !== 'string' || w === '') return undefined;
  if ((q !== undefined && !isIndex(q)) || (o !== undefined && !isIndex(o))) return undefined;
  return {
    workflowId: w,
    ...(q === undefined ? {} : { question: q }),
    ...(o === undefined ? {} : { option: o }),
  };
}

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
  const text = JSON.stringify({
    w: context.workflowId,
    c: context.channel,
    t: context.ts,
    ...(context.question === undefined ? {} : { q: context.question }),
    ...(context.chosen === undefined ? {} : { s: context.chosen }),
  });
  return text.length <= SLACK_LIMITS.privateMetadata ? text : undefined;
}

/** Reads a modal's `private_metadata` back; `undefined` for anything this module did not write. */
export function decodeViewContext(text: unknown): SlackViewContext | undefined {
  const parsed = jsonObjectOf(text);
  if (parsed === undefined) return undefined;
  const { w, c, t, q, s } = parsed;
  if (typeof w !== 'string' || typeof c !== 'string' || typeof t !== 'string') return undefined;
  if (q !== undefined && !isIndex(q)) return undefined;
  const chosenOk =
    s === undefined ||
    (Array.isArray(s) &&
      s.every((entry) => entry === null || (Array.isArray(entry) && entry.every(isIndex))));
  if (!chosenOk) return undefined;
  return {
    workflowId: w,
    channel: c,
    ts: t,
    ...(q === undefined ? {} : { question: q }),
    ...(s === undefined ? {} : { chosen: s as (number[] | null)[] }),
  };
}

function plain(text: string, limit: number): types.PlainTextElement {
  return { type: 'plain_text', text: truncate(text, limit), emoji: true };
}

function button(text: string, actionId: string, value: string, style?: 'primary' | 'danger'): types.Button {
  return {
    type: 'button',
    text: plain(text, SLACK_LIMITS.buttonText),
    action_id: actionId,
    value,
    ...(style === undefined ? {} : { style }),
  };
}

function linkButton(text: string, url: string, primary: boolean): types.Button {
  return {
    type: 'button',
    text: plain(text, SLACK_LIMITS.buttonText),
    action_id: SLACK_ACTIONS.open,
    url,
    ...(primary ? { style: 'primary' as const } : {}),
  };
}

/** An option of a menu or of checkboxes: its index as the value, its label cut to fit. */
function option(label: string, index: number, description?: string): types.PlainTextOption {
  const text = `${label}${isRecommendedLabel(label) ? ' ⭐' : ''}`;
  return {
    text: plain(text, SLACK_LIMITS.optionText),
    value: String(index),
    ...(description === undefined ? {} : { description: plain(description, SLACK_LIMITS.optionDescription) }),
  };
}

/** How a question is answered in the message. */
type Control = 'buttons' | 'select' | 'checkboxes' | 'multi-select' | 'text';

/** The control of question `question` in a message of `count` questions. */
export function controlOf(question: AskUserQuestion, count: number): Control {
  const options = question.options ?? [];
  if (options.length === 0) return 'text';
  if (question.multiSelect === true) return options.length <= MAX_CHECKBOXES ? 'checkboxes' : 'multi-select';
  return count === 1 && options.length <= MAX_BUTTONS ? 'buttons' : 'select';
}

/** Whether the message needs a Submit button: some question keeps its choice until then. */
function needsSubmit(questions: readonly AskUserQuestion[]): boolean {
  return questions.some((question) => {
    const control = controlOf(question, questions.length);
    return control !== 'buttons' && control !== 'text';
  });
}

/** The controls of one question. */
function questionControls(
  question: AskUserQuestion,
  index: number,
  count: number,
  workflowId: string,
): types.ActionsBlock {
  const options = (question.options ?? []).slice(0, SLACK_LIMITS.selectOptions);
  const control = controlOf(question, count);
  const elements: ActionsElement[] = [];
  switch (control) {
    case 'buttons':
      options.forEach((choice, optionIndex) => {
        elements.push(
          button(
            `${choice.label}${isRecommendedLabel(choice.label) ? ' ⭐' : ''}`,
            `${SLACK_ACTIONS.answer}.${optionIndex}`,
            encodeRef({ workflowId, question: index, option: optionIndex }),
            isRecommendedLabel(choice.label) ? 'primary' : undefined,
          ),
        );
      });
      break;
    case 'select':
      elements.push({
        type: 'static_select',
        action_id: SLACK_ACTIONS.select,
        placeholder: plain('Choose one', SLACK_LIMITS.optionText),
        options: options.map((choice, optionIndex) => option(choice.label, optionIndex)),
      });
      break;
    case 'checkboxes':
      elements.push({
        type: 'checkboxes',
        action_id: SLACK_ACTIONS.check,
        options: options.map((choice, optionIndex) => option(choice.label, optionIndex, choice.description)),
      });
      break;
    case 'multi-select':
      elements.push({
        type: 'multi_static_select',
        action_id: SLACK_ACTIONS.multiSelect,
        placeholder: plain('Choose any', SLACK_LIMITS.optionText),
        options: options.map((choice, optionIndex) => option(choice.label, optionIndex)),
      });
      break;
    case 'text':
      break;
  }
  elements.push(
    button(
      control === 'text' ? 'Answer…' : 'Other…',
      SLACK_ACTIONS.other,
      encodeRef({ workflowId, question: index }),
    ),
  );
  return { type: 'actions', block_id: questionBlockId(index), elements };
}

function contextBlock(event: Pick<WebhookEvent, 'workflowId' | 'record'>): KnownBlock {
  const text = `\`${escapeMrkdwn(event.workflowId)}\` · asked by ${escapeMrkdwn(agentName(event.record))}`;
  return { type: 'context', elements: [{ type: 'mrkdwn', text: truncate(text, SECTION_TEXT_LIMIT) }] };
}

/** The body of a `chat.postMessage` or `chat.update`. */
export interface SlackBotMessage {
  text: string;
  blocks: KnownBlock[];
}

/** The JSON an Edit… modal starts from; `undefined` when the input is too large for Slack's text input. */
export function editableInput(input: unknown): string | undefined {
  const json = JSON.stringify(input, null, 2) ?? 'null';
  return json.length <= SLACK_LIMITS.inputLength ? json : undefined;
}

/**
 * The interactive message of a pending question or approval. A workflow id too long for a button's value (it
 * cannot happen with the server's default limits) gets the plain message, whose inbox button still works.
 *
 * @example
 * await slack.chat.postMessage({ channel: 'C0123', ...interactiveMessage(event) });
 */
export function interactiveMessage(event: SlackMessageEvent): SlackBotMessage {
  const { record, workflowId } = event;
  if (encodeRef({ workflowId, question: 99, option: 99 }).length > SLACK_LIMITS.buttonValue) {
    return staticMessage(event);
  }
  const title = truncate(headline(event), HEADER_TEXT_LIMIT);
  const blocks: KnownBlock[] = [{ type: 'header', text: plain(title, HEADER_TEXT_LIMIT) }];
  const finalActions: ActionsElement[] = [];
  const ref = encodeRef({ workflowId });
  if (record.approval !== undefined) {
    blocks.push(approvalSection(record));
    finalActions.push(button('Approve', SLACK_ACTIONS.approve, ref, 'primary'));
    finalActions.push(button('Deny…', SLACK_ACTIONS.deny, ref, 'danger'));
    if (editableInput(record.approval.input) !== undefined) {
      finalActions.push(button('Edit…', SLACK_ACTIONS.edit, ref));
    }
  } else {
    // 3 blocks of frame and 2 per question: 20 questions (the tool's most) take 43 of Slack's 50.
    const room = Math.floor((SLACK_LIMITS.blocks - 3) / 2);
    record.questions.slice(0, room).forEach((question, index) => {
      blocks.push(questionSection(question, undefined));
      blocks.push(questionControls(question, index, record.questions.length, workflowId));
    });
    if (needsSubmit(record.questions))
      finalActions.push(button('Submit', SLACK_ACTIONS.submit, ref, 'primary'));
    finalActions.push(button('Decline…', SLACK_ACTIONS.decline, ref, 'danger'));
  }
  blocks.push(contextBlock(event));
  if (event.link !== undefined && event.link.length <= URL_LIMIT) {
    finalActions.push(linkButton('Open in the inbox', event.link, false));
  }
  blocks.push({ type: 'actions', block_id: 'ask_user.actions', elements: finalActions });
  return { text: truncate(`${headline(event)}: ${titleOf(record, workflowId)}`, SECTION_TEXT_LIMIT), blocks };
}

function titleOf(record: QuestionRecord, workflowId: string): string {
  if (record.approval !== undefined) return record.approval.description ?? record.approval.toolName;
  const first = record.questions[0];
  return first === undefined ? workflowId : (first.header ?? first.question);
}

/** The message without controls: how a resolved question or approval is shown (the incoming-webhook form). */
export function staticMessage(event: SlackMessageEvent): SlackBotMessage {
  const message = slackMessage(event);
  return { text: message.text, blocks: message.blocks };
}

/** A reply in the question's thread: a reminder or an escalation of the message above. */
export function threadReply(event: SlackMessageEvent & Pick<WebhookEvent, 'reminder'>): SlackBotMessage {
  const what =
    event.event === 'question.escalated'
      ? 'Escalated: this is still waiting.'
      : `Reminder${event.reminder === undefined ? '' : ` ${event.reminder}`}: this is still waiting.`;
  const how =
    event.record.approval === undefined ? 'Answer in the message above.' : 'Decide in the message above.';
  const text = `:alarm_clock: *${what}* ${how}`;
  const blocks: KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text } }];
  if (event.link !== undefined && event.link.length <= URL_LIMIT) {
    blocks.push({ type: 'actions', elements: [linkButton('Open in the inbox', event.link, false)] });
  }
  return { text: `${headline(event)} (${what})`, blocks };
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
  options: { optional: boolean; multiline: boolean; initial?: string; hint?: string },
): KnownBlock {
  return {
    type: 'input',
    block_id: blockId,
    optional: options.optional,
    label: plain(label, SLACK_LIMITS.inputLabel),
    ...(options.hint === undefined ? {} : { hint: plain(options.hint, SLACK_LIMITS.inputLabel) }),
    element: {
      type: 'plain_text_input',
      action_id: INPUT_ACTION,
      multiline: options.multiline,
      max_length: SLACK_LIMITS.inputLength,
      ...(options.initial === undefined ? {} : { initial_value: options.initial }),
    },
  };
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
      textInput(textBlockId(0), asked.header ?? asked.question, {
        optional: false,
        multiline: true,
        hint: asked.question,
      }),
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
          multiline: true,
          hint: each.question,
        }),
      );
    });
  }
  return modal(SLACK_VIEWS.other, 'Answer', 'Submit', metadata, blocks);
}

/** The Decline… modal of a question, and the Deny… modal of an approval: an optional reason. */
export function reasonModal(kind: 'decline' | 'deny', metadata: string): ModalView {
  const decline = kind === 'decline';
  return modal(
    decline ? SLACK_VIEWS.decline : SLACK_VIEWS.deny,
    decline ? 'Decline the question' : 'Deny the tool call',
    decline ? 'Decline' : 'Deny',
    metadata,
    [textInput(REASON_BLOCK, 'Reason (the agent reads it)', { optional: true, multiline: true })],
  );
}

/** The Edit… modal of an approval: the tool's input as JSON, to run with instead. */
export function editModal(record: QuestionRecord, metadata: string): ModalView {
  const subject = record.approval!;
  return modal(SLACK_VIEWS.edit, 'Edit and approve', 'Approve edit', metadata, [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: truncate(
          `*${escapeMrkdwn(subject.toolName)}* runs with this input instead:`,
          SECTION_TEXT_LIMIT,
        ),
      },
    },
    textInput(INPUT_BLOCK, 'Tool input (JSON)', {
      optional: false,
      multiline: true,
      initial: editableInput(subject.input) ?? '',
    }),
  ]);
}
