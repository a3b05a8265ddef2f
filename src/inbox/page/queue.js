// @ts-check
/**
 * The queue of pending questions, newest first, kept live by the event stream; and the counts of pending and
 * resolved questions that the navigation and the page's title show.
 */
/** @import { QuestionCounts, QuestionRow } from './api-types.js' */
import { listQuestions } from './api.js';
import { renderBatchBar, withCheckbox } from './batch.js';
import { byId, clear, showPageError } from './dom.js';
import { summaryRow } from './question-rows.js';

const QUEUE_PAGE_SIZE = 50;

/** @type {QuestionRow[]} */
let pending = [];
/** @type {string | undefined} */
let nextPageToken;
/** Whether the queue shows only the questions assigned to the logged-in user. */
let assignedOnly = false;
/**
 * Unknown until the first page arrives.
 * @type {{ pending: number | undefined, resolved: number | undefined }}
 */
let counts = { pending: undefined, resolved: undefined };

/** @param {QuestionCounts} pageCounts as a page of the list reports them */
export function setCounts(pageCounts) {
  counts = { pending: pageCounts.pending, resolved: pageCounts.resolved };
  renderCounts();
}

function renderCounts() {
  byId('count-pending').textContent = counts.pending === undefined ? '' : String(counts.pending);
  byId('count-resolved').textContent = counts.resolved === undefined ? '' : String(counts.resolved);
  document.title = counts.pending ? `(${counts.pending}) ask-user inbox` : 'ask-user inbox';
}

export function renderQueue() {
  renderCounts();
  const list = byId('queue');
  clear(list);
  for (const question of pending) list.append(withCheckbox(summaryRow(question), question));
  renderBatchBar(pending);
  byId('queue-empty').hidden = pending.length > 0;
  byId('queue-more').hidden = !nextPageToken;
}

/**
 * Loads the queue's first page, or with `more` the next one after those shown.
 * @param {boolean} [more]
 */
export async function loadQueue(more = false) {
  const result = await listQuestions({
    status: 'pending',
    assignedToMe: assignedOnly,
    pageSize: QUEUE_PAGE_SIZE,
    pageToken: more ? nextPageToken : undefined,
  });
  if (!result.ok) {
    showPageError(result.error.message || 'The queue could not be loaded.');
    return;
  }
  const { questions } = result.body;
  const known = new Set(more ? pending.map((each) => each.workflowId) : []);
  pending = more ? pending.concat(questions.filter((each) => !known.has(each.workflowId))) : questions;
  nextPageToken = result.body.nextPageToken;
  setCounts(result.body.counts);
  renderQueue();
}

/** @param {boolean} only whether to show only the questions assigned to the logged-in user */
export async function showAssignedOnly(only) {
  assignedOnly = only;
  await loadQueue();
}

/**
 * A question the event stream announced: shown unless it is there already or the filter hides it.
 * @param {QuestionRow} question
 */
export function questionAppeared(question) {
  if (assignedOnly && !question.assignedToYou) return;
  if (pending.some((each) => each.workflowId === question.workflowId)) return;
  pending.unshift(question);
  pending.sort((a, b) => Date.parse(b.askedAt) - Date.parse(a.askedAt));
  if (counts.pending !== undefined) counts.pending += 1;
  renderQueue();
}

/**
 * A question the event stream says was resolved, here or elsewhere.
 * @param {QuestionRow} question
 */
export function questionResolved(question) {
  const before = pending.length;
  pending = pending.filter((each) => each.workflowId !== question.workflowId);
  if (pending.length !== before && counts.pending !== undefined) {
    counts.pending -= 1;
    if (counts.resolved !== undefined) counts.resolved += 1;
  }
  renderQueue();
}

/**
 * A question answered or decided on this page: out of the queue at once, before its event arrives.
 * @param {string} workflowId
 */
export function dropFromQueue(workflowId) {
  pending = pending.filter((each) => each.workflowId !== workflowId);
  renderCounts();
}

/**
 * Questions a batch on this page recorded: out of the queue at once, and the counts moved, before their events.
 * @param {string[]} workflowIds
 */
export function dropRecorded(workflowIds) {
  const gone = new Set(workflowIds);
  const before = pending.length;
  pending = pending.filter((each) => !gone.has(each.workflowId));
  const dropped = before - pending.length;
  if (counts.pending !== undefined) counts.pending -= dropped;
  if (counts.resolved !== undefined) counts.resolved += dropped;
  renderQueue();
}
