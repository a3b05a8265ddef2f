/**
 * `claudeCanUseTool` against a real dev server, with inputs shaped as the Claude Agent SDK's documentation
 * shows them and a human answering or deciding through `QuestionClient`: the exact `PermissionResult` each
 * outcome gives the SDK.
 *
 * - `Bash` and other tools: approve, edit (checked against the input schema, an object by default), reject
 *   (with and without a reason, and with `stop`: `interrupt: true`), respond, the SDK's signal withdrawing the approval, calls that need no
 *   approval, and a repeated `toolUseID` re-attaching to its decision;
 * - `AskUserQuestion`: two questions, one multi-select, mapped onto a durable question and back into the
 *   answers the SDK documents (keyed by question text, labels joined with ", ", the human's own text for
 *   "Other", `[No preference]` for nothing chosen), a decline and an abort denied, and invalid inputs denied
 *   naming the field before anything is asked.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';

import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import {
  claudeCanUseTool,
  type ClaudeCanUseToolContext,
  type ClaudeCanUseToolOptions,
} from '../../src/adapters/claude-agent-sdk';
import type { TemporalUserInteraction } from '../../src';
import { inputSha256 } from '../../src/answer';
import type { QuestionClient } from '../../src/ops';
import { InMemoryUserInteraction, QuestionOperationError, questionWorkflowId } from '../../src';
import type { DecideInput, UserInteraction } from '../../src/types';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { waitFor } from '../helpers/wait';
import { startProviderStack, type ProviderStack } from '../helpers/provider-stack';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = 'claude-can-use-tool';
const AGENT = { id: 'claude-agent', sessionId: 'session-1' };

/** A `Bash` input as the SDK documents it. */
const BASH_INPUT = { command: 'rm -rf build', description: 'Delete the build folder' };

/** The SDK documentation's clarifying questions: two, the second multi-select. */
const ASK_INPUT = {
  questions: [
    {
      question: 'How should I format the output?',
      header: 'Format',
      options: [
        { label: 'Summary', description: 'Brief overview of key points' },
        { label: 'Detailed', description: 'Full explanation with examples' },
      ],
      multiSelect: false,
    },
    {
      question: 'Which sections should I include?',
      header: 'Sections',
      options: [
        { label: 'Introduction', description: 'Opening context' },
        { label: 'Methods', description: 'How it was done' },
        { label: 'Conclusion', description: 'Final summary' },
      ],
      multiSelect: true,
    },
  ],
};

/** What the SDK passes with a call: a fresh `toolUseID` (shaped like Anthropic's) and a signal. */
function sdkContext(
  extra: Partial<ClaudeCanUseToolContext> = {},
): ClaudeCanUseToolContext & { controller: AbortController } {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    toolUseID: `toolu_${randomUUID().replaceAll('-', '')}`,
    controller,
    ...extra,
  };
}

/** The workflow id of this file's agent's tool use. */
function workflowIdOf(toolUseID: string): string {
  return questionWorkflowId({ agent: AGENT, toolCallId: toolUseID }, randomUUID);
}

