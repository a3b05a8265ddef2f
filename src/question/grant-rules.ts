/**
 * The rules of a standing grant, written once for the grants workflow's validator and the ops surfaces that
 * check a request before sending it: what a grant request must hold (a tool, a required expiry, who grants it,
 * an optional input schema or exact input, an optional session, the granter's groups), and which calls a grant
 * covers.
 *
 * Input matching is the decision rules' own: `@cfworker/json-schema` for a schema (it interprets the schema, so
 * the check runs in the workflow sandbox without generated code), canonical JSON for exact input.
 *
 * Deterministic and workflow-safe.
 */
import { definedFields, isPlainObject } from '../common';
import type { JsonSchemaObject } from '../types';
import { answererGroups } from '../answer/audience-rules';
import { schemaProblem } from '../answer/decision-rules';
import { sameJson } from '../answer/input-hash';
import { jsonByteLength } from '../answer/json-size';
import { DURATION_REASON, POLICY_ANSWERER_PREFIX, parseDuration } from './question-policy';
import { MAX_WORKFLOW_ID_LENGTH } from './workflow-id';
import {
  GRANT_DECIDER_PREFIX,
  grantStatus,
  grantsWorkflowId,
  type CoverCallInput,
  type GrantRequest,
  type RevokeGrantInput,
  type StandingGrant,
} from './grant-definitions';

/** The most a grant's input schema or exact input may take, as JSON: it is kept in the workflow's state. */
export const MAX_GRANT_SCOPE_BYTES = 64 * 1024;

/** The longest note, id or name a grant keeps. */
const MAX_TEXT_LENGTH = 1_000;

const REQUEST_FIELDS: readonly string[] = [
  'agentId',
  'toolName',
  'inputSchema',
  'input',
  'sessionId',
  'expireAfter',
  'expiresAt',
  'grantedBy',
  'grantedByGroups',
  'note',
  'grantedWith',
];

/** A checked grant request, and the expiry it asks for (epoch milliseconds). */
export interface CheckedGrant {
  request: GrantRequest;
  expiresAtMs: number;
}

/** A refused request: `<field>: <reason>`. */
export class GrantProblem extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'GrantProblem';
  }
}

/** Whether `name` is one only a grant or a policy may decide under. */
export function isReservedDecider(name: string): boolean {
  return name.startsWith(GRANT_DECIDER_PREFIX) || name.startsWith(POLICY_ANSWERER_PREFIX);
}

function text(raw: Record<string, unknown>, field: string, required: boolean): string | undefined {
  const value = raw[field];
  if (value === undefined || value === null) {
    if (required) throw new GrantProblem(field, 'required');
    return undefined;
  }
  if (typeof value !== 'string' || value.trim() === '')
    throw new GrantProblem(field, 'must be a non-empty string');
  if (value.length > MAX_TEXT_LENGTH)
    throw new GrantProblem(field, `must be at most ${MAX_TEXT_LENGTH} characters`);
  return value;
}

/**
 * The granter's groups: absent, or a list of names under the limits a decision's `groups` has (the same
 * check). The path of a refused entry is the request's (`grantedByGroups[2]`).
 */
function granterGroups(raw: Record<string, unknown>): string[] | undefined {
  if (raw.grantedByGroups === undefined || raw.grantedByGroups === null) return undefined;
  const checked = answererGroups({ groups: raw.grantedByGroups }, 'grant');
  if (checked.ok) return checked.groups;
  const [path = '', ...reason] = checked.reason.split(': ');
  throw new GrantProblem(path.replace(/^grant\.groups/, 'grantedByGroups'), reason.join(': '));
}

/** The expiry a request asks for, in epoch milliseconds: exactly one of `expireAfter` and `expiresAt`. */
function expiryOf(raw: Record<string, unknown>, nowMs: number): number {
  const { expireAfter, expiresAt } = raw;
  if (expireAfter !== undefined && expiresAt !== undefined)
    throw new GrantProblem('expiresAt', 'give expireAfter or expiresAt, not both');
  if (expireAfter !== undefined) {
    const ms = parseDuration(expireAfter);
    if (ms === undefined || ms <= 0) throw new GrantProblem('expireAfter', DURATION_REASON);
    return nowMs + ms;
  }
  if (expiresAt === undefined)
    throw new GrantProblem(
      'expiresAt',
      'a grant needs an expiry: give expireAfter (such as 8h) or expiresAt',
    );
  const at = typeof expiresAt === 'string' ? Date.parse(expiresAt) : Number.NaN;
  if (Number.isNaN(at)) throw new GrantProblem('expiresAt', 'must be an ISO-8601 timestamp');
  if (at <= nowMs) throw new GrantProblem('expiresAt', 'must be in the future');
  return at;
}

