/**
 * When a standing grant decides an approval, without a server: not once the call is decided (a person's decision
 * stands), not once the grant expired, not outside the call's audience (checked against the granter's name and
 * groups, as a decision's are), not under the two-person rule (one message wherever the rule keeps a grant out).
 * The grants workflow's state: a grant is added only if the validator's checks still hold when its handler adds
 * it, and a use is counted once per approval, when the approval reports it. The hash of the input a decision
 * approves is taken one way everywhere, and an approval without input never throws.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { ApplicationFailure } from '@temporalio/workflow';

import type { ApprovalGrant, AskUserQuestionWorkflowInput, QuestionRecord } from '../../src/types';
import { approvedInputSha256, decisionHashes } from '../../src/answer/decision-binding';
import { inputSha256 } from '../../src/answer/input-hash';
import { grantDecisionRefusal } from '../../src/answer/two-person-rule';
import { checkGrantRequest, GrantProblem } from '../../src/question/grant-rules';
import { approvedByGrant } from '../../src/workflows/grant-decision';
import { GrantState, MAX_ACTIVE_GRANTS, MAX_COUNTED_APPROVALS } from '../../src/workflows/grant-state';
import { QuestionState } from '../../src/workflows/question-state';
import { countsToDecide, refuseUnderRule } from '../../src/workflows/approval-progress';
import { resolveGrantPolicy } from '../../src/question/grant-policy';

const ASKED_AT = new Date('2026-12-04T12:00:00.000Z');
const NOW = ASKED_AT.toISOString();
const HOUR = 3_600_000;

const GRANT: ApprovalGrant = {
  id: 'bot/000000000001',
  grantedBy: 'alice',
  grantedAt: new Date(ASKED_AT.getTime() - HOUR).toISOString(),
  expiresAt: new Date(ASKED_AT.getTime() + HOUR).toISOString(),
};

function approval(fields: Partial<AskUserQuestionWorkflowInput> = {}): AskUserQuestionWorkflowInput {
  return {
    questions: [],
    approval: { toolName: 'deploy', input: { service: 'api' } },
    agent: { id: 'bot' },
    grant: GRANT,
    ...fields,
  };
}

/** Runs the grant's check on a new question of `input`; returns its record and whether the grant decided. */
function started(
  input: AskUserQuestionWorkflowInput,
  now = NOW,
): { record: QuestionRecord; decided: boolean } {
  const question = new QuestionState(input, ASKED_AT);
  const decided = approvedByGrant(input, question, undefined, now);
  return { record: question.record, decided };
}

