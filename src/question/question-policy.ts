/**
 * Question policies: how pending questions are handled over time (deadline and its outcome, reminders,
 * escalation), set by operators on the provider and on the worker, with overrides by agent id. This module
 * checks a policy, turns it into the millisecond form the workflow reads, and merges the places that set one.
 *
 * Workflow-safe and dependency-free: the workflow reads policies, and the child-workflow helper resolves them
 * inside the sandbox.
 */
import { checkAudience } from '../answer/audience-rules';
import { errorText, isPlainObject } from '../common';
import { UserInteractionError } from '../interaction/user-interaction-error';
import type { QuestionPolicies, ResolvedQuestionPolicy } from '../types';
import { parseWebhookTarget } from './webhook-target';

/**
 * Reminders a policy with `remindEvery` and no `maxReminders` sends. The workflow reads it while it runs:
 * changing it changes the timers of questions already pending, so it is part of the workflow's code.
 */
export const DEFAULT_MAX_REMINDERS = 10;

/** The most reminders a policy may ask for: each one adds a timer and a delivery to the question's history. */
export const MAX_REMINDERS_LIMIT = 100;

/** The shortest reminder period: a receiver is not to be flooded. */
export const MIN_REMIND_EVERY_MS = 1_000;

/** The longest duration a policy or a deadline change takes. */
export const MAX_POLICY_DURATION_MS = 365 * 86_400_000;

/** `answeredBy` of an answer the `recommended` expiry gave. */
export const POLICY_EXPIRED_ANSWERER = 'policy:expired';

/** `answeredBy` names starting with this are the policy's; an answerer may not use them. */
export const POLICY_ANSWERER_PREFIX = 'policy:';

const POLICY_FIELDS = [
  'expireAfter',
  'onExpiry',
  'remindEvery',
  'maxReminders',
  'escalateAfter',
  'escalateTo',
  'audience',
  'requiredApprovals',
  'requiredRejections',
  'forbidSelfApproval',
] as const;

/** The most approvals a policy may require of one call: more distinct deciders than a team has on call. */
export const MAX_REQUIRED_APPROVALS = 10;

const MAX_ESCALATION_TARGETS = 20;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * The duration grammar, as the source of a regular expression: amounts with units (`90s`, `1h30m`), with an
 * optional `-` in front. The parser reads text with it, and the inbox API documents it as the pattern of a
 * deadline move, so the document and the parser take the same text.
 */
export const SIGNED_DURATION_PATTERN = '^-?(\\d+(ms|s|m|h|d))+$';

const SIGNED_DURATION_TEXT = new RegExp(SIGNED_DURATION_PATTERN);

/** The reason a duration is refused, with the forms that are taken. */
export const DURATION_REASON =
  'must be a duration such as 90s, 30m, 2h or 1d, or a whole number of milliseconds';

/** A mistake in a policy: where (a dotted path below the policy) and why. */
export class PolicyProblem extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(path === '' ? reason : `${path}: ${reason}`);
    this.name = 'PolicyProblem';
  }
}

/**
 * Reads a duration: a whole number of milliseconds, or text such as `90s`, `1h30m`; with `signed`, text may
 * start with `-` and a number may be negative. Text is read by {@link SIGNED_DURATION_PATTERN} exactly (no
 * blanks around it); text too long for a number reads as `Infinity` (or `-Infinity`), which every bound refuses.
 * Returns `undefined` for anything else.
 *
 * @example
 * parseDuration('1h30m'); // 5_400_000
 * parseDuration('-30m', { signed: true }); // -1_800_000
 */
export function parseDuration(value: unknown, options: { signed?: boolean } = {}): number | undefined {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) return undefined;
    return value < 0 && options.signed !== true ? undefined : value;
  }
  if (typeof value !== 'string' || !SIGNED_DURATION_TEXT.test(value)) return undefined;
  if (value.startsWith('-') && options.signed !== true) return undefined;
  let total = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+)(ms|s|m|h|d)/g)) {
    total += Number(amount) * UNIT_MS[unit!]!;
  }
  // Text of the grammar is a duration, however long: one past what a number holds exactly is too long, and
  // every caller's bound (at most 365d) refuses it as such rather than as not a duration.
  const milliseconds = Number.isSafeInteger(total) ? total : Number.POSITIVE_INFINITY;
  return value.startsWith('-') ? -milliseconds : milliseconds;
}

function join(path: string, field: string): string {
  if (field === '') return path;
  return path === '' ? field : `${path}.${field}`;
}

