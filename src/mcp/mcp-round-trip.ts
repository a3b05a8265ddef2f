/**
 * The question in place for a 2026-07-28 client that shows forms but does not use tasks: a multi round-trip
 * `tools/call` (SEP-2322). The first call starts the question and returns `input_required` with one form per
 * question (`mcp-task-forms.ts`) and a `requestState`; the client retries the call with the person's
 * `inputResponses` and the state, and the retry records the answer through the same validated update as every
 * surface (`QuestionClient.answer`) and returns the tool's result.
 *
 * The `requestState` is sealed by the SDK's codec (`createRequestStateCodec`, HMAC-SHA256) with a key from
 * configuration, so that every instance behind one endpoint reads what another minted. It carries the
 * question's workflow id, the fingerprint of its questions and the form attempt; it expires (default one hour)
 * and is bound to the client's name. The SDK verifies it before the handler runs and refuses a forged, expired
 * or re-bound one with `-32602 Invalid or expired requestState`; the handler refuses a state echoed with another
 * call's questions. Nothing is recorded for a refused state.
 *
 * What a retry does:
 * - the question closed meanwhile (answered elsewhere, declined, expired): the tool's result or error;
 * - every form submitted: the answer is recorded and the tool's result returned; an answer the rules refuse
 *   records nothing and comes back as new forms (new keys, a new state) with the reason on top; an answer no
 *   worker takes is recorded for one to validate, and the call waits, as for any answer, until one does;
 * - a form declined: the question is declined, and the tool's error returned;
 * - a form dismissed: nothing is recorded, and the call waits for the answer from elsewhere.
 */
