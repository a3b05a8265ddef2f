/**
 * The inbox page: login, the live queue of pending questions, one question's answer form, and the history.
 *
 * Plain browser JavaScript, served as it is (no build step). Every string that comes from a question (a model
 * wrote it, and it may hold HTML) reaches the page through `textContent` or a form control's `value`, never as
 * markup; the server's Content-Security-Policy forbids inline script besides.
 */
'use strict';

(function inbox() {
  const RECOMMENDED_SUFFIX = ' (Recommended)';
  const QUEUE_PAGE_SIZE = 50;
  const HISTORY_PAGE_SIZE = 25;

  /** `{ name, csrfToken }` once logged in. */
  let session = null;
  /** Pending questions shown in the queue, newest first. */
  let pending = [];
  let queueNextPageToken = undefined;
  let historyNextPageToken = undefined;
  let counts = { pending: undefined, resolved: undefined };
  let events = null;
  /** Workflow id of the question on screen, if any. */
  let shownQuestionId = null;

  const byId = (id) => document.getElementById(id);

  /** Creates an element; `text` goes in as text, never as markup. */
  function el(tag, options, ...children) {
    const element = document.createElement(tag);
    const settings = options || {};
    if (settings.className) element.className = settings.className;
    if (settings.text !== undefined) element.textContent = settings.text;
    for (const [name, value] of Object.entries(settings.attributes || {})) element.setAttribute(name, value);
    for (const child of children) if (child) element.append(child);
    return element;
  }

  function clear(element) {
    element.replaceChildren();
  }

  function isRecommended(label) {
    return label.endsWith(RECOMMENDED_SUFFIX);
  }

  function questionHref(workflowId) {
    return `#/q/${encodeURIComponent(workflowId)}`;
  }

  function relativeTime(iso) {
    const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    if (seconds < 45) return 'just now';
    const minutes = Math.round(seconds / 60);
    if (minutes < 60) return `${minutes} min ago`;
    const hours = Math.round(minutes / 60);
    if (hours < 36) return `${hours} h ago`;
    return `${Math.round(hours / 24)} d ago`;
  }

  function timeElement(iso) {
    const time = el('time', { text: relativeTime(iso), attributes: { datetime: iso, title: iso } });
    time.dataset.relative = 'true';
    return time;
  }

  function refreshTimes() {
    for (const time of document.querySelectorAll('time[data-relative]')) {
      time.textContent = relativeTime(time.getAttribute('datetime'));
    }
  }

  // --- Talking to the server --------------------------------------------------------------------------------

  async function api(method, path, body) {
    const headers = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && session) headers['x-csrf-token'] = session.csrfToken;
    let response;
    try {
      response = await fetch(path, {
        method,
        headers,
        credentials: 'same-origin',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      return { status: 0, data: { message: `the inbox server cannot be reached (${error.message})` } };
    }
    let data = null;
    if (response.status !== 204) {
      try {
        data = await response.json();
      } catch {
        data = { message: `the server answered ${response.status}` };
      }
    }
    if (response.status === 401 && path !== '/api/login') {
      loggedOut('Your session has ended: log in again.');
    }
    return { status: response.status, data };
  }

  function showPageError(message) {
    const error = byId('page-error');
    error.textContent = message;
    error.hidden = message === '';
  }

  // --- Views ----------------------------------------------------------------------------------------------

  function showView(name) {
    for (const view of ['login', 'queue', 'history', 'question']) byId(`view-${view}`).hidden = view !== name;
    document.body.dataset.view = name;
    for (const [link, view] of [
      ['nav-pending', 'queue'],
      ['nav-history', 'history'],
    ]) {
      if (view === name) byId(link).setAttribute('aria-current', 'page');
      else byId(link).removeAttribute('aria-current');
    }
  }

  function focusHeading(view) {
    const heading = byId(`view-${view}`).querySelector('h1');
    if (heading) heading.focus({ preventScroll: false });
  }

  function route() {
    if (!session) return;
    showPageError('');
    const hash = location.hash;
    if (hash.startsWith('#/q/')) {
      let id;
      try {
        id = decodeURIComponent(hash.slice('#/q/'.length));
      } catch {
        showPageError('That link does not name a question.');
        return;
      }
      void openQuestion(id);
    } else if (hash === '#/history') {
      shownQuestionId = null;
      showView('history');
      focusHeading('history');
      void loadHistory(true);
    } else {
      shownQuestionId = null;
      showView('queue');
      focusHeading('queue');
      renderQueue();
    }
  }

  // --- Login ----------------------------------------------------------------------------------------------

  function loggedOut(message) {
    session = null;
    document.body.dataset.session = 'signed-out';
    if (events) events.close();
    events = null;
    document.body.dataset.live = 'off';
    byId('nav').hidden = true;
    byId('who').hidden = true;
    showView('login');
    byId('login-error').textContent = message || '';
    const name = localStorage.getItem('ask-user-inbox.name');
    if (name && !byId('login-name').value) byId('login-name').value = name;
    (byId('login-token').value ? byId('login-name') : byId('login-token')).focus();
  }

  async function logIn(event) {
    event.preventDefault();
    const token = byId('login-token').value.trim();
    const name = byId('login-name').value.trim();
    const { status, data } = await api('POST', '/api/login', { token, name });
    if (status !== 200) {
      byId('login-error').textContent = (data && data.message) || 'Login failed.';
      return;
    }
    byId('login-token').value = '';
    localStorage.setItem('ask-user-inbox.name', name);
    startSession(data);
  }

  async function logOut() {
    await api('POST', '/api/logout');
    loggedOut('Logged out.');
  }

  function startSession(data) {
    session = data;
    byId('who-name').textContent = data.name;
    byId('who').hidden = false;
    byId('nav').hidden = false;
    document.body.dataset.session = 'signed-in';
    connectEvents();
    route();
  }

  // --- The live queue ---------------------------------------------------------------------------------------

  function connectEvents() {
    if (events) events.close();
    document.body.dataset.live = 'connecting';
    byId('live-status').textContent = 'Connecting…';
    events = new EventSource('/api/events');
    events.addEventListener('ready', () => {
      document.body.dataset.live = 'ready';
      byId('live-status').textContent = 'Live';
      void loadQueue();
    });
    events.addEventListener('question.pending', (message) => {
      const question = JSON.parse(message.data);
      if (!pending.some((each) => each.workflowId === question.workflowId)) {
        pending.unshift(question);
        pending.sort((a, b) => Date.parse(b.askedAt) - Date.parse(a.askedAt));
        if (counts.pending !== undefined) counts.pending += 1;
        renderQueue();
      }
    });
    events.addEventListener('question.resolved', (message) => {
      const question = JSON.parse(message.data);
      const before = pending.length;
      pending = pending.filter((each) => each.workflowId !== question.workflowId);
      if (pending.length !== before && counts.pending !== undefined) {
        counts.pending -= 1;
        if (counts.resolved !== undefined) counts.resolved += 1;
      }
      renderQueue();
    });
    events.addEventListener('error', () => {
      if (!session) return;
      document.body.dataset.live = 'reconnecting';
      byId('live-status').textContent = 'Reconnecting…';
      // A closed stream is not retried by the browser (the server refused it): check the session.
      if (events && events.readyState === EventSource.CLOSED) void checkSession();
    });
  }

  async function checkSession() {
    const { status, data } = await api('GET', '/api/session');
    if (status === 200 && data.csrfToken) {
      session = data;
      connectEvents();
    }
  }

  async function loadQueue(more) {
    const token = more ? queueNextPageToken : undefined;
    const query = `status=pending&pageSize=${QUEUE_PAGE_SIZE}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
    const { status, data } = await api('GET', `/api/questions?${query}`);
    if (status !== 200) {
      showPageError((data && data.message) || 'The queue could not be loaded.');
      return;
    }
    const known = new Set(more ? pending.map((each) => each.workflowId) : []);
    pending = more
      ? pending.concat(data.questions.filter((each) => !known.has(each.workflowId)))
      : data.questions;
    queueNextPageToken = data.nextPageToken;
    counts = { pending: data.counts.pending, resolved: data.counts.resolved };
    renderQueue();
  }

  function renderCounts() {
    byId('count-pending').textContent = counts.pending === undefined ? '' : String(counts.pending);
    byId('count-resolved').textContent = counts.resolved === undefined ? '' : String(counts.resolved);
    document.title = counts.pending ? `(${counts.pending}) ask-user inbox` : 'ask-user inbox';
  }

  function summaryRow(question, extra) {
    const title = el('span', { className: 'title', text: question.title });
    const meta = el('span', { className: 'row-meta' });
    if (question.agentId) meta.append(el('span', { className: 'agent', text: question.agentId }), ' · ');
    meta.append(timeElement(question.askedAt));
    if (question.questionCount > 1) meta.append(` · ${question.questionCount} questions`);
    const link = el(
      'a',
      { className: 'row', attributes: { href: questionHref(question.workflowId) } },
      title,
      meta,
    );
    if (extra) link.append(extra);
    const item = el('li', {}, link);
    item.dataset.workflowId = question.workflowId;
    return item;
  }

  function renderQueue() {
    renderCounts();
    const list = byId('queue');
    clear(list);
    for (const question of pending) list.append(summaryRow(question));
    byId('queue-empty').hidden = pending.length > 0;
    byId('queue-more').hidden = !queueNextPageToken;
  }

  // --- History --------------------------------------------------------------------------------------------

  const STATUS_TEXT = {
    answered: 'Answered',
    declined: 'Declined',
    expired: 'Expired',
    cancelled: 'Cancelled',
    pending: 'Pending',
  };

  function statusBadge(status) {
    return el('span', { className: `status status-${status}`, text: STATUS_TEXT[status] || status });
  }

  async function loadHistory(fresh) {
    const token = fresh ? undefined : historyNextPageToken;
    const query = `status=resolved&pageSize=${HISTORY_PAGE_SIZE}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
    const { status, data } = await api('GET', `/api/questions?${query}`);
    if (status !== 200) {
      showPageError((data && data.message) || 'The history could not be loaded.');
      return;
    }
    const list = byId('history');
    if (fresh) clear(list);
    for (const question of data.questions) {
      const outcome = el('span', { className: 'outcome' }, statusBadge(question.status));
      if (question.resolvedBy) outcome.append(` by ${question.resolvedBy}`);
      if (question.resolvedAt) outcome.append(' · ', timeElement(question.resolvedAt));
      list.append(summaryRow(question, outcome));
    }
    historyNextPageToken = data.nextPageToken;
    counts = { pending: data.counts.pending, resolved: data.counts.resolved };
    renderCounts();
    byId('history-empty').hidden = list.children.length > 0;
    byId('history-more').hidden = !historyNextPageToken;
  }

  // --- One question ---------------------------------------------------------------------------------------

  async function openQuestion(workflowId) {
    shownQuestionId = workflowId;
    showView('question');
    byId('question-title').textContent = 'Loading…';
    clear(byId('question-meta'));
    clear(byId('question-body'));
    const { status, data } = await api('GET', `/api/questions/${encodeURIComponent(workflowId)}`);
    if (shownQuestionId !== workflowId) return;
    if (status !== 200) {
      byId('question-title').textContent = 'Question not available';
      byId('question-body').append(
        el('p', { className: 'error', text: (data && data.message) || `Error ${status}` }),
      );
      focusHeading('question');
      return;
    }
    renderQuestion(data);
    focusHeading('question');
  }

  function metaRow(list, term, value) {
    list.append(el('dt', { text: term }), el('dd', {}, value));
  }

  function renderQuestion(record) {
    const first = record.questions[0];
    byId('question-title').textContent = (first && (first.header || first.question)) || record.workflowId;
    const meta = byId('question-meta');
    clear(meta);
    metaRow(meta, 'Status', statusBadge(record.status));
    if (record.agent) {
      const agent = record.agent.sessionId
        ? `${record.agent.id} (session ${record.agent.sessionId})`
        : record.agent.id;
      metaRow(meta, 'Agent', document.createTextNode(agent));
    }
    metaRow(meta, 'Asked', timeElement(record.askedAt));
    if (record.expiresAt) {
      // An absolute time: the relative form only reads backwards ("5 min ago").
      const deadline = el('time', {
        text: new Date(record.expiresAt).toLocaleString(),
        attributes: { datetime: record.expiresAt, title: record.expiresAt },
      });
      metaRow(meta, record.status === 'pending' ? 'Expires' : 'Deadline', deadline);
    }
    metaRow(meta, 'Id', el('code', { text: record.workflowId }));
    const body = byId('question-body');
    clear(body);
    if (record.status === 'pending') body.append(answerForm(record), deadlineControl(record));
    else body.append(outcomeView(record));
  }

  /** Moves the deadline of a pending question (`POST /api/questions/:id/extend`). */
  function deadlineControl(record) {
    const input = el('input', {
      attributes: {
        type: 'text',
        id: 'deadline-by',
        maxlength: '20',
        autocomplete: 'off',
        placeholder: '2h or -30m',
      },
    });
    const button = el('button', {
      className: 'secondary',
      text: 'Move deadline',
      attributes: { type: 'button' },
    });
    const message = el('p', { className: 'form-message', attributes: { role: 'alert' } });
    const control = el(
      'details',
      { className: 'card deadline' },
      el('summary', { text: record.expiresAt ? 'Change the deadline…' : 'Set a deadline…' }),
      el('label', { attributes: { for: 'deadline-by' }, text: 'Move it by (2h: later, -30m: earlier)' }),
      input,
      button,
      message,
    );
    const change = async () => {
      const by = input.value.trim();
      if (by === '') {
        message.className = 'form-message error';
        message.textContent = 'Enter a duration such as 2h or -30m.';
        return;
      }
      button.disabled = true;
      const path = `/api/questions/${encodeURIComponent(record.workflowId)}`;
      const { status, data } = await api('POST', `${path}/extend`, { by });
      button.disabled = false;
      if (status !== 200) {
        message.className = 'form-message error';
        message.textContent = (data && data.message) || `The server answered ${status}.`;
        return;
      }
      const done = `Deadline moved to ${data.expiresAt} as ${session.name}.`;
      const refreshed = await api('GET', path);
      if (refreshed.status === 200 && shownQuestionId === record.workflowId) {
        renderQuestion(refreshed.data);
        byId('question-body').prepend(
          el('p', { className: 'form-message success', attributes: { role: 'status' }, text: done }),
        );
      }
    };
    button.addEventListener('click', () => void change());
    return control;
  }

  function outcomeView(record) {
    const section = el('div', { className: 'card outcome-view' });
    const when = record.resolvedAt ? ` at ${record.resolvedAt}` : '';
    if (record.status === 'answered') {
      section.append(
        el('p', {
          className: 'notice',
          text: `Answered by ${record.answeredBy || 'an unnamed answerer'}${when}.`,
        }),
      );
      const list = el('dl', { className: 'answers' });
      record.questions.forEach((question, index) => {
        const item = record.answer && record.answer.answers[index];
        let value = '(skipped)';
        if (item && item.custom !== undefined) value = item.custom;
        else if (item && item.selected.length > 0) value = item.selected.join(', ');
        list.append(el('dt', { text: question.header || question.question }), el('dd', { text: value }));
      });
      section.append(list);
    } else if (record.status === 'declined') {
      const reason = record.declineReason ? `: ${record.declineReason}` : '.';
      section.append(
        el('p', {
          className: 'notice',
          text: `Declined by ${record.declinedBy || 'an unnamed answerer'}${when}${reason}`,
        }),
      );
    } else {
      section.append(
        el('p', { className: 'notice', text: `${STATUS_TEXT[record.status] || record.status}${when}.` }),
      );
    }
    for (const question of record.questions) section.append(questionSummary(question));
    return section;
  }

  function questionSummary(question) {
    const block = el('div', { className: 'question-summary' });
    if (question.header) block.append(el('p', { className: 'header', text: question.header }));
    block.append(el('p', { className: 'question-text', text: question.question }));
    return block;
  }

  function optionLabel(option) {
    const recommended = isRecommended(option.label);
    const shown = recommended ? option.label.slice(0, -RECOMMENDED_SUFFIX.length) : option.label;
    const title = el(
      'span',
      { className: 'option-title' },
      el('span', { className: 'option-label', text: shown }),
    );
    if (recommended) title.append(' ', el('span', { className: 'badge', text: 'Recommended' }));
    const parts = [title];
    if (option.description)
      parts.push(el('span', { className: 'option-description', text: option.description }));
    return parts;
  }

  /** One question's fieldset; returns it with a function that reads its answer item. */
  function questionFieldset(question, index) {
    const fieldset = el('fieldset', { className: 'question' });
    fieldset.dataset.questionId = question.id;
    const legend = el('legend');
    if (question.header) legend.append(el('span', { className: 'header', text: question.header }));
    legend.append(el('span', { className: 'question-text', text: question.question }));
    fieldset.append(legend);

    const options = question.options || [];
    const multi = question.multiSelect === true;
    const inputs = [];
    if (options.length > 0) {
      fieldset.append(el('p', { className: 'hint', text: multi ? 'Choose any.' : 'Choose one.' }));
      const group = el('div', { className: 'options' });
      options.forEach((option, optionIndex) => {
        const input = el('input', {
          attributes: {
            type: multi ? 'checkbox' : 'radio',
            name: `q${index}`,
            id: `q${index}-o${optionIndex}`,
          },
        });
        input.value = option.label;
        inputs.push(input);
        const label = el(
          'label',
          { className: 'option', attributes: { for: input.id } },
          ...optionLabel(option),
        );
        group.append(el('div', { className: 'option-row' }, input, label));
      });
      fieldset.append(group);
    }

    const otherId = `q${index}-other`;
    const other = el('input', {
      className: 'other',
      attributes: { type: 'text', id: otherId, maxlength: '10000', autocomplete: 'off' },
    });
    fieldset.append(
      el(
        'div',
        { className: 'other-row' },
        el('label', { attributes: { for: otherId }, text: options.length > 0 ? 'Other' : 'Your answer' }),
        other,
      ),
    );
    const note = el('p', { className: 'skip-note', attributes: { 'aria-live': 'polite' } });
    const skip = el('button', { className: 'secondary skip', text: 'Skip', attributes: { type: 'button' } });
    fieldset.append(el('div', { className: 'question-actions' }, skip, note));

    const isEmpty = () => other.value.trim() === '' && !inputs.some((input) => input.checked);
    const updateNote = () => {
      note.textContent = isEmpty() ? 'No answer given: this question will be skipped.' : '';
    };
    // A free-form answer overrides choices: typing one clears them, and choosing clears it.
    other.addEventListener('input', () => {
      if (other.value.trim() !== '') for (const input of inputs) input.checked = false;
      updateNote();
    });
    for (const input of inputs) {
      input.addEventListener('change', () => {
        if (input.checked) other.value = '';
        updateNote();
      });
    }
    skip.addEventListener('click', () => {
      for (const input of inputs) input.checked = false;
      other.value = '';
      updateNote();
    });
    updateNote();

    const read = () => {
      const custom = other.value.trim() === '' ? undefined : other.value;
      const selected =
        custom === undefined ? inputs.filter((input) => input.checked).map((input) => input.value) : [];
      return custom === undefined ? { id: question.id, selected } : { id: question.id, selected, custom };
    };
    return { fieldset, read };
  }

  function answerForm(record) {
    const form = el('form', { className: 'card answer-form', attributes: { novalidate: '' } });
    const readers = record.questions.map((question, index) => {
      const { fieldset, read } = questionFieldset(question, index);
      form.append(fieldset);
      return read;
    });
    const message = el('p', { className: 'form-message', attributes: { role: 'alert', id: 'form-message' } });
    const submit = el('button', {
      className: 'primary',
      text: 'Submit answer',
      attributes: { type: 'submit' },
    });

    const reason = el('input', { attributes: { type: 'text', id: 'decline-reason', maxlength: '1000' } });
    const declineButton = el('button', {
      className: 'danger',
      text: 'Decline question',
      attributes: { type: 'button' },
    });
    const decline = el(
      'details',
      { className: 'decline' },
      el('summary', { text: 'Decline…' }),
      el('label', { attributes: { for: 'decline-reason' }, text: 'Reason (the agent sees it)' }),
      reason,
      declineButton,
    );
    form.append(el('div', { className: 'form-actions' }, submit, decline), message);

    const settle = async (path, body, done) => {
      submit.disabled = true;
      declineButton.disabled = true;
      message.className = 'form-message';
      message.textContent = 'Sending…';
      const { status, data } = await api('POST', path, body);
      submit.disabled = false;
      declineButton.disabled = false;
      if (status === 200) {
        message.className = 'form-message success';
        message.textContent = done;
        pending = pending.filter((each) => each.workflowId !== record.workflowId);
        renderCounts();
        const refreshed = await api('GET', `/api/questions/${encodeURIComponent(record.workflowId)}`);
        if (refreshed.status === 200 && shownQuestionId === record.workflowId) {
          renderQuestion(refreshed.data);
          const body = byId('question-body');
          body.prepend(
            el('p', { className: 'form-message success', attributes: { role: 'status' }, text: done }),
          );
        }
        return;
      }
      message.className = 'form-message error';
      message.textContent = (data && data.message) || `The server answered ${status}.`;
    };

    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void settle(
        `/api/questions/${encodeURIComponent(record.workflowId)}/answer`,
        { answers: readers.map((read) => read()) },
        `Answer recorded as ${session.name}.`,
      );
    });
    declineButton.addEventListener('click', () => {
      const text = reason.value.trim();
      void settle(
        `/api/questions/${encodeURIComponent(record.workflowId)}/decline`,
        text === '' ? {} : { reason: text },
        `Declined as ${session.name}.`,
      );
    });
    return form;
  }

  // --- Start ----------------------------------------------------------------------------------------------

  async function start() {
    byId('login-form').addEventListener('submit', (event) => void logIn(event));
    byId('logout').addEventListener('click', () => void logOut());
    byId('queue-more').addEventListener('click', () => void loadQueue(true));
    byId('history-more').addEventListener('click', () => void loadHistory(false));
    window.addEventListener('hashchange', route);
    setInterval(refreshTimes, 30_000);

    // A link printed by `ask-user dev` carries the token in the fragment, which is never sent to the server:
    // it fills the login form and is removed from the address bar and history at once.
    if (location.hash.startsWith('#token=')) {
      byId('login-token').value = decodeURIComponent(location.hash.slice('#token='.length));
      history.replaceState(null, '', `${location.pathname}#/`);
    }
    const { status, data } = await api('GET', '/api/session');
    if (status === 200 && data.csrfToken) startSession(data);
    else loggedOut('');
  }

  void start();
})();
