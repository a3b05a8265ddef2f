/**
 * One run of the agent for one A2A task, seen as a sequence of stops: it waits for a question or an approval
 * (each stop names the question's workflow id), then for the next, until it is done or failed.
 *
 * The agent asks through {@link AgentRun.userInteraction}, which keys every question and approval by the task:
 * agent `{ id: agentId, sessionId: taskId }` and the tool call id, so the workflow id is
 * `ask-user-question/<agentId>/<taskId>/<toolCallId>`. A run started again for the same task (after a restart)
 * re-attaches to the same questions, and gets an answer recorded meanwhile at once.
 */
import { randomUUID } from 'node:crypto';
import { UserInteractionError } from '../interaction/user-interaction-error';
import { questionWorkflowId } from '../question/workflow-id';
import type {
  ApprovalDecision,
  ApprovalRequest,
  AskUserAgent,
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  UserInteraction,
} from '../types';
import type { WaitingInput } from './a2a-parts';

/** Where a run stands without its number: waiting for input, or ended. */
export type RunPoint =
  | { kind: 'waiting'; waiting: WaitingInput }
  | { kind: 'done'; text: string }
  | { kind: 'failed'; error: unknown };

/** A stop of a run: `seq` counts the stops of the run from 1. */
export type RunStop = RunPoint & { seq: number };

/** Runs the agent for a task: its questions and approvals go through `userInteraction`, keyed by `agent`. */
export type AgentRunner = (
  userInteraction: UserInteraction,
  agent: AskUserAgent,
  signal: AbortSignal,
) => Promise<string>;

/** The run of one task's agent, and the stops it reaches. */
export class AgentRun {
  private last: RunStop | undefined;
  /** Whether the run is at `last` now (an answered question moves it on until the next stop). */
  private atLast = false;
  private readonly listeners = new Set<(stop: RunStop) => void>();
  private readonly stopper = new AbortController();
  readonly agent: AskUserAgent;
  /** The seam the agent asks through: the provider's, keyed by the task, reporting each wait as a stop. */
  readonly userInteraction: UserInteraction;

  /**
   * `started(questionId, signal)` resolves once the question's workflow exists (its start is on its way when
   * the agent's call begins): a wait is shown to the client only then, so that a reply, or a restart, always
   * finds the question it names.
   */
  constructor(
    agentId: string,
    taskId: string,
    provider: UserInteraction,
    runner: AgentRunner,
    private readonly started: (questionId: string, signal: AbortSignal) => Promise<void>,
  ) {
    this.agent = { id: agentId, sessionId: taskId };
    this.userInteraction = {
      ask: (request) => this.ask(provider, request),
      ...(provider.requestApproval === undefined
        ? {}
        : { requestApproval: (request: ApprovalRequest) => this.requestApproval(provider, request) }),
    };
    // Started on the next tick, so that whoever started the run listens before its first stop.
    void Promise.resolve()
      .then(() => runner(this.userInteraction, this.agent, this.stopper.signal))
      .then(
        (text) => this.reach({ kind: 'done', text }),
        (error: unknown) => this.reach({ kind: 'failed', error }),
      );
  }

  /** Calls `listener` with every stop from now on; returns its removal. */
  onStop(listener: (stop: RunStop) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The stop the run is at now, if it is at one. */
  current(): RunStop | undefined {
    return this.atLast ? this.last : undefined;
  }

  /** The stop the run is at now, or the next one it reaches. */
  async settled(): Promise<RunStop> {
    return this.current() ?? (await this.after(this.last?.seq ?? 0));
  }

  /** The first stop after stop `seq` (at once when the run is already past it). */
  after(seq: number): Promise<RunStop> {
    const last = this.last;
    // A stop past `seq` was published when it was reached, even if the run has moved on since.
    if (last !== undefined && last.seq > seq) return Promise.resolve(last);
    return new Promise((resolve) => {
      const remove = this.onStop((stop) => {
        if (stop.seq <= seq) return;
        remove();
        resolve(stop);
      });
    });
  }

  /** Whether the run has ended (done or failed). */
  ended(): boolean {
    return this.last !== undefined && this.last.kind !== 'waiting';
  }

  /** Stops the run: its waiting question or approval is withdrawn (the provider cancels it). */
  stop(): void {
    this.stopper.abort(new Error('the A2A task was cancelled'));
  }

  private reach(point: RunPoint): void {
    if (this.ended()) return;
    const reached: RunStop = { ...point, seq: (this.last?.seq ?? 0) + 1 };
    this.last = reached;
    this.atLast = true;
    for (const listener of [...this.listeners]) listener(reached);
  }

  private async ask(
    provider: UserInteraction,
    request: AskUserQuestionRequest,
  ): Promise<AskUserQuestionAnswer> {
    const keyed = this.keyed(request);
    const questionId = questionWorkflowId(keyed, randomUUID);
    return await this.waitFor({ kind: 'question', questionId, questions: request.questions }, () =>
      provider.ask(keyed),
    );
  }

  private async requestApproval(
    provider: UserInteraction,
    request: ApprovalRequest,
  ): Promise<ApprovalDecision> {
    const keyed = this.keyed(request);
    const questionId = questionWorkflowId(keyed, randomUUID);
    const { toolName, input, description, inputSchema, onEdit } = request;
    const approval = {
      toolName,
      input,
      ...(description === undefined ? {} : { description }),
      ...(inputSchema === undefined ? {} : { inputSchema }),
      ...(onEdit === undefined ? {} : { onEdit }),
    };
    return await this.waitFor({ kind: 'approval', questionId, approval }, () =>
      provider.requestApproval!(keyed),
    );
  }

  /** The request keyed by this task, with the run's stop joined to its signal. */
  private keyed<Request extends { toolCallId?: string; agent?: AskUserAgent; signal?: AbortSignal }>(
    request: Request,
  ): Request {
    if (request.toolCallId === undefined || request.toolCallId === '') {
      // Without it the question's id would be random, and a restarted run could not find its question again.
      throw UserInteractionError.invalidArgs([
        'toolCallId: an A2A task keys its questions by the tool call id; pass the call id to execute()',
      ]);
    }
    const signal =
      request.signal === undefined
        ? this.stopper.signal
        : AbortSignal.any([request.signal, this.stopper.signal]);
    return { ...request, agent: this.agent, signal };
  }

  /** Waits for the provider's answer; the wait is a stop once the question exists, unless it settled first. */
  private async waitFor<T>(waiting: WaitingInput, wait: () => Promise<T>): Promise<T> {
    const asked = wait();
    const probe = new AbortController();
    const settled = asked.then(
      () => false,
      () => false,
    );
    const exists = this.started(waiting.questionId, probe.signal).then(() => true);
    try {
      if (await Promise.race([settled, exists])) this.reach({ kind: 'waiting', waiting });
      return await asked;
    } finally {
      probe.abort();
      this.atLast = false;
    }
  }
}
