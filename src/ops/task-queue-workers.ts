/**
 * Whether a worker polls a question's task queue, from the server's list of the queue's pollers: what the ops
 * client asks before it sends an update (which only a running worker takes), and what `show` and the inbox say
 * when none does.
 */
import type { Client } from '@temporalio/client';
import { agentOfWorkflowId } from '../question/workflow-id';

/** A worker that polled within this window counts as running (workers re-poll at least once a minute). */
const POLLER_FRESHNESS_MS = 90_000;

/** The last poll of each of a task queue's pollers, by poller identity, in ms since the epoch (server clock). */
export type PollTimes = Map<string, number>;

/** When each worker polling the task queue's workflow tasks last polled, as the server lists them. */
export async function workflowPolls(client: Client, taskQueue: string): Promise<PollTimes> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
  });
  const polls: PollTimes = new Map();
  for (const { identity, lastAccessTime } of response.pollers ?? []) {
    const at = Number(lastAccessTime?.seconds ?? 0) * 1000 + (lastAccessTime?.nanos ?? 0) / 1e6;
    polls.set(identity ?? '', Math.max(at, polls.get(identity ?? '') ?? 0));
  }
  return polls;
}

/** True when some worker polled the task queue's workflow tasks within the last 90 s. */
export async function workflowPollerSeen(client: Client, taskQueue: string): Promise<boolean> {
  const now = Date.now();
  return [...(await workflowPolls(client, taskQueue)).values()].some((at) => now - at < POLLER_FRESHNESS_MS);
}

/** True when a poller polled since `before` was read: one that polled again, or one not listed then. */
export function pollsMoved(before: PollTimes, after: PollTimes): boolean {
  for (const [identity, at] of after) {
    if (at > (before.get(identity) ?? Number.NEGATIVE_INFINITY)) return true;
  }
  return false;
}

/** How long a worker seen polling (or found missing) counts as such without asking the server again. */
const WORKER_SEEN_REUSE_MS = 5_000;

/**
 * How long a worker seen taking a task queue's tasks counts as such, for the answers that follow: shorter than
 * {@link WORKER_SEEN_REUSE_MS}, since an answer that trusts it waits for that worker past the 3 s admission.
 */
const TAKING_TASKS_REUSE_MS = 3_000;

/** How recent a read of a queue's pollers the first look of an answer may share (see {@link WorkerPresence.readPolls}). */
const FIRST_LOOK_SHARE_MS = 1_000;

/** One read of a task queue's pollers, shared by the answers that may use it. */
interface PollsRead {
  /** When the read was sent (ms since the epoch, this process's clock). */
  sentAt: number;
  polls: Promise<PollTimes>;
}

/** How many questions', agents' and task queues' entries each map keeps (the oldest is forgotten first). */
const REMEMBERED_QUESTIONS = 1_000;

/** Sets `key` to `value` as the newest entry of `map`, forgetting the oldest past {@link REMEMBERED_QUESTIONS}. */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBERED_QUESTIONS) map.delete(map.keys().next().value!);
}

/**
 * What one ops client knows of the workers of each task queue: seen polling moments ago, so that a burst of
 * decisions asks the server once, not once per decision; seen taking tasks (its pollers moved), so that answers
 * waiting behind one backlog read the pollers once between them (`answer-admission.ts`); or found missing (a
 * question's query or answer went untaken), so that the answer that follows a read is recorded for a worker
 * without waiting to be taken. It also remembers the task queue each agent's questions were read to be on, so
 * that an answer to another of its questions waits for a worker seen taking that queue's tasks without reading
 * the question first.
 */
export class WorkerPresence {
  /** When a worker was last seen polling each task queue. */
  private readonly seenAt = new Map<string, number>();
  /** When a worker was last seen taking each task queue's tasks. */
  private readonly takingTasksAt = new Map<string, number>();
  /** When a question of each task queue last went unanswered by any worker (its query timed out). */
  private readonly missingAt = new Map<string, number>();
  /** The task queue of each question found without a worker, by workflow id. */
  private readonly queueOf = new Map<string, string>();
  /** The latest read of each task queue's pollers, in flight or done. */
  private readonly latestRead = new Map<string, PollsRead>();
  /** The task queue of each agent's questions, by the agent id in their workflow ids, as last read. */
  private readonly queueOfAgent = new Map<string, string>();

  constructor(private readonly client: Client) {}

