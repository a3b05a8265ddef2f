/**
 * Durable approvals for the OpenAI Agents SDK, with the SDK's real runner against a real dev server, a person
 * deciding through `QuestionClient.decide`, and a scripted model (the one stand-in) that calls the deploy tool,
 * then says word for word what each call returned, so each test asserts the exact text the model read.
 *
 * - `resolveInterruptions`: an interrupted run's calls become durable approvals keyed by the SDK's call ids;
 *   approve runs the tool once with the original input, reject gives the model the reason, respond its text,
 *   and edit (which the SDK cannot run) the edited input to call again with; a RunState saved as a string and
 *   restored in a new process resolves against the same approval; a reject with `stop` throws `RUN_STOPPED`.
 * - `withDurableApproval`: the tool waits inside its `execute`, so the run never interrupts; edit runs the
 *   edited input, respond and reject return their texts, the run's abort signal withdraws the approval, and
 *   calls the tool's `needsApproval` declines run at once; a reject with `stop` ends the run (`run()` rejects
 *   with the SDK's `ToolCallError`, its `error` the `RUN_STOPPED` failure).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';

import {
  Agent,
  RunState,
  Runner,
  Usage,
  tool,
  type AgentInputItem,
  type AgentOutputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from '@openai/agents';
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { z } from 'zod';

import type { QuestionClient } from '../../src/ops';
import {
  TemporalUserInteraction,
  QuestionOperationError,
  questionWorkflowId,
  type UserInteraction,
} from '../../src';
import { resolveInterruptions, withDurableApproval } from '../../src/openai-agents';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { eventually } from '../helpers/wait';
import { startProviderStack, type ProviderStack } from '../helpers/provider-stack';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = 'openai-agents-approvals';
const AGENT = { id: 'agents-sdk-bot' };

/** The deploy tool's arguments: a service at a version `x.y.z`, on 1–10 replicas. */
const deployParameters = z.object({
  service: z.string().min(1),
  version: z.string().regex(/^\d+\.\d+\.\d+$/),
  replicas: z.number().int().min(1).max(10).optional(),
});

type DeployInput = z.infer<typeof deployParameters>;

/** One call the scripted model makes. */
interface ScriptedCall {
  callId: string;
  input: DeployInput;
}

/** The text of a tool output item as the model receives it. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map(outputText).join('');
  const { text } = output as { text?: unknown };
  return typeof text === 'string' ? text : JSON.stringify(output);
}

/**
 * The stand-in for a model, implementing the SDK's `Model`: while its input holds no result of its calls it
 * makes them (all in one response, with the arguments a model writes for a strict tool), then it answers with
 * one line `<tool>: <output>` per result it received.
 * It keeps no state between requests, so a restored run in a new process gets the same answers.
 */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];

  constructor(private readonly calls: readonly ScriptedCall[]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const callIds = new Set(this.calls.map((call) => call.callId));
    const items: AgentInputItem[] = typeof request.input === 'string' ? [] : request.input;
    const results = items.flatMap((item) =>
      item.type === 'function_call_result' && callIds.has(item.callId)
        ? [`${item.name}: ${outputText(item.output)}`]
        : [],
    );
    const output: AgentOutputItem[] =
      results.length === 0
        ? this.calls.map((call) => ({
            type: 'function_call',
            callId: call.callId,
            name: 'deploy',
            // As a model in strict mode writes them: an optional argument left out is `null`.
            arguments: JSON.stringify({ replicas: null, ...call.input }),
            status: 'completed',
          }))
        : [
            {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: results.join('\n') }],
            },
          ];
    return { usage: new Usage(), output };
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error('the scripted model does not stream');
  }
}

/** Each test's own call ids: the dev server outlives a test, and an approval is keyed by its call id. */
function scriptedCalls(...inputs: DeployInput[]): ScriptedCall[] {
  return inputs.map((input) => ({ callId: `call-${randomUUID()}`, input }));
}

/** The workflow id of this file's agent's approval of a call. */
function approvalId(callId: string): string {
  return questionWorkflowId({ agent: AGENT, toolCallId: callId }, randomUUID);
}

