/**
 * `durable-ask-user/ag-ui` against a real dev server and worker, with `@ag-ui/client`'s `HttpAgent` as the front
 * end and an AI SDK `ToolLoopAgent` (the SDK's scripted model) behind the endpoint, its tools `ask_user_question`
 * and a `deploy` tool behind a durable approval:
 * - a run that asks finishes with the interrupt outcome: one interrupt per question and approval, keyed by the
 *   question's workflow id, with its reason, tool call id, deadline and a response schema that accepts the
 *   answer and refuses what the rules refuse;
 * - the resume run, served by a second endpoint started for it, records the answer and the edit, and the agent
 *   goes on with exactly them (the tool runs once, with the edited input); the same resume sent again records
 *   nothing more and gives the same answer;
 * - a question answered meanwhile through QuestionClient (as the inbox answers) is the answer the resume run
 *   goes on with, whatever the resume said; five tabs resuming while ops answers record one answer, and every
 *   run goes on with it;
 * - with no worker, a resume is recorded for one and the run pauses again on the same interrupt; once a worker
 *   runs, the thread goes on with that answer;
 * - an invalid payload, new input while interrupts are open, and a resume after the deadline end in RUN_ERROR
 *   naming the reason, with nothing recorded (an expired interrupt may still be cancelled, to go on).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import { Validator } from '@cfworker/json-schema';
import { EventType, type BaseEvent, type Interrupt, type RunFinishedEvent } from '@ag-ui/core';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import { questionWorkflowId, serializeAnswer } from '../../src';
import { answerResponseSchema, serveAgUiAgent, type AgUiEndpoint } from '../../src/ag-ui';
import type { QuestionRecord } from '../../src/types';
import {
  COLOR_QUESTION,
  DEPLOY_INPUT,
  agentFactory,
  frontEnd,
  otherTab,
  runFrontEnd,
  scriptedModel,
  toolResultsOf,
  type DeployRuns,
  type FrontEndRun,
} from '../helpers/ag-ui-agent';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = 'ag-ui-interrupts';
const AGENT_ID = 'ag-ui-agent';
/** The deadline of the questions of the short-lived endpoint. */
const SHORT_DEADLINE_MS = 2_000;

const GREEN = { answers: [{ id: 'color', selected: ['Green'] }] };
const BLUE = { answers: [{ id: 'color', selected: ['Blue'] }] };
const EDITED = { service: 'api', version: '2.0.0' };

let stack: DevServerWithClient;
let worker: RunningWorkers;
let endpoint: AgUiEndpoint;
let shortEndpoint: AgUiEndpoint;
/** How the endpoints are served: a run's state is the front end's messages and Temporal's questions. */
let serve: (questionTimeoutMs: number, taskQueue?: string) => Promise<AgUiEndpoint>;
const model = scriptedModel();
const deployRuns: DeployRuns = [];

before(async () => {
  stack = await startDevServerWithClient('ag-ui');
  worker = await startAskUserWorker(stack.server.address, TASK_QUEUE);
  const common = {
    questions: stack.questions,
    agentId: AGENT_ID,
    createAgent: agentFactory(model, deployRuns),
  };
  serve = (questionTimeoutMs, taskQueue = TASK_QUEUE) =>
    serveAgUiAgent({ ...common, interaction: { taskQueue, questionTimeoutMs } });
  endpoint = await serve(3_600_000);
  shortEndpoint = await serve(SHORT_DEADLINE_MS);
});

after(async () => {
  try {
    await endpoint?.close();
    await shortEndpoint?.close();
    await worker?.stop();
  } finally {
    await stack?.stop();
  }
});

function finished(run: FrontEndRun): RunFinishedEvent {
  assert.equal(run.error, undefined, `the run ended in RUN_ERROR: ${JSON.stringify(run.error)}`);
  const event = run.events.find((candidate) => candidate.type === EventType.RUN_FINISHED);
  assert.ok(event !== undefined, `no RUN_FINISHED among ${run.events.map((e) => e.type).join(', ')}`);
  return event as RunFinishedEvent;
}

