/** A workflow's history as event type names, so a failed comparison shows which events differ. */

import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** The names of the events in `workflowId`'s history, oldest first (`EVENT_TYPE_WORKFLOW_TASK_COMPLETED`, ...). */
export async function historyEventTypes(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map(eventTypeName);
}

/** The name of one event's type, or its number when the enum does not know it. */
export function eventTypeName(event: temporal.api.history.v1.IHistoryEvent): string {
  return String(temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? event.eventType);
}
