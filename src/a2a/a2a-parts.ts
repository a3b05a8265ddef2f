/**
 * What an A2A client sees of a waiting question or approval, and how its reply becomes an answer or a decision.
 *
 * The status message of a task in `TASK_STATE_INPUT_REQUIRED` carries two parts: a data part a program reads
 * (the questions, or the approval's tool, input and allowed decisions, with the question's id) and a text part a
 * person reads. The reply is a message on the task: a data part in the answer shape (`{ answers: [...] }`) or the
 * decision shape (`{ type: 'edit', input }` ...), or plain text for a single question (its free-form answer) or
 * a decision (`approve`, `reject`, `reject: <reason>`). Nothing here checks the answer against the questions:
 * the question's validated update does, and its refusal is what the client reads.
 */
import { randomUUID } from 'node:crypto';
import { Role, type Message, type Part } from '@a2a-js/sdk';
import { DECISION_TYPES } from '../answer';
import { isPlainObject } from '../common';
import type {
  ApprovalDecisionType,
  ApprovalSubject,
  AskUserQuestion,
  AskUserQuestionAnswerItem,
  DecideInput,
} from '../types';

/** The key of this package's entry in a status message's metadata: `{ questionId }`. */
export const A2A_METADATA_KEY = 'durable-ask-user';

/** What a task waits for: a question (its questions) or an approval (its tool call), by its workflow id. */
export type WaitingInput =
  | { kind: 'question'; questionId: string; questions: AskUserQuestion[] }
  | { kind: 'approval'; questionId: string; approval: ApprovalSubject };

/** A text part. */
export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: {} };
}

/** A data part holding a JSON value. */
export function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    mediaType: 'application/json',
    filename: '',
    metadata: {},
  };
}

