// @ts-check
/**
 * The views by the address's fragment: `#/` the queue, `#/history` the history, `#/grants` the standing
 * grants, `#/q/<workflow id>` one question or approval. Nothing is shown before a login.
 */
import { focusHeading, showPageError, showView } from './dom.js';
import { loadGrants } from './grants.js';
import { loadHistory } from './history.js';
import { closeQuestion, openQuestion } from './question-view.js';
import { renderQueue } from './queue.js';
import { currentSession } from './session.js';

const QUESTION_PREFIX = '#/q/';

/** Shows the view that the address names. */
export function route() {
  if (!currentSession()) return;
  showPageError('');
  const hash = location.hash;
  if (hash.startsWith(QUESTION_PREFIX)) {
    let workflowId;
    try {
      workflowId = decodeURIComponent(hash.slice(QUESTION_PREFIX.length));
    } catch {
      showPageError('That link does not name a question.');
      return;
    }
    void openQuestion(workflowId);
  } else if (hash === '#/grants') {
    closeQuestion();
    showView('grants');
    focusHeading('grants');
    void loadGrants();
  } else if (hash === '#/history') {
    closeQuestion();
    showView('history');
    focusHeading('history');
    void loadHistory(true);
  } else {
    closeQuestion();
    showView('queue');
    focusHeading('queue');
    renderQueue();
  }
}
