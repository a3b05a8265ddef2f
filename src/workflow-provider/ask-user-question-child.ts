/**
 * For agents that are themselves Temporal workflows: ask, or wait for a decision on a tool call, as a child
 * workflow. The question or the approval is then part of the agent's own durable history; cancelling the
 * agent's scope cancels it.
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
import { guardApprovalRequest } from '../interaction/approval-request-guard';
import type {
  ApprovalDecision,
  ApprovalRequest,
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
import {
  answerFromResult,
  approvalStart,
  decisionFromResult,
  errorFromClosedQuestion,
  questionStart,
  type QuestionSettings,
  type QuestionStart,
} from '../question/question-start';

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
  /** Who asks for the approvals, when a request names nobody (see `TemporalUserInteractionOptions`). */
  requestedBy?: string;
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
 * `ask_user_question` tool (`createAskUserQuestionTool`), `requireApproval`, and the AI SDK tools over them
 * (`durable-ask-user/ai-workflow`). Questions and approvals are the same child workflow the durable provider
 * starts, built by the same request builders; their outcomes reject as the seam's `UserInteractionError`s, as
 * with any other provider, so the tool gives the model the contract's `Error: ...` text.
 *
 * The agent is the request's, or else this workflow (its id): with the tool call id it is the durable key, so a
 * replayed agent re-attaches to its child rather than asking again. Withdrawing: cancel the calling scope
 * (Temporal's way; the cancellation propagates), or abort the request's `signal` (the AI SDK's `abortSignal`),
 * which cancels the scope the child runs in and rejects with `ASK_ABORTED` once the child has ended Canceled.
 *
 * @example
 * const userInteraction = childWorkflowUserInteraction({ taskQueue: 'ask-user-question' });
 * const ask = createAskUserQuestionTool({ userInteraction });
 * const deploy = requireApproval({ name: 'deploy', execute: deployInWorkflow }, { userInteraction });
 */
export function childWorkflowUserInteraction(options: AskUserQuestionChildOptions = {}): UserInteraction {
  return {
    ask: async ({ signal, ...asked }) => {
      const request = withAgent(asked);
      return await withSignal(signal, () => askAsChild(request, options));
    },
    requestApproval: async (request: ApprovalRequest): Promise<ApprovalDecision> => {
      guardApprovalRequest(request);
      const { signal, ...asked } = request;
      try {
        const start = approvalStart(withAgent(asked), settingsOf(options));
        return decisionFromResult(await withSignal(signal, () => runChild(start, options)));
      } catch (error) {
        throw UserInteractionError.forApproval(error, request.toolName);
      }
    },
  };
}

/** The request, keyed by this workflow when it names no agent: two agents' tool call ids cannot collide. */
function withAgent<Request extends { agent?: AskUserQuestionRequest['agent'] }>(request: Request): Request {
  return request.agent === undefined ? { ...request, agent: { id: workflowInfo().workflowId } } : request;
}

/**
 * Runs `run` in a scope that an abort of `signal` cancels; our own scope cancelled by the signal (not the
 * caller's) is a withdrawn request, `ASK_ABORTED`, as the seam says.
 */
async function withSignal<Result>(
  signal: AbortSignal | undefined,
  run: () => Promise<Result>,
): Promise<Result> {
  if (signal === undefined) return await run();
  if (signal.aborted) throw UserInteractionError.aborted();
  const scope = new CancellationScope();
  const cancel = (): void => scope.cancel();
  signal.addEventListener('abort', cancel, { once: true });
  try {
    return await scope.run(run);
  } catch (error) {
    if (isCancellation(error) && signal.aborted && !CancellationScope.current().consideredCancelled) {
      throw UserInteractionError.aborted();
    }
    throw error;
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

/** The operator's settings of the child options, as the request builders take them. */
function settingsOf(options: AskUserQuestionChildOptions): QuestionSettings {
  return definedFields({
    timeoutMs: options.timeoutMs,
    webhookUrls: options.webhookUrls,
    workerDefaults: options.workerDefaults,
    requestedBy: options.requestedBy,
  });
}

/** Asks as a child workflow; the question's outcomes reject as `UserInteractionError`s. */
async function askAsChild(
  request: Omit<AskUserQuestionRequest, 'signal'>,
  options: AskUserQuestionChildOptions,
): Promise<AskUserQuestionAnswer> {
  if (request.questions.length === 0) throw UserInteractionError.emptyQuestions();
  const start = questionStart(request, settingsOf(options), uuid4);
  return answerFromResult(await runChild(start, options));
}

/** Runs a question or an approval as a child workflow and waits for its result. */
async function runChild(
  start: QuestionStart,
  options: AskUserQuestionChildOptions,
): Promise<AskUserQuestionWorkflowResult> {
  const { workflowId } = start;
  try {
    return await executeChild<QuestionWorkflow>(ASK_USER_QUESTION_WORKFLOW_TYPE, {
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
}
