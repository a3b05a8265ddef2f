/**
 * A run's `resume` entries, recorded through the validated updates of the ops client: an answer through
 * `submitAnswer`, a decision through `decide`, `cancelled` through `decline`. Every entry is checked first,
 * against the question as recorded, so that a run refused for one entry records none of them.
 *
 * The interrupts of a thread are the open tool calls of its messages whose questions exist: the front end keeps
 * the thread, Temporal keeps the questions. One answered elsewhere (the inbox, the CLI, Slack, MCP) meanwhile
 * is no longer open: the run continues with the answer recorded, whatever its resume says.
 */
import { createHash } from 'node:crypto';
import type { Message, ResumeEntry } from '@ag-ui/core';
import { checkAnswer } from '../answer/answer-rules';
import { checkDecision } from '../answer/decision-rules';
import { isPlainObject } from '../common';
import { QuestionOperationError } from '../interaction/question-operation-error';
import type { Answerer, QuestionClient } from '../ops';
import { questionWorkflowId } from '../question/workflow-id';
import type { AskUserAgent, DecideInput, QuestionRecord, SubmitAnswerInput } from '../types';
import type { OpenToolCall } from './messages';

/** Why a run ends in `RUN_ERROR`: a stable `code` and a message that names the field and the reason. */
export class RunRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RunRefusal';
  }
}

/** The ops calls a resume makes. */
export type ResumeQuestions = Pick<QuestionClient, 'get' | 'answer' | 'decide' | 'decline'>;

/** What a resume needs besides the run's input. */
export interface ResumeContext {
  questions: ResumeQuestions;
  /** The key of the thread's questions: the helper's agent, with the thread as its session. */
  agent: AskUserAgent;
  /** Who answers through this endpoint, as recorded and as checked against a question's audience. */
  answerer: Answerer;
}

/** An open tool call that asked a person, with its question as recorded now. */
interface OpenInterrupt {
  workflowId: string;
  call: OpenToolCall;
  record: QuestionRecord;
}

type Planned =
  | { kind: 'recorded' }
  | { kind: 'answer'; input: SubmitAnswerInput }
  | { kind: 'decide'; input: DecideInput }
  | { kind: 'decline'; reason: string };

/** The questions of the open tool calls, by workflow id; a tool call that asked nobody has none. */
async function openInterrupts(
  open: readonly OpenToolCall[],
  { questions, agent }: ResumeContext,
): Promise<Map<string, OpenInterrupt>> {
  const found = await Promise.all(
    open.map(async (call) => {
      const workflowId = questionWorkflowId({ agent, toolCallId: call.toolCallId }, () => '');
      const record = await questions.get(workflowId).catch((error: unknown) => {
        if (QuestionOperationError.isInstance(error) && error.code === 'NOT_FOUND') return undefined;
        throw error;
      });
      return record === undefined ? [] : [{ workflowId, call, record }];
    }),
  );
  return new Map(found.flat().map((interrupt) => [interrupt.workflowId, interrupt]));
}

/** The answerer's groups, as the updates take them (absent when the endpoint named none). */
function groupsOf(answerer: Answerer): { groups?: string[] } {
  return answerer.groups === undefined ? {} : { groups: [...answerer.groups] };
}

/** The id an answer is recorded under: the same resume sent twice is one answer. */
function answerIdOf(threadId: string, entry: ResumeEntry): string {
  const digest = createHash('sha256').update(JSON.stringify([threadId, entry.interruptId, entry.payload]));
  return `ag-ui-${digest.digest('hex').slice(0, 32)}`;
}

function expiredAt(record: QuestionRecord, now: number): string | undefined {
  if (record.status === 'expired') return record.resolvedAt ?? record.expiresAt ?? 'an unknown time';
  if (record.status !== 'pending' || record.expiresAt === undefined) return undefined;
  return Date.parse(record.expiresAt) <= now ? record.expiresAt : undefined;
}

/** What one entry does, checked against its question; a refusal names the entry and the reason. */
function plan(
  entry: ResumeEntry,
  index: number,
  interrupt: OpenInterrupt,
  context: ResumeContext,
  threadId: string,
): Planned {
  const { record, workflowId } = interrupt;
  const at = `resume[${index}]`;
  const expired = expiredAt(record, Date.now());
  // An expired interrupt may still be cancelled: that is how the front end moves the thread on.
  if (expired !== undefined && entry.status === 'resolved') {
    throw new RunRefusal(
      'INTERRUPT_EXPIRED',
      `${at}: interrupt ${workflowId} expired at ${expired}; nothing was recorded (resume it as cancelled to go on)`,
    );
  }
  if (record.status !== 'pending') return { kind: 'recorded' };
  const { name } = context.answerer;
  const groups = groupsOf(context.answerer);
  if (entry.status === 'cancelled') {
    const reason =
      isPlainObject(entry.payload) && typeof entry.payload.reason === 'string'
        ? entry.payload.reason
        : undefined;
    return { kind: 'decline', reason: reason ?? `cancelled in AG-UI thread ${threadId}` };
  }
  if (record.approval !== undefined) {
    const checked = checkDecision(record.approval, entry.payload);
    if (!checked.ok)
      throw new RunRefusal(
        'INVALID_RESUME',
        `${at}.payload: ${checked.reason} (rule ${checked.rule}); nothing was recorded`,
      );
    return {
      kind: 'decide',
      input: { ...checked.decision, decidedBy: name, ...groups },
    };
  }
  const checked = checkAnswer(record.questions, entry.payload);
  if (!checked.ok)
    throw new RunRefusal(
      'INVALID_RESUME',
      `${at}.payload: ${checked.reason} (rule ${checked.rule}); nothing was recorded`,
    );
  return {
    kind: 'answer',
    input: {
      ...checked.answer,
      answeredBy: name,
      answerId: answerIdOf(threadId, entry),
      ...groups,
    },
  };
}

