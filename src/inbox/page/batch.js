// @ts-check
/**
 * Batches in the queue: a checkbox on each pending row, a selector that checks every row of one tool, one
 * agent or the same questions, and Approve, Deny or Answer for all of them in one request (`POST /api/batch`).
 * The server records each at most once and says, per item, recorded or refused and why; the page lists the
 * refused ones with the reason (who decided first, when someone else did meanwhile).
 *
 * The selection is what the person chose: a row that leaves the queue meanwhile (decided elsewhere) stays
 * selected, and the bar says so, so that the batch reports it instead of silently leaving it out.
 */
/** @import { AnswerItem, BatchItemResult, BatchRequest, QuestionRow } from './api-types.js' */
import { decideBatch, getQuestion } from './api.js';
import { questionFieldset } from './answer-form.js';
import { button, byId, clear, el, inputById, showMessage } from './dom.js';

/** @type {Set<string>} */
const selected = new Set();
/** @type {QuestionRow[]} */
let shown = [];
/** @type {(workflowIds: string[]) => void} */
let onRecorded = () => {};

/**
 * What one filter of the selector selects: its label and its test of a row.
 * @typedef {{ label: string, matches: (row: QuestionRow) => boolean }} RowFilter
 */

/** @param {QuestionRow} row */
const sameKey = (row) => `${row.questionCount}\u0000${row.title}`;

/**
 * The selector's filters over the rows shown: every approval, every question, each tool, each agent, and each
 * set of questions that reads the same (the server checks each answer against its own question).
 * @param {QuestionRow[]} rows
 * @returns {RowFilter[]}
 */
function filtersOf(rows) {
  /** @type {RowFilter[]} */
  const filters = [
    { label: 'All shown', matches: () => true },
    { label: 'Approvals', matches: (row) => row.kind === 'approval' },
    { label: 'Questions', matches: (row) => row.kind !== 'approval' },
  ];
  const tools = new Set(rows.flatMap((row) => (row.toolName ? [row.toolName] : [])));
  for (const tool of [...tools].sort()) {
    filters.push({ label: `Tool: ${tool}`, matches: (row) => row.toolName === tool });
  }
  const agents = new Set(rows.flatMap((row) => (row.agentId ? [row.agentId] : [])));
  for (const agent of [...agents].sort()) {
    filters.push({ label: `Agent: ${agent}`, matches: (row) => row.agentId === agent });
  }
  /** @type {Map<string, QuestionRow>} */
  const same = new Map();
  for (const row of rows) if (row.kind !== 'approval' && !same.has(sameKey(row))) same.set(sameKey(row), row);
  for (const [key, row] of same) {
    filters.push({
      label: `Same questions: ${row.title}`,
      matches: (each) => each.kind !== 'approval' && sameKey(each) === key,
    });
  }
  return filters;
}

/** The bar's count: how many are selected, and how many of those have left the queue meanwhile. */
function renderCount() {
  const visible = new Set(shown.map((row) => row.workflowId));
  const gone = [...selected].filter((id) => !visible.has(id)).length;
  const text =
    gone === 0 ? `${selected.size} selected` : `${selected.size} selected (${gone} no longer in the queue)`;
  byId('batch-count').textContent = selected.size === 0 ? '' : text;
  for (const id of ['batch-approve', 'batch-deny', 'batch-answer']) {
    /** @type {HTMLButtonElement} */ (byId(id)).disabled = selected.size === 0;
  }
}

/**
 * The queue's rows as they are now: the selector's filters follow them.
 * @param {QuestionRow[]} rows
 */
export function renderBatchBar(rows) {
  shown = rows;
  // Shown while there are rows, a selection, or the report of the last batch to read.
  const report = byId('batch-message').textContent !== '';
  byId('batch-bar').hidden = rows.length === 0 && selected.size === 0 && !report;
  const select = /** @type {HTMLSelectElement} */ (byId('batch-filter'));
  const previous = select.value;
  clear(select);
  for (const filter of filtersOf(rows))
    select.append(el('option', { text: filter.label, attributes: { value: filter.label } }));
  if ([...select.options].some((option) => option.value === previous)) select.value = previous;
  renderCount();
}

/**
 * A row's checkbox, before its link.
 * @param {HTMLElement} item the row's `li`
 * @param {QuestionRow} row
 */
export function withCheckbox(item, row) {
  const box = el('input', {
    className: 'batch-check',
    attributes: { type: 'checkbox', 'aria-label': `Select ${row.title}` },
  });
  box.checked = selected.has(row.workflowId);
  box.addEventListener('change', () => {
    if (box.checked) selected.add(row.workflowId);
    else selected.delete(row.workflowId);
    renderCount();
  });
  item.classList.add('selectable');
  item.prepend(box);
  return item;
}