/** An agent message of task `taskId`. */
export function agentMessage(
  taskId: string,
  contextId: string,
  parts: Part[],
  metadata: Record<string, unknown> = {},
): Message {
  return {
    messageId: randomUUID(),
    taskId,
    contextId,
    role: Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The data part of a waiting input: what a program reads. */
export function waitingData(waiting: WaitingInput): Record<string, unknown> {
  if (waiting.kind === 'question') {
    return { kind: 'question', questionId: waiting.questionId, questions: waiting.questions };
  }
  const { toolName, input, description, inputSchema } = waiting.approval;
  return {
    kind: 'approval',
    questionId: waiting.questionId,
    toolName,
    input,
    ...(description === undefined ? {} : { description }),
    ...(inputSchema === undefined ? {} : { inputSchema }),
    decisions: DECISION_TYPES,
  };
}

/** The text part of a waiting input: what a person reads, and how to reply. */
export function waitingText(waiting: WaitingInput): string {
  if (waiting.kind === 'approval') {
    const { toolName, input, description } = waiting.approval;
    return [
      `${toolName} wants to run with ${JSON.stringify(input)}.`,
      ...(description === undefined ? [] : [description]),
      `Reply "approve", "reject" or "reject: <reason>", or send a data part {"type": ${DECISION_TYPES.map((type) => JSON.stringify(type)).join(' | ')}, "input"?, "reason"?, "text"?}.`,
    ].join('\n');
  }
  const lines: string[] = [];
  for (const question of waiting.questions) {
    const kind = question.options?.length
      ? question.multiSelect === true
        ? 'choose any'
        : 'choose one'
      : 'free-form';
    lines.push(`${question.question} (id ${question.id}, ${kind})`);
    for (const option of question.options ?? []) {
      lines.push(`- ${option.label}${option.description === undefined ? '' : `: ${option.description}`}`);
    }
  }
  lines.push(
    waiting.questions.length === 1
      ? 'Reply with your answer as text, or send a data part {"answers": [{"id", "selected", "custom"?}]}.'
      : 'Send a data part {"answers": [{"id", "selected", "custom"?}, ...]}, one item per question.',
  );
  return lines.join('\n');
}

/** The status message of a task waiting for `waiting`, opened by `note` (why the last reply was refused). */
export function waitingMessage(
  taskId: string,
  contextId: string,
  waiting: WaitingInput,
  note?: string,
): Message {
  const text = note === undefined ? waitingText(waiting) : `${note}\n\n${waitingText(waiting)}`;
  return agentMessage(taskId, contextId, [dataPart(waitingData(waiting)), textPart(text)], {
    [A2A_METADATA_KEY]: { questionId: waiting.questionId },
  });
}

/** The question id a status message of this package names, if it is one. */
export function questionIdOf(message: Message | undefined): string | undefined {
  const entry: unknown = message?.metadata?.[A2A_METADATA_KEY];
  return isPlainObject(entry) && typeof entry.questionId === 'string' ? entry.questionId : undefined;
}

/** A reply this package cannot read as an answer or decision: its message is what the client is told. */
export class UnreadableReply extends Error {}

/** The reply's data parts and its text (its text parts joined), as sent. */
function partsOf(message: Message): { data: unknown[]; text: string } {
  const data: unknown[] = [];
  const texts: string[] = [];
  for (const part of message.parts) {
    if (part.content?.$case === 'data') data.push(part.content.value);
    else if (part.content?.$case === 'text') texts.push(part.content.value);
  }
  return { data, text: texts.join('\n').trim() };
}

/** The answers a reply to `questions` carries. @throws UnreadableReply naming what is missing. */
export function answersOfReply(
  message: Message,
  questions: readonly AskUserQuestion[],
): AskUserQuestionAnswerItem[] {
  const { data, text } = partsOf(message);
  const shaped = data.find((value) => isPlainObject(value) && 'answers' in value);
  if (isPlainObject(shaped)) {
    // The shape of each item is the update's to check, with the same reasons every surface gets.
    return shaped.answers as AskUserQuestionAnswerItem[];
  }
  if (data.length > 0) {
    throw new UnreadableReply(
      'the data part has no "answers": send {"answers": [{"id", "selected", "custom"?}]}',
    );
  }
  const [only] = questions;
  if (questions.length !== 1 || only === undefined) {
    throw new UnreadableReply(
      `a text reply answers a single question, and this asks ${questions.length}: send a data part {"answers": [...]}`,
    );
  }
  if (text === '') throw new UnreadableReply('the reply has no text and no data part');
  const label = only.options?.find((option) => option.label === text)?.label;
  return [
    label === undefined ? { id: only.id, selected: [], custom: text } : { id: only.id, selected: [label] },
  ];
}

/** The decision a reply to an approval carries. @throws UnreadableReply naming what is missing. */
export function decisionOfReply(message: Message): DecideInput {
  const { data, text } = partsOf(message);
  const shaped = data.find((value) => isPlainObject(value) && 'type' in value);
  if (isPlainObject(shaped)) {
    const { type, input, reason, text: responseText } = shaped;
    // The update checks the type, the edited input against the tool's schema and the texts.
    return {
      type: type as ApprovalDecisionType,
      ...(input === undefined ? {} : { input }),
      ...(reason === undefined ? {} : { reason: reason as string }),
      ...(responseText === undefined ? {} : { text: responseText as string }),
    };
  }
  if (data.length > 0) {
    throw new UnreadableReply(
      'the data part has no "type": send {"type": "approve" | "edit" | "reject" | "respond"}',
    );
  }
  const match = /^(approve|reject)\s*(?::\s*([\s\S]*))?$/i.exec(text);
  if (match === null) {
    throw new UnreadableReply(
      `a text reply to an approval is "approve", "reject" or "reject: <reason>", got ${JSON.stringify(text.slice(0, 80))}`,
    );
  }
  const type = match[1]!.toLowerCase() as 'approve' | 'reject';
  const reason = match[2]?.trim();
  if (type === 'approve') {
    if (reason !== undefined) throw new UnreadableReply('"approve" takes no reason');
    return { type };
  }
  return reason === undefined || reason === '' ? { type } : { type, reason };
}
