/**
 * The Slack incoming-webhook form of a notification: a fallback `text` and Block Kit `blocks` holding the
 * questions, their options and, when the worker knows the inbox's address, a button that opens the question
 * there. Chosen per target (see `parseWebhookTarget`). The bot's interactive messages (`slack-blocks.ts`) reuse
 * its sections, and show a resolved question exactly as this form does.
 */
import { isRecommendedLabel } from '../answer/answer-rules';
import { decisionEffect } from '../answer/decision-effect';
import { approvalProgress } from '../answer/two-person-rule';
import type { ApprovalDecision, ApprovalSubject, AskUserQuestion, QuestionRecord } from '../types';
import { POLICY_EXPIRED_ANSWERER } from '../question/question-policy';
import { decisionWords } from '../question/question-text';
import type { WebhookEvent } from '../question/webhook-event';

/** Slack's limits: a section's text, a header's text, a button's URL. */
export const SECTION_TEXT_LIMIT = 3000;
export const HEADER_TEXT_LIMIT = 150;
export const URL_LIMIT = 3000;

/** What a message is rendered from: a notification, or a question as an answering surface just read it. */
export type SlackMessageEvent = Pick<WebhookEvent, 'event' | 'workflowId' | 'record' | 'link'>;

/** The body of one Slack incoming-webhook POST. */
export interface SlackMessage {
  text: string;
  blocks: SlackBlock[];
}

/** The Block Kit blocks this module writes. */
export type SlackBlock =
  | { type: 'header'; text: { type: 'plain_text'; text: string } }
  | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
  | { type: 'context'; elements: { type: 'mrkdwn'; text: string }[] }
  | {
      type: 'actions';
      elements: {
        type: 'button';
        text: { type: 'plain_text'; text: string };
        url: string;
        style?: 'primary';
      }[];
    };

/** `text` cut to `limit` characters, an ellipsis marking the cut. */
export function truncate(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/**
 * Escapes the three characters Slack's mrkdwn treats as markup (`&`, `<`, `>`), so model-written text cannot
 * form links or mentions (`<!channel>`).
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A section of mrkdwn `text`, cut to fit. */
function mrkdwnSection(text: string): SlackBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, SECTION_TEXT_LIMIT) } };
}

/** Who asked, in words. */
export function agentName(record: QuestionRecord): string {
  return record.agent === undefined ? 'an agent' : record.agent.id;
}

/** One question: its header, text and options, and its answer once there is one. */
export function questionSection(question: AskUserQuestion, answerLine: string | undefined): SlackBlock {
  const lines: string[] = [];
  if (question.header !== undefined) lines.push(`*${escapeMrkdwn(question.header)}*`);
  lines.push(escapeMrkdwn(question.question));
  const options = question.options ?? [];
  if (options.length > 0) {
    lines.push(question.multiSelect === true ? '_Choose any:_' : '_Choose one:_');
    for (const option of options) {
      const badge = isRecommendedLabel(option.label) ? ' :star:' : '';
      const description = option.description === undefined ? '' : ` — ${escapeMrkdwn(option.description)}`;
      lines.push(`• ${escapeMrkdwn(option.label)}${badge}${description}`);
    }
  } else {
    lines.push('_Free-form answer_');
  }
  if (answerLine !== undefined) lines.push(`*Answer:* ${answerLine}`);
  return mrkdwnSection(lines.join('\n'));
}

function answerLine(record: QuestionRecord, index: number): string | undefined {
  const item = record.answer?.answers[index];
  if (item === undefined) return undefined;
  if (item.custom !== undefined) return escapeMrkdwn(item.custom);
  return item.selected.length > 0 ? item.selected.map(escapeMrkdwn).join(', ') : '_skipped_';
}

/**
 * `value` as pretty JSON in a mrkdwn code block, escaped, cut to fit a section. A run of three backticks in
 * the value is broken with a zero-width space, so model-written input cannot close the block.
 */
