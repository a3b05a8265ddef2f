/**
 * The bot's interactive Block Kit messages: what a question or an approval looks like in Slack when it can be
 * answered there, the replies in its thread, and the form it is rewritten to once resolved. The worker's
 * delivery posts them; the interactions route rewrites a message it was clicked in.
 *
 * Layout:
 * - one question, single-select, up to {@link MAX_BUTTONS} options: a button per option, which answers at once;
 * - otherwise a `static_select` (single-select), `checkboxes` (multi-select, up to {@link MAX_CHECKBOXES}
 *   options) or a `multi_static_select` (more) per question, and one Submit button that sends them all;
 * - per question an "Other…" button (a free-form question's only control, "Answer…") that opens a modal for a
 *   free text; one "Decline…" button that opens a modal for a reason;
 * - an approval: Approve, Deny… (a modal for the reason) and Edit… (a modal with the input as JSON).
 */
import type * as types from '@slack/types';
import { isRecommendedLabel } from '../answer/answer-rules';
import { definedFields } from '../common';
import type { AskUserQuestion } from '../types';
import type { WebhookEvent } from '../question/webhook-event';
import { SLACK_ACTIONS, SLACK_LIMITS, encodeRef, questionBlockId } from './slack-controls';
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
  titleOf,
  truncate,
  type SlackMessageEvent,
} from './slack-message';

type KnownBlock = types.KnownBlock;
type ActionsElement = types.ActionsBlockElement;

/** Most options shown as buttons that answer at once (a single single-select question). */
export const MAX_BUTTONS = 5;
/** Most options of a multi-select question shown as checkboxes; more get a multi-select menu. */
export const MAX_CHECKBOXES = SLACK_LIMITS.checkboxOptions;

/** Plain text, cut to `limit`. */
export function plain(text: string, limit: number): types.PlainTextElement {
  return { type: 'plain_text', text: truncate(text, limit), emoji: true };
}

function button(text: string, actionId: string, value: string, style?: 'primary' | 'danger'): types.Button {
  return definedFields({
    type: 'button' as const,
    text: plain(text, SLACK_LIMITS.buttonText),
    action_id: actionId,
    value,
    style,
  });
}

/** The button that opens the question in the inbox. */
function inboxButton(url: string): types.Button {
  return {
    type: 'button',
    text: plain('Open in the inbox', SLACK_LIMITS.buttonText),
    action_id: SLACK_ACTIONS.open,
    url,
  };
}

/** An option's label as a control shows it: the recommended one starred. */
function labelText(label: string): string {
  return isRecommendedLabel(label) ? `${label} ⭐` : label;
}

/** An option of a menu or of checkboxes: its index as the value, its label cut to fit. */
function option(label: string, index: number, description?: string): types.PlainTextOption {
  return definedFields({
    text: plain(labelText(label), SLACK_LIMITS.optionText),
    value: String(index),
    description: description === undefined ? undefined : plain(description, SLACK_LIMITS.optionDescription),
  });
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

/** The menu of a question with too many options for buttons or checkboxes. */
function menu(
  control: 'select' | 'multi-select',
  options: readonly { label: string }[],
): types.StaticSelect | types.MultiStaticSelect {
  const choices = options.map((choice, optionIndex) => option(choice.label, optionIndex));
  return control === 'select'
    ? {
        type: 'static_select',
        action_id: SLACK_ACTIONS.select,
        placeholder: plain('Choose one', SLACK_LIMITS.optionText),
        options: choices,
      }
    : {
        type: 'multi_static_select',
        action_id: SLACK_ACTIONS.multiSelect,
        placeholder: plain('Choose any', SLACK_LIMITS.optionText),
        options: choices,
      };
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
            labelText(choice.label),
            `${SLACK_ACTIONS.answer}.${optionIndex}`,
            encodeRef({ workflowId, question: index, option: optionIndex }),
            isRecommendedLabel(choice.label) ? 'primary' : undefined,
          ),
        );
      });
      break;
    case 'select':
    case 'multi-select':
      elements.push(menu(control, options));
      break;
    case 'checkboxes':
      elements.push({
        type: 'checkboxes',
        action_id: SLACK_ACTIONS.check,
        options: options.map((choice, optionIndex) => option(choice.label, optionIndex, choice.description)),
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
    finalActions.push(inboxButton(event.link));
  }
  blocks.push({ type: 'actions', block_id: 'ask_user.actions', elements: finalActions });
  return { text: truncate(`${headline(event)}: ${titleOf(record, workflowId)}`, SECTION_TEXT_LIMIT), blocks };
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
    blocks.push({ type: 'actions', elements: [inboxButton(event.link)] });
  }
  return { text: `${headline(event)} (${what})`, blocks };
}
