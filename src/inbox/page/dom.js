// @ts-check
/**
 * The page's DOM helpers. Every string that comes from a question or an approval (a model wrote it, and it may
 * hold HTML: a tool's name, its description, its input's keys and values) reaches the page through
 * `textContent` or a form control's `value`, never as markup (lint refuses the APIs that parse HTML); the
 * server's Content-Security-Policy forbids inline script besides.
 */

/**
 * The page's views, each a `<section id="view-…">` of index.html.
 * @typedef {'login' | 'queue' | 'history' | 'grants' | 'question'} ViewName
 */

/** @type {readonly ViewName[]} */
const VIEWS = ['login', 'queue', 'history', 'grants', 'question'];

/**
 * The navigation's links, by the view each one shows.
 * @type {readonly [string, ViewName][]}
 */
const NAVIGATION = [
  ['nav-pending', 'queue'],
  ['nav-history', 'history'],
  ['nav-grants', 'grants'],
];

/**
 * @typedef {object} ElementOptions
 * @property {string} [className]
 * @property {string} [text] set as text, never parsed as markup
 * @property {Record<string, string>} [attributes]
 */

/**
 * An element of index.html.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no element #${id}`);
  return element;
}

/**
 * An `<input>` of index.html.
 * @param {string} id
 * @returns {HTMLInputElement}
 */
export function inputById(id) {
  const element = byId(id);
  if (!(element instanceof HTMLInputElement)) throw new Error(`#${id} is not an input`);
  return element;
}

/**
 * Creates an element; `text` goes in as text, never as markup. Empty children are skipped.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {ElementOptions} [options]
 * @param {...(Node | string | null | undefined)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, options = {}, ...children) {
  const element = document.createElement(tag);
  if (options.className) element.className = options.className;
  if (options.text !== undefined) element.textContent = options.text;
  for (const [name, value] of Object.entries(options.attributes ?? {})) element.setAttribute(name, value);
  for (const child of children) if (child) element.append(child);
  return element;
}

/**
 * A button, of `type="button"` unless `attributes` say otherwise.
 * @param {string} className
 * @param {string} text
 * @param {Record<string, string>} [attributes]
 */
export function button(className, text, attributes = {}) {
  return el('button', { className, text, attributes: { type: 'button', ...attributes } });
}

/**
 * A folded control (`<details>`): its summary opens a labelled field and what acts on it.
 * @param {{ className: string, summary: string, label: string }} texts
 * @param {HTMLInputElement | HTMLTextAreaElement} field labelled through its id
 * @param {...Node} actions its button, and a message line if it has one
 */
export function foldedControl({ className, summary, label }, field, ...actions) {
  return el(
    'details',
    { className },
    el('summary', { text: summary }),
    el('label', { attributes: { for: field.id }, text: label }),
    field,
    ...actions,
  );
}

/** @param {Element} element */
export function clear(element) {
  element.replaceChildren();
}

/**
 * A form's message line: plain (`form-message`), or marked as an error or a success.
 * @param {HTMLElement} element
 * @param {'' | 'error' | 'success'} look
 * @param {string} text
 */
export function showMessage(element, look, text) {
  element.className = look === '' ? 'form-message' : `form-message ${look}`;
  element.textContent = text;
}

/** @param {string} message empty to hide the page's error line */
export function showPageError(message) {
  const error = byId('page-error');
  error.textContent = message;
  error.hidden = message === '';
}

/** @param {ViewName} name */
export function showView(name) {
  for (const view of VIEWS) byId(`view-${view}`).hidden = view !== name;
  document.body.dataset.view = name;
  for (const [link, view] of NAVIGATION) {
    if (view === name) byId(link).setAttribute('aria-current', 'page');
    else byId(link).removeAttribute('aria-current');
  }
}

/** @param {ViewName} view */
export function focusHeading(view) {
  const heading = byId(`view-${view}`).querySelector('h1');
  if (heading) heading.focus({ preventScroll: false });
}

/** @param {string} iso */
function relativeTime(iso) {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 36) return `${hours} h ago`;
  return `${Math.round(hours / 24)} d ago`;
}

/**
 * A time shown as its age ("5 min ago"), kept current by {@link refreshTimes}; the exact time on hover.
 * @param {string} iso
 */
export function timeElement(iso) {
  const time = el('time', { text: relativeTime(iso), attributes: { datetime: iso, title: iso } });
  time.dataset.relative = 'true';
  return time;
}

export function refreshTimes() {
  for (const time of document.querySelectorAll('time[data-relative]')) {
    const iso = time.getAttribute('datetime');
    if (iso !== null) time.textContent = relativeTime(iso);
  }
}
