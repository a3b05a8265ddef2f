/**
 * The operations the MCP server needs of the questions, over one Temporal client: the ops client's reads,
 * answers and declines (`QuestionClient`), and what that client leaves to Temporal: a task's cancel, a closed
 * question's result, and a refused answer kept in the question's record.
 */
import { QuestionClient } from '../ops/question-client';
import { answerSignal } from '../question/definitions';
import type { AskUserQuestionWorkflowResult } from '../types';
import type { McpElicitationOperations } from './mcp-elicitation';
import type { McpQuestionOperations } from './mcp-ops-tools';
import type { McpTaskOperations } from './mcp-tasks';

/**
 * A Temporal client, as `QuestionClient` takes it (named through it: this package's declarations may not import
 * `@temporalio/client`, which its manifest does not list).
 */
type TemporalClient = ConstructorParameters<typeof QuestionClient>[0];

/**
 * Every operation `createAskUserMcpServer` takes (`questions`, `elicitation.questions`, `tasks`), over the
 * client `client()` resolves to, asked for on first use (a server starts, and lists its tools, before Temporal is
 * reachable).
 */
export function mcpQuestionOperations(
  client: () => Promise<TemporalClient>,
): McpQuestionOperations & McpElicitationOperations & McpTaskOperations {
  let questions: Promise<QuestionClient> | undefined;
  const get = (): Promise<QuestionClient> =>
    (questions ??= client().then((ready) => new QuestionClient(ready)));
  const handle = async (workflowId: string) =>
    (await client()).workflow.getHandle<() => Promise<AskUserQuestionWorkflowResult>>(workflowId);
  return {
    list: async (...args) => (await get()).list(...args),
    get: async (...args) => (await get()).get(...args),
    answer: async (...args) => (await get()).answer(...args),
    decide: async (...args) => (await get()).decide(...args),
    decline: async (...args) => (await get()).decline(...args),
    // A task's cancel is the workflow's, as the tool call's cancel is (`QuestionClient` has none: ops decline).
    cancel: async (workflowId) => {
      await (await handle(workflowId)).cancel();
    },
    result: async (workflowId) => await (await handle(workflowId)).result(),
    keepRefused: async (workflowId, answer) => {
      await (await handle(workflowId)).signal(answerSignal, answer);
    },
  };
}
