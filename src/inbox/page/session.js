// @ts-check
/** The login the page holds: who is logged in, and the CSRF token that its POSTs carry. */
/** @import { Session } from './api-types.js' */

/** @type {Session | null} */
let current = null;

/** The logged-in session; null before a login and after a logout. */
export function currentSession() {
  return current;
}

/** @param {Session | null} session */
export function setSession(session) {
  current = session;
}

/** Who is logged in, as the page's confirmations name them ("Answer recorded as alice."). */
export function signedInName() {
  return current?.name ?? '';
}
