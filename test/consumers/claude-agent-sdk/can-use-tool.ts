/**
 * `claudeCanUseTool` as a user of the Claude Agent SDK writes it, typechecked (never run) against the SDK's
 * own types in a project that installs the SDK without its platform binary
 * (test/e2e/claude-agent-sdk-types.test.ts). Each assignment below fails to compile when the SDK changes a
 * type the adapter's structural copies stand for.
 */
import type { CanUseTool, Options, PermissionResult } from '@anthropic-ai/claude-agent-sdk';
import type { AskUserQuestionInput, BashInput } from '@anthropic-ai/claude-agent-sdk/sdk-tools';
import { InMemoryUserInteraction } from 'durable-ask-user/tool';
import {
  claudeCanUseTool,
  type ClaudeAskUserQuestionInput,
  type ClaudeCanUseTool,
  type ClaudePermissionResult,
} from 'durable-ask-user/claude';

// The callback is the SDK's `CanUseTool`: the SDK's options object is what the callback reads, and what it
// returns is a `PermissionResult`.
const canUseTool: CanUseTool = claudeCanUseTool({
  userInteraction: new InMemoryUserInteraction(),
  agent: { id: 'build-bot', sessionId: 'session-1' },
  needsApproval: (toolName, input, context) => toolName !== 'Read' && context.signal.aborted === false,
  description: (toolName, input) =>
    toolName === 'Bash' ? `Run ${String((input as Partial<BashInput>).command)}` : undefined,
  inputSchemaOf: (toolName) =>
    toolName === 'Bash'
      ? { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] }
      : undefined,
  rejectedMessage: (decision, toolName) => `${toolName}: ${decision.reason ?? 'rejected'}`,
});

// It goes where the SDK takes it: `query()`'s options.
export const options: Options = { canUseTool, tools: ['Bash', 'Read', 'AskUserQuestion'] };

// The adapter's named type, too.
export const named: CanUseTool = ((): ClaudeCanUseTool =>
  claudeCanUseTool({ userInteraction: new InMemoryUserInteraction() }))();

// Every result the adapter returns is a result the SDK takes.
export function toSdkResult(result: ClaudePermissionResult): PermissionResult {
  return result;
}

// What the SDK calls AskUserQuestion with is what the adapter validates and maps...
export function toAdapterInput(input: AskUserQuestionInput): ClaudeAskUserQuestionInput {
  return input;
}

// ...and the answers it fills in are the SDK's answers: question text -> answer text.
export function toSdkAnswers(
  input: ClaudeAskUserQuestionInput,
): NonNullable<AskUserQuestionInput['answers']> | undefined {
  return input.answers;
}

// The input the SDK's documentation shows for clarifying questions is an `AskUserQuestionInput`.
export const documented: AskUserQuestionInput = {
  questions: [
    {
      question: 'How should I format the output?',
      header: 'Format',
      options: [
        { label: 'Summary', description: 'Brief overview' },
        { label: 'Detailed', description: 'Full explanation' },
      ],
      multiSelect: false,
    },
  ],
  answers: { 'How should I format the output?': 'Summary' },
};
