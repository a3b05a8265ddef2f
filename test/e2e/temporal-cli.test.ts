/**
 * A question is readable and answerable with the stock Temporal CLI alone (`temporal workflow query`,
 * `describe`, `signal`, `update execute`), no package code on the answering side: what an ops team with only the CLI can do.
 * The agent asks in-process through the real tool and the durable provider; a real dev server and worker run it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import { inputSha256 } from '../../src/answer';
import { TemporalUserInteraction } from '../../src/provider';
import { createAskUserQuestionTool } from '../../src/tool';
import type { QuestionRecord } from '../../src/types';
import { waitForPendingRecord, waitUntilListedPending } from '../helpers/pending-questions';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { runTemporalCli } from '../helpers/temporal-cli';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

const TASK_QUEUE = `temporal-cli-${process.pid}`;

let stack: DevServerWithClient;
let worker: RunningWorkers;

before(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  stack = await startDevServerWithClient('temporal-cli');
  worker = await startAskUserWorker(stack.server.address, TASK_QUEUE);
});

after(async () => {
  await worker?.stop();
  await stack?.stop();
});

/** Runs the stock `temporal` binary against the test server; resolves with its stdout, rejects on exit ≠ 0. */
async function temporal(...args: string[]): Promise<string> {
  return await runTemporalCli(args, { address: stack.server.address });
}

/** `temporal workflow query --name getQuestion --output json`: the question's record as the CLI reads it. */
async function queryQuestion(workflowId: string): Promise<QuestionRecord> {
  const output = await temporal(
    'workflow',
    'query',
    '--workflow-id',
    workflowId,
    '--name',
    'getQuestion',
    '-o',
    'json',
  );
  return (JSON.parse(output) as { queryResult: [QuestionRecord] }).queryResult[0];
}

/** `temporal workflow signal --name answer --input '<json>'`. */
async function signalAnswer(workflowId: string, input: unknown): Promise<void> {
  await temporal(
    'workflow',
    'signal',
    '--workflow-id',
    workflowId,
    '--name',
    'answer',
    '--input',
    JSON.stringify(input),
  );
}

test('temporal workflow query, describe and signal: read and answer a question with the stock CLI', async () => {
  const tool = createAskUserQuestionTool({
    userInteraction: new TemporalUserInteraction({ client: stack.client, taskQueue: TASK_QUEUE }),
  });
  const workflowId = 'ask-user-question/ops-bot/call-cli-1';
  // Withdraws the question if an assertion fails first, so nothing waits on a closed connection afterwards.
  const turn = new AbortController();
  const asked = tool.execute(
    {
      questions: [
        {
          id: 'region',
          question: 'Which region gets the canary?',
          options: [{ label: 'eu-west-1 (Recommended)' }, { label: 'us-east-1' }],
        },
        { id: 'note', question: 'Anything the on-call should know?' },
      ],
    },
    { toolCallId: 'call-cli-1', agent: { id: 'ops-bot' }, signal: turn.signal },
  );
  asked.catch(() => undefined);
  try {
    await readAndAnswerWithCli(workflowId, asked);
  } finally {
    turn.abort();
    await asked.catch(() => undefined);
  }
});

/** `temporal workflow update execute --name submitAnswer --input '<json>' -o json`: resolves with its stdout. */
async function updateSubmitAnswer(workflowId: string, input: unknown): Promise<string> {
  return await temporal(
    '-o',
    'json',
    'workflow',
    'update',
    'execute',
    '--workflow-id',
    workflowId,
    '--name',
    'submitAnswer',
    '--input',
    JSON.stringify(input),
  );
}

