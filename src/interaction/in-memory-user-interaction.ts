/**
 * A provider that keeps pending questions in process memory. For tests and single-process tools: nothing
 * survives a restart (that is what `TemporalUserInteraction` is for). Answers pass the same answer rules as
 * every other entry point.
 */
import { checkAnswer } from '../answer/answer-rules';
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
import { QuestionOperationError } from './question-operation-error';
import { UserInteractionError } from './user-interaction-error';
import { definedFields, errorText } from '../common';
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

interface ApprovalWaiter {
  approval: InMemoryPendingApproval;
  resolve: (decision: ApprovalDecision) => void;
  detach: () => void;
}

interface Waiter {
  question: InMemoryPendingQuestion;
  resolve: (answer: AskUserQuestionAnswer) => void;
  reject: (error: UserInteractionError) => void;
  detach: () => void;
}

/** Calls `abort` once `signal` aborts; returns the function that stops listening. */
function whenAborted(signal: AbortSignal | undefined, abort: () => void): () => void {
  signal?.addEventListener('abort', abort, { once: true });
  return () => signal?.removeEventListener('abort', abort);
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
  private readonly waiters = new Map<string, Waiter>();
  private readonly listeners = new Set<(question: InMemoryPendingQuestion) => void>();
  private readonly approvals = new Map<string, ApprovalWaiter>();
  private readonly approvalListeners = new Set<(approval: InMemoryPendingApproval) => void>();
  private counter = 0;

  /**
   * Waits until `decide()` is called with the approval's id, or until the request's signal aborts
   * (`ASK_ABORTED`). Nothing is kept past the process, so a replayed call asks again.
   */
  requestApproval(request: ApprovalRequest): Promise<ApprovalDecision> {
    const { signal, ...rest } = request;
    const refusal = approvalRequestRefusal(request);
    if (refusal !== undefined) return Promise.reject(refusal);
    this.counter += 1;
    const approval: InMemoryPendingApproval = {
      id: `a-${this.counter}`,
      request: structuredClone(rest),
      requestedAt: new Date(),
    };
    return new Promise<ApprovalDecision>((resolve, reject) => {
      const detach = whenAborted(signal, () => {
        this.approvals.delete(approval.id);
        reject(UserInteractionError.approvalAborted(request.toolName));
      });
      this.approvals.set(approval.id, { approval, resolve, detach });
      for (const listener of this.approvalListeners) listener(approval);
    });
  }

  /** Approvals still waiting, oldest first. */
  pendingApprovals(): InMemoryPendingApproval[] {
    return [...this.approvals.values()].map((waiter) => waiter.approval);
  }

  /** Calls `listener` for every approval requested from now on. Returns a function that unsubscribes. */
  onApproval(listener: (approval: InMemoryPendingApproval) => void): () => void {
    this.approvalListeners.add(listener);
    return () => this.approvalListeners.delete(listener);
  }

  /**
   * Decides a pending approval, by the rules every surface applies (an edit is checked against the input
   * schema). A refused decision leaves it pending.
   *
   * @throws UserInteractionError `BAD_ANSWER` naming the field; QuestionOperationError `NOT_FOUND`.
   */
  decide(id: string, input: DecideInput): ApprovalDecision {
    const waiter = this.approvals.get(id);
    if (waiter === undefined) {
      throw new QuestionOperationError('NOT_FOUND', `no pending approval with id ${JSON.stringify(id)}`);
    }
    const checked = checkDecision(waiter.approval.request, input);
    if (!checked.ok) throw UserInteractionError.badDecision(checked.reason, checked.rule);
    const { type, input: edited, reason, text, decidedBy } = checked.decision;
    const decidedAt = new Date().toISOString();
    const decision: ApprovalDecision =
      type === 'edit'
        ? definedFields({ type, input: edited, decidedBy, decidedAt })
        : type === 'reject'
          ? definedFields({ type, reason, decidedBy, decidedAt })
          : type === 'respond'
            ? definedFields({ type, text: text ?? '', decidedBy, decidedAt })
            : definedFields({ type, decidedBy, decidedAt });
    this.approvals.delete(id);
    waiter.detach();
    waiter.resolve(decision);
    return decision;
  }

  ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer> {
    const { signal, ...rest } = request;
    const refusal = askRequestRefusal(request);
    if (refusal !== undefined) return Promise.reject(refusal);
    this.counter += 1;
    const question: InMemoryPendingQuestion = {
      id: `q-${this.counter}`,
      request: structuredClone(rest),
      askedAt: new Date(),
    };
    return new Promise<AskUserQuestionAnswer>((resolve, reject) => {
      const detach = whenAborted(signal, () => {
        this.waiters.delete(question.id);
        reject(UserInteractionError.aborted());
      });
      this.waiters.set(question.id, { question, resolve, reject, detach });
      for (const listener of this.listeners) {
        try {
          listener(question);
        } catch (error) {
          // A listener that throws could not put the question to anyone: withdraw it rather than leave it
          // pending with nobody to answer, and fail the ask as the tool fails for a throwing provider.
          const waiter = this.waiters.get(question.id);
          if (waiter !== undefined) this.settle(waiter);
          if (UserInteractionError.isInstance(error)) {
            reject(error);
          } else {
            reject(UserInteractionError.unavailable(errorText(error), error));
          }
          return;
        }
      }
    });
  }

  /** Questions still waiting, oldest first. */
  pending(): InMemoryPendingQuestion[] {
    return [...this.waiters.values()].map((waiter) => waiter.question);
  }

  /**
   * Calls `listener` for every question asked from now on. Returns a function that unsubscribes.
   * A listener that throws withdraws the question: its `ask()` fails with that `UserInteractionError`, or
   * with `ASK_UNAVAILABLE` for any other error.
   */
  onQuestion(listener: (question: InMemoryPendingQuestion) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
   * @throws UserInteractionError `BAD_ANSWER` for an invalid answer; `Error` for an unknown id.
   */
  answer(id: string, input: SubmitAnswerInput | AskUserQuestionAnswer): void {
    const waiter = this.waiterFor(id);
    const checked = checkAnswer(waiter.question.request.questions, input);
    if (!checked.ok) throw UserInteractionError.badAnswer(checked.reason, checked.rule);
    this.settle(waiter);
    waiter.resolve(checked.answer);
  }

  /** Declines a pending question: its `ask()` fails with `ASK_CANCELLED`. */
  decline(id: string, reason?: string): void {
    const waiter = this.waiterFor(id);
    this.settle(waiter);
    waiter.reject(UserInteractionError.cancelled(reason));
  }

  private waiterFor(id: string): Waiter {
    const waiter = this.waiters.get(id);
    if (waiter === undefined) {
      throw new QuestionOperationError('NOT_FOUND', `no pending question with id ${JSON.stringify(id)}`);
    }
    return waiter;
  }

  private settle(waiter: Waiter): void {
    this.waiters.delete(waiter.question.id);
    waiter.detach();
  }
}
