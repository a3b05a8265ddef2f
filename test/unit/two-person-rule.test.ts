/**
 * The two-person rule without a server: the policy fields `requiredApprovals` and `forbidSelfApproval` as an
 * operator writes them (each mistake named by its field, with the reason), the asker's identity on the request,
 * and `QuestionState` counting approvals: partial approvals kept and the call still pending, one person twice
 * refused naming the earlier approval, the requester refused, an approval of other input refused, one deny
 * denying, and the decision taken once when the count is met; `ask-user show` and the Slack message of a
 * partial approval.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { inputSha256 } from '../../src/answer/input-hash';
import { approvalProgress } from '../../src/answer/two-person-rule';
import { guardApprovalRequest } from '../../src/interaction/approval-request-guard';
import { TemporalUserInteraction } from '../../src/provider';
import { UserInteractionError } from '../../src/interaction/user-interaction-error';
import { approvalStart } from '../../src/question/question-start';
import { checkPolicies, checkPoliciesOption, policyFromEnv } from '../../src/question/question-policy';
import { formatRecord } from '../../src/cli/format';
import { interactiveMessage } from '../../src/slack-messages';
import { callOpsTool, type McpQuestionOperations } from '../../src/mcp/mcp-ops-tools';
import type { AskUserQuestionWorkflowInput, ResolvedQuestionPolicy } from '../../src/types';
import { QuestionState } from '../../src/workflows/question-state';
import { refusal } from '../helpers/refusal';

const ASKED_AT = new Date('2026-01-02T03:04:05.000Z');
const T1 = '2026-01-02T03:05:00.000Z';
const T2 = '2026-01-02T03:06:00.000Z';
const T3 = '2026-01-02T03:07:00.000Z';

const DEPLOY = { service: 'api', version: '1.4.2' };

function approval(policy: ResolvedQuestionPolicy, requestedBy?: string): QuestionState {
  const input: AskUserQuestionWorkflowInput = {
    questions: [],
    approval: { toolName: 'deploy', input: DEPLOY, ...(requestedBy === undefined ? {} : { requestedBy }) },
    agent: { id: 'deploy-bot' },
    toolCallId: 'call-1',
    policy,
  };
  return new QuestionState(input, ASKED_AT);
}

/** The message of the error `fn` throws. */
function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  assert.fail('expected an error');
}

describe('the policy fields', () => {
  test('requiredApprovals and forbidSelfApproval are read, at every level and per agent', () => {
    const checked = checkPolicies({
      requiredApprovals: 2,
      agents: { 'deploy-bot': { requiredApprovals: 3, forbidSelfApproval: true } },
    });
    assert.equal(checked.base.requiredApprovals, 2);
    assert.equal(checked.base.forbidSelfApproval, undefined);
    assert.deepEqual(checked.agents.get('deploy-bot'), { requiredApprovals: 3, forbidSelfApproval: true });
  });

  test('each mistake names its field and the reason', () => {
    const reason = 'must be a whole number from 1 to 10: how many distinct people approve a call';
    for (const bad of [0, 11, 1.5, '2', null]) {
      assert.equal(
        thrown(() => checkPolicies({ requiredApprovals: bad })),
        `requiredApprovals: ${reason}`,
      );
    }
    assert.equal(
      thrown(() => checkPolicies({ requiredRejections: 11 })),
      'requiredRejections: must be a whole number from 1 to 10: how many distinct people reject a call to deny it',
    );
    assert.equal(
      thrown(() => checkPolicies({ agents: { ops: { forbidSelfApproval: 'yes' } } })),
      'agents["ops"].forbidSelfApproval: must be true or false',
    );
    assert.equal(
      thrown(() => checkPoliciesOption({ requiredApprovals: 0 }, 'TemporalUserInteraction')),
      `TemporalUserInteraction option policy.requiredApprovals: ${reason}`,
    );
    assert.equal(
      thrown(() => policyFromEnv({ ASK_USER_POLICY: '{"forbidSelfApproval":1}' })),
      'ASK_USER_POLICY: forbidSelfApproval: must be true or false',
    );
  });
});