function positiveDuration(value: unknown, path: string, minimumMs = 1): number {
  const milliseconds = parseDuration(value);
  if (milliseconds === undefined) throw new PolicyProblem(path, DURATION_REASON);
  if (milliseconds < minimumMs) {
    throw new PolicyProblem(path, minimumMs === 1 ? 'must be more than zero' : 'must be at least 1s');
  }
  if (milliseconds > MAX_POLICY_DURATION_MS) throw new PolicyProblem(path, 'must be at most 365d');
  return milliseconds;
}

/** A count of distinct deciders (`requiredApprovals`, `requiredRejections`): a whole number from 1 to 10. */
function deciderCount(value: unknown, path: string, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_REQUIRED_APPROVALS) {
    throw new PolicyProblem(path, `must be a whole number from 1 to ${MAX_REQUIRED_APPROVALS}: ${what}`);
  }
  return value;
}

/** The two-person rule's fields of one level: `requiredApprovals`, `requiredRejections`, `forbidSelfApproval`. */
function deciderRules(value: Record<string, unknown>, path: string, policy: ResolvedQuestionPolicy): void {
  if (value.requiredApprovals !== undefined) {
    const what = 'how many distinct people approve a call';
    policy.requiredApprovals = deciderCount(value.requiredApprovals, join(path, 'requiredApprovals'), what);
  }
  if (value.requiredRejections !== undefined) {
    const what = 'how many distinct people reject a call to deny it';
    policy.requiredRejections = deciderCount(
      value.requiredRejections,
      join(path, 'requiredRejections'),
      what,
    );
  }
  if (value.forbidSelfApproval !== undefined) {
    if (typeof value.forbidSelfApproval !== 'boolean') {
      throw new PolicyProblem(join(path, 'forbidSelfApproval'), 'must be true or false');
    }
    policy.forbidSelfApproval = value.forbidSelfApproval;
  }
}

/** Checks one level of a policy (no `agents`) and converts it; fields it does not set stay absent. */
function resolveLevel(value: unknown, path: string, allowAgents: boolean): ResolvedQuestionPolicy {
  if (!isPlainObject(value)) throw new PolicyProblem(path, 'must be an object');
  const known: readonly string[] = allowAgents ? [...POLICY_FIELDS, 'agents'] : POLICY_FIELDS;
  for (const field of Object.keys(value)) {
    if (!known.includes(field)) {
      throw new PolicyProblem(join(path, field), `unknown field (known: ${known.join(', ')})`);
    }
  }
  const policy: ResolvedQuestionPolicy = {};
  if (value.expireAfter !== undefined) {
    policy.expireAfterMs = positiveDuration(value.expireAfter, join(path, 'expireAfter'));
  }
  if (value.onExpiry !== undefined) {
    if (value.onExpiry !== 'error' && value.onExpiry !== 'recommended' && value.onExpiry !== 'approve') {
      throw new PolicyProblem(join(path, 'onExpiry'), 'must be "error", "recommended" or "approve"');
    }
    policy.onExpiry = value.onExpiry;
  }
  if (value.remindEvery !== undefined) {
    policy.remindEveryMs = positiveDuration(
      value.remindEvery,
      join(path, 'remindEvery'),
      MIN_REMIND_EVERY_MS,
    );
  }
  if (value.maxReminders !== undefined) {
    const count = value.maxReminders;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_REMINDERS_LIMIT) {
      throw new PolicyProblem(
        join(path, 'maxReminders'),
        `must be a whole number from 1 to ${MAX_REMINDERS_LIMIT}`,
      );
    }
    policy.maxReminders = count;
  }
  if (value.escalateAfter !== undefined) {
    policy.escalateAfterMs = positiveDuration(value.escalateAfter, join(path, 'escalateAfter'));
  }
  if (value.escalateTo !== undefined) {
    const targets = value.escalateTo;
    const targetsPath = join(path, 'escalateTo');
    if (!Array.isArray(targets) || targets.length === 0 || targets.length > MAX_ESCALATION_TARGETS) {
      throw new PolicyProblem(targetsPath, `must be a list of 1 to ${MAX_ESCALATION_TARGETS} webhook URLs`);
    }
    targets.forEach((target, index) => {
      const read = parseWebhookTarget(target);
      if (!read.ok) throw new PolicyProblem(`${targetsPath}[${index}]`, read.reason);
    });
    policy.escalateTo = [...(targets as string[])];
  }
  if (value.audience !== undefined) {
    const checked = checkAudience(value.audience, join(path, 'audience'));
    if (!checked.ok) throw new PolicyProblem(checked.path, checked.reason);
    policy.audience = checked.audience;
  }
  deciderRules(value, path, policy);
  return policy;
}

