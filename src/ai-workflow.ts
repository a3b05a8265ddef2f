/**
 * `durable-ask-user/ai-workflow`: `ask_user_question` and durable approvals for AI SDK agents that run inside Temporal workflows
 * (`@temporalio/ai-sdk`). Workflow-safe: import it from workflow code only. It needs `ai` (an optional peer
 * dependency, 7 with `@temporalio/ai-sdk`), which the workflow bundle takes from the agent's project.
 */
export {
  askUserQuestionWorkflowAiTool,
  durableApprovalWorkflowAiTool,
  type AskUserQuestionWorkflowAiToolOptions,
  type DurableApprovalWorkflowAiToolOptions,
} from './adapters/ai-sdk-workflow';
export {
  childWorkflowUserInteraction,
  type AskUserQuestionChildOptions,
} from './workflow-provider/ask-user-question-child';
export { approvalStopped } from './adapters/ai-sdk-approval-flow';
