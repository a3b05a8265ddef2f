/**
 * The checks every approval request passes before anything is sent: not aborted, a tool name, a tool call id
 * (an approval is keyed by it, so a replayed call re-attaches), who asked (when given), a JSON input within the
 * byte budget, a usable input schema, and a well-formed audience. A pure function of the request: a provider checks the whole
 * request before it stores anything; `UserInteractionService` checks only the abort, which decides between its
 * own errors.
 *
 * Dependency-free, so every runtime can import it.
 */
import { isPlainObject } from '../common';
import { checkAudience } from '../answer/audience-rules';
import { schemaProblem } from '../answer/decision-rules';
import { codePointLength, jsonByteLength } from '../answer/json-size';
import type { ApprovalRequest } from '../types';
import { MAX_REQUEST_BYTES } from './ask-request-guard';
import { UserInteractionError } from './user-interaction-error';

/** The longest tool name (Anthropic and OpenAI allow 64 and 128; MCP tools are namespaced). */
export const MAX_TOOL_NAME_LENGTH = 200;

/** The longest description of a call, as for a question's text. */
export const MAX_APPROVAL_DESCRIPTION_LENGTH = 4000;

/**
 * Why `requestedBy` (of a request, or a provider's option) is not a name of who asks, or `undefined`: absent, or
 * a non-blank string of at most 200 characters.
 */
export function requestedByProblem(requestedBy: unknown): string | undefined {
  if (requestedBy === undefined) return undefined;
  if (typeof requestedBy !== 'string' || requestedBy.trim() === '') {
    return "must be a non-blank string: who asked for the call (the agent's owner or the session's user)";
  }
  if (codePointLength(requestedBy) > MAX_TOOL_NAME_LENGTH) {
    return `must be at most ${MAX_TOOL_NAME_LENGTH} characters`;
  }
  return undefined;
}

/** The first problem of a request, as `<field>: <reason>`. */
function problemOf(request: ApprovalRequest): string | undefined {
  const { toolName, toolCallId, description, inputSchema } = request;
  if (typeof toolName !== 'string' || toolName.trim() === '') return 'toolName: must be a non-blank string';
  if (codePointLength(toolName) > MAX_TOOL_NAME_LENGTH) {
    return `toolName: must be at most ${MAX_TOOL_NAME_LENGTH} characters`;
  }
  if (typeof toolCallId !== 'string' || toolCallId.trim() === '') {
    return 'toolCallId: an approval is keyed by its tool call id, so that a replayed call re-attaches: pass the call id';
  }
  if (description !== undefined) {
    if (typeof description !== 'string') return 'description: must be a string';
    if (codePointLength(description) > MAX_APPROVAL_DESCRIPTION_LENGTH) {
      return `description: must be at most ${MAX_APPROVAL_DESCRIPTION_LENGTH} characters`;
    }
  }
  const requester = requestedByProblem(request.requestedBy);
  if (requester !== undefined) return `requestedBy: ${requester}`;
  if (request.onEdit !== undefined && request.onEdit !== 'run' && request.onEdit !== 'suggest') {
    return "onEdit: must be 'run' or 'suggest'";
  }
  if (inputSchema !== undefined && !isPlainObject(inputSchema))
    return 'inputSchema: must be a JSON Schema object';
  const bytes = jsonByteLength({ input: request.input, inputSchema, description });
  if (request.input === undefined || bytes === undefined) return 'input: must be a JSON value';
  if (bytes > MAX_REQUEST_BYTES) {
    return `input: the request is ${bytes} bytes, over the ${MAX_REQUEST_BYTES}-byte limit`;
  }
  if (request.audience !== undefined) {
    const audience = checkAudience(request.audience);
    if (!audience.ok) return `${audience.path}: ${audience.reason}`;
  }
  if (inputSchema !== undefined) {
    // Only whether the schema can be used at all: the agent's own input is the framework's to check.
    const problem = schemaProblem(inputSchema, request.input);
    if (problem?.startsWith('inputSchema:') === true) return problem;
  }
  return undefined;
}

/** What the request's checks refuse, or `undefined`: first the abort, then the first malformed field. */
export function approvalRequestRefusal(request: ApprovalRequest): UserInteractionError | undefined {
  if (request.signal?.aborted === true) return UserInteractionError.approvalAborted(request.toolName);
  const problem = problemOf(request);
  return problem === undefined ? undefined : UserInteractionError.invalidArgs([problem]);
}

/** @throws UserInteractionError `ASK_ABORTED`, or `INVALID_ARGS` naming the field. */
export function guardApprovalRequest(request: ApprovalRequest): void {
  const refusal = approvalRequestRefusal(request);
  if (refusal !== undefined) throw refusal;
}
