/**
 * The checks every ask passes before anything is sent, written once for the seam: not aborted, at least one
 * question, and within the byte budget. `UserInteractionService` and both shipped providers call
 * {@link guardAskRequest}; a request that passed is remembered (by identity), so the way from the tool through
 * the service to a provider measures it once.
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

const passed = new WeakSet<object>();

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
 * The abort is checked every time; the rest once per request object.
 *
 * @throws UserInteractionError `ASK_ABORTED`, `EMPTY_QUESTIONS`, or `INVALID_ARGS` naming the limit.
 */
export function guardAskRequest(request: Pick<AskUserQuestionRequest, 'questions' | 'signal'>): void {
  const refusal = askRequestRefusal(request);
  if (refusal !== undefined) throw refusal;
}

/** What {@link guardAskRequest} would throw, returned instead: for a provider that rejects a promise. */
export function askRequestRefusal(
  request: Pick<AskUserQuestionRequest, 'questions' | 'signal'>,
): UserInteractionError | undefined {
  if (request.signal?.aborted === true) return UserInteractionError.aborted();
  if (passed.has(request)) return undefined;
  if (request.questions.length === 0) return UserInteractionError.emptyQuestions();
  const bytes = jsonByteLength({ questions: request.questions }) ?? 0;
  if (bytes > MAX_REQUEST_BYTES) {
    return UserInteractionError.invalidArgs([
      `questions: the request is ${bytes} bytes, over the ${MAX_REQUEST_BYTES}-byte limit`,
    ]);
  }
  passed.add(request);
  return undefined;
}
