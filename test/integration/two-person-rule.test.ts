/**
 * The two-person rule against a real dev server, through `requireApproval` and the ops client, under a
 * provider's `{ requiredApprovals: 2, forbidSelfApproval: true }` on calls asked by carol:
 * - one approval leaves the call pending (the record shows it, the tool has not run); the same person approving
 *   again is refused naming the earlier approval; carol, who asked, is refused; a second person completes it and
 *   the tool runs once;
 * - a deny by either person denies (the first, before any approval; the second, after one); where an operator
 *   sets `requiredRejections: 2`, one deny waits for a second person's, and the same person cannot give both;
 * - an edit must be agreed to: a plain approval after an edit is refused, the same edit completes it;
 * - a batch reports each approval counted as "1 of 2", and carol's batch as refused for separation of duties.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import { runBatch } from '../../src/ops';
import {
  QuestionOperationError,
  TemporalUserInteraction,
  questionWorkflowId,
  requireApproval,
  type ApprovedExecutionContext,
} from '../../src';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startProviderStack, type ProviderStack } from '../helpers/provider-stack';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = 'two-person-rule';
const AGENT = { id: 'two-person-agent' };
const DEPLOY = { service: 'api', version: '1.4.2' };

describe('the two-person rule', () => {
  let stack: ProviderStack;
  let provider: TemporalUserInteraction;

  before(async () => {
    stack = await startProviderStack(TASK_QUEUE);
    provider = new TemporalUserInteraction({
      client: stack.client,
      taskQueue: TASK_QUEUE,
      policy: { requiredApprovals: 2, forbidSelfApproval: true },
    });
  });

  after(async () => {
    await provider?.close();
    await stack?.stop();
  });

  /** A deploy call by carol through `requireApproval`, once its approval is pending. */
  async function carolDeploys(): Promise<{
    workflowId: string;
    result: Promise<string>;
    runs: { input: unknown; context: ApprovedExecutionContext }[];
  }> {
    const runs: { input: unknown; context: ApprovedExecutionContext }[] = [];
    const tool = requireApproval(
      {
        name: 'deploy',
        async execute(input: typeof DEPLOY, context: ApprovedExecutionContext) {
          runs.push({ input, context });
          return `deployed ${JSON.stringify(input)}`;
        },
      },
      { userInteraction: provider, requestedBy: 'carol' },
    );
    const toolCallId = `call-${randomUUID()}`;
    const workflowId = questionWorkflowId({ agent: AGENT, toolCallId }, randomUUID);
    const result = tool.execute(DEPLOY, { toolCallId, agent: AGENT });
    result.catch(() => undefined);
    await waitForPendingRecord(stack.client, workflowId);
    return { workflowId, result, runs };
  }

  /** Asserts `promise` rejects with a `QuestionOperationError` of `code` whose message matches `message`. */
  async function refused(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
    await assert.rejects(promise, (error: unknown) => {
      assert.ok(QuestionOperationError.isInstance(error), inspect(error));
      assert.equal(error.code, code);
      assert.match(error.message, message);
      return true;
    });
  }

  test('one approval leaves the call pending; the same person twice and the requester are refused; a second person runs the tool once', async () => {
    const { questions } = stack;
    const call = await carolDeploys();
    const first = await questions.decide(call.workflowId, { type: 'approve', decidedBy: 'alice' });
    assert.equal(first.status, 'pending');
    assert.equal(first.decision, undefined);
    assert.equal(first.requiredApprovals, 2);
    assert.deepEqual(
      first.approvals?.map(({ decidedBy, type }) => ({ decidedBy, type })),
      [{ decidedBy: 'alice', type: 'approve' }],
    );
    const pending = await questions.get(call.workflowId);
    assert.equal(pending.status, 'pending');
    assert.equal(pending.approval?.requestedBy, 'carol');
    assert.equal(call.runs.length, 0);

    await refused(
      questions.decide(call.workflowId, { type: 'approve', decidedBy: 'alice' }),
      'FORBIDDEN',
      /^requiredApprovals: alice already approved this call at \S+ \(1 of 2 approvals\); the next approval must come from someone else$/,
    );
    await refused(
      questions.decide(call.workflowId, { type: 'approve', decidedBy: 'carol' }),
      'FORBIDDEN',
      /^forbidSelfApproval: carol asked for this call of deploy, so carol may not decide it; someone else must$/,
    );
    await refused(
      questions.decide(call.workflowId, { type: 'approve' }),
      'INVALID_ARGS',
      /requiredApprovals: this call needs 2 approvals from distinct people, so an approval must name who gives it/,
    );

    const done = await questions.decide(call.workflowId, { type: 'approve', decidedBy: 'bob' });
    assert.equal(done.status, 'answered');
    assert.equal(await call.result, `deployed ${JSON.stringify(DEPLOY)}`);
    assert.equal(call.runs.length, 1);
    assert.equal(call.runs[0]!.context.approval?.decision.decidedBy, 'bob');
    // The closed record, read from the history, still names both approvals.
    const closed = await questions.get(call.workflowId);
    assert.equal(closed.decision?.type, 'approve');
    assert.deepEqual(
      closed.approvals?.map((given) => given.decidedBy),
      ['alice', 'bob'],
    );
    assert.equal(closed.requiredApprovals, 2);
  });

  test('a deny by either person denies: the first before any approval, or the second after one', async () => {
    const { questions } = stack;
    const early = await carolDeploys();
    await questions.decide(early.workflowId, { type: 'reject', reason: 'no', decidedBy: 'alice' });
    assert.equal(await early.result, 'The user rejected this call of deploy: no');
    assert.equal(early.runs.length, 0);

    const late = await carolDeploys();
    await questions.decide(late.workflowId, { type: 'approve', decidedBy: 'alice' });
    const denied = await questions.decide(late.workflowId, {
      type: 'reject',
      reason: 'not today',
      decidedBy: 'bob',
    });
    assert.equal(denied.decision?.type, 'reject');
    assert.equal(await late.result, 'The user rejected this call of deploy: not today');
    assert.equal(late.runs.length, 0);
  });

  test('where the operator counts rejections too (requiredRejections: 2), one deny waits for a second', async () => {
    const { questions } = stack;
    const counting = new TemporalUserInteraction({
      client: stack.client,
      taskQueue: TASK_QUEUE,
      policy: { requiredApprovals: 2, requiredRejections: 2 },
    });
    try {
      const toolCallId = `call-${randomUUID()}`;
      const workflowId = questionWorkflowId({ agent: AGENT, toolCallId }, randomUUID);
      const decision = counting.requestApproval({
        toolName: 'deploy',
        toolCallId,
        agent: AGENT,
        input: DEPLOY,
      });
      await waitForPendingRecord(stack.client, workflowId);
      const first = await questions.decide(workflowId, {
        type: 'reject',
        reason: 'risky',
        decidedBy: 'alice',
      });
      assert.equal(first.status, 'pending');
      assert.deepEqual(
        first.rejections?.map((given) => given.decidedBy),
        ['alice'],
      );
      await refused(
        questions.decline(workflowId, { declinedBy: 'alice' }),
        'FORBIDDEN',
        /^requiredRejections: alice already rejected this call at \S+ \(1 of 2 rejections\)/,
      );
      await questions.decline(workflowId, { reason: 'agreed', declinedBy: 'bob' });
      const decided = await decision;
      assert.equal(decided.type, 'reject');
      assert.equal(decided.decidedBy, 'bob');
      const closed = await questions.get(workflowId);
      assert.equal(closed.requiredRejections, 2);
      assert.deepEqual(
        closed.rejections?.map((given) => given.decidedBy),
        ['alice', 'bob'],
      );
    } finally {
      await counting.close();
    }
  });

  test('edits must agree: a plain approval after an edit is refused, the same edit completes it', async () => {
    const { questions } = stack;
    const call = await carolDeploys();
    const edited = { service: 'api', version: '1.4.3' };
    await questions.decide(call.workflowId, { type: 'edit', input: edited, decidedBy: 'alice' });
    await refused(
      questions.decide(call.workflowId, { type: 'approve', decidedBy: 'bob' }),
      'BAD_ANSWER',
      /^invalid decision: requiredApprovals: every approval of a call must approve the same input; alice approved an edited input \(sha256 [0-9a-f]{12}\)/,
    );
    await questions.decide(call.workflowId, {
      type: 'edit',
      input: { version: '1.4.3', service: 'api' },
      decidedBy: 'bob',
    });
    // Bob's edit is the same input as alice's (the same canonical JSON): the tool runs once, with it.
    await call.result;
    assert.equal(call.runs.length, 1);
    assert.deepEqual(call.runs[0]!.input, edited);
  });

  test('a batch reports an approval counted as 1 of 2, and the requester refused for separation of duties', async () => {
    const { questions } = stack;
    const calls = [await carolDeploys(), await carolDeploys()];
    const ids = calls.map((call) => call.workflowId);
    const byCarol = await runBatch(questions, ids, { action: 'approve', by: { name: 'carol' } });
    assert.equal(byCarol.recorded, 0);
    for (const item of byCarol.results) {
      assert.ok(!item.recorded);
      assert.equal(item.refusal, 'separation-of-duties');
      assert.equal(item.error, 'FORBIDDEN');
    }
    const byAlice = await runBatch(questions, ids, { action: 'approve', by: { name: 'alice' } });
    assert.deepEqual(
      byAlice.results.map((item) =>
        item.recorded ? { status: item.status, approvals: item.approvals } : item,
      ),
      ids.map(() => ({ status: 'pending', approvals: { given: 1, required: 2 } })),
    );
    const byBob = await runBatch(questions, ids, { action: 'approve', by: { name: 'bob' } });
    assert.deepEqual(
      byBob.results.map((item) =>
        item.recorded ? { status: item.status, approvals: item.approvals } : item,
      ),
      ids.map(() => ({ status: 'answered', approvals: undefined })),
    );
    for (const call of calls) {
      await call.result;
      assert.equal(call.runs.length, 1);
    }
  });
});
