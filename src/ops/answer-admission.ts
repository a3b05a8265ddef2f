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
 * polled in between are a worker taking tasks now: the update keeps waiting for it, within half the call's bound,
 * on the same call (sending it again would cost the server a second update call for nothing).
 * No poll in between is no worker taking tasks: a stopped worker stays listed with its last poll, which no
 * longer moves. The answer is then recorded as a signal, as before, at the same 3 s. A worker seen taking a
 * queue's tasks counts as such for 3 s (`WorkerPresence`), so that answers waiting behind the same backlog read
 * the pollers once; an answer of that queue accepted by a worker is such a sighting too. Answers that reach
 * their looks together share the reads of the queue's pollers (`WorkerPresence.readPolls`).
 *
 * The first look reads only the question's status and task queue (`lookAtQuestion`), without decoding its memo,
 * and not even that for a question of an agent whose other questions were read to be on a queue seen taking
 * tasks (`WorkerPresence.busyQueueOf`): answers accepted between the look and the admission read nothing. The
 * verdict is always the question's own queue's: an answer whose look assumed the queue reads the question then.
 *
 * Only the workflow task queue's own pollers are read: a worker busy with its cached questions' tasks alone
 * (sticky queues) polls it rarely, and its answers are recorded as signals, as before.
 */
import type { Client } from '@temporalio/client';
import { callScopeStorage, withCallScope } from '../connection/call-scope';
import type { QuestionOutcome } from '../types';
import { lookAtQuestion, type QuestionLook } from './answer-awaiting-worker';
import { pollsMoved, type PollTimes, type WorkerPresence } from './task-queue-workers';
import { NotTakenByWorker } from './update-refusals';

/**
 * What is known when the pollers are first read: whether the question runs, its task queue, and the queue's last
 * polls, unless a worker was seen taking its tasks moments ago.
 */
interface FirstLook extends QuestionLook {
  /** The queue's last polls, and when they were read (this process's clock). */
  polls?: { times: PollTimes; readAt: number };
  /** The task queue is the one the question's agent's other questions were read to be on, not read itself. */
  assumed?: true;
}

/** How long the answer's update may wait for a worker, at most, in the two cases. */
export interface AdmissionTimes {
  /** Until the answer is recorded as a signal when no worker is seen taking tasks. */
  admissionMs: number;
  /** Until it is recorded as a signal although a worker takes tasks (its backlog is too long). */
  busyWorkerMs: number;
}

/**
 * How long an answer's update may wait for a worker to accept it before it is recorded as a signal instead,
 * unless a worker is seen taking tasks: a running worker accepts one in milliseconds, and the answerer is to be
 * told what happened within 5 s. Half the call's bound when that is shorter, leaving the other half to record
 * the signal.
 */
const ANSWER_ADMISSION_MS = 3_000;

/**
 * The admission times of an answer with `leftMs` of its call's bound left (its turn among the question's updates
 * may have come late): 3 s, or half of what is left; a busy worker, half of what is left.
 */
export function admissionTimes(leftMs: number): AdmissionTimes {
  const halfBound = leftMs / 2;
  return { admissionMs: Math.min(ANSWER_ADMISSION_MS, halfBound), busyWorkerMs: halfBound };
}

/**
 * Sends the update through `startUpdate`, its calls under the deadline it is given, set here (it throws
 * {@link NotTakenByWorker} when the worker has not accepted it by then), and waits for a busy worker as the
 * module describes. The update is sent once: a busy worker's answer keeps waiting on the same call, and an
 * answer for no worker abandons it (the server keeps the admitted update, which a returning worker takes under
 * the same answer id, so it is recorded once).
 *
 * @throws NotTakenByWorker when no worker took the update
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
  if (busyWorkerMs <= admissionMs) {
    const deadline = began + admissionMs;
    return await withCallScope(client, { deadline }, () => startUpdate(deadline));
  }
  const abandon = new AbortController();
  const update = settled(
    withCallScope(
      client,
      { deadline: began + busyWorkerMs, abortSignal: joinedAbort(client, abandon.signal) },
      () => startUpdate(began + busyWorkerMs),
    ),
  );
  // One timer at a time: the look at two thirds of the admission, then the admission itself.
  let look: Promise<FirstLook | undefined> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const admissionPassed = new Promise<undefined>((resolve) => {
    timer = setTimeout(
      () => {
        look = firstLook(client, workflowId, workers);
        timer = setTimeout(() => resolve(undefined), admissionMs / 3);
      },
      (admissionMs * 2) / 3,
    );
  });
  const admitted = await Promise.race([update, admissionPassed]);
  clearTimeout(timer);
  if (admitted !== undefined) {
    if (admitted.ok && look !== undefined) void look.then((first) => sawTaken(workers, first));
    return outcomeOf(admitted);
  }
  const verdict = await Promise.race([update, busyWorker(client, workflowId, workers, look)]);
  if ('ok' in verdict) return outcomeOf(verdict);
  if (verdict.busy) {
    const call = await update;
    if (call.ok) workers.sawTakingTasks(verdict.taskQueue);
    return outcomeOf(call);
  }
  abandon.abort();
  throw new NotTakenByWorker(verdict.taskQueue);
}

/**
 * What the pollers tell once the admission has passed: a worker taking the queue's tasks, or none (with the
 * queue when the question runs on it and its pollers were read to have stopped).
 */
