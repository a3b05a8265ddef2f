// @ts-check
/** The standing grants, newest first: what each covers, who granted it, until when, its uses; Revoke on an active one. */
/** @import { Grant } from './api-types.js' */
import { listGrants, revokeGrant } from './api.js';
import { button, byId, clear, el, showPageError, timeElement } from './dom.js';

/**
 * What a grant covers, in words.
 * @param {Grant} grant
 */
function scopeText(grant) {
  const parts = [`${grant.toolName} for ${grant.agentId}`];
  if (grant.input !== undefined) parts.push(`input ${JSON.stringify(grant.input)}`);
  if (grant.inputSchema !== undefined) parts.push(`input matching ${JSON.stringify(grant.inputSchema)}`);
  if (grant.sessionId !== undefined) parts.push(`session ${grant.sessionId}`);
  return parts.join(', ');
}

/**
 * One grant's row; an active one has its Revoke button.
 * @param {Grant} grant
 */
function grantRow(grant) {
  const status = grant.status ?? 'active';
  const row = el(
    'li',
    { className: 'row grant-row', attributes: { 'data-grant': grant.id } },
    el('span', { className: `badge ${status}`, text: status }),
    el('span', { className: 'title', text: scopeText(grant) }),
    el(
      'span',
      { className: 'meta' },
      `${grant.id} · granted by ${grant.grantedBy} `,
      timeElement(grant.grantedAt),
      ` · until ${grant.expiresAt} · used ${grant.uses}×`,
      grant.revokedBy ? ` · revoked by ${grant.revokedBy}` : '',
      grant.note ? ` · ${grant.note}` : '',
    ),
  );
  if (status === 'active') {
    const revoke = button('danger', 'Revoke', { 'aria-label': `Revoke ${grant.id}` });
    revoke.addEventListener('click', () => {
      revoke.disabled = true;
      void revokeGrant(grant.id).then((result) => {
        if (!result.ok) {
          revoke.disabled = false;
          showPageError(result.error.message || `The server answered ${result.status}.`);
          return;
        }
        void loadGrants();
      });
    });
    row.append(revoke);
  }
  return row;
}

/** Loads every grant into the grants view. */
export async function loadGrants() {
  const result = await listGrants();
  if (!result.ok) {
    showPageError(result.error.message || 'The grants could not be loaded.');
    return;
  }
  const list = byId('grants');
  clear(list);
  for (const grant of result.body.grants) list.append(grantRow(grant));
  byId('grants-empty').hidden = list.children.length > 0;
}
