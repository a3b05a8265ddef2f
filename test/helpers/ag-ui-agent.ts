/**
 * The AI SDK agent the AG-UI tests serve, and a front end that runs it: a `ToolLoopAgent` over the SDK's own
 * scripted model (`MockLanguageModelV3`), whose tools are `ask_user_question` and a `deploy` tool behind a durable
 * approval; and `@ag-ui/client`'s `HttpAgent`, each run's events kept.
 *
 * The model is a function of its prompt, so one model serves every thread: with no tool result yet it calls the
 * tools the user's last message names (`ask`, `ask and deploy`), else it says what each tool returned.
 */
import { randomUUID } from 'node:crypto';

import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent, Message, ResumeEntry } from '@ag-ui/core';
import { ToolLoopAgent, simulateReadableStream, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';

import { askUserQuestionAiTool, durableApprovalAiTool } from '../../src/ai';
import type { AgUiAiAgent } from '../../src/ag-ui';
import type { AskUserQuestion, UserInteraction } from '../../src/types';

/** The question the model asks. */
export const COLOR_QUESTION: AskUserQuestion = {
  id: 'color',
  header: 'Color',
  question: 'Which color should the banner be?',
  options: [
    { label: 'Blue', description: 'The brand color' },
    { label: 'Green', description: 'Matches the docs' },
  ],
};

/** What the model asks `deploy` to run with. */
export const DEPLOY_INPUT = { service: 'api', version: '1.4.2' };

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

type Prompt = LanguageModelV3CallOptions['prompt'];

function lastUserText(prompt: Prompt): string {
  const user = prompt.filter((message) => message.role === 'user').at(-1);
  if (user === undefined) return '';
  return user.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** `tool <name>: <output text>` for each tool result of the prompt, in order. */
export function toolResultsOf(prompt: Prompt): string[] {
  return prompt.flatMap((message) =>
    message.role === 'tool'
      ? message.content.flatMap((part) =>
          part.type === 'tool-result'
            ? [
                `${part.toolName}: ${part.output.type === 'text' ? part.output.value : JSON.stringify(part.output)}`,
              ]
            : [],
        )
      : [],
  );
}

function toolCall(toolName: string, input: unknown): LanguageModelV3StreamPart {
  return {
    type: 'tool-call',
    toolCallId: `${toolName}-${randomUUID()}`,
    toolName,
    input: JSON.stringify(input),
  };
}

/** The parts the model streams for `prompt`. */
function reply(prompt: Prompt): LanguageModelV3StreamPart[] {
  const results = toolResultsOf(prompt);
  if (results.length > 0) {
    const text = `Tool results: ${results.join(' | ')}`;
    return [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 'reply' },
      { type: 'text-delta', id: 'reply', delta: text },
      { type: 'text-end', id: 'reply' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE },
    ];
  }
  const asked = lastUserText(prompt);
  const calls = [toolCall('ask_user_question', { questions: [COLOR_QUESTION] })];
  if (asked.includes('deploy')) calls.push(toolCall('deploy', DEPLOY_INPUT));
  return [
    { type: 'stream-start', warnings: [] },
    ...calls,
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE },
  ];
}

/** The scripted model: its calls are kept in `doStreamCalls`. */
export function scriptedModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: async (options) => ({ stream: simulateReadableStream({ chunks: reply(options.prompt) }) }),
  });
}

/** The deploy tool's runs, in order. */
export type DeployRuns = Array<{ toolCallId: string; input: unknown }>;

/** `createAgent` of the endpoint: a ToolLoopAgent whose tools ask through the run's `userInteraction`. */
export function agentFactory(
  model: MockLanguageModelV3,
  deployRuns: DeployRuns,
): (userInteraction: UserInteraction) => AgUiAiAgent {
  const deploy = tool({
    description: 'Deploy a service at a version',
    inputSchema: z.object({ service: z.string().min(1), version: z.string().regex(/^\d+\.\d+\.\d+$/) }),
    execute: async (input, { toolCallId }) => {
      deployRuns.push({ toolCallId, input });
      return `deployed ${input.service} ${input.version}`;
    },
  });
  return (userInteraction) =>
    new ToolLoopAgent({
      model,
      tools: {
        ask_user_question: askUserQuestionAiTool(userInteraction),
        deploy: durableApprovalAiTool(deploy, { userInteraction, toolName: 'deploy' }),
      },
      stopWhen: stepCountIs(5),
    });
}

/** One run as the front end saw it. */
export interface FrontEndRun {
  events: BaseEvent[];
  /** The run's `RUN_ERROR`, when it ended in one. */
  error?: { message: string; code?: string };
}

/** Runs `agent` once (with `resume` entries when given) and keeps every event it received. */
export async function runFrontEnd(agent: HttpAgent, resume?: ResumeEntry[]): Promise<FrontEndRun> {
  const run: FrontEndRun = { events: [] };
  await agent
    .runAgent(resume === undefined ? {} : { resume }, {
      onEvent: ({ event }) => {
        run.events.push(event);
      },
      onRunErrorEvent: ({ event }) => {
        run.error =
          event.code === undefined
            ? { message: event.message }
            : { message: event.message, code: event.code };
      },
    })
    .catch((error: unknown) => {
      if (run.error === undefined) throw error;
    });
  return run;
}

/** A front end on `threadId` that starts the thread with the user's `text`. */
export function frontEnd(url: string, threadId: string, text: string): HttpAgent {
  const agent = new HttpAgent({ url, threadId });
  agent.addMessage({ id: randomUUID(), role: 'user', content: text });
  return agent;
}

/** A second front end on the same thread (another tab): the messages so far, and none of the first's state. */
export function otherTab(url: string, threadId: string, messages: readonly Message[]): HttpAgent {
  return new HttpAgent({ url, threadId, initialMessages: structuredClone([...messages]) });
}
