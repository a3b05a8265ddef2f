// @ts-check
/**
 * What a pending question tells its answerers beyond the form: that no worker runs it (answers are kept and wait
 * for one), the answers waiting for a worker to validate them, and the answers it refused (a late one names the
 * answer that won), so a refusal found after the answerer left reaches them here.
 */
/** @import { QuestionRecord } from './api-types.js' */
import { el, timeElement } from './dom.js';

/**
 * @param {{ receivedAt: string, answeredBy?: string, answerId?: string }} answer
 * @param {string} [reason]
 */
function answerItem(answer, reason) {
  const who = answer.answeredBy ?? 'an unnamed answerer';
  const item = el('li', {}, timeElement(answer.receivedAt), document.createTextNode(` ${who}`));
  if (answer.answerId) item.append(' ', el('code', { text: answer.answerId }));
  if (reason) item.append(document.createTextNode(`: ${reason}`));
  return item;
}

/**
 * The notices of `record`, or `null` when it has none.
 * @param {QuestionRecord} record
 * @returns {HTMLElement | null}
 */
export function answerNotices(record) {
  const parts = [];
  if (record.noWorker) {
    parts.push(
      el('p', {
        className: 'notice no-worker',
        attributes: { role: 'status' },
        text: `No worker is running this question (task queue ${record.noWorker.taskQueue}). Answers are still recorded, and wait for a worker to validate them.`,
      }),
    );
  }
  const waiting = record.unvalidatedAnswers ?? [];
  if (waiting.length > 0) {
    parts.push(
      el('p', { text: 'Waiting for a worker to validate them:' }),
      el('ul', { className: 'waiting-answers' }, ...waiting.map((answer) => answerItem(answer))),
    );
  }
  const refused = record.rejectedAnswers ?? [];
  if (refused.length > 0) {
    parts.push(
      el('p', { text: 'Refused answers:' }),
      el(
        'ul',
        { className: 'refused-answers' },
        ...refused.map((answer) => answerItem(answer, answer.reason)),
      ),
    );
  }
  return parts.length === 0 ? null : el('section', { className: 'card answer-notices' }, ...parts);
}
