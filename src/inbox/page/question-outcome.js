// @ts-check
/** A resolved question: who answered or declined it and when, the answers, and the questions asked. */
/** @import { Question, QuestionRecord } from './api-types.js' */
import { el } from './dom.js';
import { STATUS_TEXT } from './question-rows.js';

/**
 * Each question's header (or text) and its answer: the free text, the choices, or "(skipped)".
 * @param {QuestionRecord} record
 */
function answerList(record) {
  const list = el('dl', { className: 'answers' });
  record.questions.forEach((question, index) => {
    const item = record.answer?.answers[index];
    let value = '(skipped)';
    if (item && item.custom !== undefined) value = item.custom;
    else if (item && item.selected.length > 0) value = item.selected.join(', ');
    list.append(el('dt', { text: question.header || question.question }), el('dd', { text: value }));
  });
  return list;
}

/** @param {Question} question */
function questionSummary(question) {
  const block = el('div', { className: 'question-summary' });
  if (question.header) block.append(el('p', { className: 'header', text: question.header }));
  block.append(el('p', { className: 'question-text', text: question.question }));
  return block;
}

/** @param {QuestionRecord} record */
export function questionOutcome(record) {
  const section = el('div', { className: 'card outcome-view' });
  const when = record.resolvedAt ? ` at ${record.resolvedAt}` : '';
  if (record.status === 'answered') {
    const by = record.answeredBy || 'an unnamed answerer';
    section.append(el('p', { className: 'notice', text: `Answered by ${by}${when}.` }), answerList(record));
  } else if (record.status === 'declined') {
    const by = record.declinedBy || 'an unnamed answerer';
    const reason = record.declineReason ? `: ${record.declineReason}` : '.';
    section.append(el('p', { className: 'notice', text: `Declined by ${by}${when}${reason}` }));
  } else {
    section.append(
      el('p', { className: 'notice', text: `${STATUS_TEXT[record.status] ?? record.status}${when}.` }),
    );
  }
  for (const question of record.questions) section.append(questionSummary(question));
  return section;
}
