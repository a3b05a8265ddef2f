/**
 * Answers that carry an `answerId` (the ops client gives every answer one, and sends it again as the `answer`
 * signal when no worker took its update): taken once, never refused for being sent twice, refused with the id
 * when wrong or late, and the refusals that carry an id kept in the result for a reader of the closed record. And
 * the duration grammar the inbox documents for a deadline move: the parser reads exactly its pattern.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import fc from 'fast-check';

import { SIGNED_DURATION_PATTERN, parseDuration } from '../../src/question/question-policy';
import type { AskUserQuestionWorkflowInput, RejectedAnswer } from '../../src/types';
import { QuestionState } from '../../src/workflows/question-state';

const ASKED_AT = new Date('2026-01-02T03:04:05.000Z');
const T1 = '2026-01-02T03:05:00.000Z';
const T2 = '2026-01-02T03:06:00.000Z';
const INPUT: AskUserQuestionWorkflowInput = {
  questions: [{ id: 'deploy', question: 'Deploy?', options: [{ label: 'Yes' }, { label: 'No' }] }],
};
const YES = { answers: [{ id: 'deploy', selected: ['Yes'] }] };
const NO = { answers: [{ id: 'deploy', selected: ['No'] }] };

describe('answers with an answerId', () => {
  test('an update taken, then its signal: recorded once, nothing refused', () => {
    const state = new QuestionState(INPUT, ASKED_AT);
    state.checkSubmit({ ...YES, answeredBy: 'alice', answerId: 'a-1' }, 'a-1');
    state.submit({ ...YES, answeredBy: 'alice', answerId: 'a-1' }, T1, 'a-1');
    const refusals: RejectedAnswer[] = [];
    assert.equal(
      state.receiveSignal({ ...YES, answeredBy: 'alice', answerId: 'a-1' }, T2, (r) => refusals.push(r)),
      false,
    );
    assert.deepEqual(refusals, []);
    assert.equal(state.record.answerId, 'a-1');
    assert.deepEqual(state.record.rejectedAnswers, []);
    assert.deepEqual(state.result(T2), {
      status: 'answered',
      answer: YES,
      answeredBy: 'alice',
      answerId: 'a-1',
      resolvedAt: T1,
    });
  });

  test('two signals in an outage: the first taken, the second refused naming it, once; the refusal is in the result', () => {
    const state = new QuestionState(INPUT, ASKED_AT);
    const refusals: RejectedAnswer[] = [];
    const heard = (refusal: RejectedAnswer): void => void refusals.push(refusal);
    assert.equal(state.receiveSignal({ ...YES, answeredBy: 'alice', answerId: 'a-1' }, T1, heard), true);
    assert.equal(state.receiveSignal({ ...NO, answeredBy: 'bob', answerId: 'b-1' }, T1, heard), false);
    assert.equal(state.receiveSignal({ ...NO, answeredBy: 'bob', answerId: 'b-1' }, T2, heard), false);
    const refused = {
      receivedAt: T1,
      answeredBy: 'bob',
      reason: `the question was already answered by alice at ${T1}`,
      answerId: 'b-1',
    };
    assert.deepEqual(refusals, [refused]);
    assert.deepEqual(state.record.rejectedAnswers, [refused]);
    assert.deepEqual(state.result(T2), {
      status: 'answered',
      answer: YES,
      answeredBy: 'alice',
      answerId: 'a-1',
      resolvedAt: T1,
      rejectedAnswers: [refused],
    });
  });

  test('an invalid one is refused with its id and the question waits; a refusal without an id stays out of the result', () => {
    const state = new QuestionState(INPUT, ASKED_AT);
    const refusals: RejectedAnswer[] = [];
    state.receiveSignal({ answers: [{ id: 'deploy', selected: ['Maybe'] }], answerId: 'm-1' }, T1, (r) =>
      refusals.push(r),
    );
    state.receiveSignal({ answers: [{ id: 'deploy', selected: ['Maybe'] }] }, T1);
    assert.equal(state.status, 'pending');
    assert.deepEqual(
      refusals.map((refusal) => [refusal.answerId, refusal.reason]),
      [['m-1', 'answers[0].selected: "Maybe" is not an option of question "deploy"']],
    );
    assert.equal(state.record.rejectedAnswers.length, 2);
    state.receiveSignal({ ...YES, answerId: 'y-1' }, T2);
    const result = state.result(T2);
    assert.deepEqual(
      result.rejectedAnswers?.map((refusal) => refusal.answerId),
      ['m-1'],
    );
  });
});

describe('the duration grammar', () => {
  const pattern = new RegExp(SIGNED_DURATION_PATTERN);

  test('the parser reads exactly the text of the pattern; text too long for a number is infinitely long', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^-?(\d{1,25}(ms|s|m|h|d)){1,6}$/), (text) => {
        assert.ok(pattern.test(text));
        const parsed = parseDuration(text, { signed: true });
        assert.notEqual(parsed, undefined, text);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        assert.equal(
          parseDuration(text, { signed: true }) !== undefined,
          pattern.test(text),
          JSON.stringify(text),
        );
      }),
    );
    assert.equal(parseDuration('1h30m', { signed: true }), 5_400_000);
    assert.equal(parseDuration('-30m', { signed: true }), -1_800_000);
    assert.equal(parseDuration('-30m'), undefined);
    assert.equal(parseDuration(' 2h'), undefined);
    assert.equal(
      parseDuration('1m006083m091ms82980ms069m5ms9h951187398040h844346101d2333300ms11501235s', {
        signed: true,
      }),
      Number.POSITIVE_INFINITY,
    );
  });
});