function interruptsOf(run: FrontEndRun): Interrupt[] {
  const { outcome } = finished(run);
  assert.equal(outcome?.type, 'interrupt', JSON.stringify(outcome));
  return outcome.type === 'interrupt' ? outcome.interrupts : [];
}

function ofType<T extends BaseEvent>(run: FrontEndRun, type: EventType): T[] {
  return run.events.filter((event) => event.type === type) as T[];
}

/** The text the agent said in the run. */
function textOf(run: FrontEndRun): string {
  return ofType<BaseEvent & { delta: string }>(run, EventType.TEXT_MESSAGE_CONTENT)
    .map((event) => event.delta)
    .join('');
}

/** The tool results the run reported, by tool call id. */
function resultsOf(run: FrontEndRun): Record<string, string> {
  return Object.fromEntries(
    ofType<BaseEvent & { toolCallId: string; content: string }>(run, EventType.TOOL_CALL_RESULT).map(
      (event) => [event.toolCallId, event.content],
    ),
  );
}

function byReason(interrupts: readonly Interrupt[], reason: string): Interrupt {
  const found = interrupts.find((interrupt) => interrupt.reason === reason);
  assert.ok(found !== undefined, `no ${reason} interrupt among ${JSON.stringify(interrupts)}`);
  return found;
}

/** The record of an interrupt's question, with the answers it refused. */
async function recordOf(interrupt: Interrupt): Promise<QuestionRecord> {
  return await stack.questions.get(interrupt.id);
}

function assertUntouched(record: QuestionRecord, status: QuestionRecord['status']): void {
  assert.equal(record.status, status);
  assert.equal(record.answer, undefined);
  assert.equal(record.decision, undefined);
  assert.deepEqual(record.rejectedAnswers, []);
}