/**
 * Merges policies, later ones winning field by field; `undefined` entries are skipped.
 *
 * @example
 * mergePolicies(workerPolicy, askerPolicy); // the asker's fields win
 */
export function mergePolicies(...levels: (ResolvedQuestionPolicy | undefined)[]): ResolvedQuestionPolicy {
  const merged: ResolvedQuestionPolicy = {};
  for (const level of levels) {
    if (level === undefined) continue;
    for (const [field, value] of Object.entries(level)) {
      if (value !== undefined) (merged as Record<string, unknown>)[field] = value;
    }
  }
  return merged;
}

/** True when the policy sets nothing. */
export function isEmptyPolicy(policy: ResolvedQuestionPolicy | undefined): boolean {
  return policy === undefined || Object.keys(policy).length === 0;
}

/** A checked set of policies: the one for every question and the per-agent overrides, already merged. */
export interface CheckedPolicies {
  /** The policy of an agent with no entry of its own. */
  readonly base: ResolvedQuestionPolicy;
  /** Each listed agent's policy, its entry merged over `base`. */
  readonly agents: ReadonlyMap<string, ResolvedQuestionPolicy>;
}

/** A merged policy must be whole: an escalation needs somewhere to go. */
function checkWhole(policy: ResolvedQuestionPolicy, path: string): void {
  if (policy.escalateAfterMs !== undefined && policy.escalateTo === undefined) {
    throw new PolicyProblem(
      join(path, 'escalateTo'),
      'is needed with escalateAfter: the URLs that get the escalation',
    );
  }
}

/**
 * Checks policies as an operator wrote them and merges each agent's entry over the rest.
 *
 * @throws PolicyProblem naming the field (`agents["deploy-bot"].remindEvery`) and the reason
 */
export function checkPolicies(value: unknown): CheckedPolicies {
  const base = resolveLevel(value, '', true);
  checkWhole(base, '');
  const agents = new Map<string, ResolvedQuestionPolicy>();
  const entries = (value as QuestionPolicies).agents;
  if (entries !== undefined) {
    if (!isPlainObject(entries)) throw new PolicyProblem('agents', 'must be an object keyed by agent id');
    for (const [agentId, entry] of Object.entries(entries)) {
      const path = `agents[${JSON.stringify(agentId)}]`;
      const merged = mergePolicies(base, resolveLevel(entry, path, false));
      checkWhole(merged, path);
      agents.set(agentId, merged);
    }
  }
  return { base, agents };
}

/**
 * Checks policies for a provider, worker or client option.
 *
 * @throws UserInteractionError `INVALID_OPTIONS`: `<owner> option <name>.<field>: <reason>`
 */
export function checkPoliciesOption(value: unknown, owner: string, name = 'policy'): CheckedPolicies {
  try {
    return checkPolicies(value);
  } catch (error) {
    if (!(error instanceof PolicyProblem)) throw error;
    throw UserInteractionError.invalidOptions(owner, join(name, error.path), error.reason);
  }
}

/** The policy that applies to one agent's questions; `undefined` when it sets nothing. */
export function policyFor(
  policies: CheckedPolicies | undefined,
  agentId: string | undefined,
): ResolvedQuestionPolicy | undefined {
  if (policies === undefined) return undefined;
  const policy = (agentId === undefined ? undefined : policies.agents.get(agentId)) ?? policies.base;
  return isEmptyPolicy(policy) ? undefined : policy;
}

/**
 * Reads `ASK_USER_POLICY`: the worker's policies as JSON, in the same form as the `policy` option, e.g.
 * `{"expireAfter":"2h","onExpiry":"recommended","agents":{"deploy-bot":{"remindEvery":"15m"}}}`.
 *
 * @throws Error naming `ASK_USER_POLICY`, the field and the reason
 */
export function policyFromEnv(env: Record<string, string | undefined>): QuestionPolicies | undefined {
  const text = env.ASK_USER_POLICY?.trim();
  if (text === undefined || text === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw UserInteractionError.invalidSetting(`ASK_USER_POLICY: not valid JSON: ${errorText(error)}`, error);
  }
  try {
    checkPolicies(parsed);
  } catch (error) {
    if (error instanceof PolicyProblem) {
      throw UserInteractionError.invalidSetting(`ASK_USER_POLICY: ${error.message}`, error);
    }
    throw error;
  }
  return parsed as QuestionPolicies;
}

/**
 * What the worker hands a question as it starts, through the `webhookTargets` local activity: its webhook URLs
 * and the policy its operator set for the question's agent, if any.
 */
export interface WorkerQuestionDefaults {
  webhookUrls: string[];
  policy?: ResolvedQuestionPolicy;
}
