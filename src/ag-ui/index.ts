/**
 * `durable-ask-user/ag-ui`: an AI SDK agent served as an AG-UI endpoint, whose questions and approvals are
 * durable. Each one pending when a run stops is an interrupt of `RUN_FINISHED`, keyed by the question's workflow
 * id; the next run's `resume` entries are recorded through `QuestionClient`'s validated updates. `@ag-ui/core`
 * and `ai` are optional peers of the package: this entry alone loads them.
 */
export { agUiRequestListener, serveAgUiAgent, type AgUiEndpoint, type AgUiEndpointOptions } from './server';
export { runAgUiAgent, type AgUiAgentOptions, type AgUiAiAgent } from './run';
export { APPROVAL_REASON, QUESTION_REASON, answerResponseSchema, decisionResponseSchema } from './interrupts';
