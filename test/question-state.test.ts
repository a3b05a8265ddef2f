/**
 * `QuestionState` without a server: every transition of a question (answer by update or signal, decline,
 * expiry, cancellation), every refusal and its exact text, and the result the workflow returns.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { ApplicationFailure } from '@temporalio/common';

import { MAX_REJECTED_ANSWERS, QuestionState, formatDuration } from '../src/workflows/question-state';
import type { AskUserQuestionWorkflowInput } from '../src/types';

const ASKED_AT = new Date('2026-01-02T03:04:05.000Z');
const T1 = '2026-01-02T03:05:00.000Z';
const T2 = '2026-01-02T03:06:00.000Z';

const INPUT: AskUserQuestionWorkflowInput = {
  questions: [
    {
      id: 'deploy',
      question: 'Deploy to production?',
      options: [{ label: 'Yes (Recommended)' }, { label: 'No' }],
    },
  ],
  agent: { id: 'deploy-bot', sessionId: 's-1' },
  toolCallId: 'call-1',
};
const YES = { answers: [{ id: 'deploy', selected: ['Yes (Recommended)'] }] };
const NO = { answers: [{ id: 'deploy', selected: ['No'] }] };

/** The failure `fn` throws, checked to be a non-retryable application failure. */
function refusal(fn: () => unknown): ApplicationFailure {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ApplicationFailure, `expected an ApplicationFailure, got ${String(error)}`);
    assert.equal(error.nonRetryable, true);
    return error;
  }
  assert.fail('expected a refusal');
}

