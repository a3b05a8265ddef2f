/**
 * `@durable-ask-user/a2a`: an agent that asks through durable-ask-user, served over A2A with `@a2a-js/sdk`. A
 * waiting question or approval is the task's `TASK_STATE_INPUT_REQUIRED`, the client's reply is its answer
 * (through the validated update), and the task moves on whoever answers. docs/a2a.md says what the other side
 * sees.
 */
export { AskUserA2AHandler, type AskUserA2AHandlerOptions } from './a2a-handler';
export { AskUserA2AExecutor, type A2AAgentTask, type AskUserA2AExecutorOptions } from './a2a-executor';
export { A2A_METADATA_KEY, type WaitingInput } from './a2a-parts';
