/**
 * What `ask-user approve`, `deny` and `respond` share: parse the id, `--as` and `--group`, send one decision through
 * `QuestionClient.decide` (which checks it, an edited input against the tool's schema, before anything is
 * sent), and print the outcome: what was decided, or, when the agent's hook turns the decision into something
 * else (an edit it cannot run), what the agent receives instead.
 */
import { decisionEffect } from '../answer/decision-effect';
import { approvalProgress } from '../answer/two-person-rule';
import { definedFields } from '../common';
import { QuestionClient, toWorkflowId } from '../ops/question-client';
import type { ApprovalDecisionType, DecideInput, QuestionOutcome } from '../types';
import type { BatchRequest } from '../ops/batch-decisions';
import { batchFilter, runCliBatch } from './batch-command';
import type { CommandSpec } from './command-specs';
import { actingAs, parse, requireId, type Options } from './parse';
import { printJsonOr } from './print';
import { withClient } from './with-client';

/** The line printed for a decision the agent acts on as it was taken. */
const DONE: Record<ApprovalDecisionType, string> = {
  approve: 'Approved',
  edit: 'Approved',
  reject: 'Denied',
  respond: 'Responded to',
};

/** What the person who decided reads: the decision, or what the agent receives when that is something else. */
function outcomeText(decision: DecideInput, outcome: QuestionOutcome, workflowId: string): string {
  const progress = outcome.status === 'pending' ? approvalProgress(outcome) : undefined;
  if (progress !== undefined) {
    // Counted toward the policy's required approvals or rejections: nothing is decided, the agent still waits.
    return `Recorded the ${decision.type} of ${workflowId}: ${progress}; it waits for the rest.`;
  }
  const effect = outcome.approval === undefined ? undefined : decisionEffect(outcome.approval, decision);
  if (effect === undefined || effect.asDecided) return `${DONE[decision.type]} ${workflowId}.`;
  return `Recorded the ${decision.type} of ${workflowId}. ${effect.text}`;
}

/**
 * Runs one decision command: `decisionOf` builds the decision from the parsed options. With `--all`, `batchOf`
 * builds the batch's request (the command has a batch form), sent to every pending approval the filters select.
 */
export async function runDecision(
  spec: CommandSpec,
  argv: readonly string[],
  decisionOf: (values: Options) => DecideInput,
  batchOf?: (values: Options) => Omit<BatchRequest, 'by'>,
): Promise<void> {
  const { values, positionals } = parse(spec, argv);
  const { name, groups } = actingAs(values);
  const filter = batchOf === undefined ? undefined : batchFilter(spec.name, values, positionals, 'approval');
  if (filter !== undefined) {
    const by = { name, groups: groups ?? [] };
    const request = { ...batchOf!(values), by };
    await withClient((client) =>
      runCliBatch(client, filter, DONE[decisionOf(values).type], values.json === true, () => request),
    );
    return;
  }
  const id = requireId(positionals, spec.name);
  const decision: DecideInput = {
    ...decisionOf(values),
    ...definedFields({ decidedBy: name, groups }),
  };
  const outcome = await withClient((client) => new QuestionClient(client).decide(id, decision));
  printJsonOr(values.json === true, outcome, () => outcomeText(decision, outcome, toWorkflowId(id)));
}
