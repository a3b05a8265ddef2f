/**
 * Who may answer a question or decide an approval: its `audience` (users and groups), set by an operator's
 * policy or by the provider, never by the model. One rule for every surface: the workflow's validators apply it
 * to each answer, decline and decision (so the inbox, Slack, the CLI, MCP and the stock Temporal CLI are held to
 * the same rule), and surfaces use {@link inAudience} to show "assigned to you".
 *
 * The answerer's name and groups are what the surface that authenticated them says (an SSO login's ID token,
 * a per-user token, a Slack user); a surface without authentication (the stock CLI) can claim any name, as it
 * can claim any `answeredBy` today, so the audience orders work and is not a substitute for access to Temporal.
 *
 * Workflow-safe: no Node built-ins.
 */
import { isPlainObject } from '../common';
import type { QuestionAudience } from '../types';

/** Most users, and most groups, one audience may name. */
export const MAX_AUDIENCE_ENTRIES = 100;
/** Longest user or group name. */
export const MAX_AUDIENCE_NAME_LENGTH = 200;
/** Most groups one answer may carry. */
export const MAX_ANSWERER_GROUPS = 200;

/** Where a name list or an audience breaks the rules, and how. */
export interface AudienceProblem {
  /** The field, e.g. `audience.users[2]`. */
  path: string;
  reason: string;
}

/** A list of names: its problem, if any. */
function namesProblem(value: unknown, path: string, most: number): AudienceProblem | undefined {
  if (!Array.isArray(value)) return { path, reason: 'must be a list of names' };
  if (value.length > most) return { path, reason: `at most ${most} names` };
  for (const [index, name] of value.entries()) {
    const at = `${path}[${index}]`;
    if (typeof name !== 'string' || name.trim() === '')
      return { path: at, reason: 'must be a non-blank string' };
    if (name.length > MAX_AUDIENCE_NAME_LENGTH) {
      return { path: at, reason: `at most ${MAX_AUDIENCE_NAME_LENGTH} characters` };
    }
  }
  return undefined;
}

/**
 * Checks an audience as an operator wrote it: `{ users?, groups? }`, lists of non-blank names, at least one
 * name in all. Returns the audience (names trimmed, duplicates dropped), or where and why it is refused.
 */
export function checkAudience(
  value: unknown,
  path = 'audience',
): { ok: true; audience: QuestionAudience } | ({ ok: false } & AudienceProblem) {
  if (!isPlainObject(value)) return { ok: false, path, reason: 'must be an object with users and/or groups' };
  for (const field of Object.keys(value)) {
    if (field !== 'users' && field !== 'groups') {
      return { ok: false, path: `${path}.${field}`, reason: 'unknown field (known: users, groups)' };
    }
  }
  const audience: QuestionAudience = {};
  for (const field of ['users', 'groups'] as const) {
    if (value[field] === undefined) continue;
    const problem = namesProblem(value[field], `${path}.${field}`, MAX_AUDIENCE_ENTRIES);
    if (problem !== undefined) return { ok: false, ...problem };
    audience[field] = [...new Set((value[field] as string[]).map((name) => name.trim()))];
  }
  if ((audience.users?.length ?? 0) + (audience.groups?.length ?? 0) === 0) {
    return { ok: false, path, reason: 'must name at least one user or group' };
  }
  return { ok: true, audience };
}

/**
 * Reads the answerer's `groups` from an answer, decline or decision (`path` names it): absent, or a list of
 * names. Returns the groups, or the reason the field is refused.
 */
export function answererGroups(
  input: unknown,
  path: string,
): { ok: true; groups: string[] } | { ok: false; reason: string } {
  const value = isPlainObject(input) ? input.groups : undefined;
  if (value === undefined || value === null) return { ok: true, groups: [] };
  const problem = namesProblem(value, `${path}.groups`, MAX_ANSWERER_GROUPS);
  return problem === undefined
    ? { ok: true, groups: value as string[] }
    : { ok: false, reason: `${problem.path}: ${problem.reason}` };
}

/** True when `name`, or one of `groups`, is in the audience; always true with no audience. */
export function inAudience(
  audience: QuestionAudience | undefined,
  name: string | undefined,
  groups: readonly string[] = [],
): boolean {
  if (audience === undefined) return true;
  if (name !== undefined && (audience.users ?? []).includes(name.trim())) return true;
  return groups.some((group) => (audience.groups ?? []).includes(group.trim()));
}

/** The audience in words: `users alice, bob and groups ops`. */
export function audienceWords(audience: QuestionAudience): string {
  const parts: string[] = [];
  if ((audience.users?.length ?? 0) > 0) parts.push(`users ${audience.users!.join(', ')}`);
  if ((audience.groups?.length ?? 0) > 0) parts.push(`groups ${audience.groups!.join(', ')}`);
  return parts.join(' and ');
}

/**
 * Why an answerer outside the audience is refused, or `undefined` when they may answer. `act` is what they
 * tried (`answer`, `decline`, `decide`).
 */
export function audienceRefusal(
  audience: QuestionAudience | undefined,
  name: string | undefined,
  groups: readonly string[],
  act: string,
): string | undefined {
  if (inAudience(audience, name, groups)) return undefined;
  const who = name === undefined ? 'an unnamed answerer' : JSON.stringify(name);
  const their = groups.length === 0 ? 'no groups' : `groups ${groups.join(', ')}`;
  return `${who} (${their}) may not ${act} this: it is assigned to ${audienceWords(audience!)}`;
}