type Verdict = { busy: true; taskQueue: string } | { busy: false; taskQueue?: string };

/** The verdict at the admission, from the first look (taken now when it was not yet). */
async function busyWorker(
  client: Client,
  workflowId: string,
  workers: WorkerPresence,
  look: Promise<FirstLook | undefined> | undefined,
): Promise<Verdict> {
  let first = await (look ?? firstLook(client, workflowId, workers));
  // The verdict is the question's own queue's: a look that assumed its agent's queue reads the question now.
  if (first?.assumed === true) first = await firstLook(client, workflowId, workers, first.taskQueue);
  if (first === undefined || !first.running) return { busy: false };
  const { taskQueue } = first;
  // Another answer's verdict may have seen the queue's worker taking tasks since this one's first look.
  if (first.polls !== undefined && !workers.takingTasks(taskQueue)) {
    // A read sent after the first read's reply, so that a poll between the two shows.
    const polls = await workers.readPolls(taskQueue, first.polls.readAt).catch(() => undefined);
    if (polls === undefined) return { busy: false };
    if (!pollsMoved(first.polls.times, polls)) return { busy: false, taskQueue };
    workers.sawTakingTasks(taskQueue);
  }
  return { busy: true, taskQueue };
}

/**
 * An update a worker accepted after the first look: its queue's worker is taking tasks now. Not when the look
 * assumed the queue: an answer taken on another queue must not keep this one counting as taking tasks.
 */
function sawTaken(workers: WorkerPresence, first: FirstLook | undefined): void {
  if (first?.running === true && first.assumed !== true) workers.sawTakingTasks(first.taskQueue);
}

/** A call's settlement as a value, so that it can be raced and read later. */
type Settled = { ok: true; value: QuestionOutcome } | { ok: false; error: unknown };

function settled(call: Promise<QuestionOutcome>): Promise<Settled> {
  return call.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/** The settled call's outcome, or its error thrown. */
function outcomeOf(call: Settled): QuestionOutcome {
  if (call.ok) return call.value;
  throw call.error;
}

/**
 * `own`, joined with the abort signal of the caller's scope if it set one: the SDK's `withAbortSignal` replaces
 * the scope's signal rather than adding to it.
 */
function joinedAbort(client: Client, own: AbortSignal): AbortSignal {
  const outer = callScopeStorage(client)?.getStore()?.abortSignal;
  return outer === undefined ? own : AbortSignal.any([outer, own]);
}

/**
 * Whether the question runs and on which task queue ({@link lookAtQuestion}), and the queue's polls unless a
 * worker was seen taking its tasks moments ago; `undefined` when a read failed or the workflow is not a question
 * (the signal path reads the question again, and reports what is wrong with it). A question of an agent whose
 * queue is known and busy is not read: its queue is assumed until the verdict, which reads it with that
 * `assumedQueue`. If the question is on it, that queue counts as taking tasks, as a look of its own would have
 * found it then (its sighting may have lapsed since).
 */
async function firstLook(
  client: Client,
  workflowId: string,
  workers: WorkerPresence,
  assumedQueue?: string,
): Promise<FirstLook | undefined> {
  // Another question of its agent was read to be on a queue whose worker is taking tasks: most likely this one
  // waits behind the same backlog, and is accepted before the admission. Nothing is read unless it is not.
  const busyQueue = assumedQueue === undefined ? workers.busyQueueOf(workflowId) : undefined;
  if (busyQueue !== undefined) return { running: true, taskQueue: busyQueue, assumed: true };
  try {
    const { running, taskQueue } = await lookAtQuestion(client, workflowId);
    workers.noteQueue(workflowId, taskQueue);
    if (!running || taskQueue === assumedQueue || workers.takingTasks(taskQueue))
      return { running, taskQueue };
    const times = await workers.readPolls(taskQueue);
    return { running, taskQueue, polls: { times, readAt: Date.now() } };
  } catch {
    return undefined;
  }
}