/** Checks every shown row the chosen filter matches. */
function selectMatching() {
  const label = /** @type {HTMLSelectElement} */ (byId('batch-filter')).value;
  const filter = filtersOf(shown).find((each) => each.label === label);
  if (filter === undefined) return;
  for (const row of shown) if (filter.matches(row)) selected.add(row.workflowId);
  for (const box of document.querySelectorAll('#queue input.batch-check')) {
    const id = /** @type {HTMLElement} */ (box.closest('li')).dataset.workflowId ?? '';
    /** @type {HTMLInputElement} */ (box).checked = selected.has(id);
  }
  renderCount();
}

function clearSelection() {
  selected.clear();
  for (const box of document.querySelectorAll('#queue input.batch-check'))
    /** @type {HTMLInputElement} */ (box).checked = false;
  renderCount();
}

/**
 * A refused item in words: why, and who won when someone decided first.
 * @param {Extract<BatchItemResult, { recorded: false }>} item
 */
function refusalLine(item) {
  const row = shown.find((each) => each.workflowId === item.workflowId);
  const name = row?.title ?? item.workflowId;
  const why = item.resolvedBy ? `already decided by ${item.resolvedBy}` : item.message;
  const line = el('li', {}, el('span', { className: 'title', text: name }), ` — ${why}`);
  line.dataset.workflowId = item.workflowId;
  line.dataset.refusal = item.refusal;
  if (item.resolvedBy) line.dataset.resolvedBy = item.resolvedBy;
  return line;
}

/**
 * Sends the batch over the selection, then reports: the counts, and each refused one with why.
 * @param {(ids: string[]) => BatchRequest} requestOf
 */
async function send(requestOf) {
  const ids = [...selected];
  const message = byId('batch-message');
  const list = byId('batch-refused');
  clear(list);
  showMessage(message, '', `Sending ${ids.length}…`);
  const result = await decideBatch(requestOf(ids));
  if (!result.ok) {
    showMessage(message, 'error', result.error.message || `The server answered ${result.status}.`);
    return;
  }
  const { recorded, refused, results } = result.body;
  // Counted toward the two-person rule: recorded, but the calls wait for others, so they stay in the queue.
  const counted = results.filter(
    (item) => item.recorded && (item.approvals ?? item.rejections) !== undefined,
  );
  const waiting = counted.length === 0 ? '' : ` ${counted.length} of them wait for more people to decide.`;
  showMessage(message, refused === 0 ? 'success' : '', `${recorded} recorded, ${refused} refused.${waiting}`);
  for (const item of results) if (!item.recorded) list.append(refusalLine(item));
  byId('batch-answer-form').hidden = true;
  clearSelection();
  const decided = results.filter((item) => item.recorded && !counted.includes(item));
  onRecorded(decided.map((item) => item.workflowId));
}

/** Shows the answer form of the first selected question: its answer goes to every selected one. */
async function openAnswerForm() {
  const form = byId('batch-answer-form');
  const [first] = selected;
  if (first === undefined) return;
  const record = await getQuestion(first);
  if (!record.ok) {
    showMessage(byId('batch-message'), 'error', record.error.message || 'The question could not be read.');
    return;
  }
  clear(form);
  const readers = record.body.questions.map((question, index) => {
    const { fieldset, read } = questionFieldset(question, index, 'batch-q');
    form.append(fieldset);
    return read;
  });
  const submit = button('primary', `Answer ${selected.size} selected`, { id: 'batch-answer-submit' });
  submit.addEventListener('click', () => {
    /** @type {AnswerItem[]} */
    const answers = readers.map((read) => read());
    void send((ids) => ({ action: 'answer', select: { ids }, answers }));
  });
  form.append(
    el('p', { className: 'hint', text: 'Each selected question is checked against its own options.' }),
    submit,
  );
  form.hidden = false;
}

/**
 * Wires the bar's controls; `recorded` is told which questions were recorded (out of the queue at once).
 * @param {(workflowIds: string[]) => void} recorded
 */
export function wireBatch(recorded) {
  onRecorded = recorded;
  byId('batch-select').addEventListener('click', selectMatching);
  byId('batch-clear').addEventListener('click', clearSelection);
  byId('batch-approve').addEventListener(
    'click',
    () => void send((ids) => ({ action: 'approve', select: { ids } })),
  );
  byId('batch-deny').addEventListener('click', () => {
    const reason = inputById('batch-reason').value.trim();
    void send((ids) => ({ action: 'deny', select: { ids }, ...(reason === '' ? {} : { reason }) }));
  });
  byId('batch-answer').addEventListener('click', () => void openAnswerForm());
}
