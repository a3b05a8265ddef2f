/**
 * `GrantState`: one agent's standing grants, as a plain class the grants workflow wires its handlers to. It
 * checks grant and revoke requests, finds the grant that covers a call at a given time, and bounds what it
 * keeps. Pure and deterministic (every time is passed in).
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { definedFields, isPlainObject } from '../common';
import { ALREADY_RESOLVED, INVALID_ARGS, refusal } from '../question/failures';
import {
  GRANT_FORBIDDEN,
  GRANT_NOT_FOUND,
  NOT_COVERED,
  grantStatus,
  type AgentGrants,
  type CoverCallInput,
  type GrantUseInput,
  type GrantsMemo,
  type RevokeGrantInput,
  type StandingGrant,
} from '../question/grant-definitions';
import { ALL_TOOLS, type ResolvedGrantPolicy } from '../question/grant-policy';
import {
  GrantProblem,
  checkGrantRequest,
  checkRevokeRequest,
  grantCovers,
  type CheckedGrant,
} from '../question/grant-rules';
import type { ResolvedQuestionPolicy } from '../types';
import { grantDecisionRefusal } from '../answer/two-person-rule';
import { formatDuration } from './question-schedule';

/** Active grants one agent may hold: each is checked against every approval the agent asks for. */
export const MAX_ACTIVE_GRANTS = 200;

/** Revoked and expired grants kept for the list, most recent first; older ones are in the history. */
export const MAX_ENDED_GRANTS = 100;

/**
 * The approvals whose use is remembered, most recent last, so that a call checked again (the agent re-attaching
 * to its approval) counts once, and a use taken back (`grantNotUsed`) is found: the latest grant uses.
 */
export const MAX_COUNTED_APPROVALS = 1_000;

/** The refusal of a request that breaks a grant rule: `INVALID_ARGS`, naming the field. */
function invalidGrant(error: unknown): unknown {
  return error instanceof GrantProblem ? refusal(INVALID_ARGS, `invalid grant: ${error.message}`) : error;
}

/**
 * Why the operator's policy refuses a grant of `toolName` lasting `lastsMs` (naming the field and the setting),
 * or `undefined`.
 */
export function grantPolicyRefusal(
  policy: ResolvedGrantPolicy,
  toolName: string,
  lastsMs: number,
): string | undefined {
  if (policy.forbidTools.includes(ALL_TOOLS))
    return `toolName: the operator's grant policy forbids grants of every tool (forbidTools: "*")`;
  if (policy.forbidTools.includes(toolName))
    return `toolName: the operator's grant policy forbids grants of ${JSON.stringify(toolName)} (forbidTools)`;
  if (lastsMs > policy.maxExpireAfterMs) {
    const asked = formatDuration(Math.ceil(lastsMs / 1000) * 1000);
    return `expiresAt: the grant would last ${asked}, longer than the operator's maxExpireAfter of ${formatDuration(policy.maxExpireAfterMs)}`;
  }
  return undefined;
}

/** One agent's grants. */
export class GrantState {
  private readonly grants: StandingGrant[];
  /** The approvals whose use was counted, oldest first (at most {@link MAX_COUNTED_APPROVALS}). */
  private readonly counted: string[];

  constructor(
    readonly agentId: string,
    grants: readonly StandingGrant[] = [],
    counted: readonly string[] = [],
  ) {
    this.grants = [...grants];
    this.counted = counted.slice(-MAX_COUNTED_APPROVALS);
  }

  /**
   * The `grant` validator: the request's shape, for this agent, within the count of active grants.
   *
   * @throws ApplicationFailure `INVALID_ARGS` naming the field
   */
  checkGrant(raw: unknown, nowMs: number): CheckedGrant {
    let checked: CheckedGrant;
    try {
      checked = checkGrantRequest(raw, nowMs);
    } catch (error) {
      throw invalidGrant(error);
    }
    this.checkRoom(checked, nowMs);
    return checked;
  }

