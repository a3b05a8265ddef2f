/**
 * When an AG-UI run pauses: the agent's tool calls that ask a person wait durably in Temporal, and the run ends
 * once every tool call still in flight is such a wait. The run's stream is then aborted, and the waits are
 * reported as interrupts; the questions stay pending, since the tools are never handed the run's abort signal
 * (see `RunInteraction`).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { QuestionClient } from '../ops';
import type {
  ApprovalRequest,
  AskUserAgent,
  AskUserQuestionRequest,
  QuestionRecord,
  UserInteraction,
} from '../types';
import { QuestionOperationError } from '../interaction/question-operation-error';
import { questionWorkflowId } from '../question/workflow-id';

/** A question or approval of the run that waits for a person. */
export interface PausedCall {
  workflowId: string;
  toolCallId: string;
  record: QuestionRecord;
}

/** The tool calls of one run in flight, those of them that wait for a person, and the abort that ends the run. */
export class RunPauses {
  private readonly inFlight = new Set<string>();
  private readonly waiting = new Map<string, PausedCall>();
  private readonly controller = new AbortController();
  /** Settles when the run pauses: every tool call in flight waits for a person. */
  readonly paused: Promise<void>;

  constructor() {
    this.paused = new Promise((resolve) => this.controller.signal.addEventListener('abort', () => resolve()));
  }

  /** Aborted when the run pauses, or when `stop()` ends it. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get isPaused(): boolean {
    return this.controller.signal.aborted && this.waiting.size > 0;
  }

  /** The waits the run paused on, in the order they were asked. */
  get calls(): PausedCall[] {
    return [...this.waiting.values()];
  }

  started(toolCallId: string): void {
    this.inFlight.add(toolCallId);
    this.check();
  }

  settled(toolCallId: string): void {
    this.inFlight.delete(toolCallId);
    this.waiting.delete(toolCallId);
    this.check();
  }

  wait(call: PausedCall): void {
    this.waiting.set(call.toolCallId, call);
    this.check();
  }

  /** Ends the run without pausing it (the front end went away). */
  stop(): void {
    this.controller.abort();
  }

  /**
   * A wait is seen by the wrapped provider before, or after, the stream reports its tool call: the run pauses
   * only once both sides agree that every call in flight waits.
   */
  private check(): void {
    if (this.waiting.size === 0 || this.controller.signal.aborted) return;
    const all = [...this.inFlight].every((id) => this.waiting.has(id));
    const seen = [...this.waiting.keys()].every((id) => this.inFlight.has(id));
    if (all && seen) this.controller.abort();
  }
}

/** How often a question just asked is looked for until its workflow answers as pending. */
const STARTED_POLL_MS = 100;

/**
 * The provider the run's tools ask through: every question and approval is keyed by the helper's agent and the
 * AG-UI thread (`ask-user-question/<agent>/<thread>/<tool call id>`), its abort signal is dropped (the run's
 * end must not withdraw it), and once its workflow answers as pending the run is told it waits.
 */
export class RunInteraction implements UserInteraction {
  constructor(
    private readonly inner: Required<UserInteraction>,
    private readonly questions: Pick<QuestionClient, 'get'>,
    private readonly agent: AskUserAgent,
    private readonly pauses: RunPauses,
  ) {}

  ask(request: AskUserQuestionRequest): ReturnType<UserInteraction['ask']> {
    return this.through(request, (keyed) => this.inner.ask(keyed));
  }

  requestApproval(request: ApprovalRequest): ReturnType<Required<UserInteraction>['requestApproval']> {
    return this.through(request, (keyed) => this.inner.requestApproval(keyed));
  }

  private async through<R extends { agent?: AskUserAgent; toolCallId?: string; signal?: AbortSignal }, T>(
    request: R,
    call: (keyed: R) => Promise<T>,
  ): Promise<T> {
    const { signal: _runSignal, ...rest } = request;
    const keyed = { ...rest, agent: this.agent } as R;
    const outcome = call(keyed);
    const { toolCallId } = request;
    if (toolCallId === undefined || toolCallId === '') return await outcome;
    const workflowId = questionWorkflowId(keyed, randomUUID);
    const record = await this.pendingRecord(workflowId, outcome).catch((error: unknown) => {
      outcome.catch(() => undefined);
      throw error;
    });
    if (record !== undefined) this.pauses.wait({ workflowId, toolCallId, record });
    return await outcome;
  }

  /** The question's record once it is pending; `undefined` when it resolved first (its outcome comes at once). */
  private async pendingRecord(
    workflowId: string,
    outcome: Promise<unknown>,
  ): Promise<QuestionRecord | undefined> {
    let settled = false;
    const done = outcome.then(
      () => (settled = true),
      () => (settled = true),
    );
    while (!settled) {
      const record = await this.questions.get(workflowId).catch((error: unknown) => {
        if (QuestionOperationError.isInstance(error) && error.code === 'NOT_FOUND') return undefined;
        throw error;
      });
      if (record !== undefined) return record.status === 'pending' ? record : undefined;
      await Promise.race([delay(STARTED_POLL_MS), done]);
    }
    return undefined;
  }
}
