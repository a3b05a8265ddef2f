/**
 * Durable approvals in the Vercel AI SDK (`ai` 6), against a real dev server: `generateText` with the SDK's
 * own mock language model calls a `deploy` tool, a human decides from the ops side (`QuestionClient.decide`),
 * and the model's next step must receive exactly what the decision says.
 *
 * - `durableApprovalAiTool`: the tool waits inside `execute`; approve runs it once with the original input,
 *   edit with the edited input (parsed by the tool's Zod schema, refused at decision time against its JSON
 *   Schema), reject and respond put their text in the model's next prompt as the tool's result, a call that
 *   the tool's own `needsApproval` lets through asks nobody, the SDK's `abortSignal` withdraws the
 *   approval, a streaming tool keeps its own `toModelOutput` for its results, and a reject with `stop` ends
 *   the loop at that step through `approvalStopped` in `stopWhen`.
 * - `resolveAiToolApprovals`, over the SDK's own stop-and-resume flow: the step stops with a
 *   `tool-approval-request`, the decision comes back as the `tool-approval-response` message the next call
 *   resumes from, the same saved messages in a restarted process get the same answers at once, and a reject
 *   with `stop` throws `RUN_STOPPED` instead of answering, so the loop ends.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';

import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';

import type { QuestionClient } from '../../src/ops';
import { QuestionOperationError, TemporalUserInteraction, questionWorkflowId } from '../../src';
import { approvalStopped, durableApprovalAiTool, resolveAiToolApprovals } from '../../src/ai';
import type { DecideInput } from '../../src/types';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { waitFor } from '../helpers/wait';
import { startProviderStack, type ProviderStack } from '../helpers/provider-stack';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = 'ai-sdk-approvals';
const AGENT = { id: 'ai-sdk-approval-agent' };
const ORIGINAL = { service: 'api', version: '1.4.2' };

const USAGE: LanguageModelV3GenerateResult['usage'] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

const deploySchema = z.object({
  service: z.string().min(1),
  version: z.string().regex(/^\d+\.\d+\.\d+$/),
  replicas: z.number().int().min(1).max(10).default(1),
});
type DeployInput = z.infer<typeof deploySchema>;

/** A deploy tool of the SDK that records every run; its own `needsApproval` lets `docs` through. */
function deployTool(): {
  runs: DeployInput[];
  tool: ReturnType<typeof tool<DeployInput, string>>;
} {
  const runs: DeployInput[] = [];
  return {
    runs,
    tool: tool({
      description: 'Deploy a service at a version',
      inputSchema: deploySchema,
      needsApproval: (input) => input.service !== 'docs',
      execute: async (input) => {
        runs.push(input);
        return `deployed ${input.service} ${input.version} x${input.replicas}`;
      },
    }),
  };
}

/** A model that calls `deploy` with `input` once, then ends with `Done.` once it has a result. */
function scriptedModel(toolCallId: string, input: unknown): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId, toolName: 'deploy', input: JSON.stringify(input) }],
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

/** The tool messages' content that the model's second call received. */
function toolResultSentBack(model: MockLanguageModelV3): unknown {
  const prompt = model.doGenerateCalls[1]?.prompt ?? [];
  return asJson(prompt.filter((message) => message.role === 'tool').flatMap((message) => message.content));
}

/** What the model's second call received for `toolCallId`: one tool result with `output`. */
function resultOf(toolCallId: string, output: unknown): unknown {
  return [{ type: 'tool-result', toolCallId, toolName: 'deploy', output }];
}

/** The workflow id of this file's agent's tool call. */
function approvalId(toolCallId: string): string {
  return questionWorkflowId({ agent: AGENT, toolCallId }, randomUUID);
}

