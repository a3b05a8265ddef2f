// @ts-check
/**
 * The inbox page: login, the live queue of pending questions and approvals (and batches over them), one
 * question's answer form, one approval's decision form (its input as JSON, editable), and the history.
 *
 * Browser ES modules under `// @ts-check`, served as they are (no build step) and type-checked by
 * `npm run typecheck` (this folder's tsconfig.json). This module starts the page: it wires index.html's
 * controls to the modules that handle them, then opens the session the browser may already hold.
 */
import { getSession, onUnauthorized } from './api.js';
import { byId, inputById, refreshTimes } from './dom.js';
import { loadHistory } from './history.js';
import { logOut, showLogin, showLoginMethods, startSession, submitLogin } from './login.js';
import { wireBatch } from './batch.js';
import { dropRecorded, loadQueue, showAssignedOnly } from './queue.js';
import { route } from './router.js';

/** How often the ages of the times shown ("5 min ago") are brought up to date. */
const REFRESH_TIMES_MS = 30_000;

function wireControls() {
  byId('login-form').addEventListener(
    'submit',
    (event) => void submitLogin(/** @type {SubmitEvent} */ (event)),
  );
  byId('logout').addEventListener('click', () => void logOut());
  byId('queue-more').addEventListener('click', () => void loadQueue(true));
  const assigned = inputById('queue-assigned');
  assigned.addEventListener('change', () => void showAssignedOnly(assigned.checked));
  byId('history-more').addEventListener('click', () => void loadHistory(false));
  wireBatch(dropRecorded);
  window.addEventListener('hashchange', route);
  setInterval(refreshTimes, REFRESH_TIMES_MS);
}

async function start() {
  onUnauthorized(() => showLogin('Your session has ended: log in again.'));
  wireControls();
  // A link printed by `ask-user dev` carries the token in the fragment, which is never sent to the server:
  // it fills the login form and is removed from the address bar and history at once.
  if (location.hash.startsWith('#token=')) {
    inputById('login-token').value = decodeURIComponent(location.hash.slice('#token='.length));
    history.replaceState(null, '', `${location.pathname}#/`);
  }
  const session = await getSession();
  if (session.ok && session.body.csrfToken) {
    startSession(session.body);
  } else {
    await showLoginMethods();
    showLogin('');
  }
}

void start();
