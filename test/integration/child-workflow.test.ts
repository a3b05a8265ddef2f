/**
 * An agent that is itself a Temporal workflow asks through `askUserQuestionAsChild`
 * (test/fixtures/agent-workflows.ts, which imports only `@temporalio/workflow` and the workflow-safe entry).
 * The agent runs on its own worker and task queue, the question on the ask-user worker's, both against a real
 * Temporal dev server: the question survives a restart of both workers, cancelling the agent cancels the
 * question, and a decline, an expiry, a question withdrawn on the server and a tool call id taken by another run
 * each reach the agent with the contract's code and text.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import {
  ApplicationFailure,
  CancelledFailure,
  WorkflowFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';

import { questionWorkflowId } from '../../src';
import { QuestionClient } from '../../src/ops';
import { workflowsPath as askUserWorkflowsPath } from '../../src/worker';
import type { AskUserQuestion } from '../../src';
import type { AgentInput } from '../fixtures/agent-workflows';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startTestEnvironment } from '../helpers/temporal';
import { createAskUserTestWorker, runWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const agentWorkflowsPath = require.resolve('../fixtures/agent-workflows');

const QUESTIONS: AskUserQuestion[] = [
  {
    id: 'environment',
    header: 'Target',
    question: 'Where should I deploy build 1.4.2?',
    options: [{ label: 'staging (Recommended)' }, { label: 'production' }],
  },
  { id: 'notify', question: 'Who should I tell when it is done?' },
];

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;

/** Event names of a history, from the attributes each event carries (`workflowExecutionCanceled`, ...). */
function eventNames(history: History): string[] {
  return (history.events ?? []).map((event) => {
    const key = Object.keys(event).find(
      (name) => name.endsWith('EventAttributes') && (event as Record<string, unknown>)[name] != null,
    );
    return key === undefined ? 'unknown' : key.slice(0, -'EventAttributes'.length);
  });
}

/** Asserts that the agent workflow failed with the non-retryable `ApplicationFailure` a failed ask raises. */
async function assertAgentFailed(agent: WorkflowHandle, type: string, message: string): Promise<void> {
  await assert.rejects(agent.result(), (error: unknown) => {
    assert.ok(error instanceof WorkflowFailedError, String(error));
    const cause = error.cause;
    assert.ok(cause instanceof ApplicationFailure, String(cause));
    assert.deepEqual(
      { type: cause.type, message: cause.message, nonRetryable: cause.nonRetryable },
      { type, message, nonRetryable: true },
    );
    return true;
  });
}

