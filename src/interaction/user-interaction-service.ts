/**
 * `UserInteractionService`: the `ctx.userInteraction` an agent host exposes. Exactly one provider answers at a
 * time. The service decides only between its own errors, in the contract's order (aborted, empty, no
 * provider); the provider it delegates to checks the whole request, as it does for any caller.
 */
import type {
  ApprovalDecision,
  ApprovalRequest,
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  UserInteraction,
} from '../types';
import { UserInteractionError } from './user-interaction-error';
import { assertHasQuestions, assertNotAborted } from './ask-request-guard';

/** Anything that can answer questions; the in-memory and Temporal providers are two. */
export type UserInteractionProvider = UserInteraction;

/**
 * Holds the registered provider and forwards questions to it.
 *
 * @example
 * const service = new UserInteractionService();
 * const dispose = service.registerProvider(new TemporalUserInteraction());
 * const tool = createAskUserQuestionTool({ userInteraction: service });
 */
export class UserInteractionService implements UserInteraction {
  private registration: { provider: UserInteractionProvider } | undefined;

  /**
   * Registers the provider that answers questions. Returns a function that unregisters it (only if it is
   * still the registered one, so a stale dispose cannot remove a newer provider).
   *
   * @throws UserInteractionError `DUPLICATE_PROVIDER` when a provider is already registered.
   */
  registerProvider(provider: UserInteractionProvider): () => void {
    if (this.registration !== undefined) throw UserInteractionError.duplicateProvider();
    // Each registration is its own object, so a dispose from an earlier registration of the same provider
    // cannot remove a later one.
    const registration = { provider };
    this.registration = registration;
    return () => {
      if (this.registration === registration) this.registration = undefined;
    };
  }

  /** True while a provider is registered. */
  hasProvider(): boolean {
    return this.registration !== undefined;
  }

  /**
   * Asks through the registered provider.
   *
   * @throws UserInteractionError `ASK_ABORTED` when the signal is already aborted, `EMPTY_QUESTIONS` for no
   *   questions, `NO_PROVIDER` when none is registered; otherwise whatever the provider rejects with.
   */
  async ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer> {
    assertNotAborted(request.signal);
    assertHasQuestions(request.questions);
    const registration = this.registration;
    if (registration === undefined) throw UserInteractionError.noProvider();
    return registration.provider.ask(request);
  }

  /**
   * Asks the registered provider for a decision on a tool call.
   *
   * @throws UserInteractionError `ASK_ABORTED`, `NO_PROVIDER`, or `INVALID_OPTIONS` when the provider takes no
   *   approvals; otherwise whatever the provider rejects with (`INVALID_ARGS` naming the field, for the
   *   shipped providers).
   */
  async requestApproval(request: ApprovalRequest): Promise<ApprovalDecision> {
    if (request.signal?.aborted === true) throw UserInteractionError.approvalAborted(request.toolName);
    const registration = this.registration;
    if (registration === undefined) throw UserInteractionError.noProvider();
    const { provider } = registration;
    if (provider.requestApproval === undefined) {
      throw UserInteractionError.invalidSetting(
        'the registered user-interaction provider takes no approvals (it has no requestApproval method)',
      );
    }
    return provider.requestApproval(request);
  }
}
