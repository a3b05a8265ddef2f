// @ts-check
/**
 * A pending approval's form: the requested input (and its schema, folded), the editor, and the ways to decide:
 * Approve (as asked, or with the edited input), Approve and grant (a standing grant for the agent's later calls,
 * `grant-control.js`), Deny with a reason (and, if asked, a stop of the agent's run), or Respond with a text that
 * the agent reads in place of the tool's result.
 */
/** @import { Approval, DecideRequest, Outcome, QuestionRecord } from './api-types.js' */
import { createGrant, decideApproval } from './api.js';
import { editIsSuggestion, inputEditor } from './approval-editor.js';
import { button, el, foldedControl, showMessage } from './dom.js';
import { grantControl } from './grant-control.js';
import { jsonBlock } from './json-view.js';
import { approvalDescription } from './question-rows.js';
import { signedInName } from './session.js';

/** The start of a refused decision's message; the page shows the reason after it. */
const BAD_DECISION_PREFIX = 'invalid decision: ';

/**
 * Why "Approve and grant" made no grant when the approval was only counted toward the two-person rule (the call
 * still pending): a grant approves the agent's later calls with no one else, so it is one person's decision.
 */
const NOT_GRANTED =
  "No grant was made: a grant is one person's decision, and this call needs more than one approval.";

/**
 * What the reviewer reads before deciding: the description, the requested input, and its schema.
 * @param {Approval} approval
 */
function requestedInput(approval) {
  const schema = approval.inputSchema
    ? el(
        'details',
        { className: 'schema' },
        el('summary', { text: 'Input schema' }),
        jsonBlock(approval.inputSchema, 'approval-schema'),
      )
    : null;
  return [
    approvalDescription(approval),
    el('h2', { className: 'subhead', text: 'Requested input' }),
    jsonBlock(approval.input, 'approval-input'),
    schema,
  ];
}

/** The folded Deny control: an optional reason the agent reads, whether to stop the agent's run, its button. */
function denyControl() {
  const reason = el('input', { attributes: { type: 'text', id: 'deny-reason', maxlength: '10000' } });
  const stop = /** @type {HTMLInputElement} */ (
    el('input', { attributes: { type: 'checkbox', id: 'deny-stop' } })
  );
  const action = button('danger', 'Deny', { id: 'deny' });
  const control = foldedControl(
    { className: 'decline deny', summary: 'Deny…', label: 'Reason (optional; the agent reads it)' },
    reason,
    el('label', { className: 'check', attributes: { for: 'deny-stop' } }, stop, " Also stop the agent's run"),
    action,
  );
  return { control, reason, stop, button: action };
}

/** The folded Respond control: the text the agent reads instead of the tool's result, and its button. */
function respondControl() {
  const text = el('textarea', { attributes: { id: 'respond-text', rows: '3', maxlength: '10000' } });
  const action = button('secondary', 'Send response', { id: 'respond' });
  const control = foldedControl(
    {
      className: 'respond',
      summary: 'Respond instead…',
      label: "Text the agent reads in place of the tool's result (the tool does not run)",
    },
    text,
    action,
  );
  return { control, text, button: action };
}

/**
 * What the reviewer is told once a decision is recorded: `done` when the agent receives it as taken, else what
 * the agent receives (an edit that its hook turns into a denial is not reported as approved).
 * @param {DecideRequest} decision
 * @param {Outcome} outcome
 * @param {string} done
 */
function recordedText(decision, outcome, done) {
  const effect = outcome.effect;
  if (!effect || effect.asDecided) return done;
  return `Recorded the ${decision.type} as ${signedInName()}. ${effect.text}`;
}

/**
 * @param {QuestionRecord} record
 * @param {Approval} approval
 * @param {(done: string, pendingNote?: string) => Promise<void>} resolved shows the approval once it is
 *   decided; `pendingNote` is added to the count when the decision was only counted (the call still pending)
 */
