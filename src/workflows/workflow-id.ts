import type { AskUserQuestionRequest } from '../types';
import { WORKFLOW_ID_PREFIX } from './definitions';

/**
 * The deterministic workflow id of a question: `ask-user-question/<sessionId or agent id>/<toolCallId>`
 * (`ask-user-question/<toolCallId>` without an agent). Asking again with the same tool call re-attaches to the
 * same question. Without a toolCallId there is nothing stable to key on, so the id is a fresh UUID.
 */
export function questionWorkflowId(
  request: Pick<AskUserQuestionRequest, 'agent' | 'toolCallId'>,
  randomUUID: () => string = () => globalThis.crypto.randomUUID(),
): string {
  if (request.toolCallId === undefined || request.toolCallId === '') {
    return `${WORKFLOW_ID_PREFIX}${randomUUID()}`;
  }
  const owner = request.agent?.sessionId ?? request.agent?.id;
  return owner === undefined
    ? `${WORKFLOW_ID_PREFIX}${request.toolCallId}`
    : `${WORKFLOW_ID_PREFIX}${owner}/${request.toolCallId}`;
}
