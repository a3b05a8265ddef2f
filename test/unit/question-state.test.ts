/**
 * `QuestionState` without a server: every transition of a question (answer by update or signal, decline,
 * expiry, cancellation), every refusal and its exact text, and the result the workflow returns.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { QuestionState } from '../../src/workflows/question-state';
import { MAX_REJECTED_ANSWERS } from '../../src/workflows/question-rules';
import {
  MAX_DEADLINE_CHANGES,
  formatDuration,
  recommendedAnswer,
} from '../../src/workflows/question-schedule';
import type { AskUserQuestionWorkflowInput } from '../../src/types';

import { refusal } from '../helpers/refusal';

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

describe('QuestionState', () => {
  test('starts pending with the input, the start time, and a deadline when its policy has one', () => {
    const state = new QuestionState({ ...INPUT, policy: { expireAfterMs: 90_000 } }, ASKED_AT);
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
    for (const late of [
      () => state.checkSubmit(NO),
      () => state.submit(NO, T2),
      () => state.decline({}, T2),
    ]) {
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
    const state = new QuestionState({ ...INPUT, policy: { expireAfterMs: 1_800_000 } }, ASKED_AT);
    state.expire(T1);
    assert.equal(state.status, 'expired');
    assert.equal(state.details, 'Expired');
    assert.deepEqual(state.result(T2), { status: 'expired', resolvedAt: T1, after: '30m' });
    assert.equal(
      refusal(() => state.checkSubmit(YES)).message,
      `the question is already expired (since ${T1})`,
    );

    const answered = new QuestionState({ ...INPUT, policy: { expireAfterMs: 1_000 } }, ASKED_AT);
    answered.submit(YES, T1);
    answered.expire(T2);
    assert.equal(answered.status, 'answered');
  });

  test('cancellation ends only a pending question; an answer recorded first stands', () => {
    const pending = new QuestionState(INPUT, ASKED_AT);
    assert.equal(pending.cancel(T1), true);
    assert.equal(pending.status, 'cancelled');
    assert.equal(pending.details, 'Cancelled');
    assert.equal(
      refusal(() => pending.checkSubmit(YES)).message,
      `the question is already cancelled (since ${T1})`,
    );

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

/** ISO time `offsetMs` after the question was asked. */
function after(offsetMs: number): string {
  return new Date(ASKED_AT.getTime() + offsetMs).toISOString();
}

/** Two questions: one with a recommended option (not the first), one free-form. */
const MIXED_INPUT: AskUserQuestionWorkflowInput = {
  questions: [
    {
      id: 'env',
      question: 'Which environment?',
      options: [{ label: 'production' }, { label: 'staging (Recommended)' }, { label: 'dev (Recommended)' }],
    },
    { id: 'note', question: 'Anything else?' },
  ],
};

