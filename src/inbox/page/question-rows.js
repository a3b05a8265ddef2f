// @ts-check
/**
 * How a question or an approval is named in a list and in its view: its row, its badges, its audience, an
 * approval's description.
 */
/** @import { Approval, Audience, DecisionEffect, DecisionType, QuestionRow, QuestionStatus } from './api-types.js' */
import { el, timeElement } from './dom.js';

/** @type {Record<QuestionStatus, string>} */
export const STATUS_TEXT = {
  answered: 'Answered',
  declined: 'Declined',
  expired: 'Expired',
  cancelled: 'Cancelled',
  pending: 'Pending',
};

/**
 * What an approval's decision is called on the page, and the colour of its badge.
 * @type {Record<DecisionType, [string, string]>}
 */
const DECISION_TEXT = {
  approve: ['Approved', 'answered'],
  edit: ['Approved with edits', 'answered'],
  reject: ['Denied', 'declined'],
  respond: ['Responded', 'responded'],
};

/**
 * An edit that reached the agent as a denial suggesting it.
 * @type {[string, string]}
 */
const SUGGESTED_EDIT = ['Denied with a suggested input', 'declined'];

/** @param {QuestionStatus} status */
export function statusBadge(status) {
  return el('span', { className: `status status-${status}`, text: STATUS_TEXT[status] ?? status });
}

/**
 * An approval's decision as a badge; one its hook turned into something else (`effect.asDecided` false: an edit
 * the agent received as a denial) reads as what it became.
 * @param {DecisionType} type
 * @param {DecisionEffect} [effect]
 */
export function decisionBadge(type, effect) {
  const [text, look] =
    effect && !effect.asDecided ? SUGGESTED_EDIT : (DECISION_TEXT[type] ?? [type, 'pending']);
  const badge = el('span', { className: `status status-${look}`, text });
  badge.dataset.decision = type;
  return badge;
}

export function assignedBadge() {
  return el('span', { className: 'assigned-badge', text: 'Assigned to you' });
}

export function kindBadge() {
  return el('span', { className: 'kind-badge', text: 'Approval' });
}

/**
 * A question's audience in words: `alice, bob · group ops`.
 * @param {Audience} audience
 */
export function audienceText(audience) {
  const parts = [];
  if (audience.users && audience.users.length > 0) parts.push(audience.users.join(', '));
  if (audience.groups && audience.groups.length > 0) {
    parts.push(`${audience.groups.length === 1 ? 'group' : 'groups'} ${audience.groups.join(', ')}`);
  }
  return parts.join(' · ');
}

/** @param {string} workflowId */
function questionHref(workflowId) {
  return `#/q/${encodeURIComponent(workflowId)}`;
}

/**
 * A list's row: a link to the question with its title and facts, and `extra` (the history's outcome).
 * @param {QuestionRow} question
 * @param {HTMLElement} [extra]
 */
export function summaryRow(question, extra) {
  const title = el('span', { className: 'title', text: question.title });
  const meta = el('span', { className: 'row-meta' });
  if (question.assignedToYou) meta.append(assignedBadge(), ' ');
  if (question.kind === 'approval') {
    meta.append(kindBadge(), ' ');
    if (question.toolName)
      meta.append(el('code', { className: 'tool-name', text: question.toolName }), ' · ');
  }
  if (question.agentId) meta.append(el('span', { className: 'agent', text: question.agentId }), ' · ');
  meta.append(timeElement(question.askedAt));
  if (question.questionCount > 1) meta.append(` · ${question.questionCount} questions`);
  const link = el(
    'a',
    { className: 'row', attributes: { href: questionHref(question.workflowId) } },
    title,
    meta,
  );
  if (extra) link.append(extra);
  const item = el('li', {}, link);
  item.dataset.workflowId = question.workflowId;
  return item;
}

/**
 * What the reviewer reads about an approval's call: its description, when it has one.
 * @param {Approval} approval
 */
export function approvalDescription(approval) {
  return approval.description
    ? el('p', { className: 'approval-description', text: approval.description })
    : null;
}