test('temporal workflow update execute --name submitAnswer: the validator refuses a bad answer, a good one is recorded', async () => {
  const tool = createAskUserQuestionTool({
    userInteraction: new TemporalUserInteraction({ client: stack.client, taskQueue: TASK_QUEUE }),
  });
  const workflowId = 'ask-user-question/ops-bot/call-cli-update';
  const turn = new AbortController();
  const asked = tool.execute(
    {
      questions: [
        {
          id: 'q1',
          question: 'Roll out the schema migration now?',
          options: [{ label: 'Yes (Recommended)' }, { label: 'No' }],
        },
      ],
    },
    { toolCallId: 'call-cli-update', agent: { id: 'ops-bot' }, signal: turn.signal },
  );
  asked.catch(() => undefined);
  try {
    await waitForPendingRecord(stack.client, workflowId);

    // A label that was not offered: the update's validator refuses it, the CLI exits non-zero with the reason.
    const refused = await updateSubmitAnswer(workflowId, {
      answers: [{ id: 'q1', selected: ['Maybe'] }],
      answeredBy: 'oncall-cli',
    }).then(
      (stdout) => assert.fail(`the CLI accepted an invalid answer: ${stdout}`),
      (error: unknown) => error as { code?: unknown; stdout?: string; stderr?: string },
    );
    assert.equal(typeof refused.code, 'number');
    assert.notEqual(refused.code, 0);
    const refusedOutput = `${refused.stdout ?? ''}${refused.stderr ?? ''}`;
    assert.ok(
      refusedOutput.includes('answers[0].selected: "Maybe" is not an option of question "q1"'),
      refusedOutput,
    );

    // Nothing was recorded: the question is still pending, and a rejected update leaves no trace in history
    // (unlike a bad signal, which is kept in rejectedAnswers).
    assert.equal((await queryQuestion(workflowId)).status, 'pending');
    const stillPending = await stack.questions.get(workflowId);
    assert.equal(stillPending.status, 'pending');
    assert.equal(stillPending.answer, undefined);
    assert.deepEqual(stillPending.rejectedAnswers, []);

    // A valid answer through the same stock command is recorded, and the waiting tool call returns its text.
    const accepted = await updateSubmitAnswer(workflowId, {
      answers: [{ id: 'q1', selected: ['Yes (Recommended)'] }],
      answeredBy: 'oncall-cli',
    });
    // The update returns the recorded outcome, which the CLI prints.
    const { name, result } = JSON.parse(accepted) as {
      name: string;
      result: Pick<QuestionRecord, 'status' | 'answer' | 'answeredBy'>;
    };
    assert.equal(name, 'submitAnswer');
    assert.deepEqual(
      { status: result.status, answer: result.answer, answeredBy: result.answeredBy },
      {
        status: 'answered',
        answer: { answers: [{ id: 'q1', selected: ['Yes (Recommended)'] }] },
        answeredBy: 'oncall-cli',
      },
    );
    assert.equal(await asked, '{"answers":[{"id":"q1","selected":["Yes (Recommended)"]}]}');

    const record = await stack.questions.get(workflowId);
    assert.equal(record.status, 'answered');
    assert.equal(record.answeredBy, 'oncall-cli');
    const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
    const updates = (history.events ?? []).flatMap((event) =>
      event.workflowExecutionUpdateAcceptedEventAttributes
        ? [event.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest?.input?.name]
        : [],
    );
    assert.deepEqual(updates, ['submitAnswer']);
  } finally {
    turn.abort();
    await asked.catch(() => undefined);
  }
});

async function readAndAnswerWithCli(workflowId: string, asked: Promise<string>): Promise<void> {
  await waitUntilListedPending(stack.questions, workflowId);

  // `describe` knows the workflow and shows it running.
  const described = await temporal('workflow', 'describe', '--workflow-id', workflowId, '--output', 'json');
  const description = JSON.parse(described) as {
    workflowExecutionInfo: { type: { name: string }; status: string; execution: { workflowId: string } };
  };
  assert.equal(description.workflowExecutionInfo.execution.workflowId, workflowId);
  assert.equal(description.workflowExecutionInfo.type.name, 'askUserQuestionWorkflow');
  assert.equal(description.workflowExecutionInfo.status, 'WORKFLOW_EXECUTION_STATUS_RUNNING');
  const describedText = await temporal('workflow', 'describe', '--workflow-id', workflowId);
  assert.match(describedText, /WorkflowId\s+ask-user-question\/ops-bot\/call-cli-1/);
  assert.match(describedText, /Type\s+askUserQuestionWorkflow/);
  // The summary set on the workflow is what the CLI and the Web UI list.
  assert.match(describedText, /StaticSummary\s+"Which region gets the canary\? \(\+1 more\)"/);

  // `query --name getQuestion` shows the questions and their options, and that the question is pending.
  const queried = await temporal('workflow', 'query', '--workflow-id', workflowId, '--name', 'getQuestion');
  assert.match(queried, /Which region gets the canary\?/);
  assert.match(queried, /eu-west-1 \(Recommended\)/);
  assert.match(queried, /Anything the on-call should know\?/);
  const pending = await queryQuestion(workflowId);
  assert.equal(pending.status, 'pending');
  assert.deepEqual(pending.agent, { id: 'ops-bot' });
  assert.equal(pending.toolCallId, 'call-cli-1');
  assert.deepEqual(
    pending.questions.map((question) => question.question),
    ['Which region gets the canary?', 'Anything the on-call should know?'],
  );

  // A signal cannot be refused to its sender: a label that was not offered is recorded and ignored.
  await signalAnswer(workflowId, {
    answers: [
      { id: 'region', selected: ['ap-south-1'] },
      { id: 'note', selected: [] },
    ],
  });
  const afterBadSignal = await queryQuestion(workflowId);
  assert.equal(afterBadSignal.status, 'pending');
  assert.deepEqual(
    afterBadSignal.rejectedAnswers.map((rejected) => rejected.reason),
    ['answers[0].selected: "ap-south-1" is not an option of question "region"'],
  );

  // The valid answer, by signal from the stock CLI: the waiting tool call returns its exact text.
  await signalAnswer(workflowId, {
    answers: [
      { id: 'region', selected: ['eu-west-1 (Recommended)'] },
      { id: 'note', selected: [], custom: 'Pager is on dave this week' },
    ],
    answeredBy: 'oncall-cli',
  });
  assert.equal(
    await asked,
    '{"answers":[{"id":"region","selected":["eu-west-1 (Recommended)"]},' +
      '{"id":"note","selected":[],"custom":"Pager is on dave this week"}]}',
  );

  // Afterwards the CLI shows it completed, and the record names who answered.
  const closed = JSON.parse(
    await temporal('workflow', 'describe', '--workflow-id', workflowId, '--output', 'json'),
  ) as typeof description;
  assert.equal(closed.workflowExecutionInfo.status, 'WORKFLOW_EXECUTION_STATUS_COMPLETED');
  const record = await stack.questions.get(workflowId);
  assert.equal(record.status, 'answered');
  assert.equal(record.answeredBy, 'oncall-cli');

  // The history shows both answers arrived as `answer` signals.
  const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
  const signals = (history.events ?? []).flatMap((event) =>
    event.workflowExecutionSignaledEventAttributes
      ? [event.workflowExecutionSignaledEventAttributes.signalName]
      : [],
  );
  assert.deepEqual(signals, ['answer', 'answer']);
}

