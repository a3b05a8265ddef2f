// @ts-check
/**
 * "Approve and grant…" on a pending approval: approves the call, then grants its agent the tool until an expiry
 * (required), for any input, exactly this input, or input matching a JSON Schema, and optionally only this
 * session. The operator's grant policy may refuse the grant (a forbidden tool, too long an expiry): the page
 * then says so, and that the call stays approved. Under the two-person rule an approval that is only counted
 * (1 of 2) grants nothing: a grant is one person's decision, and the page says so.
 */
/** @import { Approval, GrantRequest, QuestionRecord } from './api-types.js' */
import { button, el } from './dom.js';

/**
 * The scopes offered, by the value of their radio button.
 * @type {readonly [string, string][]}
 */
const SCOPES = [
  ['any', 'Any input'],
  ['exact', 'Exactly this input'],
  ['schema', 'Input matching this JSON Schema'],
];

/**
 * @param {string} id
 * @param {string} text
 * @param {HTMLElement} field
 */
function labelled(id, text, field) {
  return el('label', { attributes: { for: id }, text }, field);
}

/**
 * The folded control, and how to read the grant it describes.
 * @param {QuestionRecord} record
 * @param {Approval} approval
 * @param {string} agentId
 */
export function grantControl(record, approval, agentId) {
  const expireAfter = el('input', {
    attributes: {
      type: 'text',
      id: 'grant-expire-after',
      value: '8h',
      pattern: '^(\\d+(ms|s|m|h|d))+$',
      required: '',
    },
  });
  const radios = SCOPES.map(([value, text]) => {
    const radio = /** @type {HTMLInputElement} */ (
      el('input', { attributes: { type: 'radio', name: 'grant-scope', id: `grant-scope-${value}`, value } })
    );
    radio.checked = value === 'exact';
    return { radio, label: labelled(radio.id, text, radio) };
  });
  const schema = /** @type {HTMLTextAreaElement} */ (
    el('textarea', { attributes: { id: 'grant-schema', rows: '4' } })
  );
  schema.value = JSON.stringify(approval.inputSchema ?? { type: 'object' }, null, 2);
  const session = /** @type {HTMLInputElement} */ (
    el('input', { attributes: { type: 'checkbox', id: 'grant-session' } })
  );
  const sessionId = record.agent?.sessionId;
  const note = el('input', { attributes: { type: 'text', id: 'grant-note', maxlength: '1000' } });
  const action = button('secondary', 'Approve and grant', { id: 'approve-grant' });
  const control = el(
    'details',
    { className: 'grant' },
    el('summary', { text: 'Approve and grant…' }),
    el('p', {
      className: 'hint',
      text: `Approves this call, and from now on approves ${agentId}'s calls of ${approval.toolName} in this scope with no person, until the grant expires or is revoked. An approval that leaves the call waiting for more people grants nothing.`,
    }),
    labelled('grant-expire-after', 'Expires after (30m, 8h, 7d; required)', expireAfter),
    el('fieldset', {}, el('legend', { text: 'Scope' }), ...radios.map((one) => one.label), schema),
    sessionId === undefined ? null : labelled('grant-session', `Only session ${sessionId}`, session),
    labelled('grant-note', 'Note (optional)', note),
    action,
  );

  /**
   * The grant the fields describe, or why it cannot be read.
   * @returns {{ ok: true, grant: GrantRequest } | { ok: false, reason: string }}
   */
  const read = () => {
    const expiry = /** @type {HTMLInputElement} */ (expireAfter).value.trim();
    if (!/^(\d+(ms|s|m|h|d))+$/.test(expiry))
      return { ok: false, reason: 'Expires after: a duration such as 8h or 7d.' };
    /** @type {GrantRequest} */
    const grant = {
      agentId,
      toolName: approval.toolName,
      expireAfter: expiry,
      grantedWith: record.workflowId,
    };
    const scope = radios.find((one) => one.radio.checked)?.radio.value ?? 'exact';
    if (scope === 'exact') grant.input = approval.input;
    if (scope === 'schema') {
      try {
        grant.inputSchema = JSON.parse(schema.value);
      } catch (error) {
        return {
          ok: false,
          reason: `The JSON Schema is not valid JSON: ${/** @type {Error} */ (error).message}`,
        };
      }
    }
    if (sessionId !== undefined && session.checked) grant.sessionId = sessionId;
    const text = /** @type {HTMLInputElement} */ (note).value.trim();
    if (text !== '') grant.note = text;
    return { ok: true, grant };
  };
  return { control, button: action, read };
}