/** What the deploy tool returns: what it deployed. */
function deployed(input: DeployInput): string {
  return `deployed ${input.service} ${input.version}${input.replicas === undefined ? '' : ` x${input.replicas}`}`;
}

describe('OpenAI Agents SDK approvals', () => {
  let stack: ProviderStack;
  let client: Client;
  let questions: QuestionClient;
  let provider: TemporalUserInteraction;
  // Tracing off: it would try to export every run to OpenAI.
  const runner = new Runner({ tracingDisabled: true });

  before(async () => {
    stack = await startProviderStack(TASK_QUEUE);
    ({ client, questions, provider } = stack);
  });

  after(async () => {
    await stack?.stop();
  });

  describe('resolveInterruptions', () => {
    /** An agent whose deploy tool interrupts the run for approval, and the runs of that tool. */
    function interruptingAgent(calls: readonly ScriptedCall[]): {
      agent: Agent;
      model: ScriptedModel;
      runs: DeployInput[];
    } {
      const runs: DeployInput[] = [];
      const model = new ScriptedModel(calls);
      const deploy = tool({
        name: 'deploy',
        description: 'Deploy a service at a version',
        parameters: deployParameters,
        needsApproval: true,
        execute: async (input) => {
          runs.push(input);
          return deployed(input);
        },
      });
      return {
        agent: new Agent({ name: 'ops', instructions: 'Deploy.', model, tools: [deploy] }),
        model,
        runs,
      };
    }

    test('approve runs the tool once with the original input, keyed by the call id', async () => {
      const calls = scriptedCalls({ service: 'api', version: '1.4.2' });
      const { agent, model, runs } = interruptingAgent(calls);
      const first = await runner.run(agent, 'Deploy api 1.4.2');
      assert.equal(first.interruptions.length, 1);
      assert.equal(runs.length, 0);

      const resolving = resolveInterruptions(first, {
        userInteraction: provider,
        agent: AGENT,
        description: (interruption, input) =>
          `${interruption.agent.name} wants to deploy ${(input as DeployInput).service}`,
      });
      const workflowId = approvalId(calls[0]!.callId);
      const record = await waitForPendingRecord(client, workflowId);
      assert.equal(record.toolCallId, calls[0]!.callId);
      assert.deepEqual(record.agent, AGENT);
      assert.equal(record.approval?.toolName, 'deploy');
      // The arguments as the model wrote them (the SDK's parsing drops the null before the tool runs).
      assert.deepEqual(record.approval?.input, { service: 'api', version: '1.4.2', replicas: null });
      assert.equal(record.approval?.description, 'ops wants to deploy api');
      // The schema the model was given: an edit is checked against it.
      assert.deepEqual(record.approval?.inputSchema, (agent.tools[0] as { parameters: unknown }).parameters);

      await questions.decide(workflowId, { type: 'approve', decidedBy: 'alice' });
      const state = await resolving;
      assert.equal(state, first.state, 'the same state, with the decision applied');
      const second = await runner.run(agent, state);
      assert.equal(second.finalOutput, 'deploy: deployed api 1.4.2');
      assert.deepEqual(second.interruptions, []);
      assert.deepEqual(runs, [{ service: 'api', version: '1.4.2' }]);
      assert.equal(model.requests.length, 2);
      const decided = await questions.get(workflowId);
      assert.equal(decided.decision?.type, 'approve');
      assert.equal(decided.decision?.decidedBy, 'alice');
    });

    test('reject with a reason: the tool does not run and the model reads the reason', async () => {
      const calls = scriptedCalls({ service: 'api', version: '1.4.2' });
      const { agent, runs } = interruptingAgent(calls);
      const first = await runner.run(agent, 'Deploy api 1.4.2');
      const resolving = resolveInterruptions(first, { userInteraction: provider, agent: AGENT });
      const workflowId = approvalId(calls[0]!.callId);
      await waitForPendingRecord(client, workflowId);
      await questions.decide(workflowId, {
        type: 'reject',
        reason: 'freeze until Monday',
        decidedBy: 'carol',
      });
      const second = await runner.run(agent, await resolving);
      assert.equal(second.finalOutput, 'deploy: The user rejected this call of deploy: freeze until Monday');
      assert.deepEqual(runs, []);
    });

    test('reject with stop: the decision is applied to the state, and RUN_STOPPED ends the run', async () => {
      const calls = scriptedCalls({ service: 'api', version: '1.4.2' });
      const { agent, model, runs } = interruptingAgent(calls);
      const first = await runner.run(agent, 'Deploy api 1.4.2');
      const resolving = resolveInterruptions(first, { userInteraction: provider, agent: AGENT });
      resolving.catch(() => undefined); // asserted below, once decided
      const workflowId = approvalId(calls[0]!.callId);
      await waitForPendingRecord(client, workflowId);
      await questions.decide(workflowId, { type: 'reject', reason: 'stop everything', stop: true });
      await assert.rejects(resolving, {
        code: 'RUN_STOPPED',
        message: 'The user rejected this call of deploy: stop everything, and the run was stopped',
      });
      // The run is not resumed: the tool never runs, and the model is asked nothing more.
      assert.deepEqual(runs, []);
      assert.equal(model.requests.length, 1);
    });

    test('calls of one turn wait at once; respond and edit reach the model as text, the tool never runs', async () => {
      const calls = scriptedCalls({ service: 'web', version: '1.4.2' }, { service: 'db', version: '1.0.0' });
      const { agent, runs } = interruptingAgent(calls);
      const first = await runner.run(agent, 'Deploy web and db');
      assert.equal(first.interruptions.length, 2);
      const resolving = resolveInterruptions(first, { userInteraction: provider, agent: AGENT });
      const [webId, dbId] = calls.map((call) => approvalId(call.callId)) as [string, string];
      // Both are pending before anyone decided: the waits run side by side, not one after the other.
      await Promise.all([waitForPendingRecord(client, webId), waitForPendingRecord(client, dbId)]);

      // An edit the schema the model was given refuses is refused when it is decided, naming the field.
      await assert.rejects(
        questions.decide(dbId, { type: 'edit', input: { service: 'db', version: 2, replicas: null } }),
        (error: unknown) => {
          assert.ok(QuestionOperationError.isInstance(error), inspect(error));
          assert.equal(error.code, 'BAD_ANSWER');
          assert.equal(
            error.message,
            'invalid decision: input.version: Instance type "number" is invalid. Expected "string"',
          );
          return true;
        },
      );
      await questions.decide(dbId, { type: 'edit', input: { service: 'db', version: '2.0.0', replicas: 4 } });
      await questions.decide(webId, { type: 'respond', text: 'Deploy 1.4.1 instead; 1.4.2 is bad.' });
      const second = await runner.run(agent, await resolving);
      assert.equal(
        second.finalOutput,
        [
          'deploy: Deploy 1.4.1 instead; 1.4.2 is bad.',
          'deploy: The user did not run this call of deploy as asked, and edited its input instead. ' +
            'To run it, call deploy again with this input: {"service":"db","version":"2.0.0","replicas":4}',
        ].join('\n'),
      );
      assert.deepEqual(runs, []);
      const record = await questions.get(dbId);
      assert.equal(record.decision?.type, 'edit');
      // Recorded, so that whoever decides is told the edit became a denial.
      assert.equal(record.approval?.onEdit, 'suggest');
    });

    test('a RunState restored from its string in a new process resolves against the same approval', async () => {
      const calls = scriptedCalls({ service: 'api', version: '1.4.2', replicas: 3 });
      const original = interruptingAgent(calls);
      const first = await runner.run(original.agent, 'Deploy api 1.4.2 on 3 replicas');
      const saved = first.state.toString();
      const workflowId = approvalId(calls[0]!.callId);

      // The first process starts waiting, then dies: its wait is left behind, and the person decides meanwhile.
      const leftBehind = resolveInterruptions(first, { userInteraction: provider, agent: AGENT });
      await waitForPendingRecord(client, workflowId);
      await questions.decide(workflowId, { type: 'approve', decidedBy: 'dave' });

      // A new process: its own provider, agent, tool and model, and the state read back from the string.
      const restarted = new TemporalUserInteraction({ client, taskQueue: TASK_QUEUE });
      try {
        const fresh = interruptingAgent(calls);
        const restored = await RunState.fromString(fresh.agent, saved);
        assert.equal(restored.getInterruptions().length, 1);
        const state = await resolveInterruptions(restored, { userInteraction: restarted, agent: AGENT });
        const second = await runner.run(fresh.agent, state);
        assert.equal(second.finalOutput, 'deploy: deployed api 1.4.2 x3');
        assert.deepEqual(fresh.runs, [{ service: 'api', version: '1.4.2', replicas: 3 }]);
        assert.deepEqual(original.runs, []);
      } finally {
        await restarted.close();
      }
      await leftBehind;
      const starts = [];
      for await (const info of client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
        starts.push(info);
      assert.equal(starts.length, 1, 'one approval, never a second one for the restored state');
      assert.equal((await questions.get(workflowId)).decision?.decidedBy, 'dave');
    });

    test('a provider that takes no approvals is refused before anything is sent', async () => {
      const calls = scriptedCalls({ service: 'api', version: '1.4.2' });
      const { agent } = interruptingAgent(calls);
      const first = await runner.run(agent, 'Deploy api 1.4.2');
      const questionsOnly: UserInteraction = { ask: async () => ({ answers: [] }) };
      await assert.rejects(resolveInterruptions(first, { userInteraction: questionsOnly }), {
        code: 'INVALID_OPTIONS',
        message:
          'resolveInterruptions option userInteraction: takes no approvals (it has no requestApproval method)',
      });
    });

    test('a failed approval throws at once and applies nothing; the other approvals stay pending', async () => {
      const calls = scriptedCalls({ service: 'api', version: '1.4.2' }, { service: 'db', version: '1.0.0' });
      const { agent, runs } = interruptingAgent(calls);
      const first = await runner.run(agent, 'Deploy api and db');
      // The db call's id already keys an approval of another call: reusing it is refused.
      const [apiId, dbId] = calls.map((call) => approvalId(call.callId)) as [string, string];
      const earlier = provider.requestApproval({
        toolName: 'deploy',
        toolCallId: calls[1]!.callId,
        input: { service: 'db', version: '0.9.0' },
        agent: AGENT,
      });
      await waitForPendingRecord(client, dbId);
      await assert.rejects(resolveInterruptions(first, { userInteraction: provider, agent: AGENT }), {
        code: 'ASK_CONFLICT',
        message: `the approval of deploy tool call ${calls[1]!.callId} was already used for different questions`,
      });
      assert.equal(first.state.getInterruptions().length, 2, 'no decision applied');
      assert.deepEqual(runs, []);
      // The api call's approval was asked and stays pending for a later call to re-attach to.
      assert.equal((await waitForPendingRecord(client, apiId)).approval?.toolName, 'deploy');
      await questions.decide(apiId, { type: 'reject' });
      await questions.decide(dbId, { type: 'reject' });
      assert.equal((await earlier).type, 'reject');
    });
  });

  describe('withDurableApproval', () => {
    /** An agent whose deploy tool waits for a durable decision in its `execute`, and the runs of that tool. */
    function waitingAgent(
      calls: readonly ScriptedCall[],
      needsApproval?: (input: DeployInput) => boolean,
    ): { agent: Agent; runs: DeployInput[]; model: ScriptedModel } {
      const runs: DeployInput[] = [];
      const deploy = tool(
        withDurableApproval(
          {
            name: 'deploy',
            description: 'Deploy a service at a version',
            parameters: deployParameters,
            needsApproval:
              needsApproval === undefined ? true : async (_context, input) => needsApproval(input),
            execute: async (input) => {
              runs.push(input);
              return deployed(input);
            },
          },
          {
            userInteraction: provider,
            agent: AGENT,
            description: (input) => `Deploy ${input.service} ${input.version}`,
          },
        ),
      );
      const model = new ScriptedModel(calls);
      return {
        agent: new Agent({ name: 'ops', instructions: 'Deploy.', model, tools: [deploy] }),
        runs,
        model,
      };
    }

    test('edit runs the tool once with the edited input, parsed by its schema; the run never interrupts', async () => {
      const calls = scriptedCalls({ service: 'api', version: '1.4.2' });
      const { agent, runs } = waitingAgent(calls);
      const running = runner.run(agent, 'Deploy api 1.4.2');
      // Keyed by the SDK's own call id, from the details `execute` gets.
      const workflowId = approvalId(calls[0]!.callId);
      const record = await waitForPendingRecord(client, workflowId);
      assert.equal(record.approval?.toolName, 'deploy');
      assert.deepEqual(record.approval?.input, { service: 'api', version: '1.4.2' });
      assert.equal(record.approval?.description, 'Deploy api 1.4.2');
      assert.deepEqual(record.approval?.inputSchema?.required, ['service', 'version']);

      await assert.rejects(
        questions.decide(workflowId, {
          type: 'edit',
          input: { service: 'api', version: '1.4.3', replicas: 50 },
        }),
        {
          code: 'BAD_ANSWER',
          message: 'invalid decision: input.replicas: 50 is greater than 10',
        },
      );
      const edited = { service: 'api', version: '1.4.3', replicas: 2 };
      await questions.decide(workflowId, { type: 'edit', input: edited, decidedBy: 'bob' });
      const result = await running;
      assert.deepEqual(result.interruptions, []);
      assert.equal(result.finalOutput, 'deploy: deployed api 1.4.3 x2');
      assert.deepEqual(runs, [edited]);
      const decided = await questions.get(workflowId);
      assert.deepEqual(decided.approval?.input, { service: 'api', version: '1.4.2' });
      assert.equal(decided.approval?.onEdit, undefined, 'an edit runs as decided');
      assert.deepEqual(decided.decision?.type === 'edit' ? decided.decision.input : undefined, edited);
    });

    test('respond and reject: the tool does not run, the model reads the text and the reason', async () => {
      const calls = scriptedCalls({ service: 'web', version: '1.4.2' }, { service: 'db', version: '1.0.0' });
      const { agent, runs } = waitingAgent(calls);
      const running = runner.run(agent, 'Deploy web and db');
      const [webId, dbId] = calls.map((call) => approvalId(call.callId)) as [string, string];
      await Promise.all([waitForPendingRecord(client, webId), waitForPendingRecord(client, dbId)]);
      await questions.decide(webId, { type: 'respond', text: 'web is already on 1.4.2' });
      await questions.decide(dbId, { type: 'reject', reason: 'db changes need a ticket' });
      const result = await running;
      assert.equal(
        result.finalOutput,
        'deploy: web is already on 1.4.2\ndeploy: The user rejected this call of deploy: db changes need a ticket',
      );
      assert.deepEqual(runs, []);
    });

    test('reject with stop ends the run: run() rejects with RUN_STOPPED, and the model is asked nothing more', async () => {
      const calls = scriptedCalls({ service: 'api', version: '1.4.2' });
      const { agent, runs, model } = waitingAgent(calls);
      const running = runner.run(agent, 'Deploy api 1.4.2');
      running.catch(() => undefined); // asserted below, once decided
      const workflowId = approvalId(calls[0]!.callId);
      await waitForPendingRecord(client, workflowId);
      await questions.decide(workflowId, {
        type: 'reject',
        reason: 'incident',
        stop: true,
        decidedBy: 'carol',
      });
      await assert.rejects(running, (error: unknown) => {
        // The SDK's ToolCallError, carrying the tool's failure.
        const { error: cause } = error as { error?: { code?: unknown; message?: unknown } };
        assert.equal(cause?.code, 'RUN_STOPPED', inspect(error));
        assert.equal(
          cause?.message,
          'The user rejected this call of deploy: incident, and the run was stopped',
        );
        return true;
      });
      assert.deepEqual(runs, []);
      assert.equal(model.requests.length, 1);
    });

    test("approve runs the original input; calls the tool's needsApproval declines run at once", async () => {
      const calls = scriptedCalls(
        { service: 'docs', version: '3.0.0' },
        { service: 'api', version: '1.4.2' },
      );
      const { agent, runs } = waitingAgent(calls, (input) => input.service !== 'docs');
      const running = runner.run(agent, 'Deploy docs and api');
      const apiId = approvalId(calls[1]!.callId);
      await waitForPendingRecord(client, apiId);
      await questions.decide(apiId, { type: 'approve' });
      const result = await running;
      assert.equal(result.finalOutput, 'deploy: deployed docs 3.0.0\ndeploy: deployed api 1.4.2');
      assert.deepEqual(runs.map((run) => run.service).sort(), ['api', 'docs']);
      await assert.rejects(client.workflow.getHandle(approvalId(calls[0]!.callId)).describe(), {
        name: 'WorkflowNotFoundError',
      });
    });

    test("the run's abort signal withdraws the approval", async () => {
      const calls = scriptedCalls({ service: 'api', version: '1.4.2' });
      const { agent, runs } = waitingAgent(calls);
      const controller = new AbortController();
      const running = runner.run(agent, 'Deploy api 1.4.2', { signal: controller.signal });
      const workflowId = approvalId(calls[0]!.callId);
      await waitForPendingRecord(client, workflowId);
      controller.abort();
      // The SDK ends the run with the signal's reason; the approval's workflow is cancelled behind it.
      await assert.rejects(running, (error: unknown) => error === controller.signal.reason);
      await eventually('the approval to be withdrawn', async () => {
        const description = await client.workflow.getHandle(workflowId).describe();
        return description.status.name === 'CANCELLED' ? true : undefined;
      });
      assert.equal((await questions.get(workflowId)).status, 'cancelled');
      assert.deepEqual(runs, []);
    });

    test('a failure to get a decision is what the model reads; the tool does not run', async () => {
      const calls = scriptedCalls({ service: 'api', version: '1.4.2' });
      const { agent, runs } = waitingAgent(calls);
      // The call's id already keys an approval of another call: reusing it is refused.
      const workflowId = approvalId(calls[0]!.callId);
      const earlier = provider.requestApproval({
        toolName: 'deploy',
        toolCallId: calls[0]!.callId,
        input: { service: 'api', version: '0.9.0' },
        agent: AGENT,
      });
      await waitForPendingRecord(client, workflowId);
      const result = await runner.run(agent, 'Deploy api 1.4.2');
      assert.equal(
        result.finalOutput,
        `deploy: Error: the approval of deploy tool call ${calls[0]!.callId} was already used for different questions`,
      );
      assert.deepEqual(runs, []);
      await questions.decide(workflowId, { type: 'reject' });
      assert.equal((await earlier).type, 'reject');
    });

    test('options the approval cannot honour are refused when the tool is defined', () => {
      const base = {
        name: 'deploy',
        description: 'Deploy a service at a version',
        parameters: deployParameters,
        execute: async (input: DeployInput) => deployed(input),
      };
      assert.throws(() => withDurableApproval({ ...base, timeoutMs: 1000 }, { userInteraction: provider }), {
        code: 'INVALID_OPTIONS',
        message:
          'withDurableApproval option timeoutMs: the SDK counts the wait for a decision against it, then aborts the call and withdraws the approval; set a deadline with the provider policy expireAfter',
      });
      assert.throws(
        () =>
          withDurableApproval(
            {
              ...base,
              outputSchema: z.object({ deployed: z.string() }),
              execute: async () => ({ deployed: 'api' }),
            },
            { userInteraction: provider },
          ),
        {
          code: 'INVALID_OPTIONS',
          message:
            'withDurableApproval option outputSchema: a rejected or answered call returns text, which is no output of that schema',
        },
      );
      const questionsOnly: UserInteraction = { ask: async () => ({ answers: [] }) };
      assert.throws(() => withDurableApproval(base, { userInteraction: questionsOnly }), {
        code: 'INVALID_OPTIONS',
        message:
          'withDurableApproval option userInteraction: takes no approvals (it has no requestApproval method)',
      });
    });
  });
});
