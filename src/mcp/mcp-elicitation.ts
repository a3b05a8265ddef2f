/**
 * Asking the person at the MCP client while a durable question waits for ops: one `elicitation/create` form
 * (see `mcp-elicitation-form.ts`) per pending `ask_user_question` call, racing with every other surface.
 *
 * The form never decides anything by itself. Its answer is sent as any surface sends one, with
 * `QuestionClient.answer` (the workflow's `submitAnswer` update, whose validator checks it and records the first
 * valid answer exactly once); the agent then gets the workflow's answer through the provider, like any other.
 * What each reply does:
 * - accept: the content becomes an answer, sent as `answeredBy`. Content the answer rules (or the SDK's check
 *   against the form's schema) refuse is asked for once more, with the reason on top; refused again, the
 *   question is left to ops. An answer no worker takes is recorded for one to validate: the call waits on.
 * - decline: the question is declined (`QuestionClient.decline`); the agent's call fails with `ASK_CANCELLED`.
 * - cancel (the person dismissed the form): nothing is recorded; the question stays pending for ops.
 *
 * When the question closes some other way (ops answered, declined, it expired) or the tool call ends, the form
 * is stopped: aborting the request's signal makes the SDK send `notifications/cancelled`, and a reply that
 * arrives after that is dropped by the SDK (the server's `onerror` sees it). A form is offered only for a
 * question that is pending, is the one this call asked, and may be answered by `answeredBy` (its audience).
 */
import { isDeepStrictEqual } from 'node:util';
import {
  ProtocolError,
  ProtocolErrorCode,
  type ElicitResult,
  type RequestId,
  type Server,
} from '@modelcontextprotocol/server';
import { audienceWords, inAudience } from '../answer/audience-rules';
import { errorText } from '../common';
import { QuestionOperationError } from '../interaction/question-operation-error';
import type { QuestionClient } from '../ops/question-client';
import { startedRecord } from '../ops/started-record';
import type { AskUserQuestion, QuestionRecord } from '../types';
import { answerFromForm, elicitationForm, type ElicitationForm } from './mcp-elicitation-form';

/** What the form needs of `QuestionClient`: read the question, answer it, decline it. */
export type McpElicitationOperations = Pick<QuestionClient, 'get' | 'answer' | 'decline'>;

/** Options of the forms `createAskUserMcpServer` shows at clients that declare form elicitation. */
export interface McpElicitationOptions {
  /** Reads, answers and declines the questions: a `QuestionClient` on the provider's server. */
  questions: McpElicitationOperations;
  /** Who the record names as the answerer of a form. Default `mcp:<client name>` (`mcp` without a name). */
  answeredBy?: string;
}

/** How many forms one call shows at most: the first, and one more after content that was refused. */
const FORM_ATTEMPTS = 2;

/**
 * The SDK times out a server's request after 60 s unless told otherwise; a form stays open as long as its
 * question waits, up to the longest timer Node keeps (about 24.8 days). Past it the form is withdrawn and the
 * question stays with ops.
 */
const FORM_TIMEOUT_MS = 2_147_483_647;

/** One form for one call. */
export interface McpElicitation {
  /** Withdraws the form, if still open (`reason` goes to the client in `notifications/cancelled`). */
  stop(reason: string): void;
  /** Settles when the form is done: answered, declined, dismissed, withdrawn or failed. Never rejects. */
  done: Promise<void>;
}

/** What one form needs to know about its call. */
export interface McpElicitationCall {
  server: Server;
  /** The question's workflow id. */
  workflowId: string;
  /** The questions this call asked, as the provider records them. */
  questions: readonly AskUserQuestion[];
  operations: McpElicitationOperations;
  answeredBy: string;
  /** The `tools/call` request the form belongs to (streamable HTTP sends it on that request's stream). */
  relatedRequestId: RequestId;
  log: (line: string) => void;
}

/** A failure's text without the prefix some SDKs put before a JSON-RPC error's message (`MCP error -32602: `). */
function withoutMcpErrorCode(error: unknown): string {
  return errorText(error).replace(/^MCP error -?\d+: /, '');
}

/**
 * Content the SDK found not to match the form's schema, so the person may be asked again. Told apart by its
 * message from an error the client itself replied with (same code), which asking again would not mend.
 */
function isContentMismatch(error: unknown): boolean {
  return (
    ProtocolError.isInstance(error) &&
    error.code === (ProtocolErrorCode.InvalidParams as number) &&
    error.message.includes('does not match requested schema')
  );
}

/**
 * Whether the record is the question this call asked, pending, and answerable by `answeredBy`. Closed already,
 * an approval, or another call's questions (the provider reports that conflict): no form. Outside the
 * question's audience the workflow's validator would refuse the answer, so the form is not offered at all.
 */
