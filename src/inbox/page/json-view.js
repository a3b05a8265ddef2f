// @ts-check
/**
 * An approval's input as the page shows it: pretty JSON, compared without regard to key order or spacing, and
 * the line diff of an original and an edited input (the `diff` package's array diff over their lines).
 */
import { el } from './dom.js';
import { diffArrays } from './vendor/diff/lib/diff/array.js';

/**
 * The most lines an edit may change (removed plus added) for the diff to pair them up; past it the view shows
 * the whole original as removed and the whole edit as added, rather than keep the page busy.
 */
const MAX_CHANGED_LINES = 2000;

/** @typedef {'same' | 'removed' | 'added'} LineKind */

/** @type {Record<LineKind, string>} */
const DIFF_MARK = { same: '  ', removed: '- ', added: '+ ' };

/**
 * JSON as the page shows it: two-space indents; `undefined` (no input at all) as `null`.
 * @param {unknown} value
 */
export function prettyJson(value) {
  return JSON.stringify(value, null, 2) ?? 'null';
}

/**
 * JSON with every object's keys in order: two inputs that differ only in key order or spacing read equal.
 * @param {unknown} value
 */
export function canonicalJson(value) {
  return JSON.stringify(value, (_key, inner) =>
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
 * @param {unknown} value
 * @param {string} className
 */
export function jsonBlock(value, className) {
  return el('pre', { className: `json ${className}`, text: prettyJson(value) });
}

/**
 * The lines of `before` and `after`, in order, each marked as shared, removed or added.
 * @param {string} before
 * @param {string} after
 * @returns {{ kind: LineKind, text: string }[]}
 */
function lineDiff(before, after) {
  const beforeLines = before.split('\n');
  const afterLines = after.split('\n');
  const changes = diffArrays(beforeLines, afterLines, { maxEditLength: MAX_CHANGED_LINES }) ?? [
    { value: beforeLines, added: false, removed: true, count: beforeLines.length },
    { value: afterLines, added: true, removed: false, count: afterLines.length },
  ];
  return changes.flatMap((change) => {
    /** @type {LineKind} */
    const kind = change.added ? 'added' : change.removed ? 'removed' : 'same';
    return change.value.map((text) => ({ kind, text }));
  });
}

/**
 * The diff of the original and the edited input, one line per element, written as text.
 * @param {unknown} original
 * @param {unknown} edited
 */
export function diffView(original, edited) {
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
