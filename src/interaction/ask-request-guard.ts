/**
 * The checks every ask passes before anything is sent, written once for the seam: not aborted, at least one
 * question, and within the byte budget. They are pure functions of the request, with no record of requests
 * already checked: each entry checks what its own contract promises. The tool checks the model's arguments
 * (the budget is part of them); `UserInteractionService` checks only what decides between its own errors
 * (aborted, then empty, then no provider); a provider, which any code may call directly, checks the whole
 * request before it stores anything.
 *
 * Dependency-free, so every runtime (and the tool-only entry) can import it.
 */
import { jsonByteLength } from '../answer/json-size';
import type { AskUserQuestionRequest } from '../types';
import { UserInteractionError } from './user-interaction-error';

/**
 * The largest question request, in bytes of its questions as UTF-8 JSON. The field limits alone allow about
 * 600 KB (20 questions of 20 long options); a question is stored several times over (the workflow's input,
 * its memo and Web UI details, the `getQuestion` record next to the answer), and the Temporal server refuses
 * any payload over 2 MB and warns from 512 KB. At 256 KiB a question, and a question with its answer
 * (`MAX_ANSWER_BYTES`), stays well inside both, and an oversized request fails before anything is sent.
 */
export const MAX_REQUEST_BYTES = 256 * 1024;

/** @throws UserInteractionError `ASK_ABORTED` when `signal` has aborted. */
export function assertNotAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw UserInteractionError.aborted();
}

/** @throws UserInteractionError `EMPTY_QUESTIONS` for no questions. */
export function assertHasQuestions(questions: readonly unknown[]): void {
  if (questions.length === 0) throw UserInteractionError.emptyQuestions();
}

/**
 * Checks, in this order, that the request is not aborted, has questions and fits {@link MAX_REQUEST_BYTES}.
 *
 * @throws UserInteractionError `ASK_ABORTED`, `EMPTY_QUESTIONS`, or `INVALID_ARGS` naming the limit.
 */
export function guardAskRequest(request: Pick<AskUserQuestionRequest, 'questions' | 'signal'>): void {
  const refusal = askRequestRefusal(request);
  if (refusal !== undefined) throw refusal;
}

/**
 * `INVALID_ARGS` naming the limit when `questions`, as UTF-8 JSON, pass {@link MAX_REQUEST_BYTES}; else
 * `undefined`.
 */
export function budgetRefusal(questions: readonly unknown[]): UserInteractionError | undefined {
  const bytes = jsonByteLength({ questions }) ?? 0;
  if (bytes <= MAX_REQUEST_BYTES) return undefined;
  return UserInteractionError.invalidArgs([
    `questions: the request is ${bytes} bytes, over the ${MAX_REQUEST_BYTES}-byte limit`,
  ]);
}

/** What {@link guardAskRequest} would throw, returned instead: for a provider that rejects a promise. */
export function askRequestRefusal(
  request: Pick<AskUserQuestionRequest, 'questions' | 'signal'>,
): UserInteractionError | undefined {
  if (request.signal?.aborted === true) return UserInteractionError.aborted();
  if (request.questions.length === 0) return UserInteractionError.emptyQuestions();
  return budgetRefusal(request.questions);
}
