// @ts-check
/** A decided approval: the decision with who and when, a response's text, and the input (a diff for an edit). */
/** @import { Approval, Decision, QuestionRecord } from './api-types.js' */
import { el } from './dom.js';
import { diffView, jsonBlock } from './json-view.js';
import { STATUS_TEXT, approvalDescription } from './question-rows.js';

/** Who decides an approval at its deadline (`decidedBy`). */
const POLICY_EXPIRED = 'policy:expired';

/**
 * Who took a decision, as a sentence reads it.
 * @param {Decision} decision
 */
function deciderName(decision) {
  if (decision.decidedBy === POLICY_EXPIRED) return 'its policy';
  return decision.decidedBy || 'an unnamed reviewer';
}

/** @param {QuestionRecord} record */
function decisionSentence(record) {
  const decision = record.decision;
  const when = record.resolvedAt ? ` at ${record.resolvedAt}` : '';
  if (!decision) return `${STATUS_TEXT[record.status] ?? record.status}${when}.`;
  const by = `by ${deciderName(decision)} at ${decision.decidedAt}`;
  const prefix = record.status === 'expired' ? `Expired${when}: ` : '';
  // A decision its hook turned into something else is told as what the agent received.
  if (record.effect && !record.effect.asDecided) {
    return `${prefix}Recorded the ${decision.type} ${by}. ${record.effect.text}`;
  }
  switch (decision.type) {
    case 'approve':
      return `${prefix}Approved ${by}.`;
    case 'edit':
      return `${prefix}Approved with an edited input ${by}.`;
    case 'reject':
      return `${prefix}Denied ${by}${decision.reason ? `: ${decision.reason}` : '.'}`;
    case 'respond':
      return `${prefix}Answered with a response ${by}.`;
    default:
      // A decision type this page does not know yet, from a newer server.
      return `${prefix}Decided (${/** @type {{ type: string }} */ (decision).type}) ${by}.`;
  }
}

/**
 * One count of the two-person rule: "1 of 2 approvals" and a line per decision counted.
 * @param {string} kind `approvals` or `rejections`: the class names and the noun
 * @param {number} required
 * @param {string[]} lines who decided, when, and how
 */
function countBox(kind, required, lines) {
  const box = el('div', { className: `${kind}-progress` });
  box.append(
    el('span', {
      className: `${kind}-count`,
      text: `${lines.length} of ${required} ${kind}`,
      attributes: { 'data-given': String(lines.length), 'data-required': String(required) },
    }),
  );
  if (lines.length > 0) {
    const list = el('ul', { className: `${kind}-given` });
    for (const line of lines) list.append(el('li', { text: line }));
    box.append(list);
  }
  return box;
}

/**
 * Under a policy's `requiredApprovals` (and `requiredRejections`, where set above one): "1 of 2 approvals", and
 * who gave each, when, and whether with an edited input; `undefined` for a call one decision decides.
 * @param {QuestionRecord} record
 * @returns {HTMLElement | undefined}
 */
export function approvalsProgress(record) {
  const approvals = record.requiredApprovals ?? 1;
  const rejections = record.requiredRejections ?? 1;
  if (approvals <= 1 && rejections <= 1) return undefined;
  const box = el('div', { className: 'decisions-progress' });
  if (approvals > 1) {
    const lines = (record.approvals ?? []).map(
      (given) =>
        `${given.decidedBy}${given.type === 'edit' ? ' with an edited input' : ''}, ${given.decidedAt}`,
    );
    box.append(countBox('approvals', approvals, lines));
  }
  if (rejections > 1) {
    const lines = (record.rejections ?? []).map((given) => {
      const why = given.reason ?? given.text;
      return `${given.decidedBy}, ${given.decidedAt}${why ? `: ${why}` : ''}`;
    });
    box.append(countBox('rejections', rejections, lines));
  }
  return box;
}

/**
 * "1 of 2 approvals; 1 of 2 rejections": what a decision counted short of the rule leaves, in words.
 * @param {QuestionRecord} record
 */
export function progressText(record) {
  const parts = [];
  if ((record.requiredApprovals ?? 1) > 1) {
    parts.push(`${record.approvals?.length ?? 0} of ${record.requiredApprovals} approvals`);
  }
  if ((record.requiredRejections ?? 1) > 1) {
    parts.push(`${record.rejections?.length ?? 0} of ${record.requiredRejections} rejections`);
  }
  return parts.join('; ');
}

/**
 * @param {QuestionRecord} record
 * @param {Approval} approval
 */
export function approvalOutcome(record, approval) {
  const decision = record.decision;
  const section = el('div', { className: 'card outcome-view approval-outcome' });
  section.append(el('p', { className: 'notice', text: decisionSentence(record) }));
  const progress = approvalsProgress(record);
  if (progress) section.append(el('h2', { className: 'subhead', text: 'Approvals' }), progress);
  if (decision?.type === 'respond') {
    section.append(
      el('h2', { className: 'subhead', text: 'Response' }),
      el('p', { className: 'response-text', text: decision.text }),
    );
  }
  const description = approvalDescription(approval);
  if (description) section.append(description);
  if (decision?.type === 'edit') {
    const edited = record.effect?.asDecided === false ? 'suggested' : 'edited';
    section.append(
      el('h2', { className: 'subhead', text: `Input: original (-) and ${edited} (+)` }),
      diffView(approval.input, decision.input),
    );
  } else {
    section.append(
      el('h2', { className: 'subhead', text: 'Input' }),
      jsonBlock(approval.input, 'approval-input'),
    );
  }
  return section;
}
