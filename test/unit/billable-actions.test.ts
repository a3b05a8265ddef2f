/**
 * The bench's count of Temporal Cloud's billable actions, on the histories the replay test keeps (recorded on a
 * dev server) and on events made up to show one rule each.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { temporal } from '@temporalio/proto';

import { billableActions, withQueries } from '../../bench/billable-actions';
import { HISTORIES_DIR, historyFromJson } from '../../scripts/record-histories';
import fs from 'node:fs';
import path from 'node:path';

const EventType = temporal.api.enums.v1.EventType;

function recorded(name: string): temporal.api.history.v1.IHistoryEvent[] {
  const json = JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, `${name}.json`), 'utf8')) as unknown;
  return historyFromJson(json).events ?? [];
}

describe('billable actions', () => {
  test('a question answered by the signal on a plain worker costs what the floor does: a start and a signal', () => {
    assert.deepEqual(billableActions(recorded('plain-worker')), {
      total: 2,
      byKind: { 'workflow start': 1, signal: 1 },
      free: {},
    });
  });

  test('a child workflow is 2, a patch marker task 1, its TemporalChangeVersion upsert free', () => {
    // Answered by the update, on a worker with webhooks: the pending and the resolved notification are children.
    assert.deepEqual(billableActions(recorded('answered-by-update')), {
      total: 7,
      byKind: { 'workflow start': 1, 'local activities of a task': 1, 'child workflow start': 4, update: 1 },
      free: { 'patch version search attribute': 1 },
    });
  });

  test('every timer started is one; memo upserts are not in the published list', () => {
    const counted = billableActions(recorded('extended'));
    assert.equal(counted.byKind.timer, 2);
    assert.equal(counted.byKind.update, 2);
    assert.equal(counted.free['memo upsert'], 2);
  });

  test('a run that continued as new: its start is the action, not the continued-as-new event', () => {
    const first = billableActions(recorded('continued-as-new'));
    const next = billableActions(recorded('continued-answered'));
    assert.equal(first.byKind['workflow start'], 1);
    assert.equal(next.byKind['workflow start'], 1);
  });

  test('an upsert of a search attribute of its own is one; activity retries count; queries are added', () => {
    const events: temporal.api.history.v1.IHistoryEvent[] = [
      {
        eventType: EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
        upsertWorkflowSearchAttributesEventAttributes: {
          searchAttributes: { indexedFields: { TemporalChangeVersion: {}, AskUserStatus: {} } },
        },
      },
      { eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED },
      {
        eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
        activityTaskStartedEventAttributes: { attempt: 3 },
      },
      { eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW },
    ];
    assert.deepEqual(withQueries(billableActions(events), 2), {
      total: 6,
      byKind: { 'search attribute upsert': 1, activity: 1, 'activity retry': 2, query: 2 },
      free: {},
    });
  });
});
