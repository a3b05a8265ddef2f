/**
 * A decision bound to the input it decided: where it is recorded, the SHA-256 of the input as asked
 * (`requestedInputSha256`) and of the input the agent may run (`inputSha256`: the asked input for `approve`, the
 * edited one for `edit`); where a hook is about to run the tool, the same hashes of what it holds. A decision
 * whose hashes differ from the call's approved other input, and nothing runs (a replay, a bug, a history edited
 * by hand, or a hook re-attached to another call's approval by its tool call id).
 *
 * Written once for the workflow, the in-memory provider and every hook. Workflow-safe (pure JavaScript).
 */
import { definedFields } from '../common';
import type { ApprovalDecision, DecideInput, DecisionInputHashes } from '../types';
import { inputSha256 } from './input-hash';

/**
 * The hash of a tool call's input as it reaches the workflow: through JSON, so that a hook's value hashes as
 * the workflow's copy of it does (`undefined` fields dropped, `NaN` as `null`, a missing input as `null`). A
 * value JSON cannot carry (a `BigInt`, a cycle) has no hash.
 */
function hashOf(input: unknown): string | undefined {
  try {
    return inputSha256(JSON.parse(JSON.stringify(input ?? null)) as unknown);
  } catch {
    return undefined;
  }
}

/**
 * The hash of the input a decision lets the agent run: the input as asked (`askedInput`) for `approve`, the
 * edited input for `edit`; `undefined` for `reject` and `respond`, which run nothing, and for input JSON cannot
 * carry. The one place that choice is written: the workflow's record, the count of approvals under the
 * two-person rule and every hook's check use it. Never throws (an absent input hashes as `null`).
 */
export function approvedInputSha256(
  askedInput: unknown,
  decision: Pick<DecideInput, 'type' | 'input'>,
): string | undefined {
  if (decision.type === 'approve') return hashOf(askedInput);
  if (decision.type === 'edit') return hashOf(decision.input);
  return undefined;
}

/** The hashes a decision on the call asked with `askedInput` is recorded with. */
export function decisionHashes(
  askedInput: unknown,
  decision: Pick<DecideInput, 'type' | 'input'>,
): DecisionInputHashes {
  const requestedInputSha256 = hashOf(askedInput);
  const inputSha256 = approvedInputSha256(askedInput, decision);
  return {
    ...(requestedInputSha256 === undefined ? {} : { requestedInputSha256 }),
    ...(inputSha256 === undefined ? {} : { inputSha256 }),
  };
}

/**
 * Why `decision` may not be acted on for a call given `askedInput`, or `undefined` when it may: the input the
 * hook was given must hash to `requestedInputSha256`, and the input it would run (the asked one for `approve`,
 * the decision's for `edit`) to `inputSha256`.
 *
 * A decision without `requestedInputSha256` was recorded before decisions carried hashes (or comes from a
 * provider that records none): it is taken as before, unbound. One that has it must have `inputSha256` too when
 * it runs the tool: a hash half removed binds nothing.
 */
export function decisionBindingProblem(askedInput: unknown, decision: ApprovalDecision): string | undefined {
  const { requestedInputSha256, inputSha256: runSha256 } = decision;
  if (requestedInputSha256 === undefined) return undefined;
  if (hashOf(askedInput) !== requestedInputSha256) {
    return `the decision was taken on other input (requestedInputSha256 ${requestedInputSha256})`;
  }
  if (decision.type !== 'approve' && decision.type !== 'edit') return undefined;
  if (runSha256 === undefined) return 'the decision approved no input hash (inputSha256 is missing)';
  if (approvedInputSha256(askedInput, decision) !== runSha256) {
    return `the decision approved other input than it carries (inputSha256 ${runSha256})`;
  }
  return undefined;
}

/**
 * A checked decision as the record keeps it, and as the agent receives it: bound to the input asked
 * (`askedInput`, the approval's) and to the input it lets the agent run, by their SHA-256.
 */
export function recordedDecision(input: DecideInput, now: string, askedInput: unknown): ApprovalDecision {
  const decidedBy = input.decidedBy;
  const hashes = decisionHashes(askedInput, input);
  switch (input.type) {
    case 'approve':
      return definedFields({ type: input.type, decidedBy, decidedAt: now, ...hashes });
    case 'edit':
      return {
        type: input.type,
        input: input.input,
        ...definedFields({ decidedBy }),
        decidedAt: now,
        ...hashes,
      };
    case 'reject': {
      const stop = input.stop === true ? true : undefined;
      return definedFields({
        type: input.type,
        reason: input.reason,
        stop,
        decidedBy,
        decidedAt: now,
        ...hashes,
      });
    }
    case 'respond':
      return definedFields({
        type: input.type,
        text: input.text ?? '',
        decidedBy,
        decidedAt: now,
        ...hashes,
      });
  }
}
