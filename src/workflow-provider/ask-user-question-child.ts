/**
 * For agents that are themselves Temporal workflows: ask as a child workflow. The question is then part of
 * the agent's own durable history; cancelling the agent's scope cancels the question.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import {
  CancellationScope,
  ChildWorkflowCancellationType,
  ChildWorkflowFailure,
  ParentClosePolicy,
  executeChild,
  isCancellation,
  uuid4,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
// Workflow-safe: the same module `@temporalio/workflow` builds on.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { definedFields } from '../common';
import { UserInteractionError } from '../interaction/user-interaction-error';
import type {
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  AskUserQuestionWorkflowResult,
  UserInteraction,
} from '../types';
import {
  ASK_USER_QUESTION_WORKFLOW_TYPE,
  DEFAULT_TASK_QUEUE,
  type QuestionWorkflow,
} from '../question/definitions';
import { failureOf } from '../question/failures';
import { answerFromResult, errorFromClosedQuestion, questionStart } from '../question/question-start';

/** Options of `askUserQuestionAsChild`. */
export interface AskUserQuestionChildOptions {
  /** Task queue of the ask-user worker. Default `ask-user-question`. */
  taskQueue?: string;
  /** Deadline after which the question expires (`ASK_EXPIRED`). Default: none. */
  timeoutMs?: number;
  /** Extra webhook URLs for this question. */
  webhookUrls?: string[];
  /** `false`: take no webhook URLs or policy from the worker (see `TemporalUserInteractionOptions`). */
  workerDefaults?: boolean;
}

/**
 * Asks the human from inside a workflow and waits for the answer.
 *
 * Fails with a non-retryable `ApplicationFailure` whose `type` is the error code: `EMPTY_QUESTIONS`,
 * `ASK_CANCELLED` (an answerer declined), `ASK_EXPIRED`, `ASK_ABORTED` (the question was cancelled or
 * terminated on the server) or `ASK_UNAVAILABLE` (it failed, or its id is taken by another run); its message is the contract's text, so
 * `formatToolError(failure)` gives the model the same `Error: ...` line as the tool. Cancellation of the calling
 * scope cancels the question and propagates as a cancellation.
 *
 * @example
 * const answer = await askUserQuestionAsChild({ questions, agent: { id: workflowInfo().workflowId }, toolCallId });
 */
export async function askUserQuestionAsChild(
  request: Omit<AskUserQuestionRequest, 'signal'>,
  options: AskUserQuestionChildOptions = {},
): Promise<AskUserQuestionAnswer> {
  try {
    return await askAsChild(request, options);
  } catch (error) {
    if (UserInteractionError.isInstance(error)) throw failureOf(error);
    throw error;
  }
}

/**
 * The child helper as a `UserInteraction` provider, for tools that run inside workflow code: the
 * `ask_user_question` tool (`createAskUserQuestionTool`) and the AI SDK tool over it (`durable-ask-user/ai-workflow`).
 * The question's outcomes reject as the seam's `UserInteractionError`s, as with any other provider, so the
 * tool gives the model the contract's `Error: ...` text.
 *
 * The agent is the request's, or else this workflow (its id). Withdrawing the question: cancel the calling scope (Temporal's way; the cancellation propagates), or abort
 * the request's `signal` (the AI SDK's `abortSignal`), which cancels the scope the child runs in and rejects
 * with `ASK_ABORTED` once the question has ended Canceled.
 *
 * @example
 * const tool = createAskUserQuestionTool({ userInteraction: childWorkflowUserInteraction({ taskQueue: 'ask-user-question' }) });
 */
export function childWorkflowUserInteraction(options: AskUserQuestionChildOptions = {}): UserInteraction {
  return {
    ask: async ({ signal, ...asked }) => {
      // Without an agent, the question is keyed by this workflow: two agents' tool call ids cannot collide.
      const request =
        asked.agent === undefined ? { ...asked, agent: { id: workflowInfo().workflowId } } : asked;
      if (signal === undefined) return await askAsChild(request, options);
      if (signal.aborted) throw UserInteractionError.aborted();
      const scope = new CancellationScope();
      const cancel = (): void => scope.cancel();
      signal.addEventListener('abort', cancel, { once: true });
      try {
        return await scope.run(() => askAsChild(request, options));
      } catch (error) {
        // Our own scope was cancelled by the signal, not the caller's: a withdrawn question, as the seam says.
        if (isCancellation(error) && signal.aborted && !CancellationScope.current().consideredCancelled) {
          throw UserInteractionError.aborted();
        }
        throw error;
      } finally {
        signal.removeEventListener('abort', cancel);
      }
    },
  };
}

/** Asks as a child workflow; the question's outcomes reject as `UserInteractionError`s. */
async function askAsChild(
  request: Omit<AskUserQuestionRequest, 'signal'>,
  options: AskUserQuestionChildOptions,
): Promise<AskUserQuestionAnswer> {
  if (request.questions.length === 0) throw UserInteractionError.emptyQuestions();
  const start = questionStart(
    request,
    definedFields({
      timeoutMs: options.timeoutMs,
      webhookUrls: options.webhookUrls,
      workerDefaults: options.workerDefaults,
    }),
    new Date(Date.now()).toISOString(),
    uuid4,
  );
  const { workflowId } = start;
  let result: AskUserQuestionWorkflowResult;
  try {
    result = await executeChild<QuestionWorkflow>(ASK_USER_QUESTION_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
      args: [start.input],
      memo: { ...start.memo },
      staticSummary: start.staticSummary,
      staticDetails: start.staticDetails,
      // Wait until the question has really ended Canceled before the caller's cancellation completes, and
      // cancel (not terminate) the question if the agent workflow closes first, so its cleanup runs.
      cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      // A closed question with this id holds its answer already: never ask it a second time.
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
  } catch (error) {
    // The caller's own scope was cancelled: propagate it as a cancellation, as Temporal expects.
    if (isCancellation(error) && CancellationScope.current().consideredCancelled) throw error;
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      // Within one agent history the child is never started twice; this is another run (a reset, a reused
      // workflow id) asking with the same tool call id. A workflow cannot wait on a workflow it did not start.
      throw UserInteractionError.unavailable(
        `a question with id ${workflowId} already exists; ask with a new toolCallId`,
      );
    }
    if (error instanceof ChildWorkflowFailure) throw errorFromClosedQuestion(error.cause, error);
    throw error;
  }
  return answerFromResult(result);
}
