/**
 * A small agent loop with `ask_user_question`.
 *
 * The loop offers the tool to a model, runs the tool calls the model makes and feeds each result back as text:
 * the answer JSON, or `Error: ...` when the call failed, so a failure never crashes the loop. Questions go
 * through a `UserInteractionService` to an `InMemoryUserInteraction`; an answering UI puts each question to
 * a human, shows the human why an answer was refused, and asks again.
 *
 * The model here is scripted (a real one is a network call away); the human is simulated. Run it with
 *
 *   npx tsx examples/agent-loop.ts
 */
import {
  InMemoryUserInteraction,
  UserInteractionError,
  UserInteractionService,
  formatToolError,
  type InMemoryPendingQuestion,
} from '../src/interaction';
import { createAskUserQuestionTool } from '../src/tool';
import type { AskUserAgent, AskUserQuestionAnswer } from '../src/types';

/** A tool call as the model emits it. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** One message of the conversation. */
export type Message =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string }
  | { role: 'assistant'; toolCall: ToolCall }
  | { role: 'tool'; toolCallId: string; content: string };

/** A tool as it is offered to the model. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** What the model does next: reply with text (the turn ends) or call a tool. */
export type ModelTurn = { text: string } | { toolCall: ToolCall };

/** A model: reads the conversation and the tools on offer, and takes its next step. */
export type Model = (messages: readonly Message[], tools: readonly ToolDefinition[]) => Promise<ModelTurn>;

/** The human's reply to a question: an answer, or a refusal to answer at all. */
export type HumanReply = AskUserQuestionAnswer | { decline: string };

/**
 * The human behind the answering UI. `refusal` is set when the previous reply broke the answer rules and
 * tells why, so the human can correct it.
 */
export type Human = (question: InMemoryPendingQuestion, refusal?: string) => Promise<HumanReply>;

export interface AgentLoopOptions {
  /** What the user asks the agent to do. */
  task: string;
  model: Model;
  human: Human;
  agent?: AskUserAgent;
  /** Aborting it interrupts the turn: a pending question is withdrawn and the loop stops. */
  signal?: AbortSignal;
  /** Model steps before the loop gives up. */
  maxSteps?: number;
}

export interface AgentLoopResult {
  messages: Message[];
  /** `done`: the model replied with text; `aborted`: the signal aborted; `max-steps`: the model never stopped. */
  stopReason: 'done' | 'aborted' | 'max-steps';
}

/** How many times the answering UI lets the human correct a refused answer before it declines the question. */
const ANSWER_ATTEMPTS = 3;

/** The answering UI: puts the question to the human until an answer is accepted or the human declines. */
async function putToHuman(
  provider: InMemoryUserInteraction,
  human: Human,
  question: InMemoryPendingQuestion,
): Promise<void> {
  const stillPending = (): boolean => provider.pending().some((pending) => pending.id === question.id);
  let refusal: string | undefined;
  for (let attempt = 1; attempt <= ANSWER_ATTEMPTS; attempt += 1) {
    const reply = await human(question, refusal);
    // The agent may have stopped waiting (its turn was aborted) while the human was thinking.
    if (!stillPending()) return;
    if ('decline' in reply) {
      provider.decline(question.id, reply.decline);
      return;
    }
    try {
      provider.answer(question.id, reply);
      return;
    } catch (error) {
      if (!UserInteractionError.isInstance(error) || error.code !== 'BAD_ANSWER') throw error;
      refusal = error.message;
    }
  }
  provider.decline(question.id, `no valid answer after ${ANSWER_ATTEMPTS} attempts`);
}

