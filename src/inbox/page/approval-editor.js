// @ts-check
/**
 * The editor of an approval's input: the requested JSON, editable, checked as it is typed so that a stray comma
 * shows before anything is sent, and compared with the original without regard to key order or spacing.
 */
/** @import { Approval } from './api-types.js' */
import { button, el } from './dom.js';
import { canonicalJson, prettyJson } from './json-view.js';

/** @typedef {{ ok: true, value: unknown } | { ok: false, reason: string }} EditorJson */

/**
 * Whether an edit reaches the agent as a denial that suggests the edited input rather than as a run with it:
 * the approval's hook runs a call only with the model's own input.
 * @param {Approval} approval
 */
export function editIsSuggestion(approval) {
  return approval.onEdit === 'suggest';
}

/**
 * What the reviewer is told before deciding when an edit does not run: the note under the editor's label.
 * @param {Approval} approval
 */
function suggestionNote(approval) {
  if (!editIsSuggestion(approval)) return null;
  return el('p', {
    className: 'hint edit-note',
    attributes: { id: 'approval-edit-note' },
    text:
      `This agent runs ${approval.toolName} only with the input its model gave: an edit reaches it as a ` +
      'denial that suggests calling again with the edited input.',
  });
}

/**
 * @param {Approval} approval
 * @param {(edited: boolean) => void} onEdited told after each change whether the input now differs
 */
export function inputEditor(approval, onEdited) {
  const note = suggestionNote(approval);
  const original = prettyJson(approval.input);
  const originalCanonical = canonicalJson(approval.input === undefined ? null : approval.input);
  const editor = el('textarea', {
    className: 'json-editor',
    attributes: {
      id: 'approval-editor',
      rows: String(Math.min(Math.max(original.split('\n').length + 1, 4), 24)),
      spellcheck: 'false',
      autocomplete: 'off',
      autocapitalize: 'off',
      'aria-describedby': `${note ? 'approval-edit-note ' : ''}approval-input-error approval-change`,
    },
  });
  editor.value = original;
  const inputError = el('p', {
    className: 'field-error',
    attributes: { id: 'approval-input-error', 'aria-live': 'polite' },
  });
  const changeNote = el('p', {
    className: 'hint',
    attributes: { id: 'approval-change', 'aria-live': 'polite' },
  });
  const editedText = note
    ? 'Edited: the agent receives a denial that suggests this input.'
    : 'Edited: Approve runs the tool with this input instead.';
  const reset = button('secondary', 'Reset input');
  const label = el('label', {
    attributes: { for: 'approval-editor' },
    text: note
      ? 'Input to run with (edit it to suggest other input)'
      : 'Input to run with (edit it to approve with other input)',
  });

  /** @returns {EditorJson} the editor's JSON, or why it is not JSON */
  const read = () => {
    try {
      return { ok: true, value: JSON.parse(editor.value) };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
  };
  /** @param {string} text empty once the input is fine */
  const showError = (text) => {
    inputError.textContent = text;
    if (text === '') editor.removeAttribute('aria-invalid');
    else editor.setAttribute('aria-invalid', 'true');
  };
  /** @param {unknown} value */
  const isEdit = (value) => canonicalJson(value) !== originalCanonical;
  const onEdit = () => {
    const json = read();
    if (!json.ok) {
      showError(`Not valid JSON: ${json.reason}`);
      changeNote.textContent = '';
      onEdited(false);
      return;
    }
    showError('');
    const changed = isEdit(json.value);
    onEdited(changed);
    changeNote.textContent = changed ? editedText : '';
  };
  editor.addEventListener('input', onEdit);
  reset.addEventListener('click', () => {
    editor.value = original;
    onEdit();
  });
  const nodes = [
    label,
    note,
    editor,
    inputError,
    el('div', { className: 'editor-actions' }, reset, changeNote),
  ].filter((node) => node !== null);
  return { nodes, reset, read, showError, isEdit, focus: () => editor.focus() };
}
