/**
 * Standing grants on the wire: the grants workflow's type, its id per agent, its updates and query, and the
 * shapes they carry. One grants workflow per agent (`ask-user-grants/<agent id>`) holds that agent's grants in
 * its state: the provider's coverage check is an update on it, so a grant revoked or expired a moment ago covers
 * nothing (a visibility listing could lag; the workflow's state cannot).
 *
 * Workflow-safe (imports only `@temporalio/workflow` definitions and the shared types).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApprovalGrant, JsonSchemaObject } from '../types';
import { encodeIdComponent } from './workflow-id';

/** Workflow type of an agent's grants. */
export const GRANTS_WORKFLOW_TYPE = 'askUserGrantsWorkflow';

/** Every grants workflow's id starts with this prefix; the rest is the agent id, encoded. */
export const GRANTS_WORKFLOW_ID_PREFIX = 'ask-user-grants/';

/** `decidedBy` of an approval a grant gave is this prefix and the grant's id; no person may use it. */
export const GRANT_DECIDER_PREFIX = 'grant:';

/** What a decider asks for: the scope of the grant and its expiry (one of `expireAfter`, `expiresAt`). */
export interface GrantRequest {
  /** The agent whose calls it covers. */
  agentId: string;
  /** The tool it covers. */
  toolName: string;
  /** Only calls whose input matches this JSON Schema. */
  inputSchema?: JsonSchemaObject;
  /** Only calls with exactly this input (the same JSON value, whatever the key order). */
  input?: unknown;
  /** Only calls from this session of the agent. */
  sessionId?: string;
  /** How long it lasts from now: `30m`, `8h`, `7d`, or milliseconds. */
  expireAfter?: string | number;
  /** Until when it lasts, ISO-8601. */
  expiresAt?: string;
  /** Who grants it: a person on an ops surface. */
  grantedBy: string;
  /**
   * The granter's groups, as the surface that authenticated them knows them (the inbox's login): a covered
   * call's `audience` is checked against these and `grantedBy`, as a decision's groups are. Absent: none.
   */
  grantedByGroups?: string[];
  /** Why, in the decider's words. */
  note?: string;
  /** The approval it was granted with ("approve and grant"), a question's workflow id. */
  grantedWith?: string;
}

/** A grant as its workflow holds it. */
export interface StandingGrant {
  id: string;
  agentId: string;
  toolName: string;
  inputSchema?: JsonSchemaObject;
  input?: unknown;
  sessionId?: string;
  grantedBy: string;
  grantedByGroups?: string[];
  grantedAt: string;
  expiresAt: string;
  note?: string;
  grantedWith?: string;
  revokedAt?: string;
  revokedBy?: string;
  /**
   * How many approvals it gave (counted when the approval's workflow recorded the grant's decision, each approval
   * once), and the last one's time and question.
   */
  uses: number;
  lastUsedAt?: string;
  lastUsedBy?: string;
}

/** A grant as a list shows it: its state now. */
export type GrantStatus = 'active' | 'revoked' | 'expired';

/** Argument of the `revokeGrant` update. */
export interface RevokeGrantInput {
  id: string;
  revokedBy: string;
}

/** Argument of the `coverCall` update: the call an approval is about to be asked for. */
export interface CoverCallInput {
  toolName: string;
  input: unknown;
  sessionId?: string;
  /** The approval's workflow id. */
  workflowId: string;
}

/**
 * A use of grant `id` by the approval `workflowId`: counted when `coverCall` finds the grant (at `usedAt`), once
 * per approval however often the call is checked, and taken back by the `grantNotUsed` signal when the approval's
 * workflow did not let the grant decide.
 */
export interface GrantUseInput {
  id: string;
  workflowId: string;
  usedAt: string;
}

/** What the `listGrants` query returns. */
export interface AgentGrants {
  agentId: string;
  grants: StandingGrant[];
}

/** Memo of a grants workflow, so that a visibility listing shows which agents have grants. */
export interface GrantsMemo {
  agentId: string;
  /** Grants neither revoked nor past their expiry when the memo was last written. */
  activeGrants: number;
  /** The latest expiry among them. */
  lastExpiresAt?: string;
}

/** Update `grant`: adds a grant, checked for shape and against the operator's grant policy. */
export const grantUpdate = defineUpdate<StandingGrant, [GrantRequest]>('grant');

/** Update `revokeGrant`: the grant covers nothing from this update on. */
export const revokeGrantUpdate = defineUpdate<StandingGrant, [RevokeGrantInput]>('revokeGrant');

/**
 * Update `coverCall`: the active grant that covers the call, its use counted for the approval's workflow id (once,
 * however often that approval is checked: a re-attach counts nothing more); refused (`NOT_COVERED`, nothing
 * written to the history) when none covers it.
 */
export const coverCallUpdate = defineUpdate<ApprovalGrant, [CoverCallInput]>('coverCall');

/**
 * Signal `grantNotUsed`: from an approval's workflow that was started with the grant but did not let it decide
 * (the policy in force, its expiry, a decision first): the use `coverCall` counted is taken back. The common
 * path, a grant that decides, sends nothing, so it costs no more than the check.
 */
export const grantNotUsedSignal = defineSignal<[GrantUseInput]>('grantNotUsed');

/** Query `listGrants`: every grant the workflow holds (active, and recently revoked or expired). */
export const listGrantsQuery = defineQuery<AgentGrants>('listGrants');

/** The refusal type of a `coverCall` no grant covers. */
export const NOT_COVERED = 'NOT_COVERED';

/** The refusal type of a grant the operator's policy forbids. */
export const GRANT_FORBIDDEN = 'GRANT_FORBIDDEN';

/** The refusal type of a revoke of a grant its agent's workflow does not hold. */
export const GRANT_NOT_FOUND = 'GRANT_NOT_FOUND';

/** The grants workflow id of an agent. */
export function grantsWorkflowId(agentId: string): string {
  return `${GRANTS_WORKFLOW_ID_PREFIX}${encodeIdComponent(agentId)}`;
}

/**
 * The grants workflow that holds grant `grantId`: ids are `<encoded agent id>/<suffix>`, so a revoke needs
 * nothing but the id. `undefined` for an id of another form.
 */
export function grantsWorkflowIdOfGrant(grantId: string): string | undefined {
  const slash = grantId.indexOf('/');
  if (slash <= 0 || slash === grantId.length - 1) return undefined;
  return `${GRANTS_WORKFLOW_ID_PREFIX}${grantId.slice(0, slash)}`;
}

/** A grant's status at `nowMs`. */
export function grantStatus(grant: StandingGrant, nowMs: number): GrantStatus {
  if (grant.revokedAt !== undefined) return 'revoked';
  return Date.parse(grant.expiresAt) > nowMs ? 'active' : 'expired';
}

/** What an approval's record names of the grant that approved it. */
export function approvalGrantOf(grant: StandingGrant): ApprovalGrant {
  const { id, grantedBy, grantedByGroups, grantedAt, expiresAt } = grant;
  return {
    id,
    grantedBy,
    ...(grantedByGroups === undefined ? {} : { grantedByGroups }),
    grantedAt,
    expiresAt,
  };
}