export function approvalForm(record, approval, resolved) {
  const form = el('form', { className: 'card approval-form', attributes: { novalidate: '' } });
  const approve = button('primary', 'Approve', { type: 'submit', id: 'approve' });
  const editedLabel = editIsSuggestion(approval) ? 'Suggest the edits' : 'Approve with edits';
  const editor = inputEditor(approval, (edited) => {
    approve.textContent = edited ? editedLabel : 'Approve';
  });
  const deny = denyControl();
  const respond = respondControl();
  const agentId = record.agent?.id;
  const grant = agentId === undefined ? undefined : grantControl(record, approval, agentId);
  const message = el('p', { className: 'form-message', attributes: { role: 'alert', id: 'form-message' } });
  form.append(
    ...requestedInput(approval).filter((node) => node !== null),
    ...editor.nodes,
    el('div', { className: 'form-actions' }, approve, grant?.control, deny.control, respond.control),
    message,
  );
  const buttons = [approve, deny.button, respond.button, editor.reset, ...(grant ? [grant.button] : [])];

  /**
   * @param {DecideRequest} decision
   * @param {string} done
   * @param {(outcome: Outcome) => Promise<string>} [then] runs once the decision is recorded; says what it did
   *   instead of `done`, and is said too when the call stays pending
   */
  const send = async (decision, done, then) => {
    for (const control of buttons) control.disabled = true;
    showMessage(message, '', 'Sending…');
    const result = await decideApproval(record.workflowId, decision);
    for (const control of buttons) control.disabled = false;
    if (result.ok) {
      const recorded = then ? await then(result.body) : recordedText(decision, result.body, done);
      showMessage(message, 'success', recorded);
      await resolved(recorded, then ? recorded : undefined);
      return;
    }
    const text = result.error.message || `The server answered ${result.status}.`;
    if (result.status === 400 && result.error.rule === 'edited-input') {
      // The input schema's verdict belongs beside the editor, with the path it names.
      showMessage(message, '', '');
      editor.showError(`The server refused this input: ${text.replace(BAD_DECISION_PREFIX, '')}`);
      editor.focus();
      return;
    }
    showMessage(
      message,
      'error',
      text.startsWith(BAD_DECISION_PREFIX) ? text.slice(BAD_DECISION_PREFIX.length) : text,
    );
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const json = editor.read();
    if (!json.ok) {
      editor.showError(`Not valid JSON: ${json.reason}`);
      editor.focus();
    } else if (editor.isEdit(json.value)) {
      void send({ type: 'edit', input: json.value }, `Approved with the edited input as ${signedInName()}.`);
    } else {
      void send({ type: 'approve' }, `Approved as ${signedInName()}.`);
    }
  });
  deny.button.addEventListener('click', () => {
    const reason = deny.reason.value.trim();
    /** @type {DecideRequest} */
    const decision = reason === '' ? { type: 'reject' } : { type: 'reject', reason };
    if (deny.stop.checked) decision.stop = true;
    void send(
      decision,
      `Denied as ${signedInName()}${decision.stop ? "; the agent's run is asked to stop" : ''}.`,
    );
  });
  grant?.button.addEventListener('click', () => {
    const read = grant.read();
    if (!read.ok) {
      showMessage(message, 'error', read.reason);
      return;
    }
    // The approval first: a call someone else decided meanwhile grants nothing, and so does an approval only
    // counted toward the two-person rule (the outcome still pending), as `GrantClient.approveAndGrant` does.
    void send({ type: 'approve' }, `Approved as ${signedInName()}.`, async (outcome) => {
      if (outcome.status === 'pending') return NOT_GRANTED;
      const made = await createGrant(read.grant);
      return made.ok
        ? `Approved and granted as ${signedInName()}: grant ${made.body.id} until ${made.body.expiresAt}.`
        : `Approved as ${signedInName()}, but the grant was refused: ${made.error.message || made.status}`;
    });
  });
  respond.button.addEventListener('click', () => {
    if (respond.text.value.trim() === '') {
      showMessage(message, 'error', 'Write the text the agent reads instead of the result.');
      respond.text.focus();
      return;
    }
    void send({ type: 'respond', text: respond.text.value }, `Response sent as ${signedInName()}.`);
  });
  return form;
}