  /**
   * What can change between the validator and the add (the handler awaits the policies meanwhile, and other
   * grants' handlers may add first): the agent, the count of active grants, an expiry still ahead.
   */
  private checkRoom({ request, expiresAtMs }: CheckedGrant, nowMs: number): void {
    if (request.agentId !== this.agentId) {
      throw refusal(
        INVALID_ARGS,
        `invalid grant: agentId: these are the grants of ${JSON.stringify(this.agentId)}`,
      );
    }
    if (this.active(nowMs).length >= MAX_ACTIVE_GRANTS) {
      throw refusal(
        INVALID_ARGS,
        `invalid grant: agentId: the agent holds ${MAX_ACTIVE_GRANTS} active grants, the most it may`,
      );
    }
    if (expiresAtMs <= nowMs) {
      throw refusal(
        INVALID_ARGS,
        `invalid grant: expiresAt: ${new Date(expiresAtMs).toISOString()} passed while the grant was checked; it must be in the future`,
      );
    }
  }

  /**
   * Adds a checked grant, unless the operator's grant policy, or the worker's question policy for the agent
   * (`workerPolicy`, under the two-person rule), refuses it. The validator's checks run again at `nowMs`: the
   * grant is added only if they still hold.
   *
   * @throws ApplicationFailure `GRANT_FORBIDDEN` naming the field and the policy's setting; `INVALID_ARGS` naming
   *   the field when the agent holds the most active grants by now, or the expiry has passed
   */
  add(
    checked: CheckedGrant,
    policy: ResolvedGrantPolicy,
    id: string,
    nowMs: number,
    workerPolicy?: ResolvedQuestionPolicy,
  ): StandingGrant {
    this.checkRoom(checked, nowMs);
    const { request, expiresAtMs } = checked;
    const refused =
      grantPolicyRefusal(policy, request.toolName, expiresAtMs - nowMs) ??
      grantDecisionRefusal(workerPolicy ?? {});
    if (refused !== undefined) {
      throw ApplicationFailure.create({
        type: GRANT_FORBIDDEN,
        message: `grant refused: ${refused}`,
        nonRetryable: true,
      });
    }
    const grant: StandingGrant = {
      id,
      agentId: this.agentId,
      toolName: request.toolName,
      ...definedFields({
        inputSchema: request.inputSchema,
        input: request.input,
        sessionId: request.sessionId,
      }),
      grantedBy: request.grantedBy,
      ...definedFields({ grantedByGroups: request.grantedByGroups }),
      grantedAt: new Date(nowMs).toISOString(),
      expiresAt: new Date(expiresAtMs).toISOString(),
      ...definedFields({ note: request.note, grantedWith: request.grantedWith }),
      uses: 0,
    };
    this.grants.push(grant);
    return grant;
  }

  /** Whether a grant has this id (ids are drawn at random; a repeat is drawn again). */
  has(id: string): boolean {
    return this.grants.some((grant) => grant.id === id);
  }

  /**
   * The `revokeGrant` validator: a grant of this agent that still covers calls.
   *
   * @throws ApplicationFailure `INVALID_ARGS` naming the field; `ALREADY_RESOLVED` naming who revoked it and when,
   *   or when it expired
   */
  checkRevoke(raw: unknown, nowMs: number): { grant: StandingGrant; input: RevokeGrantInput } {
    let input: RevokeGrantInput;
    try {
      input = checkRevokeRequest(raw);
    } catch (error) {
      throw invalidGrant(error);
    }
    const grant = this.grants.find((one) => one.id === input.id);
    if (grant === undefined) {
      throw ApplicationFailure.create({
        type: GRANT_NOT_FOUND,
        message: `no grant with id ${JSON.stringify(input.id)} among those of ${JSON.stringify(this.agentId)}`,
        nonRetryable: true,
      });
    }
    const status = grantStatus(grant, nowMs);
    if (status === 'revoked')
      throw refusal(
        ALREADY_RESOLVED,
        `grant ${grant.id} was already revoked by ${grant.revokedBy} at ${grant.revokedAt}`,
      );
    if (status === 'expired')
      throw refusal(ALREADY_RESOLVED, `grant ${grant.id} already expired at ${grant.expiresAt}`);
    return { grant, input };
  }

