/**
 * Durable approvals of tool calls against a real dev server: each decision reaches the agent exactly
 * (`requireApproval` runs the tool once with the original or the edited input, or returns the rejection or
 * the response text), an invalid edit is refused naming the path and records nothing, 50 concurrent decisions
 * record one and refuse 49 naming the winner, a replayed call re-attaches to its decision, expiry rejects
 * unless the operator set `onExpiry: 'approve'`, and questions and approvals refuse each other's messages.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';

import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import { inputSha256 } from '../../src/answer';
import type { QuestionClient } from '../../src/ops';
import {
  QuestionOperationError,
  TemporalUserInteraction,
  UserInteractionError,
  decideUpdate,
  questionWorkflowId,
  requireApproval,
  type ApprovedExecutionContext,
} from '../../src';
import type { DecideInput, QuestionOutcome } from '../../src/types';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { eventually } from '../helpers/wait';
import { startProviderStack, type ProviderStack } from '../helpers/provider-stack';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = 'approvals';
const AGENT = { id: 'approval-agent' };

/** The input schema of the tool under test: a deploy of one service at a version to 1–10 replicas. */
const DEPLOY_SCHEMA = {
  type: 'object',
  properties: {
    service: { type: 'string', minLength: 1 },
    version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' },
    replicas: { type: 'integer', minimum: 1, maximum: 10 },
  },
  required: ['service', 'version'],
  additionalProperties: false,
};

interface DeployInput {
  service: string;
  version: string;
  replicas?: number;
}

/** A deploy tool that records every run, with the input and the approval it ran under. */
function deployTool(): {
  runs: { input: DeployInput; context: ApprovedExecutionContext }[];
  tool: { name: string; execute(input: DeployInput, context: ApprovedExecutionContext): Promise<string> };
} {
  const runs: { input: DeployInput; context: ApprovedExecutionContext }[] = [];
  return {
    runs,
    tool: {
      name: 'deploy',
      async execute(input, context) {
        runs.push({ input, context });
        return `deployed ${input.service} ${input.version}`;
      },
    },
  };
}

/** The workflow id of this file's agent's tool call. */
function approvalId(toolCallId: string): string {
  return questionWorkflowId({ agent: AGENT, toolCallId }, randomUUID);
}

