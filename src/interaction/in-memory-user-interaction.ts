/**
 * A provider that keeps pending questions in process memory. For tests and single-process tools: nothing
 * survives a restart (that is what `TemporalUserInteraction` is for). Answers pass the same answer rules as
 * every other entry point.
 */
import { checkAnswer } from '../answer/answer-rules';
import { recordedDecision } from '../answer/decision-binding';
import { checkDecision } from '../answer/decision-rules';
import type {
  ApprovalDecision,
  ApprovalRequest,
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  DecideInput,
  SubmitAnswerInput,
  UserInteraction,
} from '../types';
import { approvalRequestRefusal } from './approval-request-guard';
import { UserInteractionError } from './user-interaction-error';
import { PendingTable } from './pending-table';
import { askRequestRefusal } from './ask-request-guard';

/** A question waiting for its answer. */
export interface InMemoryPendingQuestion {
  /** Id by which it is answered or declined. */
  id: string;
  /** The request as asked, without its signal. */
  request: Omit<AskUserQuestionRequest, 'signal'>;
  askedAt: Date;
}

/** An approval waiting for its decision. */
export interface InMemoryPendingApproval {
  /** Id by which it is decided. */
  id: string;
  /** The request as made, without its signal. */
  request: Omit<ApprovalRequest, 'signal'>;
  requestedAt: Date;
}

/**
 * In-memory `UserInteraction`: `ask()` waits until `answer()` or `decline()` is called with the question's
 * id, or until the request's signal aborts (the question is then withdrawn and `ask()` fails `ASK_ABORTED`).
 *
 * @example
 * const provider = new InMemoryUserInteraction();
 * provider.onQuestion((pending) => provider.answer(pending.id, { answers: [...] }));
 */
export class InMemoryUserInteraction implements UserInteraction {
  private readonly questions = new PendingTable<InMemoryPendingQuestion, AskUserQuestionAnswer>('question');
  private readonly approvals = new PendingTable<InMemoryPendingApproval, ApprovalDecision>('approval');
  private counter = 0;

  /**
   * Waits until `decide()` is called with the approval's id, or until the request's signal aborts
   * (`ASK_ABORTED`). Nothing is kept past the process, so a replayed call asks again.
   */
  requestApproval(request: ApprovalRequest): Promise<ApprovalDecision> {
    const refusal = approvalRequestRefusal(request);
    if (refusal !== undefined) return Promise.reject(refusal);
    const { id, kept, at } = this.admit('a', request);
    const approval: InMemoryPendingApproval = { id, request: kept, requestedAt: at };
    return this.approvals.wait(approval, request.signal, () =>
      UserInteractionError.approvalAborted(request.toolName),
    );
  }

  /** Approvals still waiting, oldest first. */
  pendingApprovals(): InMemoryPendingApproval[] {
    return this.approvals.items();
  }

  /**
   * Calls `listener` for every approval requested from now on. Returns a function that unsubscribes. A
   * listener that throws withdraws the approval, as for questions.
   */
  onApproval(listener: (approval: InMemoryPendingApproval) => void): () => void {
    return this.approvals.listen(listener);
  }

  /**
   * Decides a pending approval, by the rules every surface applies (an edit is checked against the input
   * schema). A refused decision leaves it pending.
   *
   * @throws UserInteractionError `BAD_ANSWER` naming the field; QuestionOperationError `NOT_FOUND`.
   */
  decide(id: string, input: DecideInput): ApprovalDecision {
    const { request } = this.approvals.get(id);
    const checked = checkDecision(request, input);
    if (!checked.ok) throw UserInteractionError.badDecision(checked.reason, checked.rule);
    const decision = recordedDecision(checked.decision, new Date().toISOString(), request.input);
    this.approvals.resolve(id, decision);
    return decision;
  }

  ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer> {
    const refusal = askRequestRefusal(request);
    if (refusal !== undefined) return Promise.reject(refusal);
    const { id, kept, at } = this.admit('q', request);
    const question: InMemoryPendingQuestion = { id, request: kept, askedAt: at };
    return this.questions.wait(question, request.signal, () => UserInteractionError.aborted());
  }

  /** Questions still waiting, oldest first. */
  pending(): InMemoryPendingQuestion[] {
    return this.questions.items();
  }

  /**
   * Calls `listener` for every question asked from now on. Returns a function that unsubscribes.
   * A listener that throws withdraws the question: its `ask()` fails with that `UserInteractionError`, or
   * with `ASK_UNAVAILABLE` for any other error.
   */
  onQuestion(listener: (question: InMemoryPendingQuestion) => void): () => void {
    return this.questions.listen(listener);
  }

  /** Resolves on the next question asked (or the oldest pending one). */
  nextQuestion(): Promise<InMemoryPendingQuestion> {
    const [oldest] = this.pending();
    if (oldest !== undefined) return Promise.resolve(oldest);
    return new Promise((resolve) => {
      const unsubscribe = this.onQuestion((question) => {
        unsubscribe();
        resolve(question);
      });
    });
  }

  /**
   * Answers a pending question. An answer that breaks the answer rules is refused and the question stays
   * pending.
   *
   * @throws UserInteractionError `BAD_ANSWER` for an invalid answer; QuestionOperationError `NOT_FOUND`.
   */
  answer(id: string, input: SubmitAnswerInput | AskUserQuestionAnswer): void {
    const checked = checkAnswer(this.questions.get(id).request.questions, input);
    if (!checked.ok) throw UserInteractionError.badAnswer(checked.reason, checked.rule);
    this.questions.resolve(id, checked.answer);
  }

  /** Declines a pending question: its `ask()` fails with `ASK_CANCELLED`. */
  decline(id: string, reason?: string): void {
    this.questions.reject(id, UserInteractionError.cancelled(reason));
  }

  /** A fresh id for `request`, and a copy of it without its signal (the caller's objects may change later). */
  private admit<R extends { signal?: AbortSignal }>(
    prefix: 'a' | 'q',
    request: R,
  ): { id: string; kept: Omit<R, 'signal'>; at: Date } {
    const { signal: _signal, ...kept } = request;
    this.counter += 1;
    return { id: `${prefix}-${this.counter}`, kept: structuredClone(kept), at: new Date() };
  }
}
