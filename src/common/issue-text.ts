/**
 * One wording for a validation problem, `field: reason`, whichever validator found it (zod, a Standard
 * Schema, a JSON Schema). Imports nothing.
 */

/** A path segment as validators report it: a key, or a Standard Schema segment object. */
export type PathSegment = PropertyKey | { readonly key: PropertyKey };

/** `['questions', 0, 'options', 1, 'label']` becomes `questions[0].options[1].label`. */
export function formatPath(path: readonly PathSegment[]): string {
  let text = '';
  for (const entry of path) {
    const segment = typeof entry === 'object' ? entry.key : entry;
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

/** The fields of a validation issue this module reads: zod's `$ZodIssue` and Standard Schema issues fit. */
export interface ValidationIssue {
  readonly message: string;
  readonly path?: readonly PathSegment[] | undefined;
  readonly code?: string;
  readonly keys?: readonly string[];
}

/**
 * One issue as `path: reason` (the reason alone at the root). Unknown keys (zod's `unrecognized_keys`) are
 * named one by one. `prefix` is put before every path, e.g. `['input']` for a tool's edited input.
 */
export function issueText(issue: ValidationIssue, prefix: readonly PathSegment[] = []): string {
  const path = formatPath([...prefix, ...(issue.path ?? [])]);
  if (issue.code === 'unrecognized_keys' && issue.keys !== undefined) {
    return issue.keys
      .map((key) => `${path === '' ? '' : `${path}.`}${key}: not a field of this request`)
      .join('; ');
  }
  return path === '' ? issue.message : `${path}: ${issue.message}`;
}

/**
 * The first `limit` issues as texts, with `and N more` when some were left out, so a wildly wrong input does not
 * flood a model's context or an error page.
 */
export function issueTexts(
  issues: readonly ValidationIssue[],
  limit = Number.POSITIVE_INFINITY,
  prefix: readonly PathSegment[] = [],
): string[] {
  const texts = issues.slice(0, limit).map((issue) => issueText(issue, prefix));
  const hidden = issues.length - texts.length;
  if (hidden > 0) texts.push(`and ${hidden} more`);
  return texts;
}
