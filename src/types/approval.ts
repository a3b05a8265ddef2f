/**
 * Approvals of tool calls: the call under review, the decisions on it, what they are bound to, and the
 * approvals and rejections given toward the two-person rule.
 *
 * Dependency-free on purpose, like every file of this folder: workflow code runs in Temporal's deterministic
 * sandbox and imports it, so it must never pull in Node built-ins or the Temporal client and worker packages.
 */

import type { AskUserAgent, JsonSchemaObject, QuestionAudience } from './question';

/** The tool call an approval is about: what the reviewer sees and decides on. */
export interface ApprovalSubject {
  /** The tool the agent wants to run. */
  toolName: string;
  /** The arguments the agent wants to run it with: any JSON value. */
  input: unknown;
  /** What the call does, in words, for the reviewer. */
  description?: string;
  /** The tool's input schema: an edited input must satisfy it. */
  inputSchema?: JsonSchemaObject;
  /**
   * What the agent does with an `edit`: runs the tool with the edited input (`run`, also when absent), or denies
   * the call and gives the model the edited input to call again with (`suggest`), where the framework runs a
   * call only with the model's own input (the AI SDK's and the OpenAI Agents SDK's approval flows). Set by the
   * hook that asks, so that whoever decides is told what an edit becomes.
   */
  onEdit?: 'run' | 'suggest';
  /**
   * Who asked for the call: the agent's owner, or the user of its session, as the code wrapping the tool knows
   * them (never the model). A policy's `forbidSelfApproval` refuses this identity's decisions.
   */
  requestedBy?: string;
}

/** One approval given toward a call's `requiredApprovals`: who, when, and what they approved. */
export interface GivenApproval {
  decidedBy: string;
  decidedAt: string;
  /** `edit` when the approver changed the input: every later approval must approve the same input. */
  type: 'approve' | 'edit';
  /** SHA-256 of the canonical JSON of the input approved (the asked input, or the edited one). */
  inputSha256: string;
  /** The edited input, on an `edit`. */
  input?: unknown;
}

/** One rejection given toward a call's `requiredRejections`, when an operator set more than one. */
export interface GivenRejection {
  decidedBy: string;
  decidedAt: string;
  type: 'reject' | 'respond';
  /** A rejection's reason. */
  reason?: string;
  /** A response's text. */
  text?: string;
}

/** What a tool call hands to `UserInteraction.requestApproval()`: keyed, like a question, by its tool call id. */
export interface ApprovalRequest extends ApprovalSubject {
  toolCallId: string;
  /**
   * Who may decide this call, over the policies' audience: set by the code that wraps the tool (a `drop_table`
   * call to the database team), never by the model.
   */
  audience?: QuestionAudience;
  agent?: AskUserAgent;
  signal?: AbortSignal;
}

/** The four decisions, in LangChain's words: run as asked, run with other input, do not run, answer instead. */
export type ApprovalDecisionType = 'approve' | 'edit' | 'reject' | 'respond';

/** Argument of the `decide` update: one decision on a pending approval. */
export interface DecideInput {
  type: ApprovalDecisionType;
  /** `edit` only: the input the tool runs with instead. */
  input?: unknown;
  /** `reject` only, optional: why; the model reads it. */
  reason?: string;
  /** `respond` only: what the model reads in place of the tool's result. */
  text?: string;
  /** Free-form name of whoever decided. */
  decidedBy?: string;
  /** The decider's groups, as the surface that authenticated them knows them: checked against the audience. */
  groups?: string[];
  /** `reject` only, optional: also stop the agent's run (its turn), not only this call. */
  stop?: boolean;
}

/**
 * What a recorded decision is bound to: SHA-256 (hex) of the canonical JSON (RFC 8785) of the input as asked,
 * and of the input the agent may run (`approve`: the asked input; `edit`: the edited one). The hooks run a tool
 * only with input whose hashes match. Absent on decisions recorded before they existed.
 */
export interface DecisionInputHashes {
  requestedInputSha256?: string;
  /** `approve` and `edit` only. */
  inputSha256?: string;
}

/**
 * The standing grant that approved a call with no person (`decidedBy: "grant:<id>"`): its id, who granted it
 * (and their groups, where the surface that authenticated them knows them), when, and until when it covered
 * calls.
 */
export interface ApprovalGrant {
  id: string;
  grantedBy: string;
  /** The granter's groups when they granted: a call's `audience` is checked against them and `grantedBy`. */
  grantedByGroups?: string[];
  grantedAt: string;
  expiresAt: string;
}

/** A decision as recorded, and as the agent receives it. */
export type ApprovalDecision = DecisionInputHashes &
  (
    | { type: 'approve'; decidedBy?: string; decidedAt: string; grant?: ApprovalGrant }
    | { type: 'edit'; input: unknown; decidedBy?: string; decidedAt: string }
    | { type: 'reject'; reason?: string; stop?: boolean; decidedBy?: string; decidedAt: string }
    | { type: 'respond'; text: string; decidedBy?: string; decidedAt: string }
  );
