/**
 * The grants workflow's one activity: the operator's grant policy, read as a local activity at each grant so
 * that the policy the workflow applied is in its history (and a replay, on any worker, applies the same).
 */
import type { ResolvedGrantPolicy } from '../question/grant-policy';

/**
 * Creates the grant activities the worker registers.
 *
 * @param policy the worker's grant policy, already checked (`resolveGrantPolicy`)
 */
export function createGrantActivities(policy: ResolvedGrantPolicy) {
  return {
    /** The worker's grant policy: how long a grant may last, and which tools may not be granted. */
    async grantPolicy(): Promise<ResolvedGrantPolicy> {
      return policy;
    },
  };
}
