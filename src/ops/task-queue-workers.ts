/**
 * Whether a worker polls a question's task queue, from the server's list of the queue's pollers: what the ops
 * client asks before it sends an update (which only a running worker takes), and what `show` and the inbox say
 * when none does.
 */
import type { Client } from '@temporalio/client';

/** A worker that polled within this window counts as running (workers re-poll at least once a minute). */
const POLLER_FRESHNESS_MS = 90_000;

/** True when some worker polled the task queue's workflow tasks within the last 90 s. */
export async function workflowPollerSeen(client: Client, taskQueue: string): Promise<boolean> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
  });
  const now = Date.now();
  return (response.pollers ?? []).some((poller) => {
    const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
    return now - seconds * 1000 < POLLER_FRESHNESS_MS;
  });
}
