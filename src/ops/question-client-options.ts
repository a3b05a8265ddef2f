/** The options of `QuestionClient`: the bound on each operation, and whether a change needs a worker first. */

/** Options of `QuestionClient`. */
export interface QuestionClientOptions {
  /**
   * Bound on each operation, so a half-up server or a missing worker (an answer is an update, which needs
   * one) gives an error instead of a hang; the grants' calls (`grants`) too. Default 30 s.
   */
  callTimeoutMs?: number;
  /**
   * Check that a worker polls the question's task queue before sending a decline, a decision or a deadline move
   * (and the grants' task queue before a grant), and refuse with `NO_WORKER` when none does (an update sent then
   * would wait for a worker and might be recorded long after the caller gave up). An answer is never refused for
   * want of a worker: it is recorded for one to validate (see `QuestionClient.answer`). Default true.
   */
  requireWorker?: boolean;
}