import {
  CLIENT_INFO_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  createRequestStateCodec,
  inputRequired,
  type CallToolResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { formatToolError } from '../interaction/user-interaction-error';
import { QuestionOperationError } from '../interaction/question-operation-error';
import { questionsFingerprint } from '../question/questions-fingerprint';
import type { QuestionRecord } from '../types';
import { answerResult, askedQuestions } from './mcp-ask-tool';
import { questionForms, replyFromForms } from './mcp-task-forms';
import { refusalNote } from './mcp-form-answers';
import { formAnswerer, questionOf, startQuestion, toolOutcome, type McpTaskContext } from './mcp-tasks';
import { errorResult, type McpRequestExtra } from './mcp-tool-call';

/** How long a `requestState` stays valid unless told otherwise: a person may take a while over a form. */
export const DEFAULT_REQUEST_STATE_TTL_SECONDS = 3_600;

/** What a `requestState` carries: the question's workflow id, its questions' fingerprint, the form attempt. */
export interface RoundTripState {
  w: string;
  f: string;
  a: number;
}

/** The codec of the `requestState`s: `key` at least 32 bytes, the same for every instance of one endpoint. */
export function roundTripCodec(
  key: string | Uint8Array,
  ttlSeconds = DEFAULT_REQUEST_STATE_TTL_SECONDS,
): RequestStateCodec<RoundTripState> {
  return createRequestStateCodec<RoundTripState>({
    key,
    ttlSeconds,
    // The client, as far as it names itself: a state handed to another client does not verify.
    bind: (ctx: ServerContext) => {
      const info = (ctx.mcpReq.envelope as Record<string, { name?: unknown } | undefined> | undefined)?.[
        CLIENT_INFO_META_KEY
      ];
      return `tools/call\0${typeof info?.name === 'string' ? info.name : ''}`;
    },
  });
}

/** What a round trip needs besides the task handlers' context. */
export interface McpRoundTripContext {
  tasks: McpTaskContext;
  codec: RequestStateCodec<RoundTripState>;
}

/** The tool's result for a question: at once when it is closed, else once it closes. */
async function toolResult(
  context: McpRoundTripContext,
  workflowId: string,
  record: QuestionRecord,
): Promise<CallToolResult> {
  const outcome = await toolOutcome(context.tasks, workflowId, record);
  return 'text' in outcome ? answerResult(outcome.text) : errorResult(outcome.error);
}

/** The forms of `attempt`, with the state that names them. */
async function formsResult(
  context: McpRoundTripContext,
  state: RoundTripState,
  record: QuestionRecord,
  ctx: McpRequestExtra,
  note?: string,
): Promise<CallToolResult> {
  const result = inputRequired({
    inputRequests: questionForms(record.questions, state.a, note),
    requestState: await context.codec.mint(state, ctx),
  });
  // The SDK sends an input-required result of a tools/call as it is; its handler type knows only tool results.
  return result as unknown as CallToolResult;
}

/** The first round: starts the question and returns its forms, or waits when the client's person may not answer. */
async function firstRound(
  context: McpRoundTripContext,
  args: unknown,
  ctx: McpRequestExtra,
): Promise<CallToolResult> {
  const started = await startQuestion(context.tasks, args, ctx);
  if ('result' in started) return started.result;
  const { workflowId, record, asked } = started;
  if (formAnswerer(context.tasks, record, ctx) === undefined) return await asked;
  const state = { w: workflowId, f: questionsFingerprint(record.questions), a: 0 };
  return await formsResult(context, state, record, ctx);
}

/** A retry: records what the person did with the forms (see the module comment). */
async function retryRound(
  context: McpRoundTripContext,
  state: RoundTripState,
  args: unknown,
  ctx: McpRequestExtra,
): Promise<CallToolResult> {
  const questions = askedQuestions(args);
  if (questions === undefined || questionsFingerprint(questions) !== state.f) {
    context.tasks.ask.log(`${state.w}: a requestState came back with other questions; refused`);
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'Invalid requestState: it belongs to another question',
    );
  }
  const record = await questionOf(context.tasks, state.w);
  const answeredBy = formAnswerer(context.tasks, record, ctx);
  if (record.status !== 'pending' || answeredBy === undefined)
    return await toolResult(context, state.w, record);
  const reply = replyFromForms(record.questions, state.a, ctx.mcpReq.inputResponses ?? {});
  const { log } = context.tasks.ask;
  try {
    if (reply.kind === 'decline') {
      await context.tasks.operations.decline(state.w, { declinedBy: answeredBy });
      log(`${state.w}: declined at the client as ${answeredBy}`);
    } else if (reply.kind === 'answer') {
      const { awaitingWorker } = await context.tasks.operations.answer(state.w, {
        answers: reply.answers,
        answeredBy,
      });
      // Recorded but not yet taken: the call keeps waiting below, as for any answer, until a worker validates it.
      log(
        awaitingWorker === undefined
          ? `${state.w}: answered at the client as ${answeredBy}`
          : `${state.w}: answer ${awaitingWorker.answerId} recorded at the client as ${answeredBy}; it waits for a worker on task queue ${awaitingWorker.taskQueue} to validate it, and the call waits with it`,
      );
    } else {
      log(`${state.w}: the forms were dismissed at the client; waiting for the answer from elsewhere`);
    }
  } catch (error) {
    if (!(QuestionOperationError.isInstance(error) && error.code === 'BAD_ANSWER')) {
      log(`${state.w}: the forms' reply was not recorded: ${formatToolError(error)}`);
      return await toolResult(context, state.w, record);
    }
    log(`${state.w}: the answer was refused (${error.message})`);
    const reason = error.message.replace(/^ask_user_question received an invalid answer: /, '');
    const next = { ...state, a: state.a + 1 };
    return await formsResult(context, next, record, ctx, refusalNote(reason));
  }
  return await toolResult(context, state.w, record);
}

/** Runs one round of a multi round-trip `tools/call` of `ask_user_question`. */
export async function callWithForms(
  context: McpRoundTripContext,
  args: unknown,
  ctx: McpRequestExtra,
): Promise<CallToolResult> {
  const state = ctx.mcpReq.requestState<RoundTripState>();
  return state === undefined
    ? await firstRound(context, args, ctx)
    : await retryRound(context, state, args, ctx);
}
