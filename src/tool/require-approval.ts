/**
 * `requireApproval(tool, options)`: any tool `{ name, execute(input, context) }`, run only once a human has
 * decided on the call. The decision is a durable approval keyed by the tool call id, so an agent that crashed
 * and replays the call re-attaches to it (and gets a decision taken meanwhile at once) instead of asking again.
 *
 * What runs at most once, and what does not:
 * - the decision is taken exactly once: every replay of the call gets the same one;
 * - within one process, one `execute` runs the tool at most once for its decision;
 * - across a crash, the tool may run again: an agent killed after the tool ran but before its result was kept
 *   replays the call, gets the same approval, and runs the tool a second time. Nothing outside the tool can
 *   know whether its side effect happened. A tool that must not repeat uses `context.approval.key` (the same
 *   for every replay of the call) as the idempotency key of its side effect.
 *
 * Dependency-free: part of the tool-only entry.
 */
import { decisionBindingProblem } from '../answer/decision-binding';
import { definedFields } from '../common';
import { UserInteractionError } from '../interaction/user-interaction-error';
import type {
  ApprovalDecision,
  ApprovalRequest,
  AskUserAgent,
  JsonSchemaObject,
  QuestionAudience,
  UserInteraction,
} from '../types';
import type { ToolExecutionContext } from './ask-user-question-tool';

/** What a wrapped tool's `execute` gets besides the call's own context: the approval it runs under. */
export interface ApprovedExecutionContext extends ToolExecutionContext {
  /** Absent when the call needed no approval. */
  approval?: {
    /** `approve` or `edit`; the input the tool gets is the edited one for `edit`. */
    decision: Extract<ApprovalDecision, { type: 'approve' | 'edit' }>;
    /**
     * The same for every replay of this tool call (its agent, session and call id): the idempotency key for a
     * side effect that must happen once however often the agent replays the call.
     */
    key: string;
  };
}

/** Any tool with a name and an `execute`. */
export interface ApprovableTool<Input, Output> {
  name: string;
  execute(input: Input, context: ApprovedExecutionContext): Output | Promise<Output>;
}

/** Options of {@link requireApproval}. */
export interface RequireApprovalOptions<Input> {
  /** Where the approval is asked: `TemporalUserInteraction` (durable), a `UserInteractionService`, ... */
  userInteraction: UserInteraction;
  /** Which calls need a decision: all (`true`, the default), none, or those the predicate picks. */
  needsApproval?: boolean | ((input: Input, context: ToolExecutionContext) => boolean | Promise<boolean>);
  /** What the reviewer reads about the call. */
  description?: string | ((input: Input) => string);
  /** The tool's input schema (JSON Schema): an edited input must satisfy it. */
  inputSchema?: JsonSchemaObject;
  /**
   * Who may decide the calls (users and groups), over the policies' audience; a function picks it per call
   * (`(input) => (input.env === 'production' ? { groups: ['sre'] } : undefined)`). Never from the model.
   */
  audience?: QuestionAudience | ((input: Input) => QuestionAudience | undefined);
  /**
   * Who asks for the calls: the agent's owner, or the user of the call's session (a function reads it from the
   * call's context). A policy's `forbidSelfApproval` keeps them from deciding. Never from the model.
   */
  requestedBy?: string | ((context: ToolExecutionContext) => string | undefined);
  /**
   * What the model reads when the call is rejected. Default: `The user rejected this call of <tool>`, with
   * `: <reason>` when the reviewer gave one.
   */
  rejectedResult?: (decision: Extract<ApprovalDecision, { type: 'reject' }>, toolName: string) => string;
}

/** A tool whose `execute` waits for a decision first; a rejection or a response returns text instead. */
export interface ApprovalRequiredTool<Input, Output> {
  name: string;
  execute(input: Input, context?: ToolExecutionContext): Promise<Output | string>;
}

/** The default text of a rejection. */
export function rejectionText(decision: { reason?: string }, toolName: string): string {
  const reason = decision.reason?.trim();
  return `The user rejected this call of ${toolName}${reason === undefined || reason === '' ? '' : `: ${reason}`}`;
}

/** A decision that rejects the call. */
export type RejectDecision = Extract<ApprovalDecision, { type: 'reject' }>;

/** Whether `decision` ends the agent's run, not only this call: a reject with `stop`. */
export function stopsRun(decision: ApprovalDecision): decision is RejectDecision & { stop: true } {
  return decision.type === 'reject' && decision.stop === true;
}

/**
 * The failure that ends the agent's run when `decision` is a reject with `stop`: `RUN_STOPPED`, its message
 * `rejection` of it (what the model would read of the rejected call, by default {@link rejectionText}); else
 * `undefined`. Every integration that stops a run throws this one, so they all say it the same way.
 */
export function runStopped(
  decision: ApprovalDecision,
  rejection: (decision: RejectDecision) => string,
): UserInteractionError | undefined {
  return stopsRun(decision) ? UserInteractionError.runStopped(rejection(decision)) : undefined;
}

/**
 * What the model reads by default when a reviewer edited the input of a call that a framework cannot run with
 * another input (an interrupted OpenAI Agents run, the AI SDK's own approval flow): that the call did not run,
 * and the input to call the tool with instead, as JSON.
 */
export function editedCallText(decision: { input: unknown }, toolName: string): string {
  return (
    `The user did not run this call of ${toolName} as asked, and edited its input instead. ` +
    `To run it, call ${toolName} again with this input: ${JSON.stringify(decision.input)}`
  );
}