describe('AG-UI interrupts with HttpAgent, a dev server and a worker', () => {
  test('RUN_FINISHED carries one interrupt per question and approval, with its schema; the resume run goes on with exactly the answer and the edit', async () => {
    const threadId = `thread-${randomUUID()}`;
    const agent = frontEnd(endpoint.url, threadId, 'ask and deploy');
    const first = await runFrontEnd(agent);
    const interrupts = interruptsOf(first);
    assert.equal(interrupts.length, 2);
    const question = byReason(interrupts, 'input_required');
    const approval = byReason(interrupts, 'tool_call');
    for (const interrupt of [question, approval]) {
      assert.ok(interrupt.toolCallId !== undefined);
      assert.equal(
        interrupt.id,
        questionWorkflowId(
          { agent: { id: AGENT_ID, sessionId: threadId }, toolCallId: interrupt.toolCallId },
          randomUUID,
        ),
      );
      const record = await recordOf(interrupt);
      assert.equal(record.status, 'pending');
      assert.equal(interrupt.expiresAt, record.expiresAt);
      assert.ok(Date.parse(interrupt.expiresAt ?? '') > Date.now());
    }
    // The tool calls are in the front end's messages, so the next run knows what is open.
    assert.deepEqual(
      agent.messages
        .flatMap((message) =>
          message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : [],
        )
        .sort(),
      [question.toolCallId, approval.toolCallId].sort(),
    );
    assert.deepEqual(question.responseSchema, answerResponseSchema([COLOR_QUESTION]));
    assert.deepEqual(question.metadata, { questions: [COLOR_QUESTION] });
    assert.deepEqual(approval.metadata, { toolName: 'deploy', input: DEPLOY_INPUT });
    const answers = new Validator(question.responseSchema, '2020-12');
    assert.equal(answers.validate(GREEN).valid, true);
    assert.equal(answers.validate({ answers: [{ id: 'color', selected: ['Purple'] }] }).valid, false);
    assert.equal(answers.validate({ answers: [{ id: 'color', selected: ['Blue', 'Green'] }] }).valid, false);
    const decisions = new Validator(approval.responseSchema!, '2020-12');
    assert.equal(decisions.validate({ type: 'edit', input: EDITED }).valid, true);
    assert.equal(decisions.validate({ type: 'approve' }).valid, true);
    assert.equal(
      decisions.validate({ type: 'edit', input: { service: 'api', version: 'latest' } }).valid,
      false,
    );
    assert.equal(decisions.validate({ type: 'launch' }).valid, false);
    assert.deepEqual(
      deployRuns.filter((run) => run.toolCallId === approval.toolCallId),
      [],
    );

    const beforeResume = structuredClone(agent.messages);
    const resume = [
      { interruptId: question.id, status: 'resolved' as const, payload: GREEN },
      { interruptId: approval.id, status: 'resolved' as const, payload: { type: 'edit', input: EDITED } },
    ];
    // Resumed through a second endpoint started now: the first keeps nothing the run needs.
    const restarted = await serve(3_600_000);
    agent.url = restarted.url;
    const second = await runFrontEnd(agent, resume).finally(() => restarted.close());
    assert.equal(finished(second).outcome?.type, 'success');
    const answerText = serializeAnswer(GREEN);
    assert.deepEqual(resultsOf(second), {
      [question.toolCallId!]: answerText,
      [approval.toolCallId!]: 'deployed api 2.0.0',
    });
    assert.deepEqual(toolResultsOf(model.doStreamCalls.at(-1)!.prompt), [
      `ask_user_question: ${answerText}`,
      'deploy: deployed api 2.0.0',
    ]);
    assert.equal(
      textOf(second),
      `Tool results: ask_user_question: ${answerText} | deploy: deployed api 2.0.0`,
    );
    assert.deepEqual(
      deployRuns.filter((run) => run.toolCallId === approval.toolCallId).map((run) => run.input),
      [EDITED],
    );
    const answered = await recordOf(question);
    assert.equal(answered.status, 'answered');
    assert.deepEqual(answered.answer, GREEN);
    assert.equal(answered.answeredBy, 'ag-ui');
    const decided = await recordOf(approval);
    assert.equal(decided.decision?.type, 'edit');
    assert.equal(decided.decision?.decidedBy, 'ag-ui');

    // The same resume again (a retried request): the answer recorded once, the same result for the question.
    const replay = await runFrontEnd(otherTab(endpoint.url, threadId, beforeResume), resume);
    assert.equal(finished(replay).outcome?.type, 'success');
    assert.equal(resultsOf(replay)[question.toolCallId!], answerText);
    const again = await recordOf(question);
    assert.equal(again.answerId, answered.answerId);
    assert.equal(again.resolvedAt, answered.resolvedAt);
    assert.deepEqual(again.rejectedAnswers, []);
  });

  test('a question answered meanwhile through QuestionClient (as the inbox answers) is what the resume run goes on with', async () => {
    const threadId = `thread-${randomUUID()}`;
    const agent = frontEnd(endpoint.url, threadId, 'ask');
    const [question] = interruptsOf(await runFrontEnd(agent));
    assert.ok(question !== undefined);
    await stack.questions.answer(question.id, { ...BLUE, answeredBy: 'alice' });

    const resumed = await runFrontEnd(agent, [
      { interruptId: question.id, status: 'resolved', payload: GREEN },
    ]);
    assert.equal(finished(resumed).outcome?.type, 'success');
    assert.deepEqual(resultsOf(resumed), { [question.toolCallId!]: serializeAnswer(BLUE) });
    assert.equal(textOf(resumed), `Tool results: ask_user_question: ${serializeAnswer(BLUE)}`);
    const record = await recordOf(question);
    assert.deepEqual(record.answer, BLUE);
    assert.equal(record.answeredBy, 'alice');
    assert.deepEqual(record.rejectedAnswers, []);
  });

  test('resumes from five tabs racing an answer through QuestionClient: one answer is recorded, and every run goes on with it', async () => {
    const threadId = `thread-${randomUUID()}`;
    const agent = frontEnd(endpoint.url, threadId, 'ask');
    const [question] = interruptsOf(await runFrontEnd(agent));
    assert.ok(question !== undefined);
    const tabs = [GREEN, BLUE, GREEN, BLUE, GREEN].map((payload) =>
      runFrontEnd(otherTab(endpoint.url, threadId, agent.messages), [
        { interruptId: question.id, status: 'resolved', payload },
      ]),
    );
    const ops = stack.questions.answer(question.id, { ...BLUE, answeredBy: 'alice' }).then(
      () => 'recorded',
      (error: unknown) => (error as { code?: string }).code,
    );
    const [runs, opsOutcome] = await Promise.all([Promise.all(tabs), ops]);
    const record = await recordOf(question);
    assert.equal(record.status, 'answered');
    const recorded = serializeAnswer(record.answer!);
    for (const run of runs) {
      assert.equal(finished(run).outcome?.type, 'success');
      assert.deepEqual(resultsOf(run), { [question.toolCallId!]: recorded });
    }
    // The ops answer either won, or was refused naming the winner: never a second answer.
    assert.equal(
      opsOutcome === 'recorded',
      record.answeredBy === 'alice',
      `${opsOutcome} / ${record.answeredBy}`,
    );
    if (opsOutcome !== 'recorded') assert.equal(opsOutcome, 'ALREADY_RESOLVED');
  });

  test('an invalid payload, or new input while interrupts are open, is a RUN_ERROR naming the reason; nothing is recorded', async () => {
    const threadId = `thread-${randomUUID()}`;
    const agent = frontEnd(endpoint.url, threadId, 'ask and deploy');
    const interrupts = interruptsOf(await runFrontEnd(agent));
    const question = byReason(interrupts, 'input_required');
    const approval = byReason(interrupts, 'tool_call');
    const opened = structuredClone(agent.messages);

    const badLabel = await runFrontEnd(otherTab(endpoint.url, threadId, opened), [
      {
        interruptId: question.id,
        status: 'resolved',
        payload: { answers: [{ id: 'color', selected: ['Purple'] }] },
      },
      { interruptId: approval.id, status: 'resolved', payload: { type: 'approve' } },
    ]);
    assert.equal(badLabel.error?.code, 'INVALID_RESUME');
    assert.match(
      badLabel.error?.message ?? '',
      /^resume\[0\]\.payload: answers\[0\]\.selected: "Purple" is not an option of question "color" \(rule unknown-label\)/,
    );

    // A valid answer beside a refused decision: neither is recorded.
    const badDecision = await runFrontEnd(otherTab(endpoint.url, threadId, opened), [
      { interruptId: question.id, status: 'resolved', payload: GREEN },
      {
        interruptId: approval.id,
        status: 'resolved',
        payload: { type: 'edit', input: { service: 'api', version: 'latest' } },
      },
    ]);
    assert.equal(badDecision.error?.code, 'INVALID_RESUME');
    assert.match(
      badDecision.error?.message ?? '',
      /^resume\[1\]\.payload: input\.version: .*\(rule edited-input\); nothing was recorded$/,
    );

    const partial = await runFrontEnd(otherTab(endpoint.url, threadId, opened), [
      { interruptId: question.id, status: 'resolved', payload: GREEN },
    ]);
    assert.equal(partial.error?.code, 'INTERRUPTS_NOT_RESUMED');
    assert.match(partial.error?.message ?? '', new RegExp(`missing ${approval.id}`));

    const chatter = otherTab(endpoint.url, threadId, opened);
    chatter.addMessage({ id: randomUUID(), role: 'user', content: 'never mind, just deploy' });
    const newInput = await runFrontEnd(chatter);
    assert.equal(newInput.error?.code, 'INTERRUPTS_OPEN');
    assert.match(newInput.error?.message ?? '', /new input while 2 interrupt\(s\) are open/);

    for (const interrupt of [question, approval]) assertUntouched(await recordOf(interrupt), 'pending');
    assert.deepEqual(
      deployRuns.filter((run) => run.toolCallId === approval.toolCallId),
      [],
    );

    // The thread goes on once every interrupt is resumed with what its rules take.
    const resumed = await runFrontEnd(agent, [
      { interruptId: question.id, status: 'resolved', payload: GREEN },
      { interruptId: approval.id, status: 'cancelled' },
    ]);
    assert.equal(finished(resumed).outcome?.type, 'success');
    // Cancelling an approval declines it, which rejects the call: the tool does not run, the model reads why.
    const rejected = await recordOf(approval);
    assert.equal(rejected.decision?.type, 'reject');
    assert.equal(
      resultsOf(resumed)[approval.toolCallId!],
      `The user rejected this call of deploy: cancelled in AG-UI thread ${threadId}`,
    );
    assert.deepEqual(
      deployRuns.filter((run) => run.toolCallId === approval.toolCallId),
      [],
    );
    assert.equal(resultsOf(resumed)[question.toolCallId!], serializeAnswer(GREEN));
  });

  test('with no worker, a resume is recorded for one and the run pauses again on the same interrupt; once a worker runs, the thread goes on', async () => {
    const taskQueue = `${TASK_QUEUE}-later`;
    const later = await serve(3_600_000, taskQueue);
    let lateWorker: RunningWorkers | undefined;
    try {
      const threadId = `thread-${randomUUID()}`;
      const agent = frontEnd(later.url, threadId, 'ask');
      const [question] = interruptsOf(await runFrontEnd(agent));
      assert.ok(question !== undefined);
      const resume = [{ interruptId: question.id, status: 'resolved' as const, payload: GREEN }];
      const waiting = await runFrontEnd(agent, resume);
      assert.deepEqual(
        interruptsOf(waiting).map((interrupt) => interrupt.id),
        [question.id],
      );
      const held = await recordOf(question);
      assert.equal(held.status, 'pending');
      assert.equal(held.unvalidatedAnswers?.length, 1);

      lateWorker = await startAskUserWorker(stack.server.address, taskQueue);
      await waitFor('the answer taken by the worker', async () =>
        (await recordOf(question)).status === 'answered' ? true : undefined,
      );
      const resumed = await runFrontEnd(agent, resume);
      assert.equal(finished(resumed).outcome?.type, 'success');
      assert.deepEqual(resultsOf(resumed), { [question.toolCallId!]: serializeAnswer(GREEN) });
      const record = await recordOf(question);
      assert.deepEqual(record.answer, GREEN);
      assert.equal(record.answeredBy, 'ag-ui');
      assert.deepEqual(record.rejectedAnswers, []);
    } finally {
      await later.close();
      await lateWorker?.stop();
    }
  });

  test('a resume after the deadline is a RUN_ERROR saying it expired, with nothing recorded; cancelled, the thread goes on', async () => {
    const threadId = `thread-${randomUUID()}`;
    const agent = frontEnd(shortEndpoint.url, threadId, 'ask');
    const [question] = interruptsOf(await runFrontEnd(agent));
    assert.ok(question?.expiresAt !== undefined);
    await waitFor('the question to expire', async () =>
      (await recordOf(question)).status === 'expired' ? true : undefined,
    );

    // HttpAgent itself refuses to send it; a front end that does is refused by the endpoint.
    await assert.rejects(
      agent.runAgent({ resume: [{ interruptId: question.id, status: 'resolved', payload: GREEN }] }),
      /expired/,
    );
    const late = await runFrontEnd(otherTab(shortEndpoint.url, threadId, agent.messages), [
      { interruptId: question.id, status: 'resolved', payload: GREEN },
    ]);
    assert.equal(late.error?.code, 'INTERRUPT_EXPIRED');
    assert.match(
      late.error?.message ?? '',
      new RegExp(`^resume\\[0\\]: interrupt ${question.id} expired at .*; nothing was recorded`),
    );
    assertUntouched(await recordOf(question), 'expired');

    const cancelled = await runFrontEnd(agent, [{ interruptId: question.id, status: 'cancelled' }]);
    assert.equal(finished(cancelled).outcome?.type, 'success');
    assert.match(resultsOf(cancelled)[question.toolCallId!] ?? '', /^Error: .*expired/i);
  });
});