describe('claudeCanUseTool on a real server', () => {
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

  function canUseTool(options: Partial<ClaudeCanUseToolOptions> = {}) {
    return claudeCanUseTool({ userInteraction: provider, agent: AGENT, ...options });
  }

  /** Calls the callback for `Bash`, decides the approval with `decision` once pending, returns the result. */
  async function decideBash(decision: DecideInput, options: Partial<ClaudeCanUseToolOptions> = {}) {
    const context = sdkContext();
    const workflowId = workflowIdOf(context.toolUseID);
    const result = canUseTool(options)('Bash', { ...BASH_INPUT }, context);
    await waitForPendingRecord(client, workflowId);
    await questions.decide(workflowId, decision);
    return { result: await result, workflowId };
  }

  describe('tools other than AskUserQuestion: durable approvals', () => {
    test('approve: allow with the original input; the record holds the call as the reviewer saw it', async () => {
      const { result, workflowId } = await decideBash({ type: 'approve', decidedBy: 'alice' });
      assert.deepEqual(result, { behavior: 'allow', updatedInput: BASH_INPUT });

      const record = await questions.get(workflowId);
      assert.equal(record.status, 'answered');
      assert.equal(record.toolCallId, workflowId.slice(workflowId.lastIndexOf('/') + 1));
      assert.deepEqual(record.agent, AGENT);
      assert.deepEqual(record.approval, {
        toolName: 'Bash',
        input: BASH_INPUT,
        description: 'Delete the build folder',
        inputSchema: { type: 'object' },
      });
      assert.equal(record.decision?.decidedBy, 'alice');
      const [listed] = (await questions.list('all', 1000)).filter((row) => row.workflowId === workflowId);
      assert.equal(listed?.title, 'Approve Bash: Delete the build folder');
    });

    test("the SDK's title for the request wins over the input's description", async () => {
      const context = sdkContext({ title: 'Claude wants to run rm -rf build' });
      const workflowId = workflowIdOf(context.toolUseID);
      const result = canUseTool()('Bash', { ...BASH_INPUT }, context);
      const record = await waitForPendingRecord(client, workflowId);
      assert.equal(record.approval?.description, 'Claude wants to run rm -rf build');
      await questions.decide(workflowId, { type: 'approve' });
      assert.deepEqual(await result, { behavior: 'allow', updatedInput: BASH_INPUT });
    });

    test('edit: allow with the edited input as updatedInput', async () => {
      const edited = { command: 'rm -rf build/cache', description: 'Delete the build cache' };
      const { result, workflowId } = await decideBash({ type: 'edit', input: edited, decidedBy: 'bob' });
      assert.deepEqual(result, { behavior: 'allow', updatedInput: edited });
      const record = await questions.get(workflowId);
      assert.deepEqual(record.approval?.input, BASH_INPUT);
      assert.deepEqual(record.decision, {
        type: 'edit',
        input: edited,
        decidedBy: 'bob',
        decidedAt: record.decision?.decidedAt,
        requestedInputSha256: inputSha256(BASH_INPUT),
        inputSha256: inputSha256(edited),
      });
    });

    test('an edit that is not an object, or breaks inputSchemaOf, is refused naming the path', async () => {
      const schema = {
        type: 'object',
        properties: { command: { type: 'string', maxLength: 40 }, description: { type: 'string' } },
        required: ['command'],
      };
      const context = sdkContext();
      const workflowId = workflowIdOf(context.toolUseID);
      const result = canUseTool({ inputSchemaOf: (toolName) => (toolName === 'Bash' ? schema : undefined) })(
        'Bash',
        { ...BASH_INPUT },
        context,
      );
      await waitForPendingRecord(client, workflowId);
      await assert.rejects(
        questions.decide(workflowId, { type: 'edit', input: { command: 'x'.repeat(41) } }),
        (error: unknown) => {
          assert.ok(QuestionOperationError.isInstance(error), inspect(error));
          assert.equal(error.message, 'invalid decision: input.command: String is too long (41 > 40)');
          return true;
        },
      );
      await questions.decide(workflowId, { type: 'approve' });
      assert.deepEqual(await result, { behavior: 'allow', updatedInput: BASH_INPUT });

      // Without inputSchemaOf, the default schema holds an edit to an object, as the SDK runs tools with.
      const bare = sdkContext();
      const bareId = workflowIdOf(bare.toolUseID);
      const bareResult = canUseTool()('Bash', { ...BASH_INPUT }, bare);
      await waitForPendingRecord(client, bareId);
      await assert.rejects(
        questions.decide(bareId, { type: 'edit', input: 'rm -rf /' }),
        (error: unknown) => QuestionOperationError.isInstance(error) && error.code === 'BAD_ANSWER',
      );
      await questions.decide(bareId, { type: 'reject' });
      assert.deepEqual(await bareResult, {
        behavior: 'deny',
        message: 'The user rejected this call of Bash',
      });
    });

    test('reject: deny with the reason; rejectedMessage words it otherwise', async () => {
      const { result } = await decideBash({ type: 'reject', reason: 'not on a Friday', decidedBy: 'carol' });
      assert.deepEqual(result, {
        behavior: 'deny',
        message: 'The user rejected this call of Bash: not on a Friday',
      });
      const worded = await decideBash(
        { type: 'reject', reason: 'not on a Friday' },
        {
          rejectedMessage: (decision, toolName) => `${toolName} refused (${decision.reason ?? 'no reason'})`,
        },
      );
      assert.deepEqual(worded.result, { behavior: 'deny', message: 'Bash refused (not on a Friday)' });
    });

    test('reject with stop: deny with interrupt, which ends the turn; the record keeps stop', async () => {
      const { result, workflowId } = await decideBash({ type: 'reject', reason: 'enough', stop: true });
      assert.deepEqual(result, {
        behavior: 'deny',
        message: 'The user rejected this call of Bash: enough',
        interrupt: true,
      });
      const { decision } = await questions.get(workflowId);
      assert.equal(decision?.type === 'reject' ? decision.stop : undefined, true);
    });

    test("respond: deny with the reviewer's text as the message", async () => {
      const { result } = await decideBash({ type: 'respond', text: 'Run `git clean -fdX` instead.' });
      assert.deepEqual(result, { behavior: 'deny', message: 'Run `git clean -fdX` instead.' });
    });

    test("the SDK's signal withdraws the approval: deny, and the workflow ends Canceled", async () => {
      const context = sdkContext();
      const workflowId = workflowIdOf(context.toolUseID);
      const result = canUseTool()('Write', { file_path: '/tmp/notes.txt', content: 'hello' }, context);
      await waitForPendingRecord(client, workflowId);
      context.controller.abort();
      assert.deepEqual(await result, {
        behavior: 'deny',
        message: 'Error: the approval of Write was aborted before anyone decided',
      });
      await waitFor(`${workflowId} to end Canceled`, async () =>
        (await client.workflow.getHandle(workflowId).describe()).status.name === 'CANCELLED'
          ? true
          : undefined,
      );
      assert.equal((await questions.get(workflowId)).status, 'cancelled');
    });

    test('a call needsApproval declines is allowed at once, and nothing is started', async () => {
      const seen: unknown[] = [];
      const callback = canUseTool({
        needsApproval: (toolName, input, context) => {
          seen.push([toolName, input, context.toolUseID]);
          return toolName !== 'Read';
        },
      });
      const context = sdkContext();
      const input = { file_path: '/repo/README.md' };
      assert.deepEqual(await callback('Read', input, context), { behavior: 'allow', updatedInput: input });
      assert.deepEqual(seen, [['Read', input, context.toolUseID]]);
      await assert.rejects(
        client.workflow.getHandle(workflowIdOf(context.toolUseID)).describe(),
        WorkflowNotFoundError,
      );
    });

    test('the same toolUseID re-attaches to its decision; with another input it is denied as a conflict', async () => {
      const context = sdkContext();
      const workflowId = workflowIdOf(context.toolUseID);
      const first = canUseTool()('Bash', { ...BASH_INPUT }, context);
      await waitForPendingRecord(client, workflowId);
      await questions.decide(workflowId, { type: 'edit', input: { command: 'rm -rf build/tmp' } });
      assert.deepEqual(await first, { behavior: 'allow', updatedInput: { command: 'rm -rf build/tmp' } });

      // A host that restarts and asks again for the same tool use: the decision comes back, nobody is asked.
      const again = await canUseTool()(
        'Bash',
        { ...BASH_INPUT },
        sdkContext({ toolUseID: context.toolUseID }),
      );
      assert.deepEqual(again, { behavior: 'allow', updatedInput: { command: 'rm -rf build/tmp' } });
      const starts = [];
      for await (const info of client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
        starts.push(info);
      assert.equal(starts.length, 1, 'one approval, never a duplicate');

      const other = await canUseTool()(
        'Bash',
        { command: 'ls', description: 'List files' },
        sdkContext({ toolUseID: context.toolUseID }),
      );
      assert.equal(other.behavior, 'deny');
      assert.match(
        other.behavior === 'deny' ? other.message : '',
        new RegExp(`^Error: the approval of Bash tool call ${context.toolUseID} was already used for`),
      );
    });
  });

  describe('AskUserQuestion: durable questions', () => {
    /** Calls the callback for `AskUserQuestion` and waits until its question is pending. */
    async function ask(input: Record<string, unknown> = structuredClone(ASK_INPUT)) {
      const context = sdkContext();
      const workflowId = workflowIdOf(context.toolUseID);
      const result = canUseTool()('AskUserQuestion', input, context);
      const record = await waitForPendingRecord(client, workflowId);
      return { context, result, record, workflowId };
    }

    test('two questions become one durable question with the same texts, ids q1 and q2', async () => {
      const { result, record, workflowId } = await ask();
      assert.deepEqual(record.questions, [
        {
          id: 'q1',
          question: 'How should I format the output?',
          header: 'Format',
          options: [
            { label: 'Summary', description: 'Brief overview of key points' },
            { label: 'Detailed', description: 'Full explanation with examples' },
          ],
          multiSelect: false,
        },
        {
          id: 'q2',
          question: 'Which sections should I include?',
          header: 'Sections',
          options: [
            { label: 'Introduction', description: 'Opening context' },
            { label: 'Methods', description: 'How it was done' },
            { label: 'Conclusion', description: 'Final summary' },
          ],
          multiSelect: true,
        },
      ]);
      assert.deepEqual(record.agent, AGENT);
      await questions.answer(workflowId, {
        answers: [
          { id: 'q1', selected: ['Summary'] },
          { id: 'q2', selected: ['Introduction', 'Conclusion'] },
        ],
        answeredBy: 'dana',
      });
      assert.deepEqual(await result, {
        behavior: 'allow',
        updatedInput: {
          questions: ASK_INPUT.questions,
          answers: {
            'How should I format the output?': 'Summary',
            'Which sections should I include?': 'Introduction, Conclusion',
          },
        },
      });
    });

    test('"Other" gives the human\'s own text; nothing chosen gives [No preference]; other fields stay', async () => {
      const { result, workflowId } = await ask({
        ...structuredClone(ASK_INPUT),
        metadata: { source: 'plan' },
      });
      await questions.answer(workflowId, {
        answers: [
          { id: 'q1', selected: [], custom: 'A one-line TL;DR' },
          { id: 'q2', selected: [] },
        ],
      });
      assert.deepEqual(await result, {
        behavior: 'allow',
        updatedInput: {
          questions: ASK_INPUT.questions,
          metadata: { source: 'plan' },
          answers: {
            'How should I format the output?': 'A one-line TL;DR',
            'Which sections should I include?': '[No preference]',
          },
        },
      });
    });

    test('a decline is denied with its reason, told of AskUserQuestion', async () => {
      const { result, workflowId } = await ask();
      await questions.decline(workflowId, { reason: 'ask me tomorrow', declinedBy: 'erin' });
      assert.deepEqual(await result, {
        behavior: 'deny',
        message: 'Error: the user cancelled AskUserQuestion: ask me tomorrow',
      });
    });

    test("the SDK's signal withdraws the question: deny, and the workflow ends Canceled", async () => {
      const { context, result, workflowId } = await ask();
      context.controller.abort();
      assert.deepEqual(await result, {
        behavior: 'deny',
        message: 'Error: AskUserQuestion was aborted before the user answered',
      });
      await waitFor(`${workflowId} to end Canceled`, async () =>
        (await client.workflow.getHandle(workflowId).describe()).status.name === 'CANCELLED'
          ? true
          : undefined,
      );
    });

    test('AskUserQuestion is never an approval, whatever needsApproval says', async () => {
      const context = sdkContext();
      const workflowId = workflowIdOf(context.toolUseID);
      const result = canUseTool({ needsApproval: () => false })(
        'AskUserQuestion',
        structuredClone(ASK_INPUT),
        context,
      );
      const record = await waitForPendingRecord(client, workflowId);
      assert.equal(record.approval, undefined);
      assert.equal(record.questions.length, 2);
      await questions.answer(workflowId, {
        answers: [
          { id: 'q1', selected: ['Detailed'] },
          { id: 'q2', selected: ['Methods'] },
        ],
      });
      const answered = await result;
      assert.deepEqual(answered.behavior === 'allow' ? answered.updatedInput.answers : answered, {
        'How should I format the output?': 'Detailed',
        'Which sections should I include?': 'Methods',
      });
    });
  });
});

describe('claudeCanUseTool before anything is asked', () => {
  const unreachable: UserInteraction = {
    ask: () => Promise.reject(new Error('nothing may be asked')),
    requestApproval: () => Promise.reject(new Error('nothing may be approved')),
  };
  const callback = claudeCanUseTool({ userInteraction: unreachable });

  /** `ASK_INPUT` with `change` applied to a copy. */
  function askInput(
    change: (input: { questions: Record<string, unknown>[] }) => void,
  ): Record<string, unknown> {
    const input = structuredClone(ASK_INPUT) as unknown as { questions: Record<string, unknown>[] };
    change(input);
    return input;
  }

  const cases: [string, Record<string, unknown>, string][] = [
    ['no questions field', {}, 'questions: is required'],
    ['no questions', { questions: [] }, 'questions: must have 1 to 4 items, received 0'],
    [
      'five questions',
      { questions: Array.from({ length: 5 }, () => ASK_INPUT.questions[0]) },
      'questions: must have 1 to 4 items, received 5',
    ],
    [
      'a header over 12 characters',
      askInput((input) => (input.questions[0]!.header = 'Output format')),
      'questions[0].header: must be at most 12 characters, received 13',
    ],
    [
      'one option',
      askInput((input) => (input.questions[1]!.options = [{ label: 'Introduction', description: '' }])),
      'questions[1].options: must have 2 to 4 items, received 1',
    ],
    [
      'no multiSelect',
      askInput((input) => delete input.questions[0]!.multiSelect),
      'questions[0].multiSelect: is required',
    ],
    [
      'multiSelect as text',
      askInput((input) => (input.questions[1]!.multiSelect = 'yes')),
      'questions[1].multiSelect: must be a boolean, received a string',
    ],
    [
      'a blank label and a label that repeats',
      askInput(
        (input) =>
          (input.questions[1]!.options = [
            { label: ' ', description: 'x' },
            { label: 'Methods', description: 'x' },
            { label: 'Methods', description: 'y' },
          ]),
      ),
      'questions[1].options[0].label: must not be blank; questions[1].options[2].label: duplicate label "Methods"',
    ],
    [
      'an option without a description',
      askInput((input) => (input.questions[0]!.options = [{ label: 'Summary' }, { label: 'Detailed' }])),
      'questions[0].options[0].description: is required; questions[0].options[1].description: is required',
    ],
    [
      'a blank question, which ask_user_question itself refuses',
      askInput((input) => (input.questions[0]!.question = ' ')),
      'questions[0].question: must not be blank',
    ],
    [
      'the same question twice',
      { questions: [ASK_INPUT.questions[0], ASK_INPUT.questions[0]] },
      'questions[1].question: repeats questions[0].question, and the answers are keyed by the question text',
    ],
  ];
  for (const [name, input, problems] of cases) {
    test(`AskUserQuestion with ${name} is denied naming the field`, async () => {
      assert.deepEqual(await callback('AskUserQuestion', input, sdkContext()), {
        behavior: 'deny',
        message: `Error: invalid arguments: ${problems}`,
      });
    });
  }

  test('at most five problems are listed', async () => {
    const input = {
      questions: Array.from({ length: 4 }, () => ({ question: '', header: '', options: [], multiSelect: 1 })),
    };
    const result = await callback('AskUserQuestion', input, sdkContext());
    assert.deepEqual(result, {
      behavior: 'deny',
      message:
        'Error: invalid arguments: questions[0].header: must not be blank; ' +
        'questions[0].options: must have 2 to 4 items, received 0; questions[0].multiSelect: must be a boolean, ' +
        'received a number; questions[1].header: must not be blank; ' +
        'questions[1].options: must have 2 to 4 items, received 0; and 7 more',
    });
  });

  test('a provider without approvals is refused when the callback is made', () => {
    assert.throws(
      () => claudeCanUseTool({ userInteraction: { ask: () => Promise.resolve({ answers: [] }) } }),
      {
        code: 'INVALID_OPTIONS',
        message:
          'claudeCanUseTool option userInteraction: takes no approvals (it has no requestApproval method)',
      },
    );
  });

  test('the in-memory provider takes approvals and questions too', async () => {
    const memory = new InMemoryUserInteraction();
    memory.onApproval((approval) => memory.decide(approval.id, { type: 'approve' }));
    const result = await claudeCanUseTool({ userInteraction: memory })(
      'Bash',
      { ...BASH_INPUT },
      sdkContext(),
    );
    assert.deepEqual(result, { behavior: 'allow', updatedInput: BASH_INPUT });
  });
});