/**
 * `userInteraction.requestApproval`, bound: the one check every approval hook makes when it is built, so a
 * provider that takes no approvals is refused at once, naming `owner`, rather than at the first call.
 *
 * @throws UserInteractionError `INVALID_OPTIONS` when the provider has no `requestApproval`.
 */
export function approvalRequester(
  userInteraction: UserInteraction,
  owner: string,
): NonNullable<UserInteraction['requestApproval']> {
  const requestApproval = userInteraction.requestApproval?.bind(userInteraction);
  if (requestApproval === undefined) {
    throw UserInteractionError.invalidOptions(
      owner,
      'userInteraction',
      'takes no approvals (it has no requestApproval method)',
    );
  }
  return async (request) => boundDecision(request, await requestApproval(request));
}

/**
 * `decision`, when it is bound to the call's own input: the one check before any hook runs a tool on a decision
 * (every hook gets its decisions through {@link approvalRequester}). The input the hook was given must hash to
 * the decision's `requestedInputSha256`, and the input it runs (the asked one for `approve`, the decision's for
 * `edit`) to its `inputSha256`; a decision without hashes (recorded before they existed) is taken as before.
 *
 * @throws UserInteractionError `DECISION_MISMATCH` naming the tool call, when the decision approved other input.
 */
export function boundDecision(
  request: Pick<ApprovalRequest, 'toolName' | 'toolCallId' | 'input'>,
  decision: ApprovalDecision,
): ApprovalDecision {
  const problem = decisionBindingProblem(request.input, decision);
  if (problem === undefined) return decision;
  throw UserInteractionError.decisionMismatch(request.toolName, request.toolCallId, problem);
}

/**
 * The fields of an approval request as a hook reads them from its options and the framework's call: the
 * optional ones possibly `undefined`.
 */
export type ApprovalRequestFields = Pick<ApprovalRequest, 'toolName' | 'toolCallId' | 'input'> & {
  [Field in Exclude<keyof ApprovalRequest, 'toolName' | 'toolCallId' | 'input'>]?:
    ApprovalRequest[Field] | undefined;
};

/**
 * The approval request of a tool call, assembled in one place for `requireApproval` and every framework hook:
 * the fields that are `undefined` are left out, as the seam's exact optional fields say "absent".
 */
export function approvalRequestOf(fields: ApprovalRequestFields): ApprovalRequest {
  return definedFields(fields);
}

/** The key of a tool call, the same on every replay: its agent, session and call id, each URI-encoded. */
export function approvalKey(agent: AskUserAgent | undefined, toolCallId: string): string {
  return [agent?.id, agent?.sessionId, toolCallId]
    .filter((part): part is string => part !== undefined)
    .map(encodeURIComponent)
    .join('/');
}

/**
 * Wraps `tool` so that each call that needs approval waits for a decision, then runs the tool with the
 * original input (`approve`) or the edited one (`edit`), or returns the rejection or the response text
 * (`reject`, `respond`) without running it.
 *
 * @throws UserInteractionError from `execute`: `INVALID_ARGS` when a call that needs approval has no tool call
 *   id; `RUN_STOPPED` (its message the rejection text) when the call was rejected with `stop`, so the caller
 *   ends the run; `DECISION_MISMATCH` when the decision is bound to other input than the call's (the tool does
 *   not run); whatever the provider rejects with (`ASK_ABORTED`, `ASK_UNAVAILABLE`, ...).
 */
export function requireApproval<Input, Output>(
  tool: ApprovableTool<Input, Output>,
  options: RequireApprovalOptions<Input>,
): ApprovalRequiredTool<Input, Output> {
  const requestApproval = approvalRequester(options.userInteraction, 'requireApproval');
  return {
    name: tool.name,
    async execute(input: Input, context: ToolExecutionContext = {}): Promise<Output | string> {
      const needed =
        typeof options.needsApproval === 'function'
          ? await options.needsApproval(input, context)
          : (options.needsApproval ?? true);
      if (!needed) return await tool.execute(input, context);
      const { toolCallId } = context;
      if (toolCallId === undefined || toolCallId === '') {
        throw UserInteractionError.invalidArgs([
          `toolCallId: ${tool.name} needs approval, which is keyed by the tool call id; the agent loop passes none`,
        ]);
      }
      const description =
        typeof options.description === 'function' ? options.description(input) : options.description;
      const audience = typeof options.audience === 'function' ? options.audience(input) : options.audience;
      const { requestedBy } = options;
      const decision = await requestApproval(
        approvalRequestOf({
          toolName: tool.name,
          toolCallId,
          input,
          description,
          audience,
          inputSchema: options.inputSchema,
          agent: context.agent,
          signal: context.signal,
          requestedBy: typeof requestedBy === 'function' ? requestedBy(context) : requestedBy,
        }),
      );
      switch (decision.type) {
        case 'reject': {
          const rejection = (options.rejectedResult ?? rejectionText)(decision, tool.name);
          // The reviewer ended the run, not only this call: the caller's loop sees it, as a typed error.
          const stopped = runStopped(decision, () => rejection);
          if (stopped !== undefined) throw stopped;
          return rejection;
        }
        case 'respond':
          return decision.text;
        case 'approve':
        case 'edit': {
          const approved = decision.type === 'edit' ? (decision.input as Input) : input;
          return await tool.execute(approved, {
            ...context,
            approval: { decision, key: approvalKey(context.agent, toolCallId) },
          });
        }
      }
    },
  };
}
