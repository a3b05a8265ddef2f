/**
 * Many answerers at once on one question, as the dev-server and the cluster tests both race them: exactly one
 * answer is recorded, and every other is refused as `ALREADY_RESOLVED`, naming the winner and when.
 */
import assert from 'node:assert/strict';
import { inspect } from 'node:util';

import { QuestionOperationError } from '../../src/interaction';
import type { QuestionClient } from '../../src/ops';
import type { QuestionOutcome, SubmitAnswerInput } from '../../src/types';

/**
 * Sends `count` answers at once (`answerOf(index)`, answered by `answerer-<index>`), asserts that one won and
 * that each of the others was refused naming it, and returns the winner and its index.
 */
export async function raceAnswers(
  questions: QuestionClient,
  workflowId: string,
  count: number,
  answerOf: (index: number) => SubmitAnswerInput['answers'],
): Promise<{ winner: QuestionOutcome; winnerIndex: number }> {
  const outcomes = await Promise.allSettled(
    Array.from({ length: count }, (_, index) =>
      questions.answer(workflowId, { answers: answerOf(index), answeredBy: `answerer-${index}` }),
    ),
  );
  const accepted = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const refused = outcomes.flatMap((outcome) =>
    outcome.status === 'rejected' ? [outcome.reason as unknown] : [],
  );
  assert.equal(accepted.length, 1, inspect(outcomes, { depth: 1 }));
  const winner = accepted[0]!;
  const expected = `the question was already answered by ${winner.answeredBy} at ${winner.resolvedAt}`;
  assert.equal(refused.length, count - 1);
  for (const error of refused) {
    assert.ok(
      QuestionOperationError.isInstance(error),
      `expected a QuestionOperationError, got ${inspect(error)}`,
    );
    assert.equal(error.code, 'ALREADY_RESOLVED');
    assert.equal(error.message, expected);
  }
  return { winner, winnerIndex: Number(winner.answeredBy?.replace('answerer-', '')) };
}
