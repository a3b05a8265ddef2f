/**
 * How long an answer's update waits for a worker to accept it, and how a busy worker is told from none.
 *
 * A worker with nothing queued accepts an update in milliseconds. Past the admission time (3 s) the answer is
 * recorded as the `answer` signal instead (`answer-awaiting-worker.ts`), so that an answerer is told within 5 s
 * that the answer is kept when no worker runs. Under load, though, a running worker can take longer than that
 * to reach the update: its workflow tasks queue up behind other questions' tasks. Recording those answers as
 * signals would cost a history read and a signal each, and tell the answerer "awaiting a worker" when one is
 * at work.
 *
 * So, when the update is still not accepted at two thirds of the admission time, the question is described
 * (for its task queue) and the queue's pollers are read; at the admission time they are read again. Pollers that
 * polled in between are a worker taking tasks now: the update keeps waiting for it, within half the call's bound.
 * No poll in between is no worker taking tasks: a stopped worker stays listed with its last poll, which no
 * longer moves. The answer is then recorded as a signal, as before, at the same 3 s. A worker seen taking a
 * queue's tasks counts as such for 3 s (`WorkerPresence`), so that answers waiting behind the same backlog read
 * the pollers once.
 *
 * Only the workflow task queue's own pollers are read: a worker busy with its cached questions' tasks alone
 * (sticky queues) polls it rarely, and its answers are recorded as signals, as before.
 */
import type { Client } from '@temporalio/client';
import type { QuestionOutcome } from '../types';
import { describeQuestion } from './answer-awaiting-worker';
import type { Description } from './question-history';
import { pollsMoved, workflowPolls, type PollTimes, type WorkerPresence } from './task-queue-workers';
import { NotTakenByWorker } from './update-refusals';

/**
 * What is known when the pollers are first read: the question's description, and the queue's last polls, unless
 * a worker was seen taking its tasks moments ago.
 */
interface FirstLook {
  description: Description;
  polls?: PollTimes;
}

/** How long the answer's update may wait for a worker, at most, in the two cases. */
export interface AdmissionTimes {
  /** Until the answer is recorded as a signal when no worker is seen taking tasks. */
  admissionMs: number;
  /** Until it is recorded as a signal although a worker takes tasks (its backlog is too long). */
  busyWorkerMs: number;
}

/**
 * Sends the update through `startUpdate` (which throws {@link NotTakenByWorker} when the worker has not accepted
 * it by the deadline it is given) and waits for a busy worker as the module describes.
 *
 * @throws NotTakenByWorker with the question's description when it was read, when no worker took the update
 */
export async function admitAnswer(
  client: Client,
  workflowId: string,
  startUpdate: (deadline: number) => Promise<QuestionOutcome>,
  { admissionMs, busyWorkerMs }: AdmissionTimes,
  workers: WorkerPresence,
): Promise<QuestionOutcome> {
  const began = Date.now();
  // A call bound too short to wait past the admission (half of it is the admission) leaves nothing to look for.
  if (busyWorkerMs <= admissionMs) return await startUpdate(began + admissionMs);
  let look: Promise<FirstLook | undefined> | undefined;
  const lookSoon = setTimeout(
    () => {
      look = firstLook(client, workflowId, workers);
    },
    (admissionMs * 2) / 3,
  );
  try {
    return await startUpdate(began + admissionMs);
  } catch (error) {
    if (!(error instanceof NotTakenByWorker)) throw error;
  } finally {
    clearTimeout(lookSoon);
  }
  const first = await (look ?? firstLook(client, workflowId, workers));
  if (first === undefined || first.description.status.name !== 'RUNNING') {
    throw new NotTakenByWorker(first?.description);
  }
  const { taskQueue } = first.description;
  if (first.polls !== undefined) {
    const polls = await workflowPolls(client, taskQueue).catch(() => undefined);
    if (polls === undefined || !pollsMoved(first.polls, polls)) throw new NotTakenByWorker(first.description);
    workers.sawTakingTasks(taskQueue);
  }
  try {
    return await startUpdate(began + Math.max(admissionMs, busyWorkerMs));
  } catch (error) {
    if (error instanceof NotTakenByWorker) throw new NotTakenByWorker(first.description);
    throw error;
  }
}

/**
 * The question's description, and its task queue's polls unless a worker was seen taking its tasks moments ago;
 * `undefined` when a read failed (the signal path reads the question again, and reports what is wrong with it).
 */
async function firstLook(
  client: Client,
  workflowId: string,
  workers: WorkerPresence,
): Promise<FirstLook | undefined> {
  try {
    const description = await describeQuestion(client.workflow.getHandle(workflowId));
    if (workers.takingTasks(description.taskQueue)) return { description };
    return { description, polls: await workflowPolls(client, description.taskQueue) };
  } catch {
    return undefined;
  }
}
