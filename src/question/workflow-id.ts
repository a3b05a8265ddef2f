/**
 * Workflow ids of questions. Deterministic for a tool call, so asking again re-attaches to the same question;
 * collision-free, so two different agents or tool calls never share one; readable, so ops can type them.
 *
 * Workflow-safe and dependency-free: the child helper computes ids inside the workflow sandbox.
 */
import { UserInteractionError } from '../interaction/user-interaction-error';
import type { AskUserQuestionRequest } from '../types';
import { WORKFLOW_ID_PREFIX } from './definitions';

/** The Temporal server's default limit on workflow id length (`limit.maxIDLength`). */
export const MAX_WORKFLOW_ID_LENGTH = 1000;

/** The characters `encodeIdComponent` escapes; control characters are exactly what must be escaped. */
// eslint-disable-next-line no-control-regex
const ESCAPED_CHARACTERS = /[%/'"\\\u0000-\u001f\u007f]/g;

/**
 * Percent-encodes the characters that would make ids ambiguous (`/` separates components, `%` escapes) or
 * awkward to quote in a visibility query or a shell (`'`, `"`, `\`, control characters). Everything else stays
 * as it is, so ordinary ids read the same as before encoding.
 */
export function encodeIdComponent(component: string): string {
  return component.replace(
    ESCAPED_CHARACTERS,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/**
 * The workflow id of a question:
 * - `ask-user-question/<agent id>/<toolCallId>` for an agent,
 * - `ask-user-question/<agent id>/<sessionId>/<toolCallId>` for an agent's session,
 * - `ask-user-question/<toolCallId>` with no agent,
 * - `ask-user-question/<uuid>` with no toolCallId (nothing stable to key on; `randomUUID` is required so that
 *   workflow code passes its deterministic `uuid4`).
 *
 * Each component is encoded (`encodeIdComponent`), so the number of `/` tells the forms apart and no two
 * different (agent, session, tool call) triples give the same id.
 *
 * @throws UserInteractionError `INVALID_ARGS` when the id would pass the server's length limit.
 */
export function questionWorkflowId(
  request: Pick<AskUserQuestionRequest, 'agent' | 'toolCallId'>,
  randomUUID: () => string,
): string {
  if (request.toolCallId === undefined || request.toolCallId === '') {
    return `${WORKFLOW_ID_PREFIX}${randomUUID()}`;
  }
  const components: string[] = [];
  if (request.agent !== undefined) {
    components.push(request.agent.id);
    if (request.agent.sessionId !== undefined) components.push(request.agent.sessionId);
  }
  components.push(request.toolCallId);
  const workflowId = `${WORKFLOW_ID_PREFIX}${components.map(encodeIdComponent).join('/')}`;
  if (workflowId.length > MAX_WORKFLOW_ID_LENGTH) {
    const field = request.toolCallId.length >= workflowId.length / 2 ? 'toolCallId' : 'agent';
    throw UserInteractionError.invalidArgs([
      `${field}: the question id would be ${workflowId.length} characters, over the server's ${MAX_WORKFLOW_ID_LENGTH}-character limit`,
    ]);
  }
  return workflowId;
}

/**
 * The agent part of a question's workflow id: its first component, when the id names an agent besides the tool
 * call; `undefined` for a random id or one that is not a question's. Components are encoded, so a `/` in an id
 * is always a separator.
 */
export function agentOfWorkflowId(workflowId: string): string | undefined {
  if (!workflowId.startsWith(WORKFLOW_ID_PREFIX)) return undefined;
  const components = workflowId.slice(WORKFLOW_ID_PREFIX.length).split('/');
  return components.length >= 2 ? components[0] : undefined;
}
