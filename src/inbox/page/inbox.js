/**
 * The inbox page: login, the live queue of pending questions and approvals, one question's answer form, one
 * approval's decision form (its input as JSON, editable), and the history.
 *
 * Plain browser JavaScript, served as it is (no build step). Every string that comes from a question or an
 * approval (a model wrote it, and it may hold HTML: a tool's name, its description, its input's keys and
 * values) reaches the page through `textContent` or a form control's `value`, never as markup; the server's
 * Content-Security-Policy forbids inline script besides.
 */
'use strict';

(function inbox() {
  const RECOMMENDED_SUFFIX = ' (Recommended)';
  const QUEUE_PAGE_SIZE = 50;
  const HISTORY_PAGE_SIZE = 25;
  /** The start of a refused decision's message; the page shows the reason after it. */
  const BAD_DECISION_PREFIX = 'invalid decision: ';
  /** Who decides an approval at its deadline (`decidedBy`). */
  const POLICY_EXPIRED = 'policy:expired';
  /**
   * The largest table the line diff fills (lines of the original times lines of the edit, once the lines they
   * share at both ends are set aside): beyond it the diff shows every such line as removed, then as added.
   */
  const MAX_DIFF_CELLS = 1_000_000;

  /** `{ name, csrfToken }` once logged in. */
  let session = null;
  /** Pending questions shown in the queue, newest first. */
  let pending = [];
  let queueNextPageToken = undefined;
  /** Whether the queue shows only the questions assigned to the logged-in user. */
  let assignedOnly = false;
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
    if (byId('login-form').hidden) byId('login-sso-link').focus();
    else (byId('login-token').value ? byId('login-name') : byId('login-token')).focus();
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
      if (assignedOnly && !question.assignedToYou) return;
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
    const query = `status=pending${assignedOnly ? '&assigned=me' : ''}&pageSize=${QUEUE_PAGE_SIZE}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
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
    if (question.assignedToYou) meta.append(assignedBadge(), ' ');
    if (question.kind === 'approval') {
      meta.append(kindBadge(), ' ');
      if (question.toolName)
        meta.append(el('code', { className: 'tool-name', text: question.toolName }), ' · ');
    }
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

  /** What an approval's decision is called on the page, and the colour of its badge. */
  const DECISION_TEXT = {
    approve: ['Approved', 'answered'],
    edit: ['Approved with edits', 'answered'],
    reject: ['Denied', 'declined'],
    respond: ['Responded', 'responded'],
  };

  function decisionBadge(type) {
    const [text, look] = DECISION_TEXT[type] || [type, 'pending'];
    const badge = el('span', { className: `status status-${look}`, text });
    badge.dataset.decision = type;
    return badge;
  }

  function assignedBadge() {
    return el('span', { className: 'assigned-badge', text: 'Assigned to you' });
  }

  /** A question's audience in words: `alice, bob · group ops`. */
  function audienceText(audience) {
    const parts = [];
    if (audience.users && audience.users.length > 0) parts.push(audience.users.join(', '));
    if (audience.groups && audience.groups.length > 0) {
      parts.push(`${audience.groups.length === 1 ? 'group' : 'groups'} ${audience.groups.join(', ')}`);
    }
    return parts.join(' · ');
  }

  function kindBadge() {
    return el('span', { className: 'kind-badge', text: 'Approval' });
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
      const badge =
        question.kind === 'approval' && question.decision && question.status === 'answered'
          ? decisionBadge(question.decision)
          : statusBadge(question.status);
      const outcome = el('span', { className: 'outcome' }, badge);
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
    if (record.approval) {
      renderApproval(record);
      return;
    }
    const first = record.questions[0];
    byId('question-title').textContent = (first && (first.header || first.question)) || record.workflowId;
    const meta = byId('question-meta');
    clear(meta);
    metaRow(meta, 'Status', statusBadge(record.status));
    commonMetaRows(meta, record);
    const body = byId('question-body');
    clear(body);
    if (record.status === 'pending') body.append(answerForm(record), deadlineControl(record));
    else body.append(outcomeView(record));
  }

  /** The facts every question and approval shows: agent, when it was asked, its deadline, its id. */
  function commonMetaRows(meta, record) {
    if (record.agent) {
      const agent = record.agent.sessionId
        ? `${record.agent.id} (session ${record.agent.sessionId})`
        : record.agent.id;
      metaRow(meta, 'Agent', document.createTextNode(agent));
    }
    metaRow(meta, 'Asked', timeElement(record.askedAt));
    if (record.audience) {
      const assigned = el('span', { className: 'audience', text: audienceText(record.audience) });
      if (record.assignedToYou) assigned.append(' ', assignedBadge());
      metaRow(meta, 'Assigned to', assigned);
    }
    if (record.expiresAt) {
      // An absolute time: the relative form only reads backwards ("5 min ago").
      const deadline = el('time', {
        text: new Date(record.expiresAt).toLocaleString(),
        attributes: { datetime: record.expiresAt, title: record.expiresAt },
      });
      metaRow(meta, record.status === 'pending' ? 'Expires' : 'Deadline', deadline);
    }
    metaRow(meta, 'Id', el('code', { text: record.workflowId }));
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

  /** After a question was answered or an approval decided here: drop it from the queue, show its outcome. */
  async function showResolved(workflowId, done) {
    pending = pending.filter((each) => each.workflowId !== workflowId);
    renderCounts();
    const refreshed = await api('GET', `/api/questions/${encodeURIComponent(workflowId)}`);
    if (refreshed.status === 200 && shownQuestionId === workflowId) {
      renderQuestion(refreshed.data);
      byId('question-body').prepend(
        el('p', { className: 'form-message success', attributes: { role: 'status' }, text: done }),
      );
    }
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
        await showResolved(record.workflowId, done);
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

  // --- One approval ---------------------------------------------------------------------------------------

  /** JSON as the page shows it: two-space indents; `undefined` (no input at all) as `null`. */
  function prettyJson(value) {
    const text = JSON.stringify(value, null, 2);
    return text === undefined ? 'null' : text;
  }

  /** JSON with every object's keys in order: two inputs that differ only in key order or spacing read equal. */
  function canonicalJson(value) {
    return JSON.stringify(value, (key, inner) =>
      inner !== null && typeof inner === 'object' && !Array.isArray(inner)
        ? Object.fromEntries(
            Object.keys(inner)
              .sort()
              .map((name) => [name, inner[name]]),
          )
        : inner,
    );
  }

  /**
   * A line diff of two texts: `[{ kind: 'same' | 'removed' | 'added', text }]`, in order. The lines both share
   * at the start and the end are set aside first (an edit usually changes a few lines of a long input), and the
   * rest is compared through a longest common subsequence of lines.
   */
  function lineDiff(before, after) {
    const beforeLines = before.split('\n');
    const afterLines = after.split('\n');
    let start = 0;
    while (
      start < beforeLines.length &&
      start < afterLines.length &&
      beforeLines[start] === afterLines[start]
    ) {
      start += 1;
    }
    let beforeEnd = beforeLines.length;
    let afterEnd = afterLines.length;
    while (beforeEnd > start && afterEnd > start && beforeLines[beforeEnd - 1] === afterLines[afterEnd - 1]) {
      beforeEnd -= 1;
      afterEnd -= 1;
    }
    const lines = beforeLines.slice(0, start).map((text) => ({ kind: 'same', text }));
    const removed = beforeLines.slice(start, beforeEnd);
    const added = afterLines.slice(start, afterEnd);
    const width = added.length + 1;
    if (removed.length * added.length > MAX_DIFF_CELLS) {
      for (const text of removed) lines.push({ kind: 'removed', text });
      for (const text of added) lines.push({ kind: 'added', text });
    } else {
      // common[row * width + column]: how many lines removed[row..] and added[column..] have in common, in order.
      const common = new Uint32Array((removed.length + 1) * width);
      for (let row = removed.length - 1; row >= 0; row -= 1) {
        for (let column = added.length - 1; column >= 0; column -= 1) {
          common[row * width + column] =
            removed[row] === added[column]
              ? common[(row + 1) * width + column + 1] + 1
              : Math.max(common[(row + 1) * width + column], common[row * width + column + 1]);
        }
      }
      let row = 0;
      let column = 0;
      while (row < removed.length && column < added.length) {
        if (removed[row] === added[column]) {
          lines.push({ kind: 'same', text: removed[row] });
          row += 1;
          column += 1;
        } else if (common[(row + 1) * width + column] >= common[row * width + column + 1]) {
          lines.push({ kind: 'removed', text: removed[row] });
          row += 1;
        } else {
          lines.push({ kind: 'added', text: added[column] });
          column += 1;
        }
      }
      for (; row < removed.length; row += 1) lines.push({ kind: 'removed', text: removed[row] });
      for (; column < added.length; column += 1) lines.push({ kind: 'added', text: added[column] });
    }
    for (const text of beforeLines.slice(beforeEnd)) lines.push({ kind: 'same', text });
    return lines;
  }

  const DIFF_MARK = { same: '  ', removed: '- ', added: '+ ' };

  /** The diff of the original and the edited input, one line per element, written as text. */
  function diffView(original, edited) {
    const view = el('pre', {
      className: 'json diff',
      attributes: { 'aria-label': 'Input: original and edited' },
    });
    for (const line of lineDiff(prettyJson(original), prettyJson(edited))) {
      const row = el('span', {
        className: `diff-line diff-${line.kind}`,
        text: `${DIFF_MARK[line.kind]}${line.text}`,
      });
      row.dataset.kind = line.kind;
      view.append(row);
    }
    return view;
  }

  function jsonBlock(value, className) {
    return el('pre', { className: `json ${className}`, text: prettyJson(value) });
  }

  function renderApproval(record) {
    const approval = record.approval;
    byId('question-title').textContent = `Approve ${approval.toolName}`;
    const meta = byId('question-meta');
    clear(meta);
    metaRow(
      meta,
      'Status',
      record.decision && record.status === 'answered'
        ? decisionBadge(record.decision.type)
        : statusBadge(record.status),
    );
    metaRow(meta, 'Kind', kindBadge());
    metaRow(meta, 'Tool', el('code', { className: 'tool-name', text: approval.toolName }));
    commonMetaRows(meta, record);
    const body = byId('question-body');
    clear(body);
    if (record.status === 'pending') body.append(approvalForm(record), deadlineControl(record));
    else body.append(approvalOutcome(record));
  }

  /** What the reviewer reads about the call: its description, when it has one. */
  function approvalDescription(approval) {
    return approval.description
      ? el('p', { className: 'approval-description', text: approval.description })
      : null;
  }

  /** Approve (as asked, or with the edited input), deny with a reason, or respond with a text. */
  function approvalForm(record) {
    const approval = record.approval;
    const path = `/api/questions/${encodeURIComponent(record.workflowId)}/decide`;
    const original = prettyJson(approval.input);
    const originalCanonical = canonicalJson(approval.input === undefined ? null : approval.input);
    const form = el('form', { className: 'card approval-form', attributes: { novalidate: '' } });
    const description = approvalDescription(approval);
    if (description) form.append(description);
    form.append(
      el('h2', { className: 'subhead', text: 'Requested input' }),
      jsonBlock(approval.input, 'approval-input'),
    );
    if (approval.inputSchema) {
      form.append(
        el(
          'details',
          { className: 'schema' },
          el('summary', { text: 'Input schema' }),
          jsonBlock(approval.inputSchema, 'approval-schema'),
        ),
      );
    }

    const lineCount = original.split('\n').length;
    const editor = el('textarea', {
      className: 'json-editor',
      attributes: {
        id: 'approval-editor',
        rows: String(Math.min(Math.max(lineCount + 1, 4), 24)),
        spellcheck: 'false',
        autocomplete: 'off',
        autocapitalize: 'off',
        'aria-describedby': 'approval-input-error approval-change',
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
    const reset = el('button', {
      className: 'secondary',
      text: 'Reset input',
      attributes: { type: 'button' },
    });
    form.append(
      el('label', {
        attributes: { for: 'approval-editor' },
        text: 'Input to run with (edit it to approve with other input)',
      }),
      editor,
      inputError,
      el('div', { className: 'editor-actions' }, reset, changeNote),
    );

    const approveButton = el('button', {
      className: 'primary',
      text: 'Approve',
      attributes: { type: 'submit', id: 'approve' },
    });
    const reason = el('input', { attributes: { type: 'text', id: 'deny-reason', maxlength: '10000' } });
    const denyButton = el('button', {
      className: 'danger',
      text: 'Deny',
      attributes: { type: 'button', id: 'deny' },
    });
    const deny = el(
      'details',
      { className: 'decline deny' },
      el('summary', { text: 'Deny…' }),
      el('label', { attributes: { for: 'deny-reason' }, text: 'Reason (optional; the agent reads it)' }),
      reason,
      denyButton,
    );
    const responseText = el('textarea', {
      attributes: { id: 'respond-text', rows: '3', maxlength: '10000' },
    });
    const respondButton = el('button', {
      className: 'secondary',
      text: 'Send response',
      attributes: { type: 'button', id: 'respond' },
    });
    const respond = el(
      'details',
      { className: 'respond' },
      el('summary', { text: 'Respond instead…' }),
      el('label', {
        attributes: { for: 'respond-text' },
        text: "Text the agent reads in place of the tool's result (the tool does not run)",
      }),
      responseText,
      respondButton,
    );
    const message = el('p', { className: 'form-message', attributes: { role: 'alert', id: 'form-message' } });
    form.append(el('div', { className: 'form-actions' }, approveButton, deny, respond), message);

    /** The editor's JSON, or why it is not JSON. */
    const readEditor = () => {
      try {
        return { ok: true, value: JSON.parse(editor.value) };
      } catch (error) {
        return { ok: false, reason: error.message };
      }
    };
    const showInputError = (text) => {
      inputError.textContent = text;
      if (text === '') editor.removeAttribute('aria-invalid');
      else editor.setAttribute('aria-invalid', 'true');
    };
    // Checked as it is typed, so a stray comma shows before anything is sent.
    const onEdit = () => {
      const read = readEditor();
      if (!read.ok) {
        showInputError(`Not valid JSON: ${read.reason}`);
        changeNote.textContent = '';
        approveButton.textContent = 'Approve';
        return;
      }
      showInputError('');
      const changed = canonicalJson(read.value) !== originalCanonical;
      approveButton.textContent = changed ? 'Approve with edits' : 'Approve';
      changeNote.textContent = changed ? 'Edited: Approve runs the tool with this input instead.' : '';
    };
    editor.addEventListener('input', onEdit);
    reset.addEventListener('click', () => {
      editor.value = original;
      onEdit();
    });

    const buttons = [approveButton, denyButton, respondButton, reset];
    const send = async (decision, done) => {
      for (const button of buttons) button.disabled = true;
      message.className = 'form-message';
      message.textContent = 'Sending…';
      const { status, data } = await api('POST', path, decision);
      for (const button of buttons) button.disabled = false;
      if (status === 200) {
        message.className = 'form-message success';
        message.textContent = done;
        await showResolved(record.workflowId, done);
        return;
      }
      const text = (data && data.message) || `The server answered ${status}.`;
      if (status === 400 && data && data.rule === 'edited-input') {
        // The input schema's verdict belongs beside the editor, with the path it names.
        message.textContent = '';
        showInputError(`The server refused this input: ${text.replace(BAD_DECISION_PREFIX, '')}`);
        editor.focus();
        return;
      }
      message.className = 'form-message error';
      message.textContent = text.startsWith(BAD_DECISION_PREFIX)
        ? text.slice(BAD_DECISION_PREFIX.length)
        : text;
    };

    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const read = readEditor();
      if (!read.ok) {
        showInputError(`Not valid JSON: ${read.reason}`);
        editor.focus();
        return;
      }
      if (canonicalJson(read.value) === originalCanonical) {
        void send({ type: 'approve' }, `Approved as ${session.name}.`);
      } else {
        void send({ type: 'edit', input: read.value }, `Approved with the edited input as ${session.name}.`);
      }
    });
    denyButton.addEventListener('click', () => {
      const text = reason.value.trim();
      void send(
        text === '' ? { type: 'reject' } : { type: 'reject', reason: text },
        `Denied as ${session.name}.`,
      );
    });
    respondButton.addEventListener('click', () => {
      if (responseText.value.trim() === '') {
        message.className = 'form-message error';
        message.textContent = 'Write the text the agent reads instead of the result.';
        responseText.focus();
        return;
      }
      void send({ type: 'respond', text: responseText.value }, `Response sent as ${session.name}.`);
    });
    return form;
  }

  /** Who took a decision, as a sentence reads it. */
  function deciderName(decision) {
    if (decision.decidedBy === POLICY_EXPIRED) return 'its policy';
    return decision.decidedBy || 'an unnamed reviewer';
  }

  function decisionSentence(record) {
    const decision = record.decision;
    const when = record.resolvedAt ? ` at ${record.resolvedAt}` : '';
    if (!decision) return `${STATUS_TEXT[record.status] || record.status}${when}.`;
    const by = `by ${deciderName(decision)} at ${decision.decidedAt}`;
    const prefix = record.status === 'expired' ? `Expired${when}: ` : '';
    switch (decision.type) {
      case 'approve':
        return `${prefix}Approved ${by}.`;
      case 'edit':
        return `${prefix}Approved with an edited input ${by}.`;
      case 'reject':
        return `${prefix}Denied ${by}${decision.reason ? `: ${decision.reason}` : '.'}`;
      case 'respond':
        return `${prefix}Answered with a response ${by}.`;
      default:
        return `${prefix}Decided (${decision.type}) ${by}.`;
    }
  }

  /** A decided approval: the decision with who and when, and the input (as a diff for an edit). */
  function approvalOutcome(record) {
    const approval = record.approval;
    const decision = record.decision;
    const section = el('div', { className: 'card outcome-view approval-outcome' });
    section.append(el('p', { className: 'notice', text: decisionSentence(record) }));
    if (decision && decision.type === 'respond') {
      section.append(
        el('h2', { className: 'subhead', text: 'Response' }),
        el('p', { className: 'response-text', text: decision.text }),
      );
    }
    const description = approvalDescription(approval);
    if (description) section.append(description);
    if (decision && decision.type === 'edit') {
      section.append(
        el('h2', { className: 'subhead', text: 'Input: original (-) and edited (+)' }),
        diffView(approval.input, decision.input),
      );
    } else {
      section.append(
        el('h2', { className: 'subhead', text: 'Input' }),
        jsonBlock(approval.input, 'approval-input'),
      );
    }
    return section;
  }

  // --- Start ----------------------------------------------------------------------------------------------

  async function start() {
    byId('login-form').addEventListener('submit', (event) => void logIn(event));
    byId('logout').addEventListener('click', () => void logOut());
    byId('queue-more').addEventListener('click', () => void loadQueue(true));
    byId('queue-assigned').addEventListener('change', (event) => {
      assignedOnly = event.target.checked;
      void loadQueue();
    });
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
    else {
      await showLoginMethods();
      loggedOut('');
    }
  }

  /** Shows the single sign-on link and the token form as the server offers them. */
  async function showLoginMethods() {
    const { status, data } = await api('GET', '/api/login');
    const methods = status === 200 && Array.isArray(data.methods) ? data.methods : ['token'];
    byId('login-sso').hidden = !methods.includes('sso');
    byId('login-form').hidden = !methods.includes('token');
  }

  void start();
})();
