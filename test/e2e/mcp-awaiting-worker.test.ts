/**
 * Answers given over MCP while no worker runs the question's task queue: recorded for a worker to validate, and
 * said so. Against a dev server process with no worker on the queue (until one is started): the ops tool
 * `answer_question` says recorded-and-waiting, not answered; a task answered in the client's form through
 * `tasks/update` (`ask-user mcp --http`, the v2 SDK's task session) stays `working` with a status that says its
 * answer waits for a worker, shows no second form, and completes with that answer once a worker runs.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';

import { callOpsTool } from '../../src/mcp/mcp-ops-tools';
import { TemporalUserInteraction } from '../../src/provider';
import { questionWorkflowId } from '../../src/question/workflow-id';
import { DEPLOY_ARGS as ARGS, YES_TEXT, startMcpStack, type McpStack } from '../helpers/mcp-fixture';
import { asTaskId, connectTaskClient, type TaskClient } from '../helpers/mcp-task-client';
import type { DevServerWithClient } from '../helpers/temporal';
import { eventually, waitFor } from '../helpers/wait';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

let mcp: McpStack;
let stack: DevServerWithClient;
const clients = new Set<TaskClient>();

before(async () => {
  // No worker on the task queue until a test starts one.
  mcp = await startMcpStack('mcp-awaiting-worker', { worker: false });
  stack = mcp.dev;
});

after(async () => {
  try {
    await Promise.allSettled([...clients].map((client) => client.close()));
  } finally {
    await mcp?.stop();
  }
});

/** Waits until the server holds the question's workflow, running: what no worker is needed for. */
async function untilRunning(workflowId: string): Promise<void> {
  await eventually(`${workflowId} to be running`, async () =>
    (await stack.client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING'
      ? true
      : undefined,
  );
}

describe('MCP answers while no worker runs', () => {
  test('answer_question says the answer is recorded and waits for a worker, and the question stays pending', async () => {
    const provider = new TemporalUserInteraction({ client: stack.client, taskQueue: mcp.taskQueue });
    try {
      const agent = { id: 'ops-tool-agent' };
      const toolCallId = `call-${randomUUID()}`;
      const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
      provider.ask({ ...ARGS, agent, toolCallId }).catch(() => undefined);
      await untilRunning(workflowId);
      const result = await callOpsTool(
        'answer_question',
        stack.questions,
        { id: workflowId, answers: [{ id: 'deploy', selected: ['No'] }], answered_by: 'dana' },
        'mcp:ops',
      );
      assert.equal(result?.isError, undefined, JSON.stringify(result));
      const text = (result?.content[0] as { text: string }).text;
      const answerId = new RegExp(
        `^Recorded an answer to ${workflowId} as dana \\(answer (${UUID})\\); no worker took it, so it waits for a worker on task queue ${mcp.taskQueue} to validate it\\. The question stays pending until then; a refusal is listed in its record's rejectedAnswers\\.$`,
      ).exec(text)?.[1];
      assert.ok(answerId !== undefined, text);
      const record = await stack.questions.get(workflowId);
      assert.equal(record.status, 'pending');
      assert.deepEqual(
        record.unvalidatedAnswers?.map((waiting) => [waiting.answerId, waiting.answeredBy]),
        [[answerId, 'dana']],
      );
      await stack.client.workflow.getHandle(workflowId).terminate('test cleanup');
    } finally {
      await provider.close();
    }
  });

  test("a task answered in the client's form stays working, saying its answer waits for a worker, and completes once one runs", async () => {
    const { url } = await mcp.startHttpServer();
    const forms: (string | undefined)[] = [];
    const client = await connectTaskClient(url, {
      name: 'form-client',
      forms: (_params, inputId) => {
        forms.push(inputId);
        return { action: 'accept', content: { deploy: 'Yes (Recommended)' } };
      },
    });
    clients.add(client);

    const execution = await client.session.callTool('ask_user_question', ARGS);
    assert.ok(execution.kind === 'task');
    const taskId: string = execution.handle.taskId;
    // Settling polls the task, shows its forms and sends the reply as tasks/update; it ends once the task does.
    const settled = execution.settle();
    settled.catch(() => undefined);
    const task = client.session.task(asTaskId(taskId));
    const waiting = await waitFor(`${taskId} to say its answer waits for a worker`, async () => {
      const view = await task.snapshot();
      return view.statusMessage?.includes('waits for a worker') === true ? view : undefined;
    });
    assert.equal(waiting.status, 'working');
    const answerId = new RegExp(
      `^Your answer \\(answer (mcp-form-0-${UUID})\\) is recorded and waits for a worker on task queue ${mcp.taskQueue} to validate it\\.$`,
    ).exec(waiting.statusMessage ?? '')?.[1];
    assert.ok(answerId !== undefined, waiting.statusMessage);
    const record = await stack.questions.get(taskId);
    assert.equal(record.status, 'pending');
    assert.deepEqual(
      record.unvalidatedAnswers?.map((answer) => [answer.answerId, answer.answeredBy]),
      [[answerId, 'mcp:form-client']],
    );
    // The session keeps polling (every second): the person is not asked again while the answer waits.
    await sleep(2_500);
    assert.deepEqual(forms, ['question-1']);
    assert.equal((await task.snapshot()).status, 'working');

    await mcp.startWorker();
    const { outcome } = (await settled) as {
      outcome: { status: string; result?: { content: { text: string }[] } };
    };
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    assert.equal(outcome.result?.content[0]?.text, YES_TEXT);
    assert.equal((await stack.questions.get(taskId)).answerId, answerId);
    assert.deepEqual(forms, ['question-1']);
  });
});