/**
 * Runs one user task through the model until it replies with text.
 *
 * @example
 * const { messages } = await runAgentLoop({ task: 'Deploy build 1.4.2.', model, human });
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { task, model, human, agent, signal, maxSteps = 10 } = options;

  const service = new UserInteractionService();
  const provider = new InMemoryUserInteraction();
  const dispose = service.registerProvider(provider);
  const unsubscribe = provider.onQuestion((question) => {
    putToHuman(provider, human, question).catch((error: unknown) => {
      if (provider.pending().some((pending) => pending.id === question.id)) {
        provider.decline(question.id, formatToolError(error));
      }
    });
  });

  const tool = createAskUserQuestionTool({ userInteraction: service });
  const tools: ToolDefinition[] = [
    { name: tool.name, description: tool.description, parameters: tool.parameters },
  ];
  const messages: Message[] = [{ role: 'user', content: task }];

  try {
    for (let step = 0; step < maxSteps; step += 1) {
      const turn = await model(messages, tools);
      if ('text' in turn) {
        messages.push({ role: 'assistant', content: turn.text });
        return { messages, stopReason: 'done' };
      }
      const { toolCall } = turn;
      messages.push({ role: 'assistant', toolCall });
      let content: string;
      if (toolCall.name !== tool.name) {
        content = `Error: unknown tool ${JSON.stringify(toolCall.name)}`;
      } else {
        try {
          content = await tool.execute(toolCall.arguments, {
            toolCallId: toolCall.id,
            ...(agent === undefined ? {} : { agent }),
            ...(signal === undefined ? {} : { signal }),
          });
        } catch (error) {
          content = formatToolError(error);
        }
      }
      messages.push({ role: 'tool', toolCallId: toolCall.id, content });
      if (signal?.aborted === true) return { messages, stopReason: 'aborted' };
    }
    return { messages, stopReason: 'max-steps' };
  } finally {
    unsubscribe();
    dispose();
  }
}

// ---- A scripted model and a simulated human ---------------------------------------------------------------

/** The questions the deploy assistant asks before it deploys. */
export const DEPLOY_QUESTIONS = {
  questions: [
    {
      id: 'environment',
      header: 'Target',
      question: 'Where should I deploy build 1.4.2?',
      options: [
        {
          label: 'staging (Recommended)',
          description: 'Verify there first; nobody outside the team sees it',
        },
        { label: 'production', description: 'Customers get it at once' },
      ],
    },
    {
      id: 'checks',
      question: 'Which checks should pass before the deploy?',
      options: [{ label: 'lint' }, { label: 'unit tests' }, { label: 'e2e' }],
      multi_select: true,
    },
    { id: 'notify', question: 'Who should I tell when it is done?' },
  ],
  // Models add keys nobody asked for; the tool drops them instead of failing the call.
  reason: 'The task does not say where to deploy.',
};

interface AnswerItem {
  id: string;
  selected: string[];
  custom?: string;
}

function chosen(item: AnswerItem | undefined): string | undefined {
  if (item === undefined) return undefined;
  if (item.custom !== undefined) return item.custom;
  return item.selected.length === 0 ? undefined : item.selected.join(', ');
}

/** A deploy assistant that asks before it acts, and reads the answer (or the error) it gets back. */
export const scriptedDeployModel: Model = async (messages, tools) => {
  if (!tools.some((tool) => tool.name === 'ask_user_question')) {
    throw new Error('the deploy assistant needs ask_user_question');
  }
  const last = messages[messages.length - 1];
  if (last?.role === 'user') {
    return { toolCall: { id: 'call_1', name: 'ask_user_question', arguments: DEPLOY_QUESTIONS } };
  }
  if (last?.role === 'tool') {
    if (last.content.startsWith('Error: ')) {
      return { text: `I did not deploy build 1.4.2: I could not get an answer (${last.content}).` };
    }
    const { answers } = JSON.parse(last.content) as { answers: AnswerItem[] };
    const byId = new Map(answers.map((item) => [item.id, item]));
    const environment = chosen(byId.get('environment'));
    if (environment === undefined) {
      return { text: 'I did not deploy build 1.4.2: you skipped the target environment.' };
    }
    const checks = chosen(byId.get('checks')) ?? 'no checks';
    const notify = chosen(byId.get('notify'));
    return {
      text:
        `Deploying build 1.4.2 to ${environment.replace(' (Recommended)', '')} after ${checks}.` +
        (notify === undefined ? '' : ` I will tell ${notify} when it is done.`),
    };
  }
  return { text: 'I have nothing to do.' };
};

/** A human who takes the recommended target, wants lint and unit tests, and names a channel. */
export const simulatedHuman: Human = async () => ({
  answers: [
    { id: 'environment', selected: ['staging (Recommended)'] },
    { id: 'checks', selected: ['lint', 'unit tests'] },
    { id: 'notify', selected: [], custom: '#deploys' },
  ],
});

/** Renders a conversation the way `main` prints it. */
export function formatTranscript(messages: readonly Message[]): string {
  return messages
    .map((message) => {
      if (message.role === 'tool') return `tool (${message.toolCallId}): ${message.content}`;
      if ('toolCall' in message) {
        const { id, name, arguments: args } = message.toolCall;
        return `assistant calls ${name} (${id}): ${JSON.stringify(args)}`;
      }
      return `${message.role}: ${message.content}`;
    })
    .join('\n');
}

async function main(): Promise<void> {
  const { messages } = await runAgentLoop({
    task: 'Deploy build 1.4.2.',
    model: scriptedDeployModel,
    human: simulatedHuman,
    agent: { id: 'deploy-assistant' },
  });
  process.stdout.write(`${formatTranscript(messages)}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`agent-loop: ${formatToolError(error)}\n`);
    process.exitCode = 1;
  });
}