describe('a grant deciding an approval', () => {
  test('a covered call in force is approved by the grant, bound to its input, naming the granter', () => {
    const { record, decided } = started(approval());
    assert.equal(decided, true);
    assert.equal(record.decision?.decidedBy, `grant:${GRANT.id}`);
    assert.equal(record.decision?.inputSha256, inputSha256({ service: 'api' }));
    assert.equal(record.grantNotUsed, undefined);
  });

  test('a call decided before the check keeps its decision; the grant is named as not used', () => {
    const input = approval();
    const question = new QuestionState(input, ASKED_AT);
    question.decide({ type: 'reject', decidedBy: 'bob', reason: 'not today' }, NOW);
    assert.equal(approvedByGrant(input, question, undefined, NOW), false);
    assert.equal(question.record.decision?.type, 'reject');
    assert.equal(question.record.decision?.decidedBy, 'bob');
    assert.match(
      question.record.grantNotUsed?.reason ?? '',
      /^status: the approval was already rejected by bob at /,
    );
  });

  test('a grant past its expiry when the approval starts decides nothing, naming expiresAt', () => {
    const { record, decided } = started(approval(), GRANT.expiresAt);
    assert.equal(decided, false);
    assert.equal(record.status, 'pending');
    assert.deepEqual(record.grantNotUsed, {
      id: GRANT.id,
      reason: `expiresAt: ${GRANT.id} expired at ${GRANT.expiresAt}, before this approval's workflow could record it (at ${GRANT.expiresAt})`,
    });
  });

  test("the call's audience is checked against the granter's name and groups", () => {
    const dba = { policy: { audience: { groups: ['dba'] } } };
    const outside = started(approval(dba));
    assert.equal(outside.decided, false);
    assert.match(
      outside.record.grantNotUsed?.reason ?? '',
      /^audience: "alice" \(no groups\) may not decide this: it is assigned to groups dba; alice granted bot\/000000000001/,
    );
    assert.equal(started(approval({ ...dba, grant: { ...GRANT, grantedByGroups: ['dba'] } })).decided, true);
    assert.equal(started(approval({ policy: { audience: { users: ['alice'] } } })).decided, true);
    // The worker's audience counts as the provider's does.
    const input = approval();
    const question = new QuestionState(input, ASKED_AT);
    assert.equal(approvedByGrant(input, question, { audience: { users: ['bob'] } }, NOW), false);
    assert.match(question.record.grantNotUsed?.reason ?? '', /^audience: "alice" \(no groups\)/);
  });

  test('groups given by hand are checked for shape, naming the field', () => {
    const input = approval({ grant: { ...GRANT, grantedByGroups: ['ops', ''] } });
    assert.throws(
      () => approvedByGrant(input, new QuestionState(input, ASKED_AT), undefined, NOW),
      (error: unknown) =>
        error instanceof ApplicationFailure &&
        error.message === 'invalid arguments: grant.grantedByGroups[1]: must be a non-blank string',
    );
  });

  test('under requiredApprovals 2 one message says why, wherever the rule keeps a grant out', () => {
    const message =
      "requiredApprovals: the policy needs 2 approvals from distinct people for each call, and a standing grant is one person's decision";
    assert.equal(grantDecisionRefusal({ requiredApprovals: 2 }), message);
    assert.equal(grantDecisionRefusal({ requiredApprovals: 1 }), undefined);
    assert.equal(
      started(approval({ policy: { requiredApprovals: 2 } })).record.grantNotUsed?.reason,
      message,
    );
    const state = new GrantState('bot');
    const checked = state.checkGrant(
      { agentId: 'bot', toolName: 'deploy', expireAfter: '1h', grantedBy: 'a' },
      0,
    );
    assert.throws(
      () => state.add(checked, resolveGrantPolicy({}, 'grants'), 'bot/1', 0, { requiredApprovals: 2 }),
      (error: unknown) =>
        error instanceof ApplicationFailure && error.message === `grant refused: ${message}`,
    );
  });
});