describe('QuestionState with a policy', () => {
  test("the question's policy sets the deadline; the worker's fills only the fields it leaves unset", () => {
    const state = new QuestionState(
      { ...INPUT, policy: { expireAfterMs: 60_000, onExpiry: 'recommended' } },
      ASKED_AT,
    );
    state.applyWorkerPolicy({
      expireAfterMs: 5_000,
      onExpiry: 'error',
      remindEveryMs: 10_000,
      maxReminders: 2,
    });
    assert.deepEqual(state.effectivePolicy, {
      expireAfterMs: 60_000,
      onExpiry: 'recommended',
      remindEveryMs: 10_000,
      maxReminders: 2,
    });
    assert.equal(state.record.expiresAt, after(60_000));
    assert.equal(state.currentDetails, `Waiting for an answer until ${after(60_000)}`);

    const workerOnly = new QuestionState(INPUT, ASKED_AT);
    assert.equal(workerOnly.nextWake(), undefined);
    workerOnly.applyWorkerPolicy({ expireAfterMs: 5_000 });
    assert.equal(workerOnly.record.expiresAt, after(5_000));
    assert.deepEqual(workerOnly.nextWake(), { at: ASKED_AT.getTime() + 5_000, due: ['expire'] });
  });

  test('expiry with "recommended" answers each question\'s first Recommended option, as policy:expired', () => {
    assert.deepEqual(recommendedAnswer(MIXED_INPUT.questions), {
      answers: [
        { id: 'env', selected: ['staging (Recommended)'] },
        { id: 'note', selected: [] },
      ],
    });
    const state = new QuestionState(
      { ...MIXED_INPUT, policy: { expireAfterMs: 90_000, onExpiry: 'recommended' } },
      ASKED_AT,
    );
    state.expire(after(90_000));
    assert.equal(state.status, 'answered');
    assert.equal(state.record.answeredBy, 'policy:expired');
    assert.equal(state.currentDetails, 'Expired: answered with the recommended options');
    assert.deepEqual(state.result(T2), {
      status: 'answered',
      answer: recommendedAnswer(MIXED_INPUT.questions),
      answeredBy: 'policy:expired',
      resolvedAt: after(90_000),
    });
    assert.equal(
      refusal(() =>
        state.checkSubmit({
          answers: [
            { id: 'env', selected: ['production'] },
            { id: 'note', selected: [] },
          ],
        }),
      ).message,
      `the question was already answered by policy:expired at ${after(90_000)}`,
    );
  });

  test('expiry with "error" (the default) reports the whole time the question had, extensions included', () => {
    const state = new QuestionState({ ...INPUT, policy: { expireAfterMs: 2_000 } }, ASKED_AT);
    state.extend({ by: '3s' }, after(1_000));
    state.expire(after(5_000));
    assert.deepEqual(state.result(T2), { status: 'expired', resolvedAt: after(5_000), after: '5s' });
  });

  test('an answer by update or signal may not claim a policy: name', () => {
    const state = new QuestionState(INPUT, ASKED_AT);
    const failure = refusal(() => state.submit({ ...YES, answeredBy: 'policy:expired' }, T1));
    assert.equal(failure.type, 'INVALID_ARGS');
    assert.equal(
      failure.message,
      'invalid arguments: answeredBy: names starting with "policy:" are kept for answers a question policy gives',
    );
    assert.equal(state.receiveSignal({ ...YES, answeredBy: 'policy:anything' }, T1), false);
    assert.equal(
      state.record.rejectedAnswers[0]?.reason,
      'answeredBy: names starting with "policy:" are kept for answers a question policy gives',
    );
    assert.equal(state.status, 'pending');
  });

  test('reminders come every period after the last one, and stop at maxReminders', () => {
    const state = new QuestionState(
      { ...INPUT, policy: { remindEveryMs: 10_000, maxReminders: 2, expireAfterMs: 60_000 } },
      ASKED_AT,
    );
    assert.deepEqual(state.nextWake(), { at: ASKED_AT.getTime() + 10_000, due: ['remind'] });
    assert.equal(state.remind(after(10_000)), 1);
    assert.deepEqual(state.nextWake(), { at: ASKED_AT.getTime() + 20_000, due: ['remind'] });
    // A reminder sent late (no worker ran for a while) moves the next one: no burst of missed reminders.
    assert.equal(state.remind(after(35_000)), 2);
    assert.equal(state.record.remindersSent, 2);
    assert.deepEqual(state.nextWake(), { at: ASKED_AT.getTime() + 60_000, due: ['expire'] });
  });

  test('without maxReminders, ten reminders go out', () => {
    const state = new QuestionState({ ...INPUT, policy: { remindEveryMs: 1_000 } }, ASKED_AT);
    for (let index = 1; index <= 10; index++) {
      assert.deepEqual(state.nextWake()?.due, ['remind']);
      state.remind(after(index * 1_000));
    }
    assert.equal(state.nextWake(), undefined);
  });

  test('the escalation is due once, to its own URLs; a deadline at the same moment wins over everything', () => {
    const state = new QuestionState(
      {
        ...INPUT,
        policy: {
          remindEveryMs: 5_000,
          escalateAfterMs: 10_000,
          escalateTo: ['https://oncall.example/hook'],
        },
      },
      ASKED_AT,
    );
    state.remind(after(5_000));
    assert.deepEqual(state.nextWake(), { at: ASKED_AT.getTime() + 10_000, due: ['remind', 'escalate'] });
    state.remind(after(10_000));
    assert.deepEqual(state.escalate(after(10_000)), ['https://oncall.example/hook']);
    assert.equal(state.record.escalatedAt, after(10_000));
    assert.deepEqual(state.nextWake(), { at: ASKED_AT.getTime() + 15_000, due: ['remind'] });

    const tie = new QuestionState(
      { ...INPUT, policy: { remindEveryMs: 5_000, expireAfterMs: 5_000 } },
      ASKED_AT,
    );
    assert.deepEqual(tie.nextWake(), { at: ASKED_AT.getTime() + 5_000, due: ['expire'] });
    tie.submit(YES, T1);
    assert.equal(tie.nextWake(), undefined);
  });

  test('extendDeadline moves the deadline later or earlier, keeps each change, and re-arms the timer', () => {
    const state = new QuestionState({ ...INPUT, policy: { expireAfterMs: 60_000 } }, ASKED_AT);
    assert.equal(state.scheduleVersion, 0);
    const outcome = state.extend({ by: '2h', extendedBy: 'alice' }, after(30_000));
    assert.equal(outcome.expiresAt, after(60_000 + 7_200_000));
    assert.equal(state.scheduleVersion, 1);
    state.extend({ by: '-30m' }, after(40_000));
    assert.equal(state.record.expiresAt, after(60_000 + 5_400_000));
    assert.deepEqual(state.record.deadlineChanges, [
      { changedAt: after(30_000), from: after(60_000), to: after(7_260_000), extendedBy: 'alice' },
      { changedAt: after(40_000), from: after(7_260_000), to: after(5_460_000) },
    ]);
    assert.deepEqual(state.nextWake(), { at: ASKED_AT.getTime() + 5_460_000, due: ['expire'] });
    assert.equal(state.currentDetails, `Waiting for an answer until ${after(5_460_000)}`);
    // The worker's policy never moves a deadline an operator already changed.
    state.applyWorkerPolicy({ expireAfterMs: 1_000 });
    assert.equal(state.record.expiresAt, after(5_460_000));
  });

  test('a question with no deadline gets one counted from now; a number is taken as milliseconds', () => {
    const state = new QuestionState(INPUT, ASKED_AT);
    state.extend({ by: 90_000 }, after(10_000));
    assert.equal(state.record.expiresAt, after(100_000));
    assert.deepEqual(state.record.deadlineChanges, [{ changedAt: after(10_000), to: after(100_000) }]);
  });

  test('deadline changes are capped, dropping the oldest', () => {
    const state = new QuestionState({ ...INPUT, policy: { expireAfterMs: 60_000 } }, ASKED_AT);
    for (let index = 0; index < MAX_DEADLINE_CHANGES + 3; index++) state.extend({ by: '1m' }, T1);
    assert.equal(state.record.deadlineChanges?.length, MAX_DEADLINE_CHANGES);
    assert.equal(state.record.deadlineChanges?.[0]?.from, after(60_000 + 3 * 60_000));
  });

  test('a malformed or impossible extendDeadline is refused with INVALID_ARGS naming the field', () => {
    const state = new QuestionState({ ...INPUT, policy: { expireAfterMs: 60_000 } }, ASKED_AT);
    const cases: [unknown, string][] = [
      ['2h', 'invalid arguments: extendDeadline: must be an object with a duration in by'],
      [
        {},
        'invalid arguments: extendDeadline.by: must be a duration such as 2h or -30m, or a whole number of milliseconds',
      ],
      [
        { by: '2 hours' },
        'invalid arguments: extendDeadline.by: must be a duration such as 2h or -30m, or a whole number of milliseconds',
      ],
      [
        { by: 1.5 },
        'invalid arguments: extendDeadline.by: must be a duration such as 2h or -30m, or a whole number of milliseconds',
      ],
      [{ by: '0s' }, 'invalid arguments: extendDeadline.by: must not be zero'],
      [{ by: '400d' }, 'invalid arguments: extendDeadline.by: must be at most 365d either way'],
      [{ by: '1h', extendedBy: 7 }, 'invalid arguments: extendDeadline.extendedBy: must be a string'],
      [
        { by: '-2m' },
        `invalid arguments: extendDeadline.by: the deadline would be ${after(-60_000)}, not after the question was asked (${ASKED_AT.toISOString()})`,
      ],
      [
        { undecodable: 'Unknown encoding: binary/x-oops' },
        'invalid arguments: extendDeadline: could not be decoded: Unknown encoding: binary/x-oops',
      ],
    ];
    for (const [input, message] of cases) {
      const failure = refusal(() => state.extend(input, T1));
      assert.equal(failure.type, 'INVALID_ARGS', message);
      assert.equal(failure.message, message);
    }
    assert.equal(state.record.expiresAt, after(60_000));
    assert.equal(state.scheduleVersion, 0);
  });

  test('a resolved question refuses a deadline change, naming who answered and when', () => {
    const state = new QuestionState({ ...INPUT, policy: { expireAfterMs: 60_000 } }, ASKED_AT);
    state.submit({ ...YES, answeredBy: 'alice' }, T1);
    const failure = refusal(() => state.checkExtend({ by: '1h' }, T2));
    assert.equal(failure.type, 'ALREADY_RESOLVED');
    assert.equal(failure.message, `the question was already answered by alice at ${T1}`);
  });
});

