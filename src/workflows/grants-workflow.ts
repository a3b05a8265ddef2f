/**
 * `askUserGrantsWorkflow`: one agent's standing grants (workflow id `ask-user-grants/<agent id>`), held in its
 * state. A decider adds one with the `grant` update (started with it, by update-with-start, the first time),
 * revokes one with `revokeGrant`; the agent's provider asks `coverCall` before it asks a person to approve a
 * call, which counts the grant's use once per approval; an approval whose workflow then does not let the grant
 * decide (the policy in force, its expiry, a decision first) takes the use back with `grantNotUsed`, so `uses`
 * counts the approvals the grant gave.
 * Every check runs here, at workflow time, in the order the server delivered the updates: a grant revoked or
 * expired covers nothing from that moment on, which no visibility listing (eventually consistent) could
 * promise. The operator's grant policy is read by the `grantPolicy` local activity at each grant, and the
 * worker's question policy for the agent by `webhookTargets` (as a question reads it): a policy that needs more
 * than one approval per call refuses every grant, which is one person's decision. So the refusal is the
 * workflow's and is in its history.
 *
 * The workflow runs until it is terminated, continuing as new when its history grows; a `coverCall` that no
 * grant covers is refused by its validator and writes nothing to the history.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyLocalActivities,
  setHandler,
  upsertMemo,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { createGrantActivities } from '../activities/grant-activities';
import type { createActivities } from '../activities/webhook-activities';
import { INVALID_ARGS, refusal } from '../question/failures';
import {
  approvalGrantOf,
  coverCallUpdate,
  grantUpdate,
  grantNotUsedSignal,
  listGrantsQuery,
  revokeGrantUpdate,
  type StandingGrant,
} from '../question/grant-definitions';
import { encodeIdComponent } from '../question/workflow-id';
import { isPlainObject } from '../common';
import { GrantState } from './grant-state';

const { grantPolicy } = proxyLocalActivities<ReturnType<typeof createGrantActivities>>({
  startToCloseTimeout: '10 seconds',
});
const { webhookTargets } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '10 seconds',
});

/**
 * Marks a run whose grants take turns (`setGrantHandlers`). A history written before replays its grants side by
 * side, as they ran: two grants on one task may have left a history that replays only that way.
 */
export const GRANTS_IN_TURNS_PATCH = 'grants-in-turns';

/**
 * Input of `askUserGrantsWorkflow`: the agent, and what a previous run handed over: the grants, and the
 * approvals whose use it counted.
 */
export interface GrantsWorkflowInput {
  agentId: string;
  grants?: StandingGrant[];
  counted?: string[];
}

/** A run continues as new past this many history events, or when the server suggests it. */
const CONTINUE_AFTER_EVENTS = 10_000;

function inputOf(input: unknown): GrantsWorkflowInput {
  if (!isPlainObject(input) || typeof input.agentId !== 'string' || input.agentId === '')
    throw refusal(INVALID_ARGS, 'invalid arguments: agentId: must be a non-empty string');
  if (input.grants !== undefined && !Array.isArray(input.grants))
    throw refusal(INVALID_ARGS, 'invalid arguments: grants: must be a list');
  if (
    input.counted !== undefined &&
    (!Array.isArray(input.counted) || input.counted.some((id) => typeof id !== 'string'))
  )
    throw refusal(INVALID_ARGS, 'invalid arguments: counted: must be a list of workflow ids');
  return input as unknown as GrantsWorkflowInput;
}

/** One agent's standing grants; see the module's comment. */
export async function askUserGrantsWorkflow(input: GrantsWorkflowInput): Promise<void> {
  const { agentId, grants, counted } = inputOf(input);
  const state = new GrantState(agentId, grants, counted);
  // Handlers are set before the first await, so the update that started the workflow is taken.
  setGrantHandlers(state);
  await condition(() => {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= CONTINUE_AFTER_EVENTS;
  });
  await condition(allHandlersFinished);
  await continueAsNew<typeof askUserGrantsWorkflow>({
    agentId,
    grants: state.kept(Date.now()),
    counted: state.countedApprovals(),
  });
}

function setGrantHandlers(state: GrantState): void {
  // Grants take turns through their local activities. Run side by side, their activities resolve one by one
  // on a live worker and all at once on replay, so the handlers' memo upserts and completions interleave
  // differently: a history of three grants sent at once could not be replayed ("ModifyWorkflowPropertiesMachine
  // does not handle WorkflowExecutionUpdateCompleted"). In turns, each grant's activities start after the
  // previous grant is done, on a live worker and on replay alike.
  let previousGrant: Promise<unknown> = Promise.resolve();
  const addGrant = async (raw: unknown): Promise<StandingGrant> => {
    // The validator ran the same check on this task; on replay only this handler runs. Checked again in its
    // turn: a grant before it may have changed what this one may do.
    const checked = state.checkGrant(raw, Date.now());
    const policy = await grantPolicy();
    const worker = await webhookTargets(state.agentId);
    const grant = state.add(checked, policy, newGrantId(state), Date.now(), worker.policy);
    upsertMemo({ ...state.memo(Date.now()) });
    return grant;
  };
  setHandler(
    grantUpdate,
    (raw) => {
      if (!patched(GRANTS_IN_TURNS_PATCH)) return addGrant(raw);
      const grant = previousGrant.then(() => addGrant(raw));
      previousGrant = grant.catch(() => undefined);
      return grant;
    },
    { validator: (raw) => void state.checkGrant(raw, Date.now()) },
  );
  setHandler(
    revokeGrantUpdate,
    (raw) => {
      const now = Date.now();
      const { grant, input } = state.checkRevoke(raw, now);
      const revoked = state.revoke(grant, input, now);
      upsertMemo({ ...state.memo(now) });
      return revoked;
    },
    { validator: (raw) => void state.checkRevoke(raw, Date.now()) },
  );
  setHandler(
    coverCallUpdate,
    (raw) => {
      const now = Date.now();
      const { grant, call } = state.covering(raw, now);
      state.recordUse({ id: grant.id, workflowId: call.workflowId, usedAt: new Date(now).toISOString() });
      return approvalGrantOf(grant);
    },
    { validator: (raw) => void state.covering(raw, Date.now()) },
  );
  setHandler(grantNotUsedSignal, (raw) => void state.takeBackUse(raw));
  setHandler(listGrantsQuery, () => state.list());
}

/** `<encoded agent id>/<12 hex digits>`: the agent in the id, so a revoke finds its workflow from the id alone. */
function newGrantId(state: GrantState): string {
  let id: string;
  do id = `${encodeIdComponent(state.agentId)}/${uuid4().replace(/-/g, '').slice(0, 12)}`;
  while (state.has(id));
  return id;
}