  /**
   * Notes that question `workflowId` of `taskQueue` found no worker (its query, or its answer, went untaken), so
   * that an answer to it moments later is recorded for a worker at once instead of waiting to be taken.
   */
  markMissing(taskQueue: string, workflowId: string): void {
    this.missingAt.set(taskQueue, Date.now());
    remember(this.queueOf, workflowId, taskQueue);
    this.noteQueue(workflowId, taskQueue);
  }

  /** Notes that question `workflowId` was read to be on `taskQueue`, for its agent's other questions. */
  noteQueue(workflowId: string, taskQueue: string): void {
    const agent = agentOfWorkflowId(workflowId);
    if (agent !== undefined) remember(this.queueOfAgent, agent, taskQueue);
  }

  /**
   * The task queue of question `workflowId`, as its agent's other questions were read to be on, when a worker
   * was seen taking that queue's tasks within the last 3 s: the queue an answer's first look assumes, so that
   * an answer behind that worker's backlog and accepted before the admission reads nothing. `undefined`
   * otherwise, or for an id that names no agent. Only a guess: an agent id may run on several queues.
   */
  busyQueueOf(workflowId: string): string | undefined {
    const agent = agentOfWorkflowId(workflowId);
    const taskQueue = agent === undefined ? undefined : this.queueOfAgent.get(agent);
    return taskQueue !== undefined && this.takingTasks(taskQueue) ? taskQueue : undefined;
  }

  /** True when the task queue of question `workflowId` was found without a worker moments ago. */
  recentlyMissing(workflowId: string): boolean {
    const taskQueue = this.queueOf.get(workflowId);
    if (taskQueue === undefined) return false;
    return (this.missingAt.get(taskQueue) ?? 0) > Date.now() - WORKER_SEEN_REUSE_MS;
  }

  /**
   * Notes that a worker was seen taking `taskQueue`'s tasks now (so it is seen polling, too): the queue no
   * longer counts as missing its worker.
   */
  sawTakingTasks(taskQueue: string): void {
    const now = Date.now();
    this.takingTasksAt.set(taskQueue, now);
    this.seenAt.set(taskQueue, now);
    this.missingAt.delete(taskQueue);
  }

  /**
   * Notes that a worker answered a query of one of `taskQueue`'s questions: a worker is back, and an answer
   * that follows waits for it to be taken rather than go to the signal at once.
   */
  sawAnswering(taskQueue: string): void {
    this.missingAt.delete(taskQueue);
  }

  /** True when a worker was seen taking `taskQueue`'s tasks within the last 3 s. */
  takingTasks(taskQueue: string): boolean {
    return (this.takingTasksAt.get(taskQueue) ?? 0) > Date.now() - TAKING_TASKS_REUSE_MS;
  }

  /**
   * The pollers of `taskQueue`, from a read sent after `sentAfter`: the latest read when it was (in flight
   * or done), a new one otherwise. Answers waiting behind one backlog reach their looks together (at c=64, all
   * 64 of a burst within moments); they share one read where each would make its own. Without `sentAfter`, a
   * read sent within the last second does: an answer's first look only needs the polls as of about then.
   * A failed read is not kept.
   */
  readPolls(taskQueue: string, sentAfter = Date.now() - FIRST_LOOK_SHARE_MS): Promise<PollTimes> {
    const latest = this.latestRead.get(taskQueue);
    if (latest !== undefined && latest.sentAt > sentAfter) return latest.polls;
    const read: PollsRead = { sentAt: Date.now(), polls: workflowPolls(this.client, taskQueue) };
    remember(this.latestRead, taskQueue, read);
    read.polls.catch(() => {
      if (this.latestRead.get(taskQueue) === read) this.latestRead.delete(taskQueue);
    });
    return read.polls;
  }

  /**
   * True when some worker polls the task queue's workflow tasks. A worker that is reconnecting (after a server
   * restart the server forgets its pollers) is given `patienceMs` to show up before the answer is false.
   */
  async polls(taskQueue: string, patienceMs: number): Promise<boolean> {
    if ((this.seenAt.get(taskQueue) ?? 0) > Date.now() - WORKER_SEEN_REUSE_MS) return true;
    for (const started = Date.now(); ;) {
      if (await workflowPollerSeen(this.client, taskQueue)) {
        this.seenAt.set(taskQueue, Date.now());
        return true;
      }
      if (Date.now() - started >= patienceMs) return false;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
