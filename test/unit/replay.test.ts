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
  // Answers carrying an answerId, as one recorded while no worker ran: refused (with its webhook), repeated, taken.
  'answered-by-id',
  'answered-by-signal',
  'answered-by-update',
  'cancelled',
  // A question that continued as new: its first run, which ends ContinuedAsNew, and the next one, which starts
  // from the continuation and is answered.
  'continued-answered',
  'continued-as-new',
  'declined',
  // Question policies: answered by the recommended-answer expiry; reminded and escalated by the worker's
  // policy; answered after its deadline was moved past the first one.
  'expired-recommended',
  'expired',
  'extended',
  // One agent's grants workflow: a grant, an approval it covered, the revocation (recorded before grants took
  // turns: no patch marker); and three grants at once, taking turns (with the `grants-in-turns` marker).
  'grants-at-once',
  'grants-lone',
  // On a worker without question defaults: no local activity and no marker, with and without a webhook of the
  // question's own. The other questions ran on a worker with defaults (a patch marker and the local activity).
  'plain-worker-webhook',
  'plain-worker',
  'reminded',
  // Approvals under the two-person rule: approved by two people after a counted approval (approval.progress
  // sent), and denied by two rejections (requiredRejections: 2), the second a decline.
  'two-person-approved',
  'two-person-rejected',
  'webhook-delivery',
  // `workerDefaults: false`: no webhook-targets local activity at start, even on a worker with defaults.
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

/**
 * Replays `histories` in order; the results come back one per history, in the same order (the two runs of a
 * question that continued as new share a workflow id).
 */
async function replay(workflows: string, histories: SavedHistory[]): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  const replayed = Worker.runReplayHistories(
    { workflowsPath: workflows, replayName: 'durable-ask-user-replay' },
    histories,
  );
  for await (const result of replayed) results.push(result);
  assert.equal(results.length, histories.length);
  for (const [index, saved] of histories.entries())
    assert.equal(results[index]?.workflowId, saved.workflowId);
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
      for (const [index, saved] of histories.entries()) {
        const result = results[index];
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
    for (const [index, saved] of histories.entries()) {
      const result = results[index];
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
        // The delivery and grants workflows are unchanged in the fixture: their histories still replay.
        assert.equal(result.error, undefined, `${saved.file}: ${String(result.error)}`);
      }
    }
  });
});
