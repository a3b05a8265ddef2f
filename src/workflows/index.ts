/**
 * The workflows a worker registers (`workflowsPath` points here). Workflow-safe: no Node built-ins, no
 * Temporal client or worker imports.
 */
export { askUserQuestionWorkflow } from './ask-user-question-workflow';
export { webhookDeliveryWorkflow } from './webhook-delivery-workflow';
export { askUserGrantsWorkflow } from './grants-workflow';
