// @ts-check
/** The history: answered, declined, expired and cancelled questions, most recent first, a page at a time. */
/** @import { QuestionRow } from './api-types.js' */
import { listQuestions } from './api.js';
import { byId, clear, el, showPageError, timeElement } from './dom.js';
import { setCounts } from './queue.js';
import { decisionBadge, statusBadge, summaryRow } from './question-rows.js';

const HISTORY_PAGE_SIZE = 25;

/** @type {string | undefined} */
let nextPageToken;

/**
 * Who resolved the question, when, and how: an approval's decision, or the question's status.
 * @param {QuestionRow} question
 */
function resolution(question) {
  const badge =
    question.kind === 'approval' && question.decision && question.status === 'answered'
      ? decisionBadge(question.decision, question.effect)
      : statusBadge(question.status);
  const outcome = el('span', { className: 'outcome' }, badge);
  if (question.resolvedBy) outcome.append(` by ${question.resolvedBy}`);
  if (question.resolvedAt) outcome.append(' · ', timeElement(question.resolvedAt));
  return outcome;
}

/**
 * Loads the history's first page (`fresh`), or the next, older one below those shown.
 * @param {boolean} fresh
 */
export async function loadHistory(fresh) {
  const result = await listQuestions({
    status: 'resolved',
    pageSize: HISTORY_PAGE_SIZE,
    pageToken: fresh ? undefined : nextPageToken,
  });
  if (!result.ok) {
    showPageError(result.error.message || 'The history could not be loaded.');
    return;
  }
  const list = byId('history');
  if (fresh) clear(list);
  for (const question of result.body.questions) list.append(summaryRow(question, resolution(question)));
  nextPageToken = result.body.nextPageToken;
  setCounts(result.body.counts);
  byId('history-empty').hidden = list.children.length > 0;
  byId('history-more').hidden = !nextPageToken;
}