/** The input scope: an object schema that can be used, or exact input that is JSON; not both. */
function checkScope(raw: Record<string, unknown>): void {
  const { inputSchema, input } = raw;
  if (inputSchema !== undefined && input !== undefined)
    throw new GrantProblem('input', 'give inputSchema or input, not both');
  for (const [field, value] of [
    ['inputSchema', inputSchema],
    ['input', input],
  ] as const) {
    if (value === undefined) continue;
    const bytes = jsonByteLength(value);
    if (bytes === undefined) throw new GrantProblem(field, 'must be a JSON value');
    if (bytes > MAX_GRANT_SCOPE_BYTES)
      throw new GrantProblem(field, `must be at most ${MAX_GRANT_SCOPE_BYTES} bytes of JSON`);
  }
  if (inputSchema === undefined) return;
  if (!isPlainObject(inputSchema)) throw new GrantProblem('inputSchema', 'must be a JSON Schema object');
  const unusable = schemaProblem(inputSchema, null);
  if (unusable?.startsWith('inputSchema:') === true)
    throw new GrantProblem('inputSchema', unusable.slice(13));
}

/**
 * Checks a grant request made at `nowMs`.
 *
 * @throws GrantProblem naming the field and the reason
 */
export function checkGrantRequest(raw: unknown, nowMs: number): CheckedGrant {
  if (!isPlainObject(raw)) throw new GrantProblem('grant', 'must be an object');
  for (const field of Object.keys(raw)) {
    if (!REQUEST_FIELDS.includes(field) && raw[field] !== undefined)
      throw new GrantProblem(field, 'unknown field');
  }
  const agentId = text(raw, 'agentId', true)!;
  const toolName = text(raw, 'toolName', true)!;
  const grantedBy = text(raw, 'grantedBy', true)!;
  const workflowId = grantsWorkflowId(agentId);
  if (workflowId.length > MAX_WORKFLOW_ID_LENGTH)
    throw new GrantProblem(
      'agentId',
      `the grants workflow id would be ${workflowId.length} characters, over the server's ${MAX_WORKFLOW_ID_LENGTH}`,
    );
  if (isReservedDecider(grantedBy))
    throw new GrantProblem(
      'grantedBy',
      `names starting with "${GRANT_DECIDER_PREFIX}" or "${POLICY_ANSWERER_PREFIX}" are reserved`,
    );
  checkScope(raw);
  const expiresAtMs = expiryOf(raw, nowMs);
  const request: GrantRequest = {
    agentId,
    toolName,
    ...definedFields({
      inputSchema: raw.inputSchema as JsonSchemaObject | undefined,
      input: raw.input,
      sessionId: text(raw, 'sessionId', false),
      expireAfter: raw.expireAfter as string | number | undefined,
      expiresAt: raw.expiresAt as string | undefined,
    }),
    grantedBy,
    ...definedFields({
      grantedByGroups: granterGroups(raw),
      note: text(raw, 'note', false),
      grantedWith: text(raw, 'grantedWith', false),
    }),
  };
  return { request, expiresAtMs };
}

/**
 * Checks a revoke request.
 *
 * @throws GrantProblem naming the field and the reason
 */
export function checkRevokeRequest(raw: unknown): RevokeGrantInput {
  if (!isPlainObject(raw)) throw new GrantProblem('revoke', 'must be an object with id and revokedBy');
  const id = text(raw, 'id', true)!;
  const revokedBy = text(raw, 'revokedBy', true)!;
  if (isReservedDecider(revokedBy))
    throw new GrantProblem(
      'revokedBy',
      `names starting with "${GRANT_DECIDER_PREFIX}" or "${POLICY_ANSWERER_PREFIX}" are reserved`,
    );
  return { id, revokedBy };
}

/** Whether `grant` covers `call` at `nowMs`: active, the same tool and session, and input in its scope. */
export function grantCovers(grant: StandingGrant, call: CoverCallInput, nowMs: number): boolean {
  if (grantStatus(grant, nowMs) !== 'active' || grant.toolName !== call.toolName) return false;
  if (grant.sessionId !== undefined && grant.sessionId !== call.sessionId) return false;
  try {
    if (grant.input !== undefined) return sameJson(grant.input, call.input);
    if (grant.inputSchema !== undefined) return schemaProblem(grant.inputSchema, call.input) === undefined;
  } catch {
    // Input that is no JSON value matches no scope.
    return false;
  }
  return true;
}
