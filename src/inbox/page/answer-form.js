// @ts-check
/**
 * A pending question's form: per question, its options (radio buttons for one choice, checkboxes for any) and
 * an "Other" text that replaces them, or Skip; then Submit, or Decline with a reason.
 */
/** @import { AnswerItem, Question, QuestionOption, QuestionRecord } from './api-types.js' */
/** @import { ApiResult } from './api.js' */
import { answerQuestion, declineQuestion } from './api.js';
import { button, el, foldedControl, showMessage } from './dom.js';
import { signedInName } from './session.js';

/** The end of an option's label that marks the agent's recommendation. */
const RECOMMENDED_SUFFIX = ' (Recommended)';

/**
 * An option's label without the suffix (a badge says it), and its description.
 * @param {QuestionOption} option
 */
function optionLabel(option) {
  const recommended = option.label.endsWith(RECOMMENDED_SUFFIX);
  const shown = recommended ? option.label.slice(0, -RECOMMENDED_SUFFIX.length) : option.label;
  const title = el(
    'span',
    { className: 'option-title' },
    el('span', { className: 'option-label', text: shown }),
  );
  if (recommended) title.append(' ', el('span', { className: 'badge', text: 'Recommended' }));
  const description = option.description
    ? el('span', { className: 'option-description', text: option.description })
    : null;
  return [title, description];
}

/**
 * The options of the question at `index`, as radio buttons or checkboxes.
 * @param {Question} question
 * @param {number} index
 * @param {QuestionOption[]} options
 * @param {string} prefix
 */
function choices(question, index, options, prefix) {
  const multi = question.multiSelect === true;
  const group = el('div', { className: 'options' });
  const inputs = options.map((option, optionIndex) => {
    const input = el('input', {
      attributes: {
        type: multi ? 'checkbox' : 'radio',
        name: `${prefix}${index}`,
        id: `${prefix}${index}-o${optionIndex}`,
      },
    });
    input.value = option.label;
    const label = el('label', { className: 'option', attributes: { for: input.id } }, ...optionLabel(option));
    group.append(el('div', { className: 'option-row' }, input, label));
    return input;
  });
  const hint = el('p', { className: 'hint', text: multi ? 'Choose any.' : 'Choose one.' });
  return { hint, group, inputs };
}

/**
 * Keeps the choices and the free text apart, and says when the question will be skipped: a free-form answer
 * overrides choices, so typing one clears them, and choosing clears it.
 * @param {HTMLInputElement[]} inputs
 * @param {HTMLInputElement} other
 * @param {HTMLButtonElement} skip
 * @param {HTMLElement} note
 */
function wireAnswer(inputs, other, skip, note) {
  const isEmpty = () => other.value.trim() === '' && !inputs.some((input) => input.checked);
  const updateNote = () => {
    note.textContent = isEmpty() ? 'No answer given: this question will be skipped.' : '';
  };
  other.addEventListener('input', () => {
    if (other.value.trim() !== '') for (const input of inputs) input.checked = false;
    updateNote();
  });
  for (const input of inputs) {
    input.addEventListener('change', () => {
      if (input.checked) other.value = '';
      updateNote();
    });
  }
  skip.addEventListener('click', () => {
    for (const input of inputs) input.checked = false;
    other.value = '';
    updateNote();
  });
  updateNote();
}

/**
 * One question's fieldset, with a function that reads its answer item. `prefix` keeps the ids of its fields apart
 * from another form's on the same page (the batch's answer form).
 * @param {Question} question
 * @param {number} index
 * @param {string} [prefix]
 * @returns {{ fieldset: HTMLFieldSetElement, read: () => AnswerItem }}
 */
export function questionFieldset(question, index, prefix = 'q') {
  const fieldset = el('fieldset', { className: 'question' });
  fieldset.dataset.questionId = question.id;
  const legend = el('legend');
  if (question.header) legend.append(el('span', { className: 'header', text: question.header }));
  legend.append(el('span', { className: 'question-text', text: question.question }));
  fieldset.append(legend);

  const options = question.options ?? [];
  /** @type {HTMLInputElement[]} */
  let inputs = [];
  if (options.length > 0) {
    const choice = choices(question, index, options, prefix);
    fieldset.append(choice.hint, choice.group);
    inputs = choice.inputs;
  }
  const otherId = `${prefix}${index}-other`;
  const other = el('input', {
    className: 'other',
    attributes: { type: 'text', id: otherId, maxlength: '10000', autocomplete: 'off' },
  });
  const otherLabel = el('label', {
    attributes: { for: otherId },
    text: options.length > 0 ? 'Other' : 'Your answer',
  });
  const note = el('p', { className: 'skip-note', attributes: { 'aria-live': 'polite' } });
  const skip = button('secondary skip', 'Skip');
  fieldset.append(
    el('div', { className: 'other-row' }, otherLabel, other),
    el('div', { className: 'question-actions' }, skip, note),
  );
  wireAnswer(inputs, other, skip, note);

  const read = () => {
    if (other.value.trim() !== '') return { id: question.id, selected: [], custom: other.value };
    return { id: question.id, selected: inputs.filter((input) => input.checked).map((input) => input.value) };
  };
  return { fieldset, read };
}

/** The folded Decline control: a reason the agent reads, and its button. */
function declineControl() {
  const reason = el('input', { attributes: { type: 'text', id: 'decline-reason', maxlength: '1000' } });
  const action = button('danger', 'Decline question');
  const control = foldedControl(
    { className: 'decline', summary: 'Decline…', label: 'Reason (the agent sees it)' },
    reason,
    action,
  );
  return { control, reason, button: action };
}

/** What the page says of an answer no worker took (202): kept, and waiting for a worker to validate it. */
const AWAITING_WORKER =
  'Your answer is recorded, but no worker is running this question: it waits for a worker to validate it, and this page will show whether it was taken.';

/**
 * @param {QuestionRecord} record
 * @param {(done: string) => Promise<void>} resolved shows the question once it is answered or declined
 * @param {(done: string) => Promise<void>} waiting shows the question, still pending, with an answer kept for a worker
 */
export function answerForm(record, resolved, waiting) {
  const form = el('form', { className: 'card answer-form', attributes: { novalidate: '' } });
  const readers = record.questions.map((question, index) => {
    const { fieldset, read } = questionFieldset(question, index);
    form.append(fieldset);
    return read;
  });
  const message = el('p', { className: 'form-message', attributes: { role: 'alert', id: 'form-message' } });
  const submit = button('primary', 'Submit answer', { type: 'submit' });
  const decline = declineControl();
  form.append(el('div', { className: 'form-actions' }, submit, decline.control), message);

  /**
   * @param {() => Promise<ApiResult<unknown>>} request
   * @param {string} done
   */
  const settle = async (request, done) => {
    submit.disabled = true;
    decline.button.disabled = true;
    showMessage(message, '', 'Sending…');
    const result = await request();
    submit.disabled = false;
    decline.button.disabled = false;
    if (result.ok && result.status === 202) {
      await waiting(AWAITING_WORKER);
      return;
    }
    if (result.ok) {
      showMessage(message, 'success', done);
      await resolved(done);
      return;
    }
    showMessage(message, 'error', result.error.message || `The server answered ${result.status}.`);
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const answers = readers.map((read) => read());
    void settle(() => answerQuestion(record.workflowId, answers), `Answer recorded as ${signedInName()}.`);
  });
  decline.button.addEventListener('click', () => {
    const reason = decline.reason.value.trim();
    void settle(() => declineQuestion(record.workflowId, reason), `Declined as ${signedInName()}.`);
  });
  return form;
}