describe('durable approvals', () => {
  let stack: ProviderStack;
  let client: Client;
  let questions: QuestionClient;
  let provider: TemporalUserInteraction;

  before(async () => {
    stack = await startProviderStack(TASK_QUEUE);
    ({ client, questions, provider } = stack);
  });

  after(async () => {
    await stack?.stop();
  });

  /** Runs the wrapped deploy tool on a fresh call id, decides it with `decision` once pending. */
  async function decideCall(
    decision: DecideInput,
    input: DeployInput = { service: 'api', version: '1.4.2' },
  ): Promise<{ result: string; runs: ReturnType<typeof deployTool>['runs']; workflowId: string }> {
    const { runs, tool } = deployTool();
    const wrapped = requireApproval(tool, {
      userInteraction: provider,
      inputSchema: DEPLOY_SCHEMA,
      description: (call) => `Deploy ${call.service} ${call.version}`,
    });
    const toolCallId = `call-${randomUUID()}`;
    const workflowId = approvalId(toolCallId);
    const execution = wrapped.execute(input, { toolCallId, agent: AGENT });
    await waitForPendingRecord(client, workflowId);
    await questions.decide(workflowId, decision);
    return { result: await execution, runs, workflowId };
  }

  test('approve runs the tool once with the original input', async () => {
    const { result, runs, workflowId } = await decideCall({ type: 'approve', decidedBy: 'alice' });
    assert.equal(result, 'deployed api 1.4.2');
    assert.equal(runs.length, 1);
    assert.deepEqual(runs[0]!.input, { service: 'api', version: '1.4.2' });
    assert.equal(runs[0]!.context.approval?.decision.type, 'approve');
    assert.equal(runs[0]!.context.approval?.key, `${AGENT.id}/${runs[0]!.context.toolCallId}`);

    const record = await questions.get(workflowId);
    assert.equal(record.status, 'answered');
    assert.equal(record.approval?.toolName, 'deploy');
    assert.deepEqual(record.approval?.input, { service: 'api', version: '1.4.2' });
    assert.equal(record.decision?.type, 'approve');
    assert.equal(record.decision?.decidedBy, 'alice');
    assert.ok(
      record.decision?.decidedAt !== undefined && !Number.isNaN(Date.parse(record.decision.decidedAt)),
    );

    const [listed] = (await questions.list('all', 1000)).filter((row) => row.workflowId === workflowId);
    assert.equal(listed?.kind, 'approval');
    assert.equal(listed?.toolName, 'deploy');
    assert.equal(listed?.decision, 'approve');
    assert.equal(listed?.title, 'Approve deploy: Deploy api 1.4.2');
  });

  test('edit runs the tool once with the edited input; the record keeps both inputs', async () => {
    const edited = { service: 'api', version: '1.4.3', replicas: 2 };
    const { result, runs, workflowId } = await decideCall({ type: 'edit', input: edited, decidedBy: 'bob' });
    assert.equal(result, 'deployed api 1.4.3');
    assert.deepEqual(
      runs.map((run) => run.input),
      [edited],
    );
    const record = await questions.get(workflowId);
    assert.deepEqual(record.approval?.input, { service: 'api', version: '1.4.2' });
    assert.deepEqual(record.decision, {
      type: 'edit',
      input: edited,
      decidedBy: 'bob',
      decidedAt: record.decision?.decidedAt,
      requestedInputSha256: inputSha256({ service: 'api', version: '1.4.2' }),
      inputSha256: inputSha256(edited),
    });
  });

  test('an invalid edit is refused with its path and reason, and nothing is recorded', async () => {
    const { runs, tool } = deployTool();
    const wrapped = requireApproval(tool, { userInteraction: provider, inputSchema: DEPLOY_SCHEMA });
    const toolCallId = `call-${randomUUID()}`;
    const workflowId = approvalId(toolCallId);
    const execution = wrapped.execute({ service: 'api', version: '1.4.2' }, { toolCallId, agent: AGENT });
    await waitForPendingRecord(client, workflowId);

    // Through the ops client (checked before anything is sent) and through a bare update (the workflow's own
    // validator, as the stock Temporal CLI meets it): the same path and reason both ways.
    const bad = { type: 'edit', input: { service: 'api', version: '1.4.2', replicas: 50 } } as const;
    await assert.rejects(questions.decide(workflowId, bad), (error: unknown) => {
      assert.ok(QuestionOperationError.isInstance(error), inspect(error));
      assert.equal(error.code, 'BAD_ANSWER');
      assert.equal(error.message, 'invalid decision: input.replicas: 50 is greater than 10');
      assert.equal(error.rule, 'edited-input');
      return true;
    });
    await assert.rejects(
      client.workflow.getHandle(workflowId).executeUpdate(decideUpdate, {
        args: [{ type: 'edit', input: { service: '', version: 'latest' } }],
      }),
      (error: Error) => {
        assert.equal(
          (error.cause as Error | undefined)?.message,
          'input.service: String is too short (0 < 1) (and 1 more)',
        );
        return true;
      },
    );
    await assert.rejects(
      questions.decide(workflowId, { type: 'edit', input: { service: 'api' } }),
      /input: Instance does not have required property "version"/,
    );
    await assert.rejects(
      questions.decide(workflowId, { type: 'reject', text: 'no' }),
      /decision\.text: not part of reject: only respond carries it/,
    );

    const record = await waitForPendingRecord(client, workflowId);
    assert.equal(record.decision, undefined);
    assert.equal(runs.length, 0);

    await questions.decide(workflowId, { type: 'approve' });
    assert.equal(await execution, 'deployed api 1.4.2');
    assert.equal(runs.length, 1);
  });

  test('reject returns the reason for the model and never runs the tool', async () => {
    const { result, runs, workflowId } = await decideCall({
      type: 'reject',
      reason: 'freeze until Monday',
      decidedBy: 'carol',
    });
    assert.equal(result, 'The user rejected this call of deploy: freeze until Monday');
    assert.equal(runs.length, 0);
    const record = await questions.get(workflowId);
    assert.equal(record.decision?.type, 'reject');
    assert.equal(
      record.decision?.type === 'reject' ? record.decision.reason : undefined,
      'freeze until Monday',
    );
  });

  test('respond returns the text in place of the result and never runs the tool', async () => {
    const { result, runs } = await decideCall({
      type: 'respond',
      text: 'Deploy 1.4.1 instead; 1.4.2 is bad.',
    });
    assert.equal(result, 'Deploy 1.4.1 instead; 1.4.2 is bad.');
    assert.equal(runs.length, 0);
  });

  test('50 concurrent decisions: one is recorded, 49 are refused naming the winner and when', async () => {
    const toolCallId = `race-${randomUUID()}`;
    const workflowId = approvalId(toolCallId);
    const waiting = provider.requestApproval({
      toolName: 'deploy',
      toolCallId,
      input: { service: 'api', version: '1.4.2' },
      agent: AGENT,
    });
    await waitForPendingRecord(client, workflowId);
    const types = ['approve', 'reject', 'respond'] as const;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, index) => {
        const type = types[index % types.length]!;
        const decision: DecideInput = type === 'respond' ? { type, text: `text ${index}` } : { type };
        return questions.decide(workflowId, { ...decision, decidedBy: `reviewer-${index}` });
      }),
    );
    const accepted = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    assert.equal(accepted.length, 1, inspect(outcomes, { depth: 1 }));
    const winner: QuestionOutcome = accepted[0]!;
    const words = { approve: 'approved', reject: 'rejected', respond: 'answered with a response', edit: '' };
    const expected = `the approval was already ${words[winner.decision!.type]} by ${winner.decision!.decidedBy} at ${winner.resolvedAt}`;
    const refused = outcomes.flatMap((outcome) =>
      outcome.status === 'rejected' ? [outcome.reason as unknown] : [],
    );
    assert.equal(refused.length, 49);
    for (const error of refused) {
      assert.ok(QuestionOperationError.isInstance(error), inspect(error));
      assert.equal(error.code, 'ALREADY_RESOLVED');
      assert.equal(error.message, expected);
    }
    const decision = await waiting;
    assert.equal(decision.type, winner.decision!.type);
    assert.equal(decision.decidedBy, winner.decision!.decidedBy);
    // A late one, after the workflow closed, is refused the same way.
    await assert.rejects(questions.decide(workflowId, { type: 'approve', decidedBy: 'late' }), {
      code: 'ALREADY_RESOLVED',
      message: expected,
    });
  });

  test('a replayed call re-attaches: the decision taken meanwhile comes back at once, the tool runs per execute', async () => {
    const { runs, tool } = deployTool();
    const wrapped = requireApproval(tool, { userInteraction: provider });
    const toolCallId = `replay-${randomUUID()}`;
    const workflowId = approvalId(toolCallId);
    const first = wrapped.execute({ service: 'api', version: '1.4.2' }, { toolCallId, agent: AGENT });
    await waitForPendingRecord(client, workflowId);
    const again = wrapped.execute({ service: 'api', version: '1.4.2' }, { toolCallId, agent: AGENT });
    await questions.decide(workflowId, { type: 'edit', input: { service: 'api', version: '2.0.0' } });
    assert.deepEqual(await Promise.all([first, again]), ['deployed api 2.0.0', 'deployed api 2.0.0']);
    const later = await wrapped.execute({ service: 'api', version: '1.4.2' }, { toolCallId, agent: AGENT });
    assert.equal(later, 'deployed api 2.0.0');
    assert.equal(runs.length, 3, 'each execute runs the tool once for the one decision');
    const starts = [];
    for await (const info of client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
      starts.push(info);
    assert.equal(starts.length, 1, 'one approval, never a duplicate');

    // The same call id with another input is a different call: refused, nothing recorded.
    await assert.rejects(
      wrapped.execute({ service: 'web', version: '1.0.0' }, { toolCallId, agent: AGENT }),
      (error: unknown) => UserInteractionError.isInstance(error) && error.code === 'ASK_CONFLICT',
    );
  });

  test('no decision by the deadline rejects; onExpiry approve, set by the operator, approves', async () => {
    const strict = new TemporalUserInteraction({
      client,
      taskQueue: TASK_QUEUE,
      policy: { expireAfter: '1s' },
    });
    const lenient = new TemporalUserInteraction({
      client,
      taskQueue: TASK_QUEUE,
      policy: { expireAfter: '1s', onExpiry: 'approve' },
    });
    try {
      const request = { toolName: 'deploy', input: { service: 'api', version: '1.4.2' }, agent: AGENT };
      const rejected = await strict.requestApproval({ ...request, toolCallId: `expiry-${randomUUID()}` });
      assert.equal(rejected.type, 'reject');
      assert.equal(rejected.decidedBy, 'policy:expired');
      assert.equal(
        rejected.type === 'reject' ? rejected.reason : undefined,
        'nobody decided within 1s, so the call was not approved',
      );
      const toolCallId = `expiry-${randomUUID()}`;
      const approved = await lenient.requestApproval({ ...request, toolCallId });
      assert.equal(approved.type, 'approve');
      assert.equal(approved.decidedBy, 'policy:expired');
      const record = await questions.get(approvalId(toolCallId));
      assert.equal(record.status, 'expired');
      await assert.rejects(questions.decide(approvalId(toolCallId), { type: 'reject' }), {
        code: 'ALREADY_RESOLVED',
        message: `the approval already expired at ${record.resolvedAt} and was approved by its policy`,
      });
    } finally {
      await Promise.all([strict.close(), lenient.close()]);
    }
  });

  test('a decline rejects an approval; an answer to it, and a decision on a question, are refused', async () => {
    const toolCallId = `decline-${randomUUID()}`;
    const workflowId = approvalId(toolCallId);
    const waiting = provider.requestApproval({
      toolName: 'rm',
      toolCallId,
      input: { path: '/' },
      agent: AGENT,
    });
    await waitForPendingRecord(client, workflowId);
    await assert.rejects(
      questions.answer(workflowId, { answers: [] }),
      /this is an approval of rm, not a question: decide it \(update decide\)/,
    );
    await questions.decline(workflowId, { reason: 'never', declinedBy: 'dave' });
    const decision = await waiting;
    assert.deepEqual(
      { ...decision, decidedAt: undefined },
      {
        type: 'reject',
        reason: 'never',
        decidedBy: 'dave',
        decidedAt: undefined,
        requestedInputSha256: inputSha256({ path: '/' }),
      },
    );

    const askCallId = `question-${randomUUID()}`;
    const questionId = approvalId(askCallId);
    const asking = provider.ask({
      questions: [{ id: 'q', question: 'Proceed?' }],
      toolCallId: askCallId,
      agent: AGENT,
    });
    await waitForPendingRecord(client, questionId);
    await assert.rejects(questions.decide(questionId, { type: 'approve' }), {
      code: 'INVALID_ARGS',
      message: 'invalid arguments: decide: this is a question, not an approval: answer it',
    });
    await assert.rejects(
      client.workflow.getHandle(questionId).executeUpdate(decideUpdate, { args: [{ type: 'approve' }] }),
      (error: Error) => /this is a question, not an approval/.test(String((error.cause as Error).message)),
    );
    // The same tool call id cannot turn into an approval.
    await assert.rejects(
      provider.requestApproval({ toolName: 'deploy', toolCallId: askCallId, input: {}, agent: AGENT }),
      (error: unknown) => UserInteractionError.isInstance(error) && error.code === 'ASK_CONFLICT',
    );
    await questions.answer(questionId, { answers: [{ id: 'q', selected: [], custom: 'yes' }] });
    assert.deepEqual(await asking, { answers: [{ id: 'q', selected: [], custom: 'yes' }] });
  });

  test('bad requests are refused naming the field, before anything is sent', async () => {
    const base = { toolName: 'deploy', toolCallId: 'c', input: { a: 1 } };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, toolName: ' ' }, 'invalid arguments: toolName: must be a non-blank string'],
      [
        { ...base, toolCallId: '' },
        'invalid arguments: toolCallId: an approval is keyed by its tool call id',
      ],
      [{ ...base, input: undefined }, 'invalid arguments: input: must be a JSON value'],
      [{ ...base, inputSchema: [] }, 'invalid arguments: inputSchema: must be a JSON Schema object'],
      [{ ...base, input: 'x'.repeat(300_000) }, 'invalid arguments: input: the request is'],
    ];
    for (const [request, message] of cases) {
      await assert.rejects(provider.requestApproval(request as never), (error: unknown) => {
        assert.ok(UserInteractionError.isInstance(error), inspect(error));
        assert.equal(error.code, 'INVALID_ARGS');
        assert.ok(error.message.startsWith(message), error.message);
        return true;
      });
    }
    await eventually('no approval workflow for the refused call', async () => {
      const found = [];
      for await (const info of client.workflow.list({ query: `WorkflowId = 'ask-user-question/c'` })) {
        found.push(info);
      }
      return found.length === 0 ? true : undefined;
    });
  });
});