describe("the grants workflow's state", () => {
  const request = { agentId: 'bot', toolName: 'deploy', expireAfter: '1h', grantedBy: 'alice' };
  const policy = resolveGrantPolicy({}, 'grants');

  test('the count of active grants is checked again when a grant is added', () => {
    const state = new GrantState('bot');
    for (let index = 0; index < MAX_ACTIVE_GRANTS - 1; index += 1)
      state.add(state.checkGrant(request, 0), policy, `bot/${index}`, 0);
    // Two grants checked while one place was left: the first added takes it, the second is refused.
    const first = state.checkGrant(request, 0);
    const second = state.checkGrant(request, 0);
    state.add(first, policy, 'bot/first', 1);
    assert.throws(
      () => state.add(second, policy, 'bot/second', 1),
      (error: unknown) =>
        error instanceof ApplicationFailure &&
        error.message ===
          `invalid grant: agentId: the agent holds ${MAX_ACTIVE_GRANTS} active grants, the most it may`,
    );
    assert.equal(state.list().grants.length, MAX_ACTIVE_GRANTS);
  });

  test('an expiry that passed between the check and the add is refused, naming expiresAt', () => {
    const state = new GrantState('bot');
    const checked = state.checkGrant(
      { ...request, expireAfter: undefined, expiresAt: '1970-01-01T00:00:01.000Z' },
      0,
    );
    assert.throws(
      () => state.add(checked, policy, 'bot/late', 1_000),
      (error: unknown) =>
        error instanceof ApplicationFailure && /^invalid grant: expiresAt: /.test(error.message),
    );
    assert.equal(state.list().grants.length, 0);
  });

  test("the granter's groups are kept on the grant; a request's are checked for shape", () => {
    const state = new GrantState('bot');
    const grant = state.add(
      state.checkGrant({ ...request, grantedByGroups: ['dba'] }, 0),
      policy,
      'bot/g',
      0,
    );
    assert.deepEqual(grant.grantedByGroups, ['dba']);
    assert.throws(
      () => checkGrantRequest({ ...request, grantedByGroups: 'dba' }, 0),
      (error: unknown) =>
        error instanceof GrantProblem && error.message === 'grantedByGroups: must be a list of names',
    );
  });

  test('a use is counted once per approval, as the check finds the grant; a grant not used takes it back', () => {
    const state = new GrantState('bot');
    const grant = state.add(state.checkGrant(request, 0), policy, 'bot/g', 0);
    const found = state.covering({ toolName: 'deploy', input: {}, workflowId: 'approval-1' }, 1);
    assert.equal(found.grant.id, grant.id);
    const use = { id: grant.id, workflowId: 'approval-1', usedAt: '1970-01-01T00:00:00.002Z' };
    assert.equal(state.recordUse(use), true);
    // The agent re-attaching to the same approval is checked again: it counts nothing more.
    assert.equal(state.recordUse(use), false);
    assert.equal(
      state.recordUse({ ...use, workflowId: 'approval-2', usedAt: '1970-01-01T00:00:00.003Z' }),
      true,
    );
    assert.equal(state.recordUse({ ...use, id: 'bot/none', workflowId: 'approval-3' }), false);
    assert.equal(state.list().grants[0]?.uses, 2);
    assert.equal(state.list().grants[0]?.lastUsedBy, 'approval-2');
    // approval-2's workflow did not let the grant decide: its use is taken back, once, and the last use with it.
    assert.equal(state.takeBackUse({ id: grant.id, workflowId: 'approval-2' }), true);
    assert.equal(state.takeBackUse({ id: grant.id, workflowId: 'approval-2' }), false);
    assert.equal(state.takeBackUse({ id: grant.id, workflowId: 'approval-9' }), false);
    assert.equal(state.takeBackUse({ id: grant.id }), false);
    const [listed] = state.list().grants;
    assert.equal(listed?.uses, 1);
    assert.equal(listed?.lastUsedBy, undefined);
    // A continued run takes the counted approvals over: approval-1 checked again still counts once.
    const next = new GrantState('bot', state.kept(2), state.countedApprovals());
    assert.equal(next.recordUse(use), false);
    assert.ok(MAX_COUNTED_APPROVALS >= 1_000);
  });
});

describe('the input a decision approves', () => {
  test('one hash: the asked input for approve, the edit for edit, none for reject; an absent input is null', () => {
    assert.equal(approvedInputSha256({ b: 1, a: 2 }, { type: 'approve' }), inputSha256({ a: 2, b: 1 }));
    assert.equal(approvedInputSha256({ a: 1 }, { type: 'edit', input: { a: 2 } }), inputSha256({ a: 2 }));
    assert.equal(approvedInputSha256({ a: 1 }, { type: 'reject' }), undefined);
    assert.equal(approvedInputSha256(undefined, { type: 'approve' }), inputSha256(null));
    assert.deepEqual(decisionHashes(undefined, { type: 'approve' }), {
      requestedInputSha256: inputSha256(null),
      inputSha256: inputSha256(null),
    });
  });

  test('under requiredApprovals 2 an approval of a call without input is checked and counted, not thrown', () => {
    const input: AskUserQuestionWorkflowInput = {
      questions: [],
      approval: { toolName: 'deploy' } as AskUserQuestionWorkflowInput['approval'] & object,
    };
    const { record } = new QuestionState(input, ASKED_AT);
    const rule = { requiredApprovals: 2 };
    refuseUnderRule(record, rule, { type: 'approve', decidedBy: 'bob' });
    assert.equal(countsToDecide(record, rule, { type: 'approve', decidedBy: 'bob' }, NOW), false);
    refuseUnderRule(record, rule, { type: 'approve', decidedBy: 'dave' });
    assert.equal(countsToDecide(record, rule, { type: 'approve', decidedBy: 'dave' }, NOW), true);
    assert.equal(record.approvals?.[0]?.inputSha256, inputSha256(null));
  });
});
