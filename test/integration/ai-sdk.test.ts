/**
 * `durable-ask-user/ai` in the Vercel AI SDK (`ai` 6): `generateText` with the SDK's own mock language model,
 * scripted to call `ask_user_question`. The question is durable (a dev server and an ask-user worker), a human
 * answers it in another process (`ask-user answer`), and the model's next step must receive exactly the answer
 * text. An abort through `generateText`'s `abortSignal` ends the question's workflow Canceled.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';

import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { generateText, stepCountIs, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';

import { askUserQuestionAiTool } from '../../src/ai';
import { InMemoryUserInteraction } from '../../src/interaction';
import { TemporalUserInteraction } from '../../src/provider';
import { ASK_USER_QUESTION_DESCRIPTION, askUserQuestionJsonSchema } from '../../src/tool';
import { PROJECT_ROOT, killChildren, startChild } from '../fixtures/child-process';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

const TASK_QUEUE = `ai-sdk-${process.pid}`;
const AGENT_ID = 'ai-sdk-agent';

const ARGS = {
  questions: [
    {
      id: 'deploy',
      question: 'Deploy build 1.4.2 to production now?',
      options: [{ label: 'Yes (Recommended)' }, { label: 'No' }],
    },
  ],
};
const ANSWER_TEXT = '{"answers":[{"id":"deploy","selected":["Yes (Recommended)"]}]}';

const USAGE: LanguageModelV3GenerateResult['usage'] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A model that calls `ask_user_question` with `input`, then ends with `Done.` once it has the result. */
function scriptedModel(toolCallId: string, input: unknown): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: [
      {
        content: [
          { type: 'tool-call', toolCallId, toolName: 'ask_user_question', input: JSON.stringify(input) },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: USAGE,
        warnings: [],
      },
      {
        content: [{ type: 'text', text: 'Done.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: USAGE,
        warnings: [],
      },
    ],
  });
}

/** `value` as JSON carries it: keys the SDK leaves `undefined` (`providerOptions`) dropped. */
function asJson(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** What the model's second step received as the tool's result. */
function toolResultSentBack(model: MockLanguageModelV3): unknown {
  const prompt = model.doGenerateCalls[1]?.prompt ?? [];
  return asJson(prompt.filter((message) => message.role === 'tool').flatMap((message) => message.content));
}

let stack: DevServerWithClient;
let worker: RunningWorkers;
let connection: Connection;
let userInteraction: TemporalUserInteraction;

before(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  stack = await startDevServerWithClient('ai-sdk');
  worker = await startAskUserWorker(stack.server.address, TASK_QUEUE);
  connection = await Connection.connect({ address: stack.server.address });
  userInteraction = new TemporalUserInteraction({
    client: new Client({ connection, namespace: 'default' }),
    taskQueue: TASK_QUEUE,
  });
});

after(async () => {
  try {
    await killChildren();
    await userInteraction?.close();
    await connection?.close();
  } finally {
    await worker?.stop();
    await stack?.stop();
  }
});

/** The workflow id of the pending question of `toolCallId`, once the worker has it. */
async function questionFor(toolCallId: string): Promise<string> {
  const workflowId = await waitFor(`a pending question for tool call ${toolCallId}`, async () => {
    const pending = await stack.questions.list('pending');
    return pending.find((summary) => summary.agentId === AGENT_ID && summary.toolCallId === toolCallId)
      ?.workflowId;
  });
  await waitForPendingRecord(stack.client, workflowId);
  return workflowId;
}

