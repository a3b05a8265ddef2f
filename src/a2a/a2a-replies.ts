/**
 * A client's reply recorded as the waiting question's answer or the approval's decision, through the validated
 * updates every surface uses (`QuestionClient.answer`, `decide`), and what the client reads when it was not.
 */
import type { Message } from '@a2a-js/sdk';
import { errorText } from '../common';
import { QuestionOperationError } from '../interaction/question-operation-error';
import type { QuestionClient } from '../ops/question-client';
import { answersOfReply, decisionOfReply, UnreadableReply, type WaitingInput } from './a2a-parts';

/** Who replied, as the surface that authenticated them knows them. */
export interface A2AAnswerer {
  name?: string;
  groups?: string[];
}

/** Refusals by the answer rules, the audience or the reply's shape: the client corrects its reply. */
const REFUSAL_CODES = new Set(['BAD_ANSWER', 'FORBIDDEN', 'INVALID_ARGS', 'NOT_FOUND']);

/** What the client reads when its reply was not recorded; `undefined` when it lost the race to another answer. */
function refusalNote(error: unknown): string | undefined {
  if (QuestionOperationError.isInstance(error) && error.code === 'ALREADY_RESOLVED') return undefined;
  if (
    error instanceof UnreadableReply ||
    (QuestionOperationError.isInstance(error) && REFUSAL_CODES.has(error.code))
  ) {
    return `Your reply was refused, and nothing was recorded: ${errorText(error)}`;
  }
  // Temporal unreachable, or no answer in time: the same reply sent again is recorded at most once.
  return `Your reply could not be recorded now (${errorText(error)}); send it again.`;
}

/**
 * Records `reply` for `waiting`; returns what the client reads when it was not recorded, or `undefined` when it
 * was, or when another answer won first (the task then moves on with that one, as on every surface).
 */
export async function recordReply(
  questions: QuestionClient,
  waiting: WaitingInput,
  reply: Message,
  answerer: A2AAnswerer,
): Promise<string | undefined> {
  try {
    if (waiting.kind === 'question') {
      const answers = answersOfReply(reply, waiting.questions);
      // The message id is the answer's id: the same message sent again is the same answer, recorded once.
      await questions.answer(waiting.questionId, {
        answers,
        answerId: reply.messageId,
        ...(answerer.name === undefined ? {} : { answeredBy: answerer.name }),
        ...(answerer.groups === undefined ? {} : { groups: answerer.groups }),
      });
    } else {
      await questions.decide(waiting.questionId, {
        ...decisionOfReply(reply),
        ...(answerer.name === undefined ? {} : { decidedBy: answerer.name }),
        ...(answerer.groups === undefined ? {} : { groups: answerer.groups }),
      });
    }
    return undefined;
  } catch (error) {
    return refusalNote(error);
  }
}
