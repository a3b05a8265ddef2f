// @ts-check
/**
 * One question or approval: its title and facts, and below them what can be done while it is pending (answer
 * or decide, move the deadline) or how it ended.
 */
/** @import { Approval, QuestionRecord } from './api-types.js' */
import { getQuestion } from './api.js';
import { approvalForm } from './approval-form.js';
import { approvalOutcome, approvalsProgress, progressText } from './approval-outcome.js';
import { answerForm } from './answer-form.js';
import { answerNotices } from './answer-notices.js';
import { deadlineControl } from './deadline-control.js';
import { byId, clear, el, focusHeading, showView, timeElement } from './dom.js';
import { questionOutcome } from './question-outcome.js';
import { dropFromQueue } from './queue.js';
import { assignedBadge, audienceText, decisionBadge, kindBadge, statusBadge } from './question-rows.js';

/**
 * Workflow id of the question on screen, if any: a reply about another one is not shown.
 * @type {string | null}
 */
let shownQuestionId = null;

/** Leaves the question's view: replies still on their way for it are dropped. */
export function closeQuestion() {
  shownQuestionId = null;
}

/** @param {string} workflowId */
export async function openQuestion(workflowId) {
  shownQuestionId = workflowId;
  showView('question');
  byId('question-title').textContent = 'Loading…';
  clear(byId('question-meta'));
  clear(byId('question-body'));
  const result = await getQuestion(workflowId);
  if (shownQuestionId !== workflowId) return;
  if (!result.ok) {
    byId('question-title').textContent = 'Question not available';
    byId('question-body').append(
      el('p', { className: 'error', text: result.error.message || `Error ${result.status}` }),
    );
  } else {
    renderQuestion(result.body);
  }
  focusHeading('question');
}

/**
 * @param {HTMLElement} list
 * @param {string} term
 * @param {Node} value
 */
function metaRow(list, term, value) {
  list.append(el('dt', { text: term }), el('dd', {}, value));
}

/**
 * The facts every question and approval shows: agent, when it was asked, its audience, its deadline, its id.
 * @param {HTMLElement} meta
 * @param {QuestionRecord} record
 */
function commonMetaRows(meta, record) {
  if (record.agent) {
    const agent = record.agent.sessionId
      ? `${record.agent.id} (session ${record.agent.sessionId})`
      : record.agent.id;
    metaRow(meta, 'Agent', document.createTextNode(agent));
  }
  metaRow(meta, 'Asked', timeElement(record.askedAt));
  if (record.audience) {
    const assigned = el('span', { className: 'audience', text: audienceText(record.audience) });
    if (record.assignedToYou) assigned.append(' ', assignedBadge());
    metaRow(meta, 'Assigned to', assigned);
  }
  if (record.expiresAt) {
    // An absolute time: the relative form only reads backwards ("5 min ago").
    const deadline = el('time', {
      text: new Date(record.expiresAt).toLocaleString(),
      attributes: { datetime: record.expiresAt, title: record.expiresAt },
    });
    metaRow(meta, record.status === 'pending' ? 'Expires' : 'Deadline', deadline);
  }
  metaRow(meta, 'Id', el('code', { text: record.workflowId }));
}

/**
 * An approval's own facts: its decision (or status), its kind, its tool, who asked, and its approvals so far.
 * @param {HTMLElement} meta
 * @param {QuestionRecord} record
 * @param {Approval} approval
 */
function approvalMetaRows(meta, record, approval) {
  metaRow(
    meta,
    'Status',
    record.decision && record.status === 'answered'
      ? decisionBadge(record.decision.type, record.effect)
      : statusBadge(record.status),
  );
  metaRow(meta, 'Kind', kindBadge());
  metaRow(meta, 'Tool', el('code', { className: 'tool-name', text: approval.toolName }));
  if (approval.requestedBy) metaRow(meta, 'Requested by', document.createTextNode(approval.requestedBy));
  // Under the two-person rule: how many approvals of how many, and who gave them.
  const progress = approvalsProgress(record);
  if (progress) metaRow(meta, 'Approvals', progress);
}

/** @param {QuestionRecord} record */
function questionTitle(record) {
  const first = record.questions[0];
  return (first && (first.header || first.question)) || record.workflowId;
}

/** @param {QuestionRecord} record */
function renderQuestion(record) {
  const { approval, workflowId } = record;
  byId('question-title').textContent = approval ? `Approve ${approval.toolName}` : questionTitle(record);
  const meta = byId('question-meta');
  clear(meta);
  if (approval) approvalMetaRows(meta, record, approval);
  else metaRow(meta, 'Status', statusBadge(record.status));
  commonMetaRows(meta, record);
  const body = byId('question-body');
  clear(body);
  // No worker, answers waiting for one, answers refused (a late one names the winner); after an outcome too.
  const notices = answerNotices(record);
  if (record.status !== 'pending') {
    body.append(approval ? approvalOutcome(record, approval) : questionOutcome(record));
    if (notices) body.append(notices);
    return;
  }
  /**
   * @param {string} done
   * @param {string} [pendingNote]
   */
  const resolved = (done, pendingNote) => showResolved(workflowId, done, pendingNote);
  /** @param {string} done */
  const changed = (done) => showChanged(workflowId, done);
  if (notices) body.append(notices);
  body.append(
    approval ? approvalForm(record, approval, resolved) : answerForm(record, resolved, changed),
    deadlineControl(record, changed),
  );
}

/**
 * After a change made here: the question as it now stands, under the confirmation `done`.
 * @param {string} workflowId
 * @param {string} done
 */
async function showChanged(workflowId, done) {
  const refreshed = await getQuestion(workflowId);
  if (refreshed.ok && shownQuestionId === workflowId) {
    renderQuestion(refreshed.body);
    byId('question-body').prepend(
      el('p', { className: 'form-message success', attributes: { role: 'status' }, text: done }),
    );
  }
}

/**
 * After a question was answered or an approval decided here: out of the queue, its outcome shown; an approval
 * still short of its required approvals stays, and says how many it has, then `pendingNote` if given.
 * @param {string} workflowId
 * @param {string} done
 * @param {string} [pendingNote]
 */
async function showResolved(workflowId, done, pendingNote) {
  const refreshed = await getQuestion(workflowId);
  const record = refreshed.ok ? refreshed.body : undefined;
  if (record?.status === 'pending' && record.approval && progressText(record) !== '') {
    // A decision counted toward the two-person rule decides nothing yet: it stays in the queue for the others.
    const counted = `Recorded your decision: ${progressText(record)}.`;
    await showChanged(workflowId, pendingNote === undefined ? counted : `${counted} ${pendingNote}`);
    return;
  }
  dropFromQueue(workflowId);
  await showChanged(workflowId, done);
}