describe('askUserQuestionAsChild: an agent workflow asks through a child question', () => {
  let env: TestWorkflowEnvironment;
  let agentBundle: WorkflowBundle;
  let askUserBundle: WorkflowBundle;

  before(async () => {
    env = await startTestEnvironment();
    // Bundled once; every worker below, including the restarted ones, loads these same bundles.
    const logger = new DefaultLogger('WARN');
    [agentBundle, askUserBundle] = await Promise.all([
      bundleWorkflowCode({ workflowsPath: agentWorkflowsPath, logger }),
      bundleWorkflowCode({ workflowsPath: askUserWorkflowsPath, logger }),
    ]);
  });

  after(async () => {
    await env?.teardown();
  });

  async function createWorkers(
    queues: { agent: string; askUser: string },
    generation: number,
  ): Promise<Worker[]> {
    const agentWorker = await Worker.create({
      connection: env.nativeConnection,
      namespace: 'default',
      taskQueue: queues.agent,
      workflowBundle: agentBundle,
      identity: `agent-worker-${generation}`,
      shutdownForceTime: '5s',
    });
    const askUserWorker = await createAskUserTestWorker(env.nativeConnection, {
      taskQueue: queues.askUser,
      workflowBundle: askUserBundle,
      identity: `ask-user-worker-${generation}`,
    });
    return [agentWorker, askUserWorker];
  }

  test('the question survives a restart of both workers; the agent returns the exact answer text', async () => {
    const queues = { agent: 'child-workflow-agent-restart', askUser: 'child-workflow-ask-user-restart' };
    const agentId = 'agent-restart';
    const questionId = 'ask-user-question/agent-restart/call_restart';
    assert.equal(
      questionWorkflowId({ agent: { id: agentId }, toolCallId: 'call_restart' }, randomUUID),
      questionId,
    );
    const input: AgentInput = {
      questions: QUESTIONS,
      toolCallId: 'call_restart',
      askUserTaskQueue: queues.askUser,
    };

    let running = runWorkers(await createWorkers(queues, 1));
    try {
      const agent = await env.client.workflow.start('askingAgentWorkflow', {
        workflowId: agentId,
        taskQueue: queues.agent,
        args: [input],
      });
      const pending = await waitForPendingRecord(env.client, questionId);
      assert.deepEqual(pending.questions, QUESTIONS);
      assert.deepEqual(pending.agent, { id: agentId });
      assert.equal(pending.toolCallId, 'call_restart');

      // Both workers go away while the question is pending; the server alone holds the state.
      await running.stop();
      const question = env.client.workflow.getHandle(questionId);
      assert.equal((await agent.describe()).status.name, 'RUNNING');
      const questionDescription = await question.describe();
      assert.equal(questionDescription.status.name, 'RUNNING');
      assert.equal(questionDescription.taskQueue, queues.askUser);
      assert.equal(questionDescription.parentExecution?.workflowId, agentId);

      running = runWorkers(await createWorkers(queues, 2));
      const record = await new QuestionClient(env.client).answer(questionId, {
        answers: [
          { id: 'environment', selected: ['staging (Recommended)'] },
          { id: 'notify', selected: [], custom: '#deploys' },
        ],
        answeredBy: 'alice',
      });
      assert.equal(record.status, 'answered');
      assert.equal(record.answeredBy, 'alice');

      assert.equal(
        await agent.result(),
        '{"answers":[{"id":"environment","selected":["staging (Recommended)"]},' +
          '{"id":"notify","selected":[],"custom":"#deploys"}]}',
      );
      assert.equal((await agent.describe()).status.name, 'COMPLETED');
      assert.equal((await question.describe()).status.name, 'COMPLETED');

      // The agent's history shows the question as its child, and tasks completed by the worker before the
      // restart and by the one after it (the new worker replayed the agent from history).
      const history = await agent.fetchHistory();
      const names = eventNames(history);
      for (const name of [
        'startChildWorkflowExecutionInitiated',
        'childWorkflowExecutionStarted',
        'childWorkflowExecutionCompleted',
        'workflowExecutionCompleted',
      ]) {
        assert.ok(names.includes(name), `agent history lacks ${name}: ${names.join(', ')}`);
      }
      const identities = new Set(
        (history.events ?? []).flatMap((event) => event.workflowTaskCompletedEventAttributes?.identity ?? []),
      );
      assert.deepEqual([...identities].sort(), ['agent-worker-1', 'agent-worker-2']);
      const questionIdentities = new Set(
        ((await question.fetchHistory()).events ?? []).flatMap(
          (event) => event.workflowTaskCompletedEventAttributes?.identity ?? [],
        ),
      );
      assert.deepEqual([...questionIdentities].sort(), ['ask-user-worker-1', 'ask-user-worker-2']);
    } finally {
      await running.stop();
    }
  });

  describe('with both workers running', () => {
    const queues = { agent: 'child-workflow-agent', askUser: 'child-workflow-ask-user' };
    let running: { stop(): Promise<void> } | undefined;

    before(async () => {
      running = runWorkers(await createWorkers(queues, 1));
    });

    after(async () => {
      await running?.stop();
    });

    function agentInput(toolCallId: string): AgentInput {
      return { questions: QUESTIONS, toolCallId, askUserTaskQueue: queues.askUser };
    }

    /** Starts an agent workflow of the fixture on the agent task queue. */
    async function startAgent(
      type: 'askingAgentWorkflow' | 'toolResultAgentWorkflow',
      workflowId: string,
      input: AgentInput,
    ): Promise<WorkflowHandle> {
      return await env.client.workflow.start(type, { workflowId, taskQueue: queues.agent, args: [input] });
    }

    test('cancelling the agent workflow cancels its question, which ends Canceled', async () => {
      const agent = await startAgent('askingAgentWorkflow', 'agent-cancel', agentInput('call_cancel'));
      const questionId = 'ask-user-question/agent-cancel/call_cancel';
      await waitForPendingRecord(env.client, questionId);

      await agent.cancel();
      await assert.rejects(agent.result(), (error: unknown) => {
        assert.ok(error instanceof WorkflowFailedError, String(error));
        assert.ok(error.cause instanceof CancelledFailure, String(error.cause));
        return true;
      });
      assert.equal((await agent.describe()).status.name, 'CANCELLED');

      const question = env.client.workflow.getHandle(questionId);
      assert.equal((await question.describe()).status.name, 'CANCELLED');
      const questionEvents = eventNames(await question.fetchHistory());
      assert.ok(questionEvents.includes('workflowExecutionCancelRequested'), questionEvents.join(', '));
      assert.equal(questionEvents.at(-1), 'workflowExecutionCanceled');

      // The agent waited for the question to really end before it ended itself.
      const agentEvents = eventNames(await agent.fetchHistory());
      for (const name of [
        'requestCancelExternalWorkflowExecutionInitiated',
        'childWorkflowExecutionCanceled',
      ]) {
        assert.ok(agentEvents.includes(name), `agent history lacks ${name}: ${agentEvents.join(', ')}`);
      }
      assert.ok(
        agentEvents.indexOf('childWorkflowExecutionCanceled') <
          agentEvents.indexOf('workflowExecutionCanceled'),
        agentEvents.join(', '),
      );

      const record = await new QuestionClient(env.client).get(questionId);
      assert.equal(record.status, 'cancelled');
    });

    test('a declined question fails the agent with ASK_CANCELLED and the contract text', async () => {
      const agent = await startAgent('askingAgentWorkflow', 'agent-decline', agentInput('call_decline'));
      const questionId = 'ask-user-question/agent-decline/call_decline';
      await waitForPendingRecord(env.client, questionId);

      const record = await new QuestionClient(env.client).decline(questionId, {
        reason: 'not during the release freeze',
        declinedBy: 'bob',
      });
      assert.equal(record.status, 'declined');

      await assertAgentFailed(
        agent,
        'ASK_CANCELLED',
        'the user cancelled ask_user_question: not during the release freeze',
      );
      assert.equal((await agent.describe()).status.name, 'FAILED');
      assert.equal((await env.client.workflow.getHandle(questionId).describe()).status.name, 'COMPLETED');
    });

    test('an agent that renders failures as tool results hands the model the exact error text', async () => {
      const questions = new QuestionClient(env.client);
      const withReason = await startAgent(
        'toolResultAgentWorkflow',
        'agent-tool-result-reason',
        agentInput('call_1'),
      );
      const withoutReason = await startAgent(
        'toolResultAgentWorkflow',
        'agent-tool-result-plain',
        agentInput('call_1'),
      );
      const answered = await startAgent(
        'toolResultAgentWorkflow',
        'agent-tool-result-answered',
        agentInput('call_1'),
      );
      await Promise.all([
        waitForPendingRecord(env.client, 'ask-user-question/agent-tool-result-reason/call_1'),
        waitForPendingRecord(env.client, 'ask-user-question/agent-tool-result-plain/call_1'),
        waitForPendingRecord(env.client, 'ask-user-question/agent-tool-result-answered/call_1'),
      ]);

      await questions.decline('agent-tool-result-reason/call_1', { reason: 'ask the release manager' });
      await questions.decline('agent-tool-result-plain/call_1');
      await questions.answer('agent-tool-result-answered/call_1', {
        answers: [
          { id: 'environment', selected: ['production'] },
          { id: 'notify', selected: [] },
        ],
      });

      assert.equal(
        await withReason.result(),
        'Error: the user cancelled ask_user_question: ask the release manager',
      );
      assert.equal(await withoutReason.result(), 'Error: the user cancelled ask_user_question');
      assert.equal(
        await answered.result(),
        '{"answers":[{"id":"environment","selected":["production"]},{"id":"notify","selected":[]}]}',
      );
    });

    test('a question cancelled or terminated on the server, not by the agent, reaches the agent as ASK_ABORTED', async () => {
      const cancelledId = 'ask-user-question/agent-server-cancel/call_1';
      const terminatedId = 'ask-user-question/agent-server-terminate/call_1';
      const cancelled = await startAgent(
        'toolResultAgentWorkflow',
        'agent-server-cancel',
        agentInput('call_1'),
      );
      const terminated = await startAgent(
        'askingAgentWorkflow',
        'agent-server-terminate',
        agentInput('call_1'),
      );
      await Promise.all([
        waitForPendingRecord(env.client, cancelledId),
        waitForPendingRecord(env.client, terminatedId),
      ]);

      // What an operator does with the stock tools: `temporal workflow cancel` / `terminate` on the question.
      await env.client.workflow.getHandle(cancelledId).cancel();
      await env.client.workflow.getHandle(terminatedId).terminate('withdrawn by ops');

      // The agent itself was not cancelled: it goes on and hands the model the contract's text.
      assert.equal(await cancelled.result(), 'Error: ask_user_question was aborted before the user answered');
      assert.equal((await cancelled.describe()).status.name, 'COMPLETED');
      assert.equal((await env.client.workflow.getHandle(cancelledId).describe()).status.name, 'CANCELLED');
      assert.equal((await new QuestionClient(env.client).get(cancelledId)).status, 'cancelled');

      await assertAgentFailed(
        terminated,
        'ASK_ABORTED',
        'ask_user_question was aborted before the user answered',
      );
      assert.equal((await terminated.describe()).status.name, 'FAILED');
      assert.equal((await env.client.workflow.getHandle(terminatedId).describe()).status.name, 'TERMINATED');
    });

    test('a question asked with timeoutMs and left unanswered expires: ASK_EXPIRED with its duration', async () => {
      const questionId = 'ask-user-question/agent-expiry/call_1';
      const agent = await startAgent('toolResultAgentWorkflow', 'agent-expiry', {
        ...agentInput('call_1'),
        timeoutMs: 2_000,
      });
      const pending = await waitForPendingRecord(env.client, questionId);
      assert.equal(
        Date.parse(pending.expiresAt ?? 'missing') - Date.parse(pending.askedAt),
        2_000,
        `expiresAt ${String(pending.expiresAt)} is 2 s after askedAt ${pending.askedAt}`,
      );

      assert.equal(await agent.result(), 'Error: ask_user_question expired after 2s without an answer');
      const record = await new QuestionClient(env.client).get(questionId);
      assert.equal(record.status, 'expired');
      assert.equal((await env.client.workflow.getHandle(questionId).describe()).status.name, 'COMPLETED');
    });

    test('a tool call id whose question another run already asked fails with ASK_UNAVAILABLE naming the id', async () => {
      // Two runs (a reset, a reused agent id) asking for the same agent id with the same tool call id: both
      // compute the question id ask-user-question/agent-reused/call_taken.
      const questionId = 'ask-user-question/agent-reused/call_taken';
      const takenText =
        'Error: ask_user_question could not reach the question service: ' +
        `a question with id ${questionId} already exists; ask with a new toolCallId`;
      const input: AgentInput = { ...agentInput('call_taken'), agentId: 'agent-reused' };

      const first = await startAgent('toolResultAgentWorkflow', 'agent-reused-run-1', input);
      await waitForPendingRecord(env.client, questionId);

      // While the first run's question is pending, a second run cannot wait on it: it did not start it.
      const whilePending = await startAgent('toolResultAgentWorkflow', 'agent-reused-run-2', input);
      assert.equal(await whilePending.result(), takenText);

      await new QuestionClient(env.client).answer(questionId, {
        answers: [
          { id: 'environment', selected: ['staging (Recommended)'] },
          { id: 'notify', selected: [] },
        ],
        answeredBy: 'alice',
      });
      assert.equal(
        await first.result(),
        '{"answers":[{"id":"environment","selected":["staging (Recommended)"]},{"id":"notify","selected":[]}]}',
      );

      // Once it is answered and closed, the id is still taken: the question is never asked a second time.
      const afterAnswer = await startAgent('toolResultAgentWorkflow', 'agent-reused-run-3', input);
      assert.equal(await afterAnswer.result(), takenText);

      // The question still holds the first run's answer and was started once, by the first run.
      const record = await new QuestionClient(env.client).get(questionId);
      assert.equal(record.status, 'answered');
      assert.equal(record.answeredBy, 'alice');
      const description = await env.client.workflow.getHandle(questionId).describe();
      assert.equal(description.status.name, 'COMPLETED');
      assert.equal(description.parentExecution?.workflowId, 'agent-reused-run-1');
      const secondEvents = eventNames(await afterAnswer.fetchHistory());
      assert.ok(secondEvents.includes('startChildWorkflowExecutionFailed'), secondEvents.join(', '));
    });
  });
});
