/**
 * The operator's grant policy: how long a standing grant may last (`maxExpireAfter`) and which tools may not be
 * granted at all (`forbidTools`, `"*"` for every tool). Set on the worker (`createAskUserWorker({ grants })`,
 * or `ASK_USER_GRANT_POLICY` as JSON of the same form); the grants workflow reads it through the `grantPolicy`
 * local activity at each grant, so the check is the workflow's and is in its history.
 *
 * Workflow-safe and dependency-free.
 */
import { errorText, isPlainObject } from '../common';
import { UserInteractionError } from '../interaction/user-interaction-error';
import type { PolicyDuration } from '../types';
import { DURATION_REASON, MAX_POLICY_DURATION_MS, parseDuration } from './question-policy';

/** The operator's grant policy, as set. */
export interface GrantPolicy {
  /** The longest a grant may last, counted from when it is made. Default {@link DEFAULT_MAX_GRANT_MS}. */
  maxExpireAfter?: PolicyDuration;
  /** Tools no grant may cover; `"*"` forbids grants altogether. */
  forbidTools?: string[];
}

/** The grant policy as the workflow reads it. */
export interface ResolvedGrantPolicy {
  maxExpireAfterMs: number;
  forbidTools: string[];
}

/** A grant lasts at most this long when the operator set no `maxExpireAfter`: 30 days. */
export const DEFAULT_MAX_GRANT_MS = 30 * 86_400_000;

/** Every tool, in `forbidTools`. */
export const ALL_TOOLS = '*';

/**
 * Checks a grant policy and resolves it.
 *
 * @param owner where it was set, for the message (`ASK_USER_GRANT_POLICY`, `createAskUserWorker option grants`)
 * @throws UserInteractionError `INVALID_OPTIONS` naming the field and the reason
 */
export function resolveGrantPolicy(value: unknown, owner: string): ResolvedGrantPolicy {
  const fail = (field: string, reason: string) =>
    UserInteractionError.invalidSetting(`${owner}: ${field}: ${reason}`);
  if (value === undefined) return { maxExpireAfterMs: DEFAULT_MAX_GRANT_MS, forbidTools: [] };
  if (!isPlainObject(value)) throw fail('grants', 'must be an object with maxExpireAfter and forbidTools');
  for (const field of Object.keys(value)) {
    if (field !== 'maxExpireAfter' && field !== 'forbidTools') throw fail(field, 'unknown field');
  }
  let maxExpireAfterMs = DEFAULT_MAX_GRANT_MS;
  if (value.maxExpireAfter !== undefined) {
    const parsed = parseDuration(value.maxExpireAfter);
    if (parsed === undefined || parsed <= 0) throw fail('maxExpireAfter', DURATION_REASON);
    if (parsed > MAX_POLICY_DURATION_MS) throw fail('maxExpireAfter', 'must be at most 365d');
    maxExpireAfterMs = parsed;
  }
  const forbidTools = value.forbidTools ?? [];
  if (
    !Array.isArray(forbidTools) ||
    !forbidTools.every((tool): tool is string => typeof tool === 'string' && tool !== '')
  ) {
    throw fail('forbidTools', 'must be an array of tool names (or "*")');
  }
  return { maxExpireAfterMs, forbidTools };
}

/** `ASK_USER_GRANT_POLICY` (JSON of {@link GrantPolicy}), resolved; the defaults when unset. */
export function grantPolicyFromEnv(env: Record<string, string | undefined>): ResolvedGrantPolicy {
  const text = env.ASK_USER_GRANT_POLICY?.trim();
  if (text === undefined || text === '') return resolveGrantPolicy(undefined, 'ASK_USER_GRANT_POLICY');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw UserInteractionError.invalidSetting(
      `ASK_USER_GRANT_POLICY: not valid JSON: ${errorText(error)}`,
      error,
    );
  }
  return resolveGrantPolicy(parsed, 'ASK_USER_GRANT_POLICY');
}