test('temporal workflow update execute --name decide: an edit outside the schema is refused, an approval is recorded', async () => {
  const provider = new TemporalUserInteraction({ client: stack.client, taskQueue: TASK_QUEUE });
  const workflowId = 'ask-user-question/ops-bot/call-cli-decide';
  const turn = new AbortController();
  const decision = provider.requestApproval({
    toolName: 'rotate_keys',
    toolCallId: 'call-cli-decide',
    input: { service: 'billing', keys: 2 },
    inputSchema: {
      type: 'object',
      properties: { service: { type: 'string' }, keys: { type: 'integer', minimum: 1, maximum: 5 } },
    },
    agent: { id: 'ops-bot' },
    signal: turn.signal,
  });
  decision.catch(() => undefined);
  const decide = (input: unknown): Promise<string> =>
    temporal(
      '-o',
      'json',
      'workflow',
      'update',
      'execute',
      '--workflow-id',
      workflowId,
      '--name',
      'decide',
      '--input',
      JSON.stringify(input),
    );
  try {
    await waitForPendingRecord(stack.client, workflowId);
    // What the Web UI's details tell an operator to run.
    const description = await temporal('workflow', 'describe', '--workflow-id', workflowId, '-o', 'json');
    assert.ok(description.includes('--name decide --input'), description);

    /** The CLI's output for a decision the validator must refuse; fails the test if it was accepted. */
    const refusedOutput = async (input: unknown): Promise<string> => {
      const refused = await decide(input).then(
        (stdout) => assert.fail(`the CLI accepted ${JSON.stringify(input)}: ${stdout}`),
        (error: unknown) => error as { code?: unknown; stdout?: string; stderr?: string },
      );
      assert.notEqual(refused.code, 0);
      return `${refused.stdout ?? ''}${refused.stderr ?? ''}`;
    };
    const schema = await refusedOutput({ type: 'edit', input: { service: 'billing', keys: 9 } });
    assert.ok(schema.includes('input.keys: 9 is greater than 5'), schema);
    // Hostile payloads anyone with namespace access can send: a decision posing as the expiry policy, and an
    // edit carrying a field the decision rules do not know.
    const spoofed = await refusedOutput({ type: 'approve', decidedBy: 'policy:expired' });
    assert.ok(
      spoofed.includes(
        'decidedBy: names starting with "policy:" or "grant:" are kept for decisions a policy or a standing grant takes',
      ),
      spoofed,
    );
    const smuggled = await refusedOutput({ type: 'reject', reason: 'no', text: '<script>' });
    assert.ok(smuggled.includes('decision.text: not part of reject: only respond carries it'), smuggled);
    assert.equal((await queryQuestion(workflowId)).status, 'pending', 'nothing was recorded');

    const accepted = JSON.parse(await decide({ type: 'approve', decidedBy: 'oncall-cli' })) as {
      name: string;
      result: Pick<QuestionRecord, 'status' | 'decision'>;
    };
    assert.equal(accepted.name, 'decide');
    assert.equal(accepted.result.status, 'answered');
    const decided = await decision;
    assert.deepEqual(accepted.result.decision, decided);
    const asked = inputSha256({ service: 'billing', keys: 2 });
    assert.deepEqual(decided, {
      type: 'approve',
      decidedBy: 'oncall-cli',
      decidedAt: decided.decidedAt,
      requestedInputSha256: asked,
      inputSha256: asked,
    });
  } finally {
    turn.abort();
    await provider.close();
  }
});