function offersForm(call: McpElicitationCall, record: QuestionRecord | undefined): record is QuestionRecord {
  if (record === undefined || record.status !== 'pending' || record.approval !== undefined) return false;
  if (!isDeepStrictEqual(record.questions, call.questions)) return false;
  if (!inAudience(record.audience, call.answeredBy)) {
    call.log(
      `${call.workflowId}: no form at the client: ${JSON.stringify(call.answeredBy)} may not answer it, it is assigned to ${audienceWords(record.audience!)}`,
    );
    return false;
  }
  return true;
}

/** What a form shares with its `stop`: the signal that withdraws it, and whether it is open at the client. */
interface FormState {
  readonly signal: AbortSignal;
  open: boolean;
}

/**
 * Records what the person replied: a decline, or the form's content as an answer. Returns the note to show above
 * the form when the answer rules refused the content, so the person is asked again; else `undefined`.
 */
async function recordReply(
  call: McpElicitationCall,
  form: ElicitationForm,
  reply: { action: 'accept' | 'decline'; content?: Record<string, unknown> | undefined },
): Promise<string | undefined> {
  const { workflowId, log } = call;
  try {
    if (reply.action === 'decline') {
      await call.operations.decline(workflowId, { declinedBy: call.answeredBy });
      log(`${workflowId}: declined at the client as ${call.answeredBy}`);
    } else {
      const answers = answerFromForm(form, reply.content ?? {});
      const { awaitingWorker } = await call.operations.answer(workflowId, {
        answers,
        answeredBy: call.answeredBy,
      });
      // Recorded but not yet taken: the agent's call keeps waiting, as for any answer, until a worker takes it.
      log(
        awaitingWorker === undefined
          ? `${workflowId}: answered at the client as ${call.answeredBy}`
          : `${workflowId}: answer ${awaitingWorker.answerId} recorded at the client as ${call.answeredBy}; it waits for a worker on task queue ${awaitingWorker.taskQueue} to validate it`,
      );
    }
    return undefined;
  } catch (error) {
    if (!(QuestionOperationError.isInstance(error) && error.code === 'BAD_ANSWER')) {
      // Resolved meanwhile (named in the message), no worker, unreachable: nothing more this form can do.
      log(`${workflowId}: the form's ${reply.action} was not recorded: ${withoutMcpErrorCode(error)}`);
      return undefined;
    }
    log(`${workflowId}: the form's answer was refused (${error.message})`);
    return `Your answer was not recorded: ${error.message.replace(/^ask_user_question received an invalid answer: /, '')}.`;
  }
}

/**
 * Shows the form once and records the reply. Returns the note for asking again (the content was refused), or
 * `undefined` when this form is done: recorded, dismissed, withdrawn or failed.
 */
async function askOnce(
  call: McpElicitationCall,
  state: FormState,
  questions: readonly AskUserQuestion[],
  note: string | undefined,
): Promise<string | undefined> {
  const { workflowId, log } = call;
  const form = elicitationForm(questions, note);
  let reply: ElicitResult;
  state.open = true;
  try {
    reply = await call.server.elicitInput(
      { mode: 'form', message: form.message, requestedSchema: form.requestedSchema },
      { relatedRequestId: call.relatedRequestId, signal: state.signal, timeout: FORM_TIMEOUT_MS },
    );
  } catch (error) {
    if (state.signal.aborted) return undefined; // withdrawn: `stop` said why
    if (!isContentMismatch(error)) {
      log(
        `${workflowId}: the form at the client failed (${withoutMcpErrorCode(error)}); the question stays pending`,
      );
      return undefined;
    }
    log(`${workflowId}: the form's content was refused (${withoutMcpErrorCode(error)})`);
    return `Your answer was not recorded: ${withoutMcpErrorCode(error)}.`;
  } finally {
    state.open = false;
  }
  if (reply.action === 'cancel') {
    log(`${workflowId}: the form was dismissed at the client; the question stays pending`);
    return undefined;
  }
  return recordReply(call, form, { action: reply.action, content: reply.content });
}

/**
 * Shows the form for one pending question and records what the person does with it (see the module comment).
 * Start it after the call began asking; `stop` it as soon as the call settles.
 */
export function elicitWhilePending(call: McpElicitationCall): McpElicitation {
  const { workflowId, log } = call;
  const controller = new AbortController();
  const state: FormState = { signal: controller.signal, open: false };

  async function run(): Promise<void> {
    const record = await startedRecord((id) => call.operations.get(id), workflowId, state.signal);
    if (!offersForm(call, record)) return;
    let note: string | undefined;
    for (let attempt = 1; attempt <= FORM_ATTEMPTS; attempt += 1) {
      note = await askOnce(call, state, record.questions, note);
      if (note === undefined) return;
    }
    log(`${workflowId}: the form's content was refused ${FORM_ATTEMPTS} times; the question stays pending`);
  }

  const done = run().catch((error: unknown) => {
    log(`${workflowId}: no form at the client: ${withoutMcpErrorCode(error)}`);
  });
  return {
    stop(reason) {
      if (state.signal.aborted) return;
      if (state.open) log(`${workflowId}: ${reason}; the form at the client was cancelled`);
      controller.abort(reason);
    },
    done,
  };
}