describe('QuestionState', () => {
  test('starts pending with the input, the start time, and a deadline when there is a timeout', () => {
    const state = new QuestionState({ ...INPUT, timeoutMs: 90_000 }, ASKED_AT);
    assert.equal(state.status, 'pending');
    assert.equal(state.isPending, true);
    assert.equal(state.details, 'Waiting for an answer');
    assert.deepEqual(state.record, {
      questions: INPUT.questions,
      status: 'pending',
      askedAt: ASKED_AT.toISOString(),
      rejectedAnswers: [],
      agent: INPUT.agent,
      toolCallId: 'call-1',
      expiresAt: '2026-01-02T03:05:35.000Z',
    });
    assert.equal(new QuestionState(INPUT, ASKED_AT).record.expiresAt, undefined);
  });

  test('an update answer is recorded with who and when, and the outcome leaves out the questions', () => {
    const state = new QuestionState(INPUT, ASKED_AT);
    const outcome = state.submit({ ...YES, answeredBy: 'alice' }, T1);
    assert.equal(state.status, 'answered');
    assert.equal(state.details, 'Answered');
    assert.deepEqual(outcome, {
      status: 'answered',
      askedAt: ASKED_AT.toISOString(),
      rejectedAnswers: [],
      agent: INPUT.agent,
      toolCallId: 'call-1',
      answer: YES,
      answeredBy: 'alice',
      resolvedAt: T1,
    });
    assert.deepEqual(state.result(T2), {
      status: 'answered',
      answer: YES,
      answeredBy: 'alice',
      resolvedAt: T1,
    });
  });

  test('an invalid update is refused with BAD_ANSWER, the reason and the rule, and nothing changes', () => {
    const state = new QuestionState(INPUT, ASKED_AT);
    const failure = refusal(() => state.checkSubmit({ answers: [{ id: 'deploy', selected: ['Maybe'] }] }));
    assert.equal(failure.type, 'BAD_ANSWER');
    assert.equal(failure.message, 'answers[0].selected: "Maybe" is not an option of question "deploy"');
    assert.deepEqual(failure.details, ['unknown-label']);
    assert.equal(state.status, 'pending');
    assert.equal(refusal(() => state.submit('not an answer', T1)).type, 'BAD_ANSWER');
    assert.equal(state.status, 'pending');
  });

  test('a late update or decline is refused with ALREADY_RESOLVED naming who answered and when', () => {
    const state = new QuestionState(INPUT, ASKED_AT);
    state.submit({ ...YES, answeredBy: 'alice' }, T1);
    for (const late of [() => state.checkSubmit(NO), () => state.submit(NO, T2), () => state.decline({}, T2)]) {
      const failure = refusal(late);
      assert.equal(failure.type, 'ALREADY_RESOLVED');
      assert.equal(failure.message, `the question was already answered by alice at ${T1}`);
    }
    assert.deepEqual(state.record.answer, YES);
  });

  test('a valid signal is taken; an invalid or late one is kept as rejected with the reason', () => {
    const state = new QuestionState(INPUT, ASKED_AT);
    assert.equal(state.receiveSignal({ answers: [], answeredBy: 'mallory' }, T1), false);
    assert.equal(state.status, 'pending');
    assert.equal(state.receiveSignal({ undecodable: 'Unknown encoding: binary/x-oops' }, T1), false);
    assert.equal(state.receiveSignal({ ...YES, answeredBy: 'bob' }, T2), true);
    assert.equal(state.receiveSignal({ ...NO, answeredBy: 'carol' }, T2), false);
    assert.equal(state.status, 'answered');
    assert.equal(state.record.answeredBy, 'bob');
    const [first, second, third] = state.record.rejectedAnswers;
    assert.equal(first?.answeredBy, 'mallory');
    assert.equal(first?.receivedAt, T1);
    assert.equal(first?.reason, 'expected 1 answer (one per question, in order), received 0');
    assert.equal(second?.answeredBy, undefined);
    assert.equal(third?.reason, `the question was already answered by bob at ${T2}`);
    assert.equal(third?.answeredBy, 'carol');
  });

  test('rejected signals are capped, dropping the oldest', () => {
    const state = new QuestionState(INPUT, ASKED_AT);
    for (let index = 0; index < MAX_REJECTED_ANSWERS + 5; index++) {
      state.receiveSignal({ answers: [], answeredBy: `sender-${index}` }, T1);
    }
    assert.equal(state.record.rejectedAnswers.length, MAX_REJECTED_ANSWERS);
    assert.equal(state.record.rejectedAnswers[0]?.answeredBy, 'sender-5');
  });

  test('answeredBy is taken only as a string', () => {
    const state = new QuestionState(INPUT, ASKED_AT);
    state.submit({ ...YES, answeredBy: { name: 'alice' } }, T1);
    assert.equal(state.record.answeredBy, undefined);
    assert.equal('answeredBy' in state.result(T2), false);
  });

  test('a decline is recorded with its reason and who; a blank reason is left out', () => {
    const state = new QuestionState(INPUT, ASKED_AT);
    state.decline({ reason: 'not during the freeze', declinedBy: 'dana' }, T1);
    assert.equal(state.status, 'declined');
    assert.deepEqual(state.result(T2), {
      status: 'declined',
      reason: 'not during the freeze',
      declinedBy: 'dana',
      resolvedAt: T1,
    });
    const blank = new QuestionState(INPUT, ASKED_AT);
    blank.decline({ reason: '   ' }, T1);
    assert.deepEqual(blank.result(T2), { status: 'declined', resolvedAt: T1 });
    const bare = new QuestionState(INPUT, ASKED_AT);
    bare.decline(undefined, T1);
    assert.equal(bare.status, 'declined');
  });

  test('a malformed decline is refused with INVALID_ARGS naming the field, and the question stays open', () => {
    const state = new QuestionState(INPUT, ASKED_AT);
    const cases: [unknown, string][] = [
      ['no', 'invalid arguments: decline: must be an object'],
      [{ reason: 42 }, 'invalid arguments: decline.reason: must be a string'],
      [{ declinedBy: ['x'] }, 'invalid arguments: decline.declinedBy: must be a string'],
      [
        { undecodable: 'Unknown encoding: binary/x-oops' },
        'invalid arguments: decline: could not be decoded: Unknown encoding: binary/x-oops',
      ],
    ];
    for (const [input, message] of cases) {
      const failure = refusal(() => state.decline(input, T1));
      assert.equal(failure.type, 'INVALID_ARGS');
      assert.equal(failure.message, message);
    }
    assert.equal(state.status, 'pending');
  });

  test('expiry resolves a pending question with the deadline in the result; it never overrides an answer', () => {
    const state = new QuestionState({ ...INPUT, timeoutMs: 1_800_000 }, ASKED_AT);
    state.expire(T1);
    assert.equal(state.status, 'expired');
    assert.equal(state.details, 'Expired');
    assert.deepEqual(state.result(T2), { status: 'expired', resolvedAt: T1, after: '30m' });
    assert.equal(refusal(() => state.checkSubmit(YES)).message, `the question is already expired (since ${T1})`);

    const answered = new QuestionState({ ...INPUT, timeoutMs: 1_000 }, ASKED_AT);
    answered.submit(YES, T1);
    answered.expire(T2);
    assert.equal(answered.status, 'answered');
  });

  test('cancellation ends only a pending question; an answer recorded first stands', () => {
    const pending = new QuestionState(INPUT, ASKED_AT);
    assert.equal(pending.cancel(T1), true);
    assert.equal(pending.status, 'cancelled');
    assert.equal(pending.details, 'Cancelled');
    assert.equal(refusal(() => pending.checkSubmit(YES)).message, `the question is already cancelled (since ${T1})`);

    const answered = new QuestionState(INPUT, ASKED_AT);
    answered.submit(YES, T1);
    assert.equal(answered.cancel(T2), false);
    assert.equal(answered.status, 'answered');
  });

  test('durations are shown in the largest unit that divides them', () => {
    assert.equal(formatDuration(86_400_000), '1d');
    assert.equal(formatDuration(7_200_000), '2h');
    assert.equal(formatDuration(90_000), '90s');
    assert.equal(formatDuration(1_500), '1500ms');
  });
});
