/**
 * Ended page sessions, as every inbox replica sees them. A sealed cookie cannot be taken back, so a logout (or a
 * new login from the same browser) leaves a record that every replica reads before it honours a cookie.
 *
 * The record lives in Temporal, which every replica already shares, so replicas need no other store: a workflow
 * `ask-user-inbox-logout/<session id>` started with a start delay longer than its execution timeout, which is
 * set to the session's remaining life. No task of it is ever dispatched (no worker runs it, none is needed),
 * and Temporal closes it as timed out once the cookie has expired anyway. A cookie is honoured only after
 * Temporal says there is no such record: one describe per request made with a cookie (bearer tokens skip it).
 * When Temporal cannot be reached, cookies are refused rather than trusted.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';

/** Where ended sessions are recorded: every replica of an inbox must read the same one. */
export interface SessionRevocations {
  /** Records that the session `sessionId`, whose cookie lasts until `expiresAt`, has ended. */
  revoke(sessionId: string, expiresAt: number): Promise<void>;
  /** Whether `sessionId` has ended. */
  isRevoked(sessionId: string): Promise<boolean>;
}

/** The workflow type of a logout record; no worker registers it. */
export const SESSION_ENDED_WORKFLOW_TYPE = 'askUserInboxSessionEnded';
/** The task queue named by the records; nothing polls it, and no task ever reaches it. */
export const SESSION_ENDED_TASK_QUEUE = 'ask-user-inbox-sessions';
/** How long one Temporal call of a session check may take before the request is refused. */
const CALL_TIMEOUT_MS = 5_000;
/** Most ended sessions remembered in one process; beyond it the oldest are asked of Temporal again. */
const MAX_REMEMBERED = 10_000;

/** The workflow id of the record of `sessionId`. */
export function sessionEndedWorkflowId(sessionId: string): string {
  return `ask-user-inbox-logout/${sessionId}`;
}

/**
 * {@link SessionRevocations} in the Temporal namespace of `client`.
 *
 * @example
 * const revocations = new TemporalSessionRevocations(client);
 * await revocations.revoke(session.id, session.expiresAt);
 * await revocations.isRevoked(session.id); // true, on every replica
 */
export class TemporalSessionRevocations implements SessionRevocations {
  /** Sessions known to have ended: an end is final, so it is never asked again. */
  private readonly ended = new Set<string>();

  constructor(private readonly client: Client) {}

  async revoke(sessionId: string, expiresAt: number, now = Date.now()): Promise<void> {
    this.remember(sessionId);
    const lifeMs = Math.max(1_000, expiresAt - now);
    try {
      await this.client.withDeadline(Date.now() + CALL_TIMEOUT_MS, () =>
        this.client.workflow.start(SESSION_ENDED_WORKFLOW_TYPE, {
          workflowId: sessionEndedWorkflowId(sessionId),
          taskQueue: SESSION_ENDED_TASK_QUEUE,
          args: [],
          // The delay outlasts the timeout: the record closes before a task of it could be dispatched.
          workflowExecutionTimeout: lifeMs,
          startDelay: lifeMs + 60 * 60_000,
          memo: { note: 'an ask-user inbox logout: its session cookie is refused until it expires' },
        }),
      );
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  async isRevoked(sessionId: string): Promise<boolean> {
    if (this.ended.has(sessionId)) return true;
    try {
      await this.client.withDeadline(Date.now() + CALL_TIMEOUT_MS, () =>
        this.client.workflow.getHandle(sessionEndedWorkflowId(sessionId)).describe(),
      );
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
    this.remember(sessionId);
    return true;
  }

  private remember(sessionId: string): void {
    while (this.ended.size >= MAX_REMEMBERED) this.ended.delete(this.ended.values().next().value!);
    this.ended.add(sessionId);
  }
}
