// @ts-check
/** Moves the deadline of a pending question or approval (`POST /api/questions/:id/extend`). */
/** @import { QuestionRecord } from './api-types.js' */
import { extendDeadline } from './api.js';
import { button, el, foldedControl, showMessage } from './dom.js';
import { signedInName } from './session.js';

/**
 * A folded control: a signed duration (`2h` later, `-30m` earlier) and a button; once the server took it,
 * `moved` shows the question again under the confirmation.
 * @param {QuestionRecord} record
 * @param {(done: string) => Promise<void>} moved
 */
export function deadlineControl(record, moved) {
  const input = el('input', {
    attributes: {
      type: 'text',
      id: 'deadline-by',
      maxlength: '20',
      autocomplete: 'off',
      placeholder: '2h or -30m',
    },
  });
  const move = button('secondary', 'Move deadline');
  const message = el('p', { className: 'form-message', attributes: { role: 'alert' } });
  const control = foldedControl(
    {
      className: 'card deadline',
      summary: record.expiresAt ? 'Change the deadline…' : 'Set a deadline…',
      label: 'Move it by (2h: later, -30m: earlier)',
    },
    input,
    move,
    message,
  );
  const change = async () => {
    const by = input.value.trim();
    if (by === '') {
      showMessage(message, 'error', 'Enter a duration such as 2h or -30m.');
      return;
    }
    move.disabled = true;
    const result = await extendDeadline(record.workflowId, by);
    move.disabled = false;
    if (!result.ok) {
      showMessage(message, 'error', result.error.message || `The server answered ${result.status}.`);
      return;
    }
    await moved(`Deadline moved to ${result.body.expiresAt} as ${signedInName()}.`);
  };
  move.addEventListener('click', () => void change());
  return control;
}