/** Records one planned entry; an answer recorded elsewhere first is the one the run goes on with. */
async function record(
  workflowId: string,
  planned: Planned,
  index: number,
  context: ResumeContext,
): Promise<void> {
  const { questions, answerer } = context;
  try {
    if (planned.kind === 'answer') await questions.answer(workflowId, planned.input);
    else if (planned.kind === 'decide') await questions.decide(workflowId, planned.input);
    else if (planned.kind === 'decline') {
      await questions.decline(workflowId, {
        reason: planned.reason,
        declinedBy: answerer.name,
        ...groupsOf(answerer),
      });
    }
  } catch (error) {
    if (!QuestionOperationError.isInstance(error)) throw error;
    if (error.code === 'ALREADY_RESOLVED' && error.record?.status !== 'expired') return;
    const code = error.code === 'ALREADY_RESOLVED' ? 'INTERRUPT_EXPIRED' : error.code;
    throw new RunRefusal(code, `resume[${index}]: ${error.message}`);
  }
}

/** The first user message after the first open tool call: input sent while interrupts are open. */
function inputAfterInterrupt(messages: readonly Message[], open: readonly OpenToolCall[]): number {
  const first = messages.findIndex(
    (message) =>
      message.role === 'assistant' &&
      (message.toolCalls ?? []).some((call) => call.id === open[0]?.toolCallId),
  );
  if (first < 0) return -1;
  const later = messages.slice(first + 1).findIndex((message) => message.role === 'user');
  return later < 0 ? -1 : first + 1 + later;
}

/**
 * Checks the run's resume entries against the thread's open interrupts, then records them. Refused, with
 * nothing recorded: input while interrupts are open, an entry that names no open interrupt or one twice, an
 * open interrupt left out, a payload the question's rules refuse, an answer after the deadline.
 */
export async function applyResume(
  input: { threadId: string; messages: readonly Message[]; resume?: ResumeEntry[] },
  open: readonly OpenToolCall[],
  context: ResumeContext,
): Promise<void> {
  const interrupts = await openInterrupts(open, context);
  const pending = [...interrupts.values()].filter((interrupt) => interrupt.record.status === 'pending');
  const resume = input.resume ?? [];
  const newInput = inputAfterInterrupt(input.messages, open);
  if (pending.length > 0 && (resume.length === 0 || newInput >= 0)) {
    const ids = pending.map((interrupt) => interrupt.workflowId).join(', ');
    throw new RunRefusal(
      'INTERRUPTS_OPEN',
      `${newInput >= 0 ? `messages[${newInput}]: new input` : 'a run without resume'} while ${pending.length} interrupt(s) are open (${ids}): resume every one of them first`,
    );
  }
  const seen = new Set<string>();
  const planned = resume.map((entry, index) => {
    const interrupt = interrupts.get(entry.interruptId);
    if (interrupt === undefined) {
      throw new RunRefusal(
        'UNKNOWN_INTERRUPT',
        `resume[${index}].interruptId: ${entry.interruptId} is no open interrupt of thread ${input.threadId}`,
      );
    }
    if (seen.has(entry.interruptId)) {
      throw new RunRefusal(
        'INVALID_RESUME',
        `resume[${index}].interruptId: ${entry.interruptId} is resumed twice`,
      );
    }
    seen.add(entry.interruptId);
    return {
      workflowId: interrupt.workflowId,
      planned: plan(entry, index, interrupt, context, input.threadId),
    };
  });
  const missing = pending.filter((interrupt) => !seen.has(interrupt.workflowId));
  if (missing.length > 0) {
    throw new RunRefusal(
      'INTERRUPTS_NOT_RESUMED',
      `resume: every open interrupt is resumed at once; missing ${missing.map((interrupt) => interrupt.workflowId).join(', ')}`,
    );
  }
  for (const [index, { workflowId, planned: entry }] of planned.entries())
    await record(workflowId, entry, index, context);
}