describe('durable approvals in the AI SDK (ai 6)', () => {
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

  describe('durableApprovalAiTool: the tool waits for the decision inside execute', () => {
    /** Runs `generateText` on a fresh call of `deploy` with `input`, decides it with `decision` once pending. */
    async function decideCall(
      decision: DecideInput,
      input: unknown = ORIGINAL,
    ): Promise<{
      text: string;
      sentBack: unknown;
      runs: DeployInput[];
      toolCallId: string;
      workflowId: string;
    }> {
      const { runs, tool: deploy } = deployTool();
      const toolCallId = `call-${randomUUID()}`;
      const model = scriptedModel(toolCallId, input);
      const tools = {
        deploy: durableApprovalAiTool(deploy, {
          userInteraction: provider,
          toolName: 'deploy',
          agent: AGENT,
          description: (call) => `Deploy ${call.service} ${call.version}`,
        }),
      };
      const run = generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'Deploy api 1.4.2.' });
      const workflowId = approvalId(toolCallId);
      await waitForPendingRecord(client, workflowId);
      assert.equal(runs.length, 0, 'the tool waits for the decision');
      await questions.decide(workflowId, decision);
      const result = await run;
      return { text: result.text, sentBack: toolResultSentBack(model), runs, toolCallId, workflowId };
    }

    test('approve runs the tool once with the original input; the model reads its result', async () => {
      const { text, sentBack, runs, toolCallId, workflowId } = await decideCall({
        type: 'approve',
        decidedBy: 'alice',
      });
      assert.deepEqual(runs, [{ service: 'api', version: '1.4.2', replicas: 1 }]);
      assert.deepEqual(sentBack, resultOf(toolCallId, { type: 'text', value: 'deployed api 1.4.2 x1' }));
      assert.equal(text, 'Done.');
      const record = await questions.get(workflowId);
      assert.equal(record.status, 'answered');
      assert.equal(record.approval?.toolName, 'deploy');
      assert.equal(record.toolCallId, toolCallId);
      assert.equal(record.approval?.description, 'Deploy api 1.4.2');
      assert.deepEqual(record.approval?.input, { service: 'api', version: '1.4.2', replicas: 1 });
      assert.equal(record.decision?.decidedBy, 'alice');
    });

    test('edit runs the tool once with the edited input, parsed by the Zod schema (its default applies)', async () => {
      const { sentBack, runs, toolCallId, workflowId } = await decideCall({
        type: 'edit',
        input: { service: 'api', version: '1.4.3' },
        decidedBy: 'bob',
      });
      assert.deepEqual(runs, [{ service: 'api', version: '1.4.3', replicas: 1 }]);
      assert.deepEqual(sentBack, resultOf(toolCallId, { type: 'text', value: 'deployed api 1.4.3 x1' }));
      const record = await questions.get(workflowId);
      assert.deepEqual(record.decision?.type === 'edit' ? record.decision.input : undefined, {
        service: 'api',
        version: '1.4.3',
      });
    });

    test("an edit outside the tool's schema is refused when decided, naming the path; the tool waits on", async () => {
      const { runs, tool: deploy } = deployTool();
      const toolCallId = `call-${randomUUID()}`;
      const model = scriptedModel(toolCallId, ORIGINAL);
      const tools = {
        deploy: durableApprovalAiTool(deploy, {
          userInteraction: provider,
          toolName: 'deploy',
          agent: AGENT,
        }),
      };
      const run = generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'Deploy api 1.4.2.' });
      const workflowId = approvalId(toolCallId);
      await waitForPendingRecord(client, workflowId);
      await assert.rejects(
        questions.decide(workflowId, {
          type: 'edit',
          input: { service: 'api', version: '1.4.2', replicas: 50 },
        }),
        (error: unknown) => {
          assert.ok(QuestionOperationError.isInstance(error), inspect(error));
          assert.equal(error.message, 'invalid decision: input.replicas: 50 is greater than 10');
          return true;
        },
      );
      assert.equal((await waitForPendingRecord(client, workflowId)).decision, undefined);
      await questions.decide(workflowId, { type: 'approve' });
      await run;
      assert.deepEqual(runs, [{ service: 'api', version: '1.4.2', replicas: 1 }]);
      assert.deepEqual(
        toolResultSentBack(model),
        resultOf(toolCallId, { type: 'text', value: 'deployed api 1.4.2 x1' }),
      );
    });

    test("reject never runs the tool; the model's next prompt has the rejection with its reason", async () => {
      const { sentBack, runs, toolCallId } = await decideCall({
        type: 'reject',
        reason: 'freeze until Monday',
        decidedBy: 'carol',
      });
      assert.deepEqual(runs, []);
      assert.deepEqual(
        sentBack,
        resultOf(toolCallId, {
          type: 'text',
          value: 'The user rejected this call of deploy: freeze until Monday',
        }),
      );
    });

    test('reject with stop ends the loop: approvalStopped in stopWhen stops it at that step, the model is not called again', async () => {
      const { runs, tool: deploy } = deployTool();
      const toolCallId = `call-${randomUUID()}`;
      const model = scriptedModel(toolCallId, ORIGINAL);
      const tools = {
        deploy: durableApprovalAiTool(deploy, {
          userInteraction: provider,
          toolName: 'deploy',
          agent: AGENT,
        }),
      };
      const run = generateText({
        model,
        tools,
        stopWhen: [stepCountIs(3), approvalStopped],
        prompt: 'Deploy api 1.4.2.',
      });
      const workflowId = approvalId(toolCallId);
      await waitForPendingRecord(client, workflowId);
      await questions.decide(workflowId, {
        type: 'reject',
        reason: 'incident',
        stop: true,
        decidedBy: 'carol',
      });
      const result = await run;
      assert.deepEqual(runs, []);
      assert.equal(model.doGenerateCalls.length, 1, 'the model is not called after the stop');
      assert.equal(result.steps.length, 1);
      const failures = result.steps[0]!.content.filter((part) => part.type === 'tool-error');
      assert.equal(failures.length, 1, inspect(result.steps[0]!.content));
      assert.deepEqual(
        {
          code: (failures[0]!.error as { code?: unknown }).code,
          message: (failures[0]!.error as Error).message,
        },
        {
          code: 'RUN_STOPPED',
          message: 'The user rejected this call of deploy: incident, and the run was stopped',
        },
      );
    });

    test("respond never runs the tool; the model's next prompt has the text as the tool's result", async () => {
      const { sentBack, runs, toolCallId } = await decideCall({
        type: 'respond',
        text: 'Deploy 1.4.1 instead; 1.4.2 is bad.',
      });
      assert.deepEqual(runs, []);
      assert.deepEqual(
        sentBack,
        resultOf(toolCallId, { type: 'text', value: 'Deploy 1.4.1 instead; 1.4.2 is bad.' }),
      );
    });

    test("a call the tool's own needsApproval lets through runs at once, and no approval is started", async () => {
      const { runs, tool: deploy } = deployTool();
      const toolCallId = `call-${randomUUID()}`;
      const model = scriptedModel(toolCallId, { service: 'docs', version: '2.0.0' });
      const tools = {
        deploy: durableApprovalAiTool(deploy, {
          userInteraction: provider,
          toolName: 'deploy',
          agent: AGENT,
        }),
      };
      const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'Deploy docs.' });
      assert.equal(result.text, 'Done.');
      assert.deepEqual(runs, [{ service: 'docs', version: '2.0.0', replicas: 1 }]);
      assert.deepEqual(
        toolResultSentBack(model),
        resultOf(toolCallId, { type: 'text', value: 'deployed docs 2.0.0 x1' }),
      );
      await assert.rejects(
        client.workflow.getHandle(approvalId(toolCallId)).describe(),
        (error: unknown) => error instanceof WorkflowNotFoundError,
      );
    });

    test("the SDK's abortSignal withdraws the approval: its workflow ends Canceled, the tool never runs", async () => {
      const { runs, tool: deploy } = deployTool();
      const toolCallId = `call-${randomUUID()}`;
      const model = scriptedModel(toolCallId, ORIGINAL);
      const tools = {
        deploy: durableApprovalAiTool(deploy, {
          userInteraction: provider,
          toolName: 'deploy',
          agent: AGENT,
        }),
      };
      const controller = new AbortController();
      const run = generateText({
        model,
        tools,
        stopWhen: stepCountIs(3),
        prompt: 'Deploy api 1.4.2.',
        abortSignal: controller.signal,
      });
      const workflowId = approvalId(toolCallId);
      await waitForPendingRecord(client, workflowId);
      controller.abort();
      await assert.rejects(run, (error: Error) => error.name === 'AbortError');
      await waitFor(`${workflowId} to end Canceled`, async () =>
        (await client.workflow.getHandle(workflowId).describe()).status.name === 'CANCELLED'
          ? true
          : undefined,
      );
      assert.equal((await questions.get(workflowId)).status, 'cancelled');
      assert.deepEqual(runs, []);
    });

    test('a streaming tool with its own toModelOutput: its results go through it, a rejection is text', async () => {
      const runs: DeployInput[] = [];
      const streaming = tool({
        inputSchema: deploySchema,
        execute: async function* (input: DeployInput) {
          runs.push(input);
          yield `deploying ${input.service}`;
          yield `deployed ${input.service} ${input.version}`;
        },
        toModelOutput: ({ output }) => ({ type: 'json', value: { status: output } }),
      });
      const tools = {
        deploy: durableApprovalAiTool(streaming, {
          userInteraction: provider,
          toolName: 'deploy',
          agent: AGENT,
        }),
      };
      const sentBack = async (decision: DecideInput): Promise<{ toolCallId: string; sent: unknown }> => {
        const toolCallId = `call-${randomUUID()}`;
        const model = scriptedModel(toolCallId, ORIGINAL);
        const run = generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'Deploy api 1.4.2.' });
        await waitForPendingRecord(client, approvalId(toolCallId));
        await questions.decide(approvalId(toolCallId), decision);
        await run;
        return { toolCallId, sent: toolResultSentBack(model) };
      };

      const approved = await sentBack({ type: 'approve' });
      assert.deepEqual(
        approved.sent,
        resultOf(approved.toolCallId, { type: 'json', value: { status: 'deployed api 1.4.2' } }),
      );
      const rejected = await sentBack({ type: 'reject', reason: 'not now' });
      assert.deepEqual(
        rejected.sent,
        resultOf(rejected.toolCallId, {
          type: 'text',
          value: 'The user rejected this call of deploy: not now',
        }),
      );
      assert.deepEqual(runs, [{ service: 'api', version: '1.4.2', replicas: 1 }]);
    });

    test('refuses a tool it cannot decide on, and a provider that takes no approvals', () => {
      const { tool: deploy } = deployTool();
      assert.throws(
        () => durableApprovalAiTool(deploy, { userInteraction: provider, toolName: '' }),
        /^UserInteractionError: durableApprovalAiTool option toolName: give the name the tool is registered under in tools$/,
      );
      const clientSide = tool({ inputSchema: deploySchema });
      assert.throws(
        () => durableApprovalAiTool(clientSide, { userInteraction: provider, toolName: 'deploy' }),
        {
          code: 'INVALID_OPTIONS',
          message:
            'durableApprovalAiTool option execute: deploy has none: a tool the caller runs is decided on where the caller runs it',
        },
      );
      const typed = tool({
        inputSchema: deploySchema,
        outputSchema: z.object({ url: z.string() }),
        execute: async () => ({ url: 'https://example.com' }),
      });
      assert.throws(() => durableApprovalAiTool(typed, { userInteraction: provider, toolName: 'deploy' }), {
        code: 'INVALID_OPTIONS',
        message:
          'durableApprovalAiTool option outputSchema: a rejected or answered call returns text, which is no output of that schema',
      });
      assert.throws(
        () =>
          durableApprovalAiTool(deploy, {
            userInteraction: { ask: async () => ({ answers: [] }) },
            toolName: 'deploy',
          }),
        {
          code: 'INVALID_OPTIONS',
          message:
            'durableApprovalAiTool option userInteraction: takes no approvals (it has no requestApproval method)',
        },
      );
    });
  });

  describe("resolveAiToolApprovals: the SDK's own stop-and-resume flow", () => {
    /**
     * Runs the SDK's flow on a fresh call: `generateText` stops with an approval request, the decision is
     * taken from the ops side, and the answers are what the second `generateText` resumes from.
     */
    async function resumeWith(decision: DecideInput): Promise<{
      answers: unknown;
      sentBack: unknown;
      text: string;
      runs: DeployInput[];
      toolCallId: string;
      approvalRequestId: string;
      saved: ModelMessage[];
    }> {
      const { runs, tool: deploy } = deployTool();
      const tools = { deploy };
      const toolCallId = `call-${randomUUID()}`;
      const model = scriptedModel(toolCallId, ORIGINAL);
      const messages: ModelMessage[] = [{ role: 'user', content: 'Deploy api 1.4.2.' }];
      const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
      const requests = first.content.filter((part) => part.type === 'tool-approval-request');
      assert.equal(requests.length, 1, inspect(first.content));
      assert.equal(requests[0]!.toolCall.toolCallId, toolCallId);
      messages.push(...first.response.messages);
      const saved = [...messages];

      const resolving = resolveAiToolApprovals(messages, { userInteraction: provider, agent: AGENT, tools });
      const workflowId = approvalId(toolCallId);
      await waitForPendingRecord(client, workflowId);
      await questions.decide(workflowId, decision);
      const answers = await resolving;
      messages.push(...answers);
      const second = await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
      return {
        answers: asJson(answers),
        sentBack: toolResultSentBack(model),
        text: second.text,
        runs,
        toolCallId,
        approvalRequestId: requests[0]!.approvalId,
        saved,
      };
    }

    test('approve answers approved: the SDK runs the tool once with the original input', async () => {
      const { answers, sentBack, text, runs, toolCallId, approvalRequestId } = await resumeWith({
        type: 'approve',
      });
      assert.deepEqual(answers, [
        {
          role: 'tool',
          content: [{ type: 'tool-approval-response', approvalId: approvalRequestId, approved: true }],
        },
      ]);
      assert.deepEqual(runs, [{ service: 'api', version: '1.4.2', replicas: 1 }]);
      assert.deepEqual(sentBack, resultOf(toolCallId, { type: 'text', value: 'deployed api 1.4.2 x1' }));
      assert.equal(text, 'Done.');
    });

    test('reject answers denied with the rejection text, which the model reads as the denial reason', async () => {
      const { answers, sentBack, runs, toolCallId, approvalRequestId } = await resumeWith({
        type: 'reject',
        reason: 'freeze until Monday',
      });
      const reason = 'The user rejected this call of deploy: freeze until Monday';
      assert.deepEqual(answers, [
        {
          role: 'tool',
          content: [
            { type: 'tool-approval-response', approvalId: approvalRequestId, approved: false, reason },
          ],
        },
      ]);
      assert.deepEqual(runs, []);
      assert.deepEqual(sentBack, resultOf(toolCallId, { type: 'execution-denied', reason }));
    });

    test('reject with stop: resolveAiToolApprovals throws RUN_STOPPED, so the loop ends without resuming', async () => {
      const { runs, tool: deploy } = deployTool();
      const tools = { deploy };
      const toolCallId = `call-${randomUUID()}`;
      const model = scriptedModel(toolCallId, ORIGINAL);
      const messages: ModelMessage[] = [{ role: 'user', content: 'Deploy api 1.4.2.' }];
      const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
      messages.push(...first.response.messages);
      const resolving = resolveAiToolApprovals(messages, { userInteraction: provider, agent: AGENT, tools });
      resolving.catch(() => undefined); // asserted below, once decided
      const workflowId = approvalId(toolCallId);
      await waitForPendingRecord(client, workflowId);
      await questions.decide(workflowId, { type: 'reject', reason: 'incident', stop: true });
      await assert.rejects(resolving, {
        code: 'RUN_STOPPED',
        message: 'The user rejected this call of deploy: incident, and the run was stopped',
      });
      assert.deepEqual(runs, []);
      assert.equal(model.doGenerateCalls.length, 1);
    });

    test("respond answers with the text as the tool's result; the SDK does not deny it again", async () => {
      const text = 'Deploy 1.4.1 instead; 1.4.2 is bad.';
      const { answers, sentBack, runs, toolCallId, approvalRequestId } = await resumeWith({
        type: 'respond',
        text,
      });
      assert.deepEqual(answers, [
        {
          role: 'tool',
          content: [
            { type: 'tool-approval-response', approvalId: approvalRequestId, approved: false, reason: text },
            { type: 'tool-result', toolCallId, toolName: 'deploy', output: { type: 'text', value: text } },
          ],
        },
      ]);
      assert.deepEqual(runs, []);
      assert.deepEqual(sentBack, resultOf(toolCallId, { type: 'text', value: text }));
    });

    test('edit cannot run through the SDK: denied, and the model reads the edited input to call with', async () => {
      const { sentBack, runs, toolCallId } = await resumeWith({
        type: 'edit',
        input: { service: 'api', version: '1.4.3', replicas: 2 },
      });
      assert.deepEqual(runs, []);
      assert.deepEqual(
        sentBack,
        resultOf(toolCallId, {
          type: 'execution-denied',
          reason:
            'The user did not run this call of deploy as asked, and edited its input instead. ' +
            'To run it, call deploy again with this input: {"service":"api","version":"1.4.3","replicas":2}',
        }),
      );
    });

    test('the saved messages in a restarted process get the same answers at once; answered ones wait for nothing', async () => {
      const { answers, saved } = await resumeWith({ type: 'reject', reason: 'not today' });
      const restarted = new TemporalUserInteraction({ client, taskQueue: TASK_QUEUE });
      try {
        const again = await resolveAiToolApprovals(saved, { userInteraction: restarted, agent: AGENT });
        assert.deepEqual(asJson(again), answers);
        const answered = [...saved, ...(answers as ModelMessage[])];
        assert.deepEqual(
          await resolveAiToolApprovals(answered, { userInteraction: restarted, agent: AGENT }),
          [],
        );
      } finally {
        await restarted.close();
      }
    });
  });
});
