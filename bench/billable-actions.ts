/**
 * Temporal Cloud's billable actions, counted from a workflow's history by the rules Temporal publishes
 * (docs.temporal.io, "Temporal Cloud Actions", docs/evaluate/cloud/actions.mdx in temporalio/documentation):
 *
 * - a workflow started: 1, whether by a client, by continue-as-new (the new run's start; the
 *   `WorkflowExecutionContinuedAsNew` event itself is not one) or as a child;
 * - a child workflow initiated: 2 in the parent's history (the intent, and the attempt to start it);
 * - a search attribute upsert: 1 per `UpsertWorkflowSearchAttributes` command, except one that sets only
 *   `TemporalChangeVersion` (written by `patched()`); search attributes given at the start are free;
 * - workflow execution options updated: 1;
 * - an activity scheduled: 1, and 1 per retry (the started event's attempt, less 1);
 * - markers: all the markers one workflow task records count as 1 (local activities; the published text says every
 *   `RecordMarker` of a task, so a `patched()` marker is counted too, which makes the count an upper bound);
 * - a timer started: 1 (including the implicit timer of `condition` with a timeout);
 * - a signal received: 1 (a signal sent to another workflow is counted in the receiver's history);
 * - an update accepted: 1 (a rejected one is 1 too, but leaves no event: see `rejectedUpdates`);
 * - a Nexus operation scheduled or its cancellation requested: 1;
 * - a reset: 1.
 *
 * Not in the published list, so not counted: memo upserts (`WorkflowPropertiesModified`), workflow tasks, a
 * workflow's completion, descriptions and history reads. A query is an action (1 per query a worker answers) but
 * leaves no event: the caller counts its `QueryWorkflow` calls (see `withQueries`).
 */
import type { temporal } from '@temporalio/proto';
import { temporal as proto } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Billable actions by kind, and their total. */
export interface ActionCount {
  total: number;
  byKind: Record<string, number>;
  /** Events that look billable but are not in the published list (memo upserts), by kind: for the notes. */
  free: Record<string, number>;
}

const EventType = proto.api.enums.v1.EventType;

/** The marker of a local activity's result (a `patched()` call records `core_patch`). */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/** The search attribute `patched()` writes, which the published rules leave out of the count. */
const CHANGE_VERSION = 'TemporalChangeVersion';

function add(record: Record<string, number>, kind: string, count: number): void {
  if (count > 0) record[kind] = (record[kind] ?? 0) + count;
}

/** No actions. */
export function noActions(): ActionCount {
  return { total: 0, byKind: {}, free: {} };
}

/** The billable actions the events of one run's history (or of several runs, concatenated) record. */
export function billableActions(events: readonly HistoryEvent[]): ActionCount {
  const byKind: Record<string, number> = {};
  const free: Record<string, number> = {};
  const markersByTask = new Map<string, string[]>();
  for (const event of events) {
    switch (event.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        add(byKind, 'workflow start', 1);
        break;
      case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
        add(byKind, 'child workflow start', 2);
        break;
      case EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
        const fields = Object.keys(
          event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {},
        );
        if (fields.some((field) => field !== CHANGE_VERSION)) add(byKind, 'search attribute upsert', 1);
        else add(free, 'patch version search attribute', 1);
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_OPTIONS_UPDATED:
        add(byKind, 'workflow options update', 1);
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        add(byKind, 'activity', 1);
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
        add(
          byKind,
          'activity retry',
          Math.max((event.activityTaskStartedEventAttributes?.attempt ?? 1) - 1, 0),
        );
        break;
      case EventType.EVENT_TYPE_MARKER_RECORDED: {
        const attributes = event.markerRecordedEventAttributes;
        const task = String(attributes?.workflowTaskCompletedEventId ?? event.eventId);
        markersByTask.set(task, [...(markersByTask.get(task) ?? []), attributes?.markerName ?? '']);
        break;
      }
      case EventType.EVENT_TYPE_TIMER_STARTED:
        add(byKind, 'timer', 1);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        add(byKind, 'signal', 1);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
        add(byKind, 'update', 1);
        break;
      case EventType.EVENT_TYPE_NEXUS_OPERATION_SCHEDULED:
      case EventType.EVENT_TYPE_NEXUS_OPERATION_CANCEL_REQUESTED:
        add(byKind, 'nexus operation', 1);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
        if (
          event.workflowTaskFailedEventAttributes?.cause ===
          proto.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW
        ) {
          add(byKind, 'reset', 1);
        }
        break;
      case EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED:
        add(free, 'memo upsert', 1);
        break;
      default:
        break;
    }
  }
  for (const names of markersByTask.values()) {
    add(
      byKind,
      names.includes(LOCAL_ACTIVITY_MARKER) ? 'local activities of a task' : 'patch markers of a task',
      1,
    );
  }
  return { total: sum(byKind), byKind, free };
}

function sum(record: Record<string, number>): number {
  return Object.values(record).reduce((total, count) => total + count, 0);
}

/**
 * `count` with the actions that leave no event: `queries` answered by a worker (the `QueryWorkflow` calls made
 * while a worker ran the workflow) and `rejectedUpdates` (an update its validator refused).
 */
export function withQueries(count: ActionCount, queries: number, rejectedUpdates = 0): ActionCount {
  const byKind = { ...count.byKind };
  add(byKind, 'query', queries);
  add(byKind, 'rejected update', rejectedUpdates);
  return { total: sum(byKind), byKind, free: { ...count.free } };
}

/** `counts` summed, then divided by `divisor` (per question). */
export function averageActions(counts: readonly ActionCount[], divisor = counts.length): ActionCount {
  const byKind: Record<string, number> = {};
  const free: Record<string, number> = {};
  for (const count of counts) {
    for (const [kind, value] of Object.entries(count.byKind)) add(byKind, kind, value / divisor);
    for (const [kind, value] of Object.entries(count.free)) add(free, kind, value / divisor);
  }
  return { total: sum(byKind), byKind, free };
}

/** `kind ×n, kind ×n`, in a stable order, for a table cell. */
export function describeKinds(record: Record<string, number>): string {
  const entries = Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return '—';
  const amount = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(1));
  return entries.map(([kind, value]) => `${kind} ${amount(value)}`).join(', ');
}
