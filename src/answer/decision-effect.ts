/**
 * What the agent receives for a decision on an approval, in words, for the person who decided: one wording for
 * every surface (the CLI, the inbox, Slack). Most decisions reach the agent as they were taken; an edit under a
 * hook that runs a call only with the model's own input (`onEdit: 'suggest'`) becomes a denial that suggests the
 * edited input, and the decider is told so rather than that the call was approved.
 *
 * Deterministic and workflow-safe: imports nothing at run time.
 */
import type { ApprovalDecisionType, ApprovalSubject } from '../types';

/** What becomes of a decision on the agent's side. */
export interface DecisionEffect {
  /** `false` when the hook turns the decision into something else (an edit into a denial). */
  asDecided: boolean;
  /** What the agent receives, as one sentence. */
  text: string;
}

/**
 * What the agent receives for a decision of type `decision.type` on `approval`.
 *
 * @example
 * decisionEffect({ toolName: 'deploy', onEdit: 'suggest' }, { type: 'edit' });
 * // { asDecided: false, text: 'deploy does not run: this agent runs a call only with the input its model gave, so it receives a denial that suggests calling deploy again with the edited input.' }
 */
export function decisionEffect(
  approval: Pick<ApprovalSubject, 'toolName' | 'onEdit'>,
  decision: { type: ApprovalDecisionType },
): DecisionEffect {
  const { toolName } = approval;
  switch (decision.type) {
    case 'approve':
      return { asDecided: true, text: `The agent runs ${toolName} with the input it asked for.` };
    case 'edit':
      if (approval.onEdit === 'suggest') {
        return {
          asDecided: false,
          text:
            `${toolName} does not run: this agent runs a call only with the input its model gave, so it ` +
            `receives a denial that suggests calling ${toolName} again with the edited input.`,
        };
      }
      return { asDecided: true, text: `The agent runs ${toolName} with the edited input.` };
    case 'reject':
      return { asDecided: true, text: `${toolName} does not run: the agent reads the rejection.` };
    case 'respond':
      return {
        asDecided: true,
        text: `${toolName} does not run: the agent reads the text in place of its result.`,
      };
  }
}