describe('askUserQuestionAiTool with generateText', () => {
  test('the model calls the tool, a human answers in another process, the next step receives the exact text', async () => {
    const toolCallId = `call-ai-answered-${process.pid}`;
    const model = scriptedModel(toolCallId, ARGS);
    const tools = { ask_user_question: askUserQuestionAiTool(userInteraction, { agent: { id: AGENT_ID } }) };
    const run = generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'Ship build 1.4.2.' });

    const workflowId = await questionFor(toolCallId);
    const answer = startChild(
      process.execPath,
      ['./bin/ask-user.js', 'answer', workflowId, '--select', 'deploy=Yes (Recommended)', '--as', 'alice'],
      {
        TEMPORAL_ADDRESS: stack.server.address,
        TEMPORAL_NAMESPACE: 'default',
        ASK_USER_TASK_QUEUE: TASK_QUEUE,
      },
    );
    assert.deepEqual(await answer.waitForExit(), { code: 0, signal: null }, answer.stderr());

    const result = await run;
    assert.equal(result.text, 'Done.');
    assert.deepEqual(toolResultSentBack(model), [
      {
        type: 'tool-result',
        toolCallId,
        toolName: 'ask_user_question',
        output: { type: 'text', value: ANSWER_TEXT },
      },
    ]);
    // The model was offered the tool's own description and JSON Schema, unchanged.
    assert.deepEqual(asJson(model.doGenerateCalls[0]?.tools), [
      {
        type: 'function',
        name: 'ask_user_question',
        description: ASK_USER_QUESTION_DESCRIPTION,
        inputSchema: askUserQuestionJsonSchema,
      },
    ]);
    assert.equal((await stack.questions.get(workflowId)).answeredBy, 'alice');
  });

  test('an abort through the SDK withdraws the question: the workflow ends Canceled', async () => {
    const toolCallId = `call-ai-aborted-${process.pid}`;
    const model = scriptedModel(toolCallId, ARGS);
    const controller = new AbortController();
    const tools = { ask_user_question: askUserQuestionAiTool(userInteraction, { agent: { id: AGENT_ID } }) };
    const run = generateText({
      model,
      tools,
      stopWhen: stepCountIs(3),
      prompt: 'Ship build 1.4.2.',
      abortSignal: controller.signal,
    });
    const workflowId = await questionFor(toolCallId);

    controller.abort();
    await assert.rejects(run, { name: 'AbortError' });
    await waitFor(`${workflowId} to be cancelled`, async () => {
      const { status } = await stack.client.workflow.getHandle(workflowId).describe();
      return status.name === 'CANCELLED' ? true : undefined;
    });
    assert.equal((await stack.questions.get(workflowId)).status, 'cancelled');
  });

  test('arguments the tool refuses reach the model as the contract error text, not as a thrown error', async () => {
    const provider = new InMemoryUserInteraction();
    const model = scriptedModel('call-ai-invalid', {
      questions: [{ id: 'deploy', options: [{ label: 'Yes' }, { label: 'Yes' }] }],
    });
    const tools: ToolSet = { ask_user_question: askUserQuestionAiTool(provider) };
    const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'Ship it.' });

    assert.equal(result.text, 'Done.');
    assert.deepEqual(toolResultSentBack(model), [
      {
        type: 'tool-result',
        toolCallId: 'call-ai-invalid',
        toolName: 'ask_user_question',
        output: {
          type: 'text',
          value:
            'Error: invalid arguments: questions[0].question: is required; questions[0].options[1].label: duplicate label "Yes"',
        },
      },
    ]);
    assert.deepEqual(provider.pending(), []);
  });
});

test('durable-ask-user/ai loads no @temporalio/*, no gRPC module, and `ai` only once its tool is made', () => {
  const script = `
    const sep = require('node:path').sep;
    const loaded = (name) =>
      Object.keys(require.cache).filter((file) => file.includes(sep + 'node_modules' + sep + name + sep)).length;
    const entry = require('./src/ai.ts');
    const before = [loaded('@temporalio') + loaded('@grpc'), loaded('ai')];
    entry.askUserQuestionAiTool({ ask: async () => ({ answers: [] }) });
    console.log(JSON.stringify([...before, loaded('ai') > 0]));
  `;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  }).trim();
  assert.equal(output, '[0,0,true]');
});