describe("the asker's identity", () => {
  const request = { toolName: 'deploy', toolCallId: 'call-1', input: DEPLOY };

  test('requestedBy is checked, and goes into the approval the workflow records', () => {
    assert.match(
      thrown(() => guardApprovalRequest({ ...request, requestedBy: ' ' })),
      /requestedBy: must be a non-blank string/,
    );
    assert.match(
      thrown(() => guardApprovalRequest({ ...request, requestedBy: 'x'.repeat(201) })),
      /requestedBy: must be at most 200 characters/,
    );
    const start = approvalStart({ ...request, requestedBy: 'carol' }, {});
    assert.equal(start.input.approval?.requestedBy, 'carol');
  });

  test("a provider's requestedBy names who asks when the request does not; the request's own wins", () => {
    assert.equal(approvalStart(request, { requestedBy: 'owner' }).input.approval?.requestedBy, 'owner');
    const own = approvalStart({ ...request, requestedBy: 'carol' }, { requestedBy: 'owner' });
    assert.equal(own.input.approval?.requestedBy, 'carol');
    assert.match(
      thrown(() => approvalStart(request, { requestedBy: '' })),
      /requestedBy: must be a non-blank string/,
    );
    assert.equal(
      thrown(() => new TemporalUserInteraction({ requestedBy: ' ' })),
      "TemporalUserInteraction option requestedBy: must be a non-blank string: who asked for the call (the agent's owner or the session's user)",
    );
    const start = approvalStart(request, { requestedBy: 'owner', policy: { forbidSelfApproval: true } });
    assert.equal(start.input.policy?.forbidSelfApproval, true);
  });

  test('a provider whose policy forbids self-approval refuses a request that names no requester', () => {
    assert.throws(
      () => approvalStart(request, { policy: { forbidSelfApproval: true } }),
      (error: unknown) =>
        error instanceof UserInteractionError &&
        error.code === 'INVALID_ARGS' &&
        /requestedBy: the policy forbids self-approval \(forbidSelfApproval\)/.test(error.message),
    );
  });
});

