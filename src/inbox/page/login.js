// @ts-check
/**
 * Logging in and out: with the inbox token and a name, or through single sign-on when the server offers it.
 * The body's `data-session` says where the person stands (`unknown`, `signed-in`, `signed-out`).
 */
/** @import { Session } from './api-types.js' */
import { getLoginMethods, login, logout } from './api.js';
import { byId, inputById, showView } from './dom.js';
import { connectEvents, disconnectEvents } from './event-stream.js';
import { route } from './router.js';
import { setSession } from './session.js';

/** Where the page remembers the name typed at the last login. */
const NAME_KEY = 'ask-user-inbox.name';

/**
 * Ends the page's session and shows the login form with `message`.
 * @param {string} message
 */
export function showLogin(message) {
  setSession(null);
  document.body.dataset.session = 'signed-out';
  disconnectEvents();
  byId('nav').hidden = true;
  byId('who').hidden = true;
  showView('login');
  byId('login-error').textContent = message;
  const name = localStorage.getItem(NAME_KEY);
  const nameInput = inputById('login-name');
  if (name && !nameInput.value) nameInput.value = name;
  const tokenInput = inputById('login-token');
  if (byId('login-form').hidden) byId('login-sso-link').focus();
  else (tokenInput.value ? nameInput : tokenInput).focus();
}

/**
 * The login form's submit: the token and the name, checked by the server.
 * @param {SubmitEvent} event
 */
export async function submitLogin(event) {
  event.preventDefault();
  const tokenInput = inputById('login-token');
  const name = inputById('login-name').value.trim();
  const result = await login(tokenInput.value.trim(), name);
  if (!result.ok) {
    byId('login-error').textContent = result.error.message || 'Login failed.';
    return;
  }
  tokenInput.value = '';
  localStorage.setItem(NAME_KEY, name);
  startSession(result.body);
}

export async function logOut() {
  await logout();
  showLogin('Logged out.');
}

/**
 * Shows who is logged in, opens the live queue and the view the address names.
 * @param {Session} session
 */
export function startSession(session) {
  setSession(session);
  byId('who-name').textContent = session.name;
  byId('who').hidden = false;
  byId('nav').hidden = false;
  document.body.dataset.session = 'signed-in';
  connectEvents();
  route();
}

/** Shows the single sign-on link and the token form as the server offers them. */
export async function showLoginMethods() {
  const result = await getLoginMethods();
  const methods = result.ok && Array.isArray(result.body.methods) ? result.body.methods : ['token'];
  byId('login-sso').hidden = !methods.includes('sso');
  byId('login-form').hidden = !methods.includes('token');
}