describe('QuestionState across continue-as-new', () => {
  /** A question well into its life: the worker's policy applied, reminded, extended, refused signals kept. */
  function livedQuestion(): QuestionState {
    const state = new QuestionState(
      { ...INPUT, policy: { expireAfterMs: 60_000, audience: { users: ['alice', 'bob'] } } },
      ASKED_AT,
    );
    state.applyWorkerPolicy({ remindEveryMs: 10_000, maxReminders: 5, expireAfterMs: 1_000 });
    state.remind(after(10_000));
    state.extend({ by: '2m', extendedBy: 'ops' }, after(12_000));
    for (let index = 0; index < MAX_REJECTED_ANSWERS + 2; index++) {
      state.receiveSignal(
        { answers: [{ id: 'deploy', selected: ['Maybe'] }], answeredBy: 'bob' },
        after(index),
      );
    }
    return state;
  }

  test('a resumed question is the question it was: record, deadline, reminders, policy and refusals', () => {
    const before = livedQuestion();
    // The snapshot crosses the server as JSON, as the next run's argument does.
    const snapshot: unknown = JSON.parse(JSON.stringify(before.snapshot()));
    assert.equal(
      JSON.stringify(snapshot).includes('Deploy to production?'),
      false,
      'questions stay in the input',
    );
    const resumed = QuestionState.resume(INPUT, snapshot);

    assert.deepEqual(resumed.record, before.record);
    assert.equal(resumed.record.askedAt, ASKED_AT.toISOString());
    assert.equal(resumed.record.rejectedAnswers.length, MAX_REJECTED_ANSWERS);
    assert.deepEqual(resumed.record.audience, { users: ['alice', 'bob'] });
    assert.deepEqual(resumed.effectivePolicy, before.effectivePolicy);
    assert.equal(resumed.deadline, ASKED_AT.getTime() + 180_000);
    assert.equal(resumed.scheduleVersion, 1);
    assert.equal(resumed.currentDetails, before.currentDetails);
    // The next reminder is counted from the last one sent before the continuation, not from the new run.
    assert.deepEqual(resumed.nextWake(), before.nextWake());
    assert.deepEqual(resumed.nextWake(), { at: ASKED_AT.getTime() + 20_000, due: ['remind'] });
    assert.equal(resumed.remind(after(20_000)), 2);

    // The audience still holds, and a further change of the deadline counts on from the carried one.
    assert.equal(refusal(() => resumed.checkSubmit({ ...YES, answeredBy: 'mallory' })).type, 'FORBIDDEN');
    resumed.extend({ by: '1m' }, after(30_000));
    assert.equal(resumed.record.expiresAt, after(240_000));
    assert.equal(resumed.scheduleVersion, 2);
    assert.deepEqual(
      resumed.record.deadlineChanges?.map((change) => [change.from, change.to]),
      [
        [after(60_000), after(180_000)],
        [after(180_000), after(240_000)],
      ],
    );
    resumed.submit({ ...YES, answeredBy: 'alice' }, T2);
    assert.deepEqual(resumed.result(T2), {
      status: 'answered',
      answer: YES,
      answeredBy: 'alice',
      resolvedAt: T2,
    });
  });

  test('a resumed approval keeps its subject from the input', () => {
    const approval = { toolName: 'deploy', toolCallId: 'call-9', input: { env: 'prod' } };
    const input: AskUserQuestionWorkflowInput = { questions: [], approval, toolCallId: 'call-9' };
    const snapshot: unknown = JSON.parse(JSON.stringify(new QuestionState(input, ASKED_AT).snapshot()));
    const resumed = QuestionState.resume(input, snapshot);
    assert.deepEqual(resumed.approval, approval);
    assert.equal(resumed.details, 'Waiting for a decision');
  });

  test('a snapshot this code did not write is refused with INVALID_ARGS naming the field', () => {
    const good = JSON.parse(JSON.stringify(livedQuestion().snapshot())) as Record<string, unknown>;
    const record = good.record as Record<string, unknown>;
    const cases: [unknown, string][] = [
      ['state', 'invalid arguments: continuation.state: must be an object'],
      [{ ...good, record: [] }, 'invalid arguments: continuation.state.record: must be an object'],
      [
        { ...good, record: { ...record, status: 'answered' } },
        'invalid arguments: continuation.state.record.status: only a pending question continues',
      ],
      [
        { ...good, record: { ...record, askedAt: 'yesterday' } },
        'invalid arguments: continuation.state.record.askedAt: must be an ISO-8601 timestamp',
      ],
      [
        { ...good, record: { ...record, rejectedAnswers: new Array(MAX_REJECTED_ANSWERS + 1).fill({}) } },
        `invalid arguments: continuation.state.record.rejectedAnswers: must be a list of at most ${MAX_REJECTED_ANSWERS}`,
      ],
      [
        { ...good, record: { ...record, deadlineChanges: 'all of them' } },
        `invalid arguments: continuation.state.record.deadlineChanges: must be a list of at most ${MAX_DEADLINE_CHANGES}`,
      ],
      [{ ...good, policy: null }, 'invalid arguments: continuation.state.policy: must be an object'],
      [
        { ...good, deadlineVersion: -1 },
        'invalid arguments: continuation.state.deadlineVersion: must be a whole number, 0 or more',
      ],
      [
        { ...good, deadlineMs: '2026-01-02' },
        'invalid arguments: continuation.state.deadlineMs: must be epoch milliseconds',
      ],
      [
        { ...good, lastReminderAtMs: Number.NaN },
        'invalid arguments: continuation.state.lastReminderAtMs: must be epoch milliseconds',
      ],
    ];
    for (const [snapshot, message] of cases) {
      const failure = refusal(() => QuestionState.resume(INPUT, snapshot));
      assert.equal(failure.type, 'INVALID_ARGS', message);
      assert.equal(failure.message, message);
    }
  });
});
