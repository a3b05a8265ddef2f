/**
 * How many updates one client has in flight on one workflow at a time.
 *
 * The server admits at most 10 updates in flight on a workflow (`history.maxInFlightUpdates`) and refuses the
 * next with `RESOURCE_EXHAUSTED`, which the SDK's connection retries after a backoff of 2 s, then 4 s: fifty
 * answers sent at once from one inbox waited seconds for a question decided in milliseconds, and 64 grant checks
 * of one agent over 15 s. Worse, a call abandoned meanwhile (an answer's update given up at its admission,
 * `answer-admission.ts`) leaves that retry scheduled on the connection, and if the connection is closed before
 * it fires, it throws an uncaught `Channel has been shut down`. Queued here instead, the calls after the first
 * few reach the workflow once the first are done: a question already answered then refuses them at once.
 */
import pLimit from 'p-limit';

/** One workflow's queue, and how many calls are waiting in it or running through it. */
interface Lane {
  limit: pLimit.Limit;
  calls: number;
}

/**
 * Per-workflow queues of one client, each running at most `perWorkflow` calls at once, the others in the order
 * they came; a workflow's queue is dropped when its last call is done.
 *
 * @example
 * const lanes = new UpdateLanes(5);
 * await lanes.run(handle.workflowId, () => handle.executeUpdate(submitAnswerUpdate, { args: [answer] }));
 */
export class UpdateLanes {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly perWorkflow: number) {}

  /** Runs `call` once fewer than `perWorkflow` of this client's calls on `workflowId` are running. */
  async run<T>(workflowId: string, call: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(workflowId);
    if (lane === undefined) {
      lane = { limit: pLimit(this.perWorkflow), calls: 0 };
      this.lanes.set(workflowId, lane);
    }
    lane.calls += 1;
    try {
      return await lane.limit(call);
    } finally {
      lane.calls -= 1;
      if (lane.calls === 0) this.lanes.delete(workflowId);
    }
  }

  /** How many workflows have calls waiting or running. */
  get size(): number {
    return this.lanes.size;
  }
}