function jsonBlock(value: unknown, limit: number): string {
  const json = escapeMrkdwn(JSON.stringify(value, null, 2) ?? 'null').replace(/```/g, '``\u200b`');
  return `\`\`\`${truncate(json, limit)}\`\`\``;
}

/**
 * An approval's tool call: its name, description and input; who asked for it, and under the two-person rule
 * how many approvals (and rejections, where counted) it has of how many, and whose ("1 of 2 approvals (alice)").
 */
export function approvalSection(record: QuestionRecord): SlackBlock {
  const subject = record.approval!;
  const lines = [`*${escapeMrkdwn(subject.toolName)}* wants to run with this input:`];
  if (subject.description !== undefined) lines.splice(1, 0, escapeMrkdwn(subject.description));
  const facts: string[] = [];
  if (subject.requestedBy !== undefined) facts.push(`*Requested by:* ${escapeMrkdwn(subject.requestedBy)}`);
  const progress = approvalProgress(record);
  if (progress !== undefined) facts.push(`*Decisions:* ${escapeMrkdwn(progress)}`);
  const room = SECTION_TEXT_LIMIT - [...lines, ...facts].join('\n').length - 8;
  lines.push(jsonBlock(subject.input, room), ...facts);
  return mrkdwnSection(lines.join('\n'));
}

/**
 * What the agent receives for `decision` when its hook turns the decision into something else (an edit it cannot
 * run becomes a denial that suggests the edited input), as escaped mrkdwn; `undefined` when the agent acts on the
 * decision as it was taken.
 */
export function changedEffect(
  approval: Pick<ApprovalSubject, 'toolName' | 'onEdit'>,
  decision: Pick<ApprovalDecision, 'type'>,
): string | undefined {
  const effect = decisionEffect(approval, decision);
  return effect.asDecided ? undefined : escapeMrkdwn(effect.text);
}

/**
 * A decision's content: the edited input (a suggested one when the agent cannot run it), the reason of a
 * rejection or the response's text, and what the agent receives when that differs from the decision.
 */
function decisionSections(approval: ApprovalSubject, decision: ApprovalDecision): SlackBlock[] {
  const changed = changedEffect(approval, decision);
  const blocks: SlackBlock[] = [];
  switch (decision.type) {
    case 'approve':
      break;
    case 'edit': {
      const label = changed === undefined ? 'Edited input' : 'Suggested input';
      blocks.push(mrkdwnSection(`*${label}:*\n${jsonBlock(decision.input, SECTION_TEXT_LIMIT - 40)}`));
      break;
    }
    case 'reject':
      if (decision.reason !== undefined) {
        blocks.push(mrkdwnSection(`*Reason:* ${escapeMrkdwn(decision.reason)}`));
      }
      if (decision.stop === true)
        blocks.push(mrkdwnSection("*The agent's run was stopped too*, not only this call."));
      break;
    case 'respond':
      blocks.push(mrkdwnSection(`*Response:* ${escapeMrkdwn(decision.text)}`));
      break;
  }
  if (changed !== undefined) blocks.push(mrkdwnSection(`*What the agent receives:* ${changed}`));
  return blocks;
}

/** What happened to an approval, in a few words. */
function approvalHeadline(event: SlackMessageEvent): string {
  const { record } = event;
  const tool = record.approval!.toolName;
  const from = `approval of ${tool} from ${agentName(record)}`;
  if (event.event === 'approval.pending') return `Approve ${tool}? Asked by ${agentName(record)}`;
  if (event.event === 'question.reminder') return `Reminder: ${from} is waiting`;
  if (event.event === 'question.escalated') return `Escalated: ${from} is waiting`;
  if (event.event === 'approval.progress') {
    return `${approvalProgress(record, false) ?? 'Counted'}: ${tool} from ${agentName(record)} waits for more`;
  }
  const decision = record.decision;
  if (decision === undefined)
    return record.status === 'cancelled' ? `Cancelled: ${from}` : `Updated: ${from}`;
  const words = decisionWords(decision, record.approval);
  if (decision.decidedBy === POLICY_EXPIRED_ANSWERER) return `Expired: ${tool} ${words} by its policy`;
  const capitalised = `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
  return `${capitalised} by ${decision.decidedBy ?? 'an unnamed reviewer'}: ${tool}`;
}

/** What happened, in a few words: the header and the fallback text. */
export function headline(event: SlackMessageEvent): string {
  const { record } = event;
  if (record.approval !== undefined) return approvalHeadline(event);
  if (event.event === 'question.pending') return `Question from ${agentName(record)}`;
  if (event.event === 'question.reminder') return `Reminder: question from ${agentName(record)} is waiting`;
  if (event.event === 'question.escalated') return `Escalated: question from ${agentName(record)} is waiting`;
  switch (record.status) {
    case 'answered':
      if (record.answeredBy === POLICY_EXPIRED_ANSWERER) {
        return 'Expired: answered with the recommended options';
      }
      return `Answered by ${record.answeredBy ?? 'an unnamed answerer'}`;
    case 'declined':
      return `Declined by ${record.declinedBy ?? 'an unnamed answerer'}`;
    case 'expired':
      return 'Expired without an answer';
    case 'cancelled':
      return 'Cancelled';
    default:
      return 'Question updated';
  }
}

/** What the question is about, in a line: the approval's description or tool, else the first question. */
export function titleOf(record: QuestionRecord, workflowId: string): string {
  if (record.approval !== undefined) return record.approval.description ?? record.approval.toolName;
  const first = record.questions[0];
  return first === undefined ? workflowId : (first.header ?? first.question);
}

/** The button to the question's inbox page: the call to act while it waits, a link once it is resolved. */
function inboxBlock(event: SlackMessageEvent, link: string): SlackBlock {
  const waiting = event.event !== 'question.resolved' && event.event !== 'approval.decided';
  const act = event.record.approval === undefined ? 'Answer in the inbox' : 'Decide in the inbox';
  const text = { type: 'plain_text' as const, text: waiting ? act : 'Open in the inbox' };
  const button = waiting
    ? { type: 'button' as const, text, url: link, style: 'primary' as const }
    : { type: 'button' as const, text, url: link };
  return { type: 'actions', elements: [button] };
}

/**
 * Renders a notification for a Slack incoming webhook.
 *
 * @example
 * const message = slackMessage({ ...payload, link: 'https://inbox.example/#/q/ask-user-question%2Fa%2Fb' });
 * await fetch(slackWebhookUrl, { method: 'POST', body: JSON.stringify(message) });
 */
export function slackMessage(event: SlackMessageEvent): SlackMessage {
  const { record } = event;
  const blocks: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: truncate(headline(event), HEADER_TEXT_LIMIT) } },
  ];
  if (record.approval !== undefined) {
    blocks.push(approvalSection(record));
    if (record.decision !== undefined) blocks.push(...decisionSections(record.approval, record.decision));
  }
  // Slack allows 50 blocks a message: 20 questions, at most, plus a header, a context and the button fit.
  record.questions.forEach((question, index) => {
    blocks.push(
      questionSection(question, event.event === 'question.resolved' ? answerLine(record, index) : undefined),
    );
  });
  const context = [`\`${escapeMrkdwn(event.workflowId)}\``, `asked by ${escapeMrkdwn(agentName(record))}`];
  if (
    event.event === 'question.resolved' &&
    record.status === 'declined' &&
    record.declineReason !== undefined
  ) {
    context.push(`reason: ${escapeMrkdwn(record.declineReason)}`);
  }
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: truncate(context.join(' · '), SECTION_TEXT_LIMIT) }],
  });
  if (event.link !== undefined && event.link.length <= URL_LIMIT) blocks.push(inboxBlock(event, event.link));
  const text = `${headline(event)}: ${titleOf(record, event.workflowId)}${event.link === undefined ? '' : ` ${event.link}`}`;
  return { text: truncate(text, SECTION_TEXT_LIMIT), blocks };
}