describe('QuestionState under the two-person rule', () => {
  test('one approval of two is kept and the call stays pending; the second decides once', () => {
    const state = approval({ requiredApprovals: 2 });
    assert.equal(state.record.requiredApprovals, 2);
    const partial = state.decide({ type: 'approve', decidedBy: 'alice' }, T1);
    assert.equal(partial.status, 'pending');
    assert.equal(partial.decision, undefined);
    assert.deepEqual(partial.approvals, [
      { decidedBy: 'alice', decidedAt: T1, type: 'approve', inputSha256: inputSha256(DEPLOY) },
    ]);
    assert.equal(approvalProgress(state.record), '1 of 2 approvals (alice)');
    assert.equal(state.nextWake(), undefined); // no deadline: still waiting, nothing timed

    const twice = refusal(() => state.checkDecide({ type: 'approve', decidedBy: 'Alice' }));
    assert.equal(twice.type, 'FORBIDDEN');
    assert.equal(
      twice.message,
      `requiredApprovals: alice already approved this call at ${T1} (1 of 2 approvals); the next approval must come from someone else`,
    );

    const done = state.decide({ type: 'approve', decidedBy: 'bob' }, T2);
    assert.equal(done.status, 'answered');
    assert.equal(done.decision?.type, 'approve');
    assert.equal(done.decision?.decidedBy, 'bob');
    assert.deepEqual(
      done.approvals?.map((given) => given.decidedBy),
      ['alice', 'bob'],
    );
    // The result carries the approvals: a closed record is read from it.
    assert.deepEqual(state.result(T3), {
      status: 'decided',
      decision: done.decision,
      resolvedAt: T2,
      requiredApprovals: 2,
      approvals: done.approvals,
    });
    assert.equal(
      refusal(() => state.checkDecide({ type: 'approve', decidedBy: 'carol' })).type,
      'ALREADY_RESOLVED',
    );
  });

  test('an approval must name its decider, and approve the input approved before it', () => {
    const state = approval({ requiredApprovals: 2 });
    const unnamed = refusal(() => state.checkDecide({ type: 'approve' }));
    assert.equal(unnamed.type, 'INVALID_ARGS');
    assert.match(unnamed.message, /^invalid arguments: requiredApprovals: this call needs 2 approvals/);

    const edited = { ...DEPLOY, replicas: 2 };
    state.decide({ type: 'edit', input: edited, decidedBy: 'alice' }, T1);
    const plain = refusal(() => state.checkDecide({ type: 'approve', decidedBy: 'bob' }));
    assert.equal(plain.type, 'BAD_ANSWER');
    assert.equal(plain.details?.[0], 'approvals-agree');
    assert.match(
      plain.message,
      /alice approved an edited input \(sha256 [0-9a-f]{12}\): send an edit with that same input/,
    );
    // The same edit, its keys in another order, is the same input.
    const agreed = state.decide({ type: 'edit', input: { replicas: 2, ...DEPLOY }, decidedBy: 'bob' }, T2);
    assert.equal(agreed.status, 'answered');
    assert.equal(agreed.decision?.type, 'edit');
  });

  test('a deny by either person denies at once, after an approval or before', () => {
    const afterApproval = approval({ requiredApprovals: 2 });
    afterApproval.decide({ type: 'approve', decidedBy: 'alice' }, T1);
    const denied = afterApproval.decide({ type: 'reject', reason: 'not today', decidedBy: 'bob' }, T2);
    assert.equal(denied.status, 'answered');
    assert.equal(denied.decision?.type, 'reject');
    assert.equal(denied.approvals?.length, 1);

    const byTheApprover = approval({ requiredApprovals: 2 });
    byTheApprover.decide({ type: 'approve', decidedBy: 'alice' }, T1);
    assert.equal(
      byTheApprover.decline({ reason: 'changed my mind', declinedBy: 'alice' }, T2).decision?.type,
      'reject',
    );
  });

  test('an operator who sets requiredRejections above one: each rejection counts once per person, and the count denies', () => {
    const state = approval({ requiredApprovals: 2, requiredRejections: 2 });
    assert.equal(state.record.requiredRejections, 2);
    const unnamed = refusal(() => state.checkDecide({ type: 'reject' }));
    assert.match(
      unnamed.message,
      /requiredRejections: this call is denied by 2 rejections from distinct people/,
    );

    const first = state.decide({ type: 'reject', reason: 'risky', decidedBy: 'alice' }, T1);
    assert.equal(first.status, 'pending');
    assert.deepEqual(first.rejections, [
      { decidedBy: 'alice', decidedAt: T1, type: 'reject', reason: 'risky' },
    ]);
    assert.equal(approvalProgress(state.record), '0 of 2 approvals; 1 of 2 rejections (alice)');
    // One say each: alice may neither reject again nor approve now.
    const again = refusal(() => state.checkDecline({ declinedBy: 'alice' }));
    assert.equal(again.type, 'FORBIDDEN');
    assert.equal(
      again.message,
      `requiredRejections: alice already rejected this call at ${T1} (1 of 2 rejections); the next decision must come from someone else`,
    );
    assert.match(
      refusal(() => state.checkDecide({ type: 'approve', decidedBy: 'alice' })).message,
      /^requiredApprovals: alice already rejected this call/,
    );
    state.decide({ type: 'approve', decidedBy: 'bob' }, T2);
    assert.match(
      refusal(() => state.checkDecide({ type: 'reject', decidedBy: 'bob' })).message,
      /^requiredRejections: bob already approved this call at .* the next decision must come from someone else$/,
    );
    const denied = state.decline({ reason: 'no', declinedBy: 'carol' }, T3);
    assert.equal(denied.status, 'answered');
    assert.deepEqual(denied.decision, {
      ...denied.decision,
      type: 'reject',
      reason: 'no',
      decidedBy: 'carol',
      decidedAt: T3,
    });
    assert.equal(denied.rejections?.length, 2);
    assert.equal(state.result(T3).status, 'decided');
  });

  test('under forbidSelfApproval the requester may not decide, by decide or decline', () => {
    const state = approval({ forbidSelfApproval: true }, 'carol');
    const own = refusal(() => state.checkDecide({ type: 'approve', decidedBy: 'carol' }));
    assert.equal(own.type, 'FORBIDDEN');
    assert.equal(
      own.message,
      'forbidSelfApproval: carol asked for this call of deploy, so carol may not decide it; someone else must',
    );
    assert.equal(refusal(() => state.checkDecline({ declinedBy: 'Carol ' })).type, 'FORBIDDEN');
    assert.match(
      refusal(() => state.checkDecide({ type: 'reject' })).message,
      /forbidSelfApproval: whoever asked/,
    );
    assert.equal(state.decide({ type: 'approve', decidedBy: 'dave' }, T1).decision?.decidedBy, 'dave');
  });

  test('a worker policy beneath sets the count; a policy without the rule decides on the first decision', () => {
    const state = approval({});
    state.applyWorkerPolicy({ requiredApprovals: 3 });
    assert.equal(state.record.requiredApprovals, 3);
    state.decide({ type: 'approve', decidedBy: 'a' }, T1);
    state.decide({ type: 'approve', decidedBy: 'b' }, T2);
    assert.equal(state.status, 'pending');
    assert.equal(approvalProgress(state.record), '2 of 3 approvals (a, b)');

    const single = approval({});
    assert.equal(single.record.requiredApprovals, undefined);
    assert.equal(single.decide({ type: 'approve' }, T1).approvals, undefined);
    assert.equal(single.status, 'answered');
  });

  test('a partial approval survives continue-as-new, and the deadline still rejects', () => {
    const state = approval({ requiredApprovals: 2, expireAfterMs: 60_000 });
    state.decide({ type: 'approve', decidedBy: 'alice' }, T1);
    const input: AskUserQuestionWorkflowInput = {
      questions: [],
      approval: { toolName: 'deploy', input: DEPLOY },
      agent: { id: 'deploy-bot' },
      toolCallId: 'call-1',
    };
    const resumed = QuestionState.resume(input, JSON.parse(JSON.stringify(state.snapshot())));
    assert.equal(resumed.record.approvals?.length, 1);
    assert.equal(
      refusal(() => resumed.checkDecide({ type: 'approve', decidedBy: 'alice' })).type,
      'FORBIDDEN',
    );
    resumed.expire(T2);
    assert.equal(resumed.status, 'expired');
    assert.equal(resumed.record.decision?.type, 'reject');
  });
});

