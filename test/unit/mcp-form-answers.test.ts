/**
 * A task's form attempt, the reason of its last refused form answer and its form answer waiting for a worker,
 * read from the question's record alone (what any MCP server instance reads, before or after a restart).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  formAnswerAwaitingWorker,
  formAnswerId,
  formAttempt,
  refusalNote,
} from '../../src/mcp/mcp-form-answers';
import type { QuestionRecord, RejectedAnswer } from '../../src/types';

function record(rejectedAnswers: RejectedAnswer[], unvalidated?: QuestionRecord['unvalidatedAnswers']) {
  const base: QuestionRecord = {
    questions: [{ id: 'deploy', question: 'Deploy now?', options: [{ label: 'Yes' }, { label: 'No' }] }],
    status: 'pending',
    askedAt: '2026-12-04T10:00:00.000Z',
    rejectedAnswers,
  };
  return unvalidated === undefined ? base : { ...base, unvalidatedAnswers: unvalidated };
}

const AT = '2026-12-04T10:01:00.000Z';

describe('the form answers of a task, from the record', () => {
  test('before any refused form answer: attempt 0 and no note, whatever other surfaces had refused', () => {
    assert.deepEqual(formAttempt(record([])), { attempt: 0 });
    const others = [
      { receivedAt: AT, reason: 'not an option', answerId: 'b4c1d2e3-0000-4000-8000-000000000000' },
      { receivedAt: AT, reason: 'not an option' },
    ];
    assert.deepEqual(formAttempt(record(others)), { attempt: 0 });
  });

  test("one past the latest refused form answer's attempt, with that one's reason as the note", () => {
    const refused = [
      { receivedAt: AT, reason: 'first reason', answerId: formAnswerId(0, 'a') },
      { receivedAt: AT, reason: 'second reason.', answerId: formAnswerId(1, 'b') },
      { receivedAt: AT, reason: 'from elsewhere', answerId: 'c' },
    ];
    assert.deepEqual(formAttempt(record(refused)), {
      attempt: 2,
      note: 'Your answer was not recorded: second reason.',
    });
    assert.equal(refusalNote('no such option'), 'Your answer was not recorded: no such option.');
  });

  test('the latest form answer waiting for a worker, not an answer from another surface', () => {
    const waiting = [
      { receivedAt: AT, answerId: formAnswerId(0, 'a') },
      { receivedAt: AT, answerId: formAnswerId(0, 'b'), answeredBy: 'mcp:client' },
      { receivedAt: AT, answerId: 'from-the-inbox' },
    ];
    assert.equal(formAnswerAwaitingWorker(record([], waiting))?.answerId, 'mcp-form-0-b');
    assert.equal(formAnswerAwaitingWorker(record([], [{ receivedAt: AT, answerId: 'x' }])), undefined);
    assert.equal(formAnswerAwaitingWorker(record([])), undefined);
  });
});