  /** Revokes a checked grant: it covers nothing from now on. */
  revoke(grant: StandingGrant, input: RevokeGrantInput, nowMs: number): StandingGrant {
    grant.revokedAt = new Date(nowMs).toISOString();
    grant.revokedBy = input.revokedBy;
    return grant;
  }

  /**
   * The `coverCall` validator: the active grant that covers the call (the earliest granted), else a
   * `NOT_COVERED` refusal, which writes nothing to the history.
   */
  covering(raw: unknown, nowMs: number): { grant: StandingGrant; call: CoverCallInput } {
    if (!isPlainObject(raw) || typeof raw.toolName !== 'string' || typeof raw.workflowId !== 'string') {
      throw refusal(
        INVALID_ARGS,
        'invalid arguments: coverCall: must be { toolName, input, sessionId?, workflowId }',
      );
    }
    const call = raw as unknown as CoverCallInput;
    const grant = this.grants.find((one) => grantCovers(one, call, nowMs));
    if (grant === undefined) {
      throw ApplicationFailure.create({
        type: NOT_COVERED,
        message: 'no active grant covers the call',
        nonRetryable: true,
      });
    }
    return { grant, call };
  }

  /**
   * Counts a use of the grant by an approval, as `coverCall` found it; once per approval. Returns whether it
   * counted: not for an approval counted before, or a grant this workflow no longer holds.
   */
  recordUse(use: GrantUseInput): boolean {
    const grant = this.grants.find((one) => one.id === use.id);
    if (grant === undefined || this.counted.includes(use.workflowId)) return false;
    this.counted.push(use.workflowId);
    if (this.counted.length > MAX_COUNTED_APPROVALS) this.counted.shift();
    grant.uses += 1;
    grant.lastUsedAt = use.usedAt;
    grant.lastUsedBy = use.workflowId;
    return true;
  }

  /**
   * Takes back the use an approval was counted for when its workflow did not let the grant decide
   * (`grantNotUsed`). Returns whether it did: not for an approval never counted (or counted too long ago to be
   * remembered), or input of another shape (a signal cannot refuse its sender). The grant's last use is then
   * unknown (`lastUsedAt` and `lastUsedBy` removed) when it was this approval.
   */
  takeBackUse(raw: unknown): boolean {
    if (!isPlainObject(raw)) return false;
    const { id, workflowId } = raw as Partial<GrantUseInput>;
    if (typeof id !== 'string' || typeof workflowId !== 'string') return false;
    const grant = this.grants.find((one) => one.id === id);
    const at = this.counted.indexOf(workflowId);
    if (grant === undefined || at < 0) return false;
    this.counted.splice(at, 1);
    grant.uses = Math.max(0, grant.uses - 1);
    if (grant.lastUsedBy === workflowId) {
      delete grant.lastUsedAt;
      delete grant.lastUsedBy;
    }
    return true;
  }

  /** The approvals counted, for a run that continues as new. */
  countedApprovals(): string[] {
    return [...this.counted];
  }

  /** What the `listGrants` query returns. */
  list(): AgentGrants {
    return { agentId: this.agentId, grants: this.grants.map((grant) => ({ ...grant })) };
  }

  /** The memo a visibility listing shows. */
  memo(nowMs: number): GrantsMemo {
    const active = this.active(nowMs);
    const last = active
      .map((grant) => grant.expiresAt)
      .sort()
      .at(-1);
    return { agentId: this.agentId, activeGrants: active.length, ...definedFields({ lastExpiresAt: last }) };
  }

  /** What a run that continues as new takes over: the active grants and the most recently ended ones. */
  kept(nowMs: number): StandingGrant[] {
    const ended = this.grants
      .filter((grant) => grantStatus(grant, nowMs) !== 'active')
      .sort((a, b) => endOf(b).localeCompare(endOf(a)))
      .slice(0, MAX_ENDED_GRANTS);
    return this.grants.filter((grant) => grantStatus(grant, nowMs) === 'active' || ended.includes(grant));
  }

  private active(nowMs: number): StandingGrant[] {
    return this.grants.filter((grant) => grantStatus(grant, nowMs) === 'active');
  }
}

/** When a grant stopped covering calls. */
function endOf(grant: StandingGrant): string {
  return grant.revokedAt ?? grant.expiresAt;
}