describe('the surfaces read the count from the record', () => {
  test('ask-user show and the Slack message say 1 of 2 approvals, who gave it, and who asked', () => {
    const state = approval({ requiredApprovals: 2 }, 'carol');
    state.decide({ type: 'approve', decidedBy: 'alice' }, T1);
    const shown = formatRecord('ask-user-question/deploy-bot/call-1', state.record);
    assert.match(shown, /\nrequested by carol\n/);
    assert.match(shown, new RegExp(`\\n1 of 2 approvals\\n  approved by alice at ${T1}`));

    const message = interactiveMessage({
      event: 'approval.progress',
      workflowId: 'ask-user-question/deploy-bot/call-1',
      record: state.record,
    });
    assert.equal(message.text.split(':')[0], '1 of 2 approvals');
    const text = JSON.stringify(message.blocks);
    assert.match(text, /\*Requested by:\* carol/);
    assert.match(text, /\*Decisions:\* 1 of 2 approvals \(alice\)/);
    assert.match(text, /"action_id":"ask_user\.approve"/);
  });

  test("MCP's decide_approval says a counted approval waits, and names the decision once it decides", async () => {
    const state = approval({ requiredApprovals: 2 });
    const operations = {
      decide: async (_id: string, input: unknown) => state.decide(input, T1),
    } as unknown as McpQuestionOperations;
    const args = (by: string) => ({
      id: 'ask-user-question/deploy-bot/call-1',
      decision: 'approve',
      decided_by: by,
    });
    const first = await callOpsTool('decide_approval', operations, args('alice'), 'ops');
    assert.deepEqual(first?.content, [
      {
        type: 'text',
        text: 'Recorded the approve of ask-user-question/deploy-bot/call-1 as alice: 1 of 2 approvals (alice); it waits for the rest.',
      },
    ]);
    const second = await callOpsTool('decide_approval', operations, args('bob'), 'ops');
    assert.deepEqual(second?.content, [
      { type: 'text', text: 'Decided ask-user-question/deploy-bot/call-1: approve, as bob.' },
    ]);
  });
});
