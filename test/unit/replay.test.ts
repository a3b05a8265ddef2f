/**
 * Replays the saved histories in `test/histories/` (recorded by `scripts/record-histories.ts`) against the
 * current workflow code. A change that would break questions already pending in production — a
 * non-deterministic change — fails here. The second test replays the same histories against a deliberately
 * altered copy of the workflows (`test/fixtures/nondeterministic-workflows.ts`), so the check itself is shown
 * to fail when it should.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import type { HistoryAndWorkflowId } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker, type ReplayResult } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';

import { HISTORIES_DIR, historyFromJson } from '../../scripts/record-histories';
import { workflowsPath, workflowsWithWorkerDefaultsPath } from '../../src/worker';

// Replaying the altered workflows makes core warn about each failing task; the test reads the results instead.
Runtime.install({
  logger: new DefaultLogger('ERROR'),
  telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
});

/** The scenarios the recorder saves; a missing file means a lost guard, so it fails the test. */
const EXPECTED_HISTORIES = [
  'answered-by-signal',
  'answered-by-update',
  // Providers' `closingMemo: 'unless-answered'`: no memo change as an answered question closes; a declined
  // one still records its status.
  'answered-no-closing-memo',
  'cancelled',
  'declined-closing-memo',
  'declined',
  // Question policies: answered by the recommended-answer expiry; reminded and escalated by the worker's
  // policy; answered after its deadline was moved past the first one.
  'expired-recommended',
  'expired',
  'extended',
  // Providers' `workerDefaults: 'if-configured'`: on a worker with defaults (a patch marker and the local
  // activity), and on one without (nothing), with and without a webhook of the question's own.
  'fetched-worker-defaults',
  'plain-worker-webhook',
  'plain-worker',
  'reminded',
  'webhook-delivery',
  // A provider with `workerDefaults: false`: no webhook-targets local activity at start.
  'without-worker-defaults',
];

interface SavedHistory extends HistoryAndWorkflowId {
  file: string;
  workflowType: string;
}

function loadHistories(): SavedHistory[] {
  const files = readdirSync(HISTORIES_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort();
  return files.map((file) => {
    const json = JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8')) as unknown;
    const history = historyFromJson(json);
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    assert.ok(
      started?.workflowId,
      `${file}: the first event must be WorkflowExecutionStarted with a workflow id`,
    );
    return { file, workflowId: started.workflowId, workflowType: started.workflowType?.name ?? '', history };
  });
}

async function replay(workflows: string, histories: SavedHistory[]): Promise<Map<string, ReplayResult>> {
  const results = new Map<string, ReplayResult>();
  const replayed = Worker.runReplayHistories(
    { workflowsPath: workflows, replayName: 'durable-ask-user-replay' },
    histories,
  );
  for await (const result of replayed) results.set(result.workflowId, result);
  return results;
}

let histories: SavedHistory[];

before(() => {
  histories = loadHistories();
});

describe('replay of saved histories', () => {
  test('every saved scenario is there', () => {
    assert.deepEqual(
      histories.map((saved) => path.basename(saved.file, '.json')),
      EXPECTED_HISTORIES,
    );
  });

  // A history may be replayed by any worker of its task queue: one with question defaults or one without.
  for (const [entry, workflows] of [
    ['a worker without question defaults', workflowsPath],
    ['a worker with question defaults', workflowsWithWorkerDefaultsPath],
  ] as const) {
    test(`the current workflow code of ${entry} replays every saved history without a determinism error`, async () => {
      const results = await replay(workflows, histories);
      assert.equal(results.size, histories.length);
      for (const saved of histories) {
        const result = results.get(saved.workflowId);
        assert.ok(result !== undefined, `${saved.file}: no replay result`);
        assert.equal(
          result.error,
          undefined,
          `${saved.file}: ${result.error?.stack ?? String(result.error)}`,
        );
      }
    });
  }

  test('a non-deterministic change to the question workflow fails the replay', async () => {
    const altered = path.join(__dirname, '..', 'fixtures', 'nondeterministic-workflows.ts');
    const results = await replay(altered, histories);
    assert.equal(results.size, histories.length);
    for (const saved of histories) {
      const result = results.get(saved.workflowId);
      assert.ok(result !== undefined, `${saved.file}: no replay result`);
      if (saved.workflowType === 'askUserQuestionWorkflow') {
        assert.ok(
          result.error instanceof DeterminismViolationError,
          `${saved.file}: expected a DeterminismViolationError, got ${String(result.error)}`,
        );
        assert.match(result.error.message, /Nondeterminism/i);
        if (process.env.SHOW_REPLAY_ERRORS)
          console.log(`${saved.file}: ${result.error.name}: ${result.error.message}`);
      } else {
        // The delivery workflow is unchanged in the fixture: its history still replays.
        assert.equal(result.error, undefined, `${saved.file}: ${String(result.error)}`);
      }
    }
  });
});
