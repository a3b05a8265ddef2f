/**
 * Assignment without a server: the audience rules (checking an operator's audience, who is in it, the refusal's
 * words), the workflow state's refusals of an answer, signal, decline and decision from outside it (nothing
 * recorded), the policy check naming the field, per-user token files with groups, and the SSO settings.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  MAX_AUDIENCE_ENTRIES,
  answererGroups,
  audienceRefusal,
  checkAudience,
  inAudience,
} from '../../src/answer/audience-rules';
import { isAssignedTo, oidcSettingsFromEnv, parseUsersFile } from '../../src/inbox';
import { InMemoryUserInteraction } from '../../src/interaction';
import { checkPolicies, checkPoliciesOption } from '../../src/question/question-policy';
import type { AskUserQuestionWorkflowInput } from '../../src/types';
import { QuestionState } from '../../src/workflows/question-state';

import { refusal } from '../helpers/refusal';

const ASKED_AT = new Date('2026-03-04T05:06:07.000Z');
const T1 = '2026-03-04T05:07:00.000Z';
const AUDIENCE = { users: ['alice'], groups: ['sre'] };

const QUESTION_INPUT: AskUserQuestionWorkflowInput = {
  questions: [
    { id: 'restart', question: 'Restart the cluster?', options: [{ label: 'Now' }, { label: 'Later' }] },
  ],
  toolCallId: 'call-1',
  policy: { audience: AUDIENCE },
};
const APPROVAL_INPUT: AskUserQuestionWorkflowInput = {
  questions: [],
  approval: { toolName: 'drop_table', input: { table: 'users' } },
  toolCallId: 'call-2',
  policy: { audience: AUDIENCE },
};
const NOW = { answers: [{ id: 'restart', selected: ['Now'] }] };

describe('audience rules', () => {
  test('checkAudience trims names, drops duplicates, and names the field of what it refuses', () => {
    assert.deepEqual(checkAudience({ users: [' alice ', 'alice'], groups: ['sre'] }), {
      ok: true,
      audience: { users: ['alice'], groups: ['sre'] },
    });
    const cases: [unknown, string, string][] = [
      [['alice'], 'audience', 'must be an object with users and/or groups'],
      [{ teams: ['sre'] }, 'audience.teams', 'unknown field (known: users, groups)'],
      [{ users: 'alice' }, 'audience.users', 'must be a list of names'],
      [{ users: ['alice', ' '] }, 'audience.users[1]', 'must be a non-blank string'],
      [{ groups: [7] }, 'audience.groups[0]', 'must be a non-blank string'],
      [{ groups: ['x'.repeat(201)] }, 'audience.groups[0]', 'at most 200 characters'],
      [
        { users: Array.from({ length: MAX_AUDIENCE_ENTRIES + 1 }, (_, i) => `u${i}`) },
        'audience.users',
        'at most 100 names',
      ],
      [{ users: [], groups: [] }, 'audience', 'must name at least one user or group'],
    ];
    for (const [value, path, reason] of cases) {
      assert.deepEqual(checkAudience(value), { ok: false, path, reason }, JSON.stringify(value));
    }
  });

  test('inAudience: a named user, or a member of a named group; anyone when there is no audience', () => {
    assert.equal(inAudience(AUDIENCE, 'alice'), true);
    assert.equal(inAudience(AUDIENCE, 'bob', ['marketing', 'sre']), true);
    assert.equal(inAudience(AUDIENCE, 'bob', ['marketing']), false);
    assert.equal(inAudience(AUDIENCE, undefined, []), false);
    assert.equal(inAudience(undefined, undefined), true);
    assert.equal(isAssignedTo({ audience: AUDIENCE }, { name: 'alice' }), true);
    assert.equal(
      isAssignedTo({}, { name: 'alice' }),
      false,
      'no audience: anyone may answer, assigned to no one',
    );
  });

  test('the refusal names who tried, their groups, and whom it is assigned to', () => {
    assert.equal(
      audienceRefusal(AUDIENCE, 'bob', ['marketing'], 'answer'),
      '"bob" (groups marketing) may not answer this: it is assigned to users alice and groups sre',
    );
    assert.equal(
      audienceRefusal({ groups: ['sre'] }, undefined, [], 'decline'),
      'an unnamed answerer (no groups) may not decline this: it is assigned to groups sre',
    );
    assert.equal(audienceRefusal(AUDIENCE, 'alice', [], 'answer'), undefined);
  });

  test('answererGroups reads an optional list of names and names a bad one', () => {
    assert.deepEqual(answererGroups({}, 'answer'), { ok: true, groups: [] });
    assert.deepEqual(answererGroups({ groups: ['sre'] }, 'answer'), { ok: true, groups: ['sre'] });
    assert.deepEqual(answererGroups({ groups: 'sre' }, 'answer'), {
      ok: false,
      reason: 'answer.groups: must be a list of names',
    });
  });

  test("an approval request's own audience is checked before anything is asked, naming the field", async () => {
    const interaction = new InMemoryUserInteraction();
    await assert.rejects(
      interaction.requestApproval({
        toolName: 'drop_table',
        toolCallId: 'call-9',
        input: {},
        audience: { groups: ['dba', ''] },
      }),
      { code: 'INVALID_ARGS', message: /audience\.groups\[1\]: must be a non-blank string/ },
    );
    assert.equal(interaction.pendingApprovals().length, 0);
  });

  test('a policy audience is checked with the path of the field, at every level', () => {
    assert.deepEqual(checkPolicies({ audience: { groups: ['sre'] } }).base.audience, { groups: ['sre'] });
    assert.deepEqual(
      checkPolicies({ agents: { bot: { audience: { users: ['alice'] } } } }).agents.get('bot')?.audience,
      { users: ['alice'] },
    );
    assert.throws(
      () => checkPoliciesOption({ agents: { bot: { audience: { users: [''] } } } }, 'createAskUserWorker'),
      {
        code: 'INVALID_OPTIONS',
        message:
          /createAskUserWorker option policy\.agents\["bot"\]\.audience\.users\[0\]: must be a non-blank string/,
      },
    );
  });
});

describe('QuestionState with an audience', () => {
  test('the record carries the audience; a member answers by update', () => {
    const state = new QuestionState(QUESTION_INPUT, ASKED_AT);
    assert.deepEqual(state.record.audience, AUDIENCE);
    state.checkSubmit({ ...NOW, answeredBy: 'bob', groups: ['sre'] });
  });

  test('an update from outside the audience is FORBIDDEN and records nothing', () => {
    const state = new QuestionState(QUESTION_INPUT, ASKED_AT);
    const failure = refusal(() => state.checkSubmit({ ...NOW, answeredBy: 'bob', groups: ['marketing'] }));
    assert.equal(failure.type, 'FORBIDDEN');
    assert.equal(
      failure.message,
      '"bob" (groups marketing) may not answer this: it is assigned to users alice and groups sre',
    );
    assert.equal(refusal(() => state.checkSubmit(NOW)).type, 'FORBIDDEN', 'no name, no groups');
    assert.equal(state.status, 'pending');
    assert.equal(state.record.answeredBy, undefined);
  });

  test('malformed groups are INVALID_ARGS, naming the field', () => {
    const state = new QuestionState(QUESTION_INPUT, ASKED_AT);
    const failure = refusal(() => state.checkSubmit({ ...NOW, answeredBy: 'alice', groups: 'sre' }));
    assert.equal(failure.type, 'INVALID_ARGS');
    assert.equal(failure.message, 'invalid arguments: answer.groups: must be a list of names');
  });

  test('a signal from outside the audience is logged as rejected and not recorded; a member then answers', () => {
    const state = new QuestionState(QUESTION_INPUT, ASKED_AT);
    assert.equal(state.receiveSignal({ ...NOW, answeredBy: 'mallory' }, T1), false);
    assert.equal(state.status, 'pending');
    assert.deepEqual(
      state.record.rejectedAnswers.map((rejected) => rejected.reason),
      ['"mallory" (no groups) may not answer this: it is assigned to users alice and groups sre'],
    );
    assert.equal(state.receiveSignal({ ...NOW, answeredBy: 'alice' }, T1), true);
    assert.equal(state.record.answeredBy, 'alice');
  });

  test('a decline from outside the audience, with or without a body, is FORBIDDEN', () => {
    const state = new QuestionState(QUESTION_INPUT, ASKED_AT);
    assert.equal(refusal(() => state.checkDecline(undefined)).type, 'FORBIDDEN');
    assert.equal(refusal(() => state.checkDecline({ declinedBy: 'bob', reason: 'no' })).type, 'FORBIDDEN');
    assert.deepEqual(state.checkDecline({ declinedBy: 'carol', groups: ['sre'] }), {
      declinedBy: 'carol',
      groups: ['sre'],
    });
    assert.equal(state.status, 'pending');
  });

  test('a decision from outside the audience is FORBIDDEN; a member decides', () => {
    const state = new QuestionState(APPROVAL_INPUT, ASKED_AT);
    const failure = refusal(() => state.checkDecide({ type: 'approve', decidedBy: 'bob' }));
    assert.equal(failure.type, 'FORBIDDEN');
    assert.equal(
      failure.message,
      '"bob" (no groups) may not decide this: it is assigned to users alice and groups sre',
    );
    assert.deepEqual(
      state.checkDecide({ type: 'approve', decidedBy: 'dan', groups: ['sre'] }).type,
      'approve',
    );
  });

  test('without an audience anyone may answer', () => {
    const { policy: _policy, ...open } = QUESTION_INPUT;
    const state = new QuestionState(open, ASKED_AT);
    assert.equal(state.record.audience, undefined);
    state.checkSubmit({ ...NOW, answeredBy: 'anyone' });
  });
});

describe('inbox logins with groups', () => {
  test('a per-user token file gives users groups after the token', () => {
    const users = parseUsersFile(
      ['# ops', 'Ada Lovelace:ada-token-0123456789abcdef sre, oncall', 'bob:bob-token-0123456789abcdef'].join(
        '\n',
      ),
      'users.txt',
    );
    assert.deepEqual(users, [
      { name: 'Ada Lovelace', token: 'ada-token-0123456789abcdef', groups: ['sre', 'oncall'] },
      { name: 'bob', token: 'bob-token-0123456789abcdef' },
    ]);
    assert.throws(() => parseUsersFile('carol:carol-token-0123456789abcdef sre,,ops', 'users.txt'), {
      message: /users\.txt:1: user\.groups\[1\]: must be a non-blank string/,
    });
  });

  test('SSO settings: off without an issuer; the variable is named when one is unusable', () => {
    assert.equal(oidcSettingsFromEnv({}), undefined);
    assert.deepEqual(
      oidcSettingsFromEnv({
        ASK_USER_OIDC_ISSUER: 'https://id.example',
        ASK_USER_OIDC_CLIENT_ID: 'inbox',
        ASK_USER_OIDC_GROUPS_CLAIM: 'roles',
      }),
      { issuer: 'https://id.example', clientId: 'inbox', groupsClaim: 'roles' },
    );
    assert.throws(() => oidcSettingsFromEnv({ ASK_USER_OIDC_ISSUER: 'https://id.example' }), {
      message: /ASK_USER_OIDC_CLIENT_ID: required with ASK_USER_OIDC_ISSUER/,
    });
    assert.throws(
      () =>
        oidcSettingsFromEnv({ ASK_USER_OIDC_ISSUER: 'http://id.example', ASK_USER_OIDC_CLIENT_ID: 'inbox' }),
      { message: /ASK_USER_OIDC_ISSUER: must be an https URL \(http only on loopback\)/ },
    );
  });
});
