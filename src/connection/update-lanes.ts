/**
 * How many updates one client has in flight on one workflow at a time.
 *
 * The server admits at most 10 updates in flight on a workflow (`history.maxInFlightUpdates`) and refuses the
 * next with `RESOURCE_EXHAUSTED`, which the SDK's connection retries after a backoff of 2 s, then 4 s: fifty
 * answers sent at once from one inbox waited seconds for a question decided in milliseconds, and 64 grant checks
 * of one agent over 15 s. A call abandoned meanwhile (an answer's update given up at its admission,
 * `answer-admission.ts`) also leaves that retry scheduled on the connection, and if the connection is closed
 * before it fires, it throws an uncaught `Channel has been shut down`. Queued here instead, one client's calls
 * after the first few reach the workflow once the first are done: a question already answered then refuses them
 * at once. Other clients' calls still count towards the server's limit.
 *
 * A call waiting for its turn runs, when the turn comes, in its own caller's async context: the SDK reads each
 * call's deadline, abort signal and metadata from there (`withDeadline`, `withAbortSignal`). (A promise limiter
 * such as p-limit 3 runs a queued call from the call that finished before it, in that caller's context.)
 */

/**
 * How many updates one ops client runs on one workflow at once (a question's answers, a grants workflow's grants
 * and revocations): half the server's limit, the rest left for other clients.
 */
export const OPS_UPDATES_PER_WORKFLOW = 5;

/** A call's turn did not come before its deadline; `isDeadlineExceeded` counts it as the deadline passing. */
export class TurnTimedOut extends Error {
  constructor() {
    super('the call waited past its deadline for its turn among the calls on the same workflow');
    this.name = 'TurnTimedOut';
  }
}

/** One workflow's calls: how many hold a turn, and the callers waiting for one, first come first. */
interface Lane {
  running: number;
  waiting: (() => void)[];
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

  /**
   * Runs `call` once fewer than `perWorkflow` of this client's calls on `workflowId` are running.
   *
   * @param deadline epoch milliseconds: a turn that has not come by then is given up
   * @throws TurnTimedOut when the deadline passes before the turn comes; `call` is not run
   */
  async run<T>(workflowId: string, call: () => Promise<T>, deadline?: number): Promise<T> {
    let lane = this.lanes.get(workflowId);
    if (lane === undefined) {
      lane = { running: 0, waiting: [] };
      this.lanes.set(workflowId, lane);
    }
    // A call that finishes hands its turn to the first waiting one, so none can take it in between.
    if (lane.running < this.perWorkflow) lane.running += 1;
    else await turn(lane, deadline);
    try {
      return await call();
    } finally {
      const next = lane.waiting.shift();
      if (next !== undefined) next();
      else if (--lane.running === 0) this.lanes.delete(workflowId);
    }
  }

  /** How many workflows have calls waiting or running. */
  get size(): number {
    return this.lanes.size;
  }
}

/** Resolves when a finishing call hands `lane`'s turn over; rejects with {@link TurnTimedOut} at `deadline`. */
function turn(lane: Lane, deadline: number | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer =
      deadline === undefined
        ? undefined
        : setTimeout(
            () => {
              lane.waiting.splice(lane.waiting.indexOf(go), 1);
              reject(new TurnTimedOut());
            },
            Math.max(0, deadline - Date.now()),
          );
    function go(): void {
      clearTimeout(timer);
      resolve();
    }
    lane.waiting.push(go);
  });
}
