// @ts-check
/**
 * The live queue: the server's event stream of questions appearing and being resolved. The body's
 * `data-live` says how the stream stands (`connecting`, `ready`, `reconnecting`, `off`), and so does the
 * status beside the logged-in name.
 */
/** @import { QuestionRow } from './api-types.js' */
import { getSession } from './api.js';
import { byId } from './dom.js';
import { loadQueue, questionAppeared, questionResolved } from './queue.js';
import { currentSession, setSession } from './session.js';

/** @type {EventSource | null} */
let events = null;

/**
 * @param {'connecting' | 'ready' | 'reconnecting'} live
 * @param {string} text
 */
function showLive(live, text) {
  document.body.dataset.live = live;
  byId('live-status').textContent = text;
}

/**
 * The question an event carries.
 * @param {Event} event
 * @returns {QuestionRow}
 */
function questionOf(event) {
  return JSON.parse(/** @type {MessageEvent<string>} */ (event).data);
}

/** Opens the stream (closing any open one); its `ready` event loads the queue afresh. */
export function connectEvents() {
  events?.close();
  showLive('connecting', 'Connecting…');
  const stream = new EventSource('/api/events');
  events = stream;
  stream.addEventListener('ready', () => {
    showLive('ready', 'Live');
    void loadQueue();
  });
  stream.addEventListener('question.pending', (event) => questionAppeared(questionOf(event)));
  stream.addEventListener('question.resolved', (event) => questionResolved(questionOf(event)));
  stream.addEventListener('error', () => {
    if (!currentSession()) return;
    showLive('reconnecting', 'Reconnecting…');
    // A closed stream is not retried by the browser (the server refused it): check the session.
    if (events && events.readyState === EventSource.CLOSED) void reconnectIfLoggedIn();
  });
}

/** After the server refused the stream: opens it again if the login still holds (the session is renewed). */
async function reconnectIfLoggedIn() {
  const result = await getSession();
  if (result.ok && result.body.csrfToken) {
    setSession(result.body);
    connectEvents();
  }
}

/** Closes the stream, at logout. */
export function disconnectEvents() {
  events?.close();
  events = null;
  document.body.dataset.live = 'off';
}
