/**
 * What a question takes, and from whom: the checks behind the `submitAnswer`, `decide` and `decline`
 * validators and the `answer` signal, as pure functions of the question's record. A validator throws the
 * failure its sender reads (`ALREADY_RESOLVED` naming who and when, `BAD_ANSWER` naming the broken rule,
 * `INVALID_ARGS`, `FORBIDDEN` outside the audience); the signal, which cannot refuse its sender, gets the same
 * reasons as text. Deterministic: runs in the workflow sandbox.
 */
import { definedFields } from '../common';
import { checkAnswer } from '../answer/answer-rules';
import { answererGroups, audienceRefusal } from '../answer/audience-rules';
import { checkDecision } from '../answer/decision-rules';
import { isUndecodablePayload } from '../answer/undecodable-payload';
import { ALREADY_RESOLVED, BAD_ANSWER, FORBIDDEN, INVALID_ARGS, refusal } from '../question/failures';
import { resolvedReason } from '../question/question-text';
import type { AskUserQuestionAnswer, DecideInput, DeclineInput, QuestionRecord } from '../types';
import {
  RESERVED_ANSWERER_REASON,
  RESERVED_DECIDER_REASON,
  answerIdOf,
  answerSeen,
  declineOf,
  isReservedName,
  stringField,
} from './question-rules';

/** What an answerer does, and the argument that carries their groups (`answer.groups`, `decision.groups`). */
interface AnswererAct {
  act: 'answer' | 'decide' | 'decline';
  path: string;
}

const ANSWERING: AnswererAct = { act: 'answer', path: 'answer' };
const DECIDING: AnswererAct = { act: 'decide', path: 'decision' };
const DECLINING: AnswererAct = { act: 'decline', path: 'decline' };

/**
 * Why `name` may not act: `INVALID_ARGS` for a malformed `groups` field, `FORBIDDEN` for a name and groups
 * outside the record's audience; `undefined` when they may. A question without an audience is anyone's.
 */
function answererRefusal(
  record: QuestionRecord,
  input: unknown,
  name: string | undefined,
  { act, path }: AnswererAct,
): { type: typeof INVALID_ARGS | typeof FORBIDDEN; reason: string } | undefined {
  const groups = answererGroups(input, path);
  if (!groups.ok) return { type: INVALID_ARGS, reason: `invalid arguments: ${groups.reason}` };
  const refused = audienceRefusal(record.audience, name, groups.groups, act);
  return refused === undefined ? undefined : { type: FORBIDDEN, reason: refused };
}

function refuseAnswerer(
  record: QuestionRecord,
  input: unknown,
  name: string | undefined,
  act: AnswererAct,
): void {
  const refused = answererRefusal(record, input, name, act);
  if (refused !== undefined) throw refusal(refused.type, refused.reason);
}

/** What an answer to an approval is told. */
function notAQuestion(record: QuestionRecord): string {
  return `this is an approval of ${record.approval?.toolName ?? 'a tool call'}, not a question: decide it (update decide)`;
}

/** Throws `ALREADY_RESOLVED`, naming who answered or decided and when, once the question is closed. */
export function refuseIfResolved(record: QuestionRecord): void {
  const reason = resolvedReason(record);
  if (reason !== undefined) throw refusal(ALREADY_RESOLVED, reason);
}

/** The `submitAnswer` validator's check: returns the normalised answer. */
export function submittedAnswer(record: QuestionRecord, input: unknown): AskUserQuestionAnswer {
  refuseIfResolved(record);
  if (record.approval !== undefined) throw refusal(BAD_ANSWER, notAQuestion(record), 'approval');
  const answeredBy = stringField(input, 'answeredBy');
  if (isReservedName(answeredBy))
    throw refusal(INVALID_ARGS, `invalid arguments: ${RESERVED_ANSWERER_REASON}`);
  refuseAnswerer(record, input, answeredBy, ANSWERING);
  const checked = checkAnswer(record.questions, input);
  if (!checked.ok) throw refusal(BAD_ANSWER, checked.reason, checked.rule);
  return checked.answer;
}

/**
 * Why the `answer` signal from `answeredBy` cannot be taken before the answer rules run (closed, an approval,
 * a reserved name, outside the audience), or `undefined`.
 */
export function signalRefusal(
  record: QuestionRecord,
  input: unknown,
  answeredBy: string | undefined,
): string | undefined {
  return (
    resolvedReason(record) ??
    (record.approval === undefined ? undefined : notAQuestion(record)) ??
    (isReservedName(answeredBy) ? RESERVED_ANSWERER_REASON : undefined) ??
    answererRefusal(record, input, answeredBy, ANSWERING)?.reason
  );
}

/** What the `answer` signal brings: an answer seen before (by its `answerId`), one to take, or one refused. */
export type SignalVerdict =
  | { kind: 'seen' }
  | { kind: 'taken'; answer: AskUserQuestionAnswer; answeredBy?: string; answerId?: string }
  | { kind: 'refused'; answeredBy?: string; answerId?: string; reason: string };

/** The `answer` signal's judgement, from the record alone: the state decides what to keep. */
export function signalVerdict(record: QuestionRecord, input: unknown): SignalVerdict {
  const answerId = answerIdOf(input);
  if (answerId !== undefined && answerSeen(record, answerId)) return { kind: 'seen' };
  const answeredBy = stringField(input, 'answeredBy');
  const sender = definedFields({ answeredBy, answerId });
  const refused = signalRefusal(record, input, answeredBy);
  if (refused !== undefined) return { kind: 'refused', ...sender, reason: refused };
  const checked = checkAnswer(record.questions, input);
  return checked.ok
    ? { kind: 'taken', ...sender, answer: checked.answer }
    : { kind: 'refused', ...sender, reason: checked.reason };
}

/** The `decline` validator's check: a late decline, input that is not `{ reason?, declinedBy? }`, the audience. */
export function declineTaken(record: QuestionRecord, input: unknown): DeclineInput {
  refuseIfResolved(record);
  const decline = declineOf(input);
  refuseAnswerer(record, input ?? undefined, stringField(input, 'declinedBy'), DECLINING);
  return decline;
}

/**
 * The `decide` validator's check: a decision on questions, a late one, a reserved or outside decider, and one
 * that breaks the decision rules (an edit outside the tool's input schema names the path).
 */
export function decisionTaken(record: QuestionRecord, input: unknown): DecideInput {
  const subject = record.approval;
  if (subject === undefined) {
    throw refusal(INVALID_ARGS, 'invalid arguments: decide: this is a question, not an approval: answer it');
  }
  refuseIfResolved(record);
  if (isUndecodablePayload(input)) {
    throw refusal(INVALID_ARGS, `invalid arguments: decide: could not be decoded: ${input.undecodable}`);
  }
  const decidedBy = stringField(input, 'decidedBy');
  if (isReservedName(decidedBy)) throw refusal(INVALID_ARGS, `invalid arguments: ${RESERVED_DECIDER_REASON}`);
  refuseAnswerer(record, input, decidedBy, DECIDING);
  const checked = checkDecision(subject, input);
  if (!checked.ok) throw refusal(BAD_ANSWER, checked.reason, checked.rule);
  return checked.decision;
}
