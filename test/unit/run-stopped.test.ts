/**
 * A reject with `stop` ends the agent's run, and every integration says it the same way: `runStopped` builds the
 * one `RUN_STOPPED` failure (its message the rejection text, then ", and the run was stopped"), which
 * `requireApproval` and the AI SDK flows throw; the Claude Agent SDK hook, which cannot throw into the SDK's
 * turn, ends it with `interrupt` and the same rejection text. A reject without `stop` stops nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { claudeCanUseTool } from '../../src/adapters/claude-agent-sdk';
import { runStop } from '../../src/adapters/ai-sdk-approval-flow';
import { UserInteractionError } from '../../src/interaction';
import { rejectionText, requireApproval, runStopped, stopsRun } from '../../src/tool/require-approval';
import type { ApprovalDecision, UserInteraction } from '../../src/types';

const DECIDED_AT = '2026-01-05T10:00:00.000Z';
const STOPPED: ApprovalDecision = { type: 'reject', reason: 'freeze', stop: true, decidedAt: DECIDED_AT };
const REJECTED: ApprovalDecision = { type: 'reject', reason: 'freeze', decidedAt: DECIDED_AT };
const MESSAGE = 'The user rejected this call of deploy: freeze, and the run was stopped';

/** A provider whose every approval gets `decision`. */
function deciding(decision: ApprovalDecision): UserInteraction {
  return {
    ask: () => Promise.reject(new Error('no questions here')),
    requestApproval: () => Promise.resolve(decision),
  };
}

function isRunStopped(error: unknown): boolean {
  assert.ok(UserInteractionError.isInstance(error), String(error));
  assert.equal(error.code, 'RUN_STOPPED');
  assert.equal(error.message, MESSAGE);
  return true;
}

describe('RUN_STOPPED, built in one place', () => {
  test('runStopped: RUN_STOPPED for a reject with stop, nothing for any other decision', () => {
    assert.equal(stopsRun(STOPPED), true);
    assert.equal(stopsRun(REJECTED), false);
    isRunStopped(runStopped(STOPPED, (decision) => rejectionText(decision, 'deploy')));
    assert.equal(
      runStopped(REJECTED, () => assert.fail('no text is built')),
      undefined,
    );
    assert.equal(
      runStopped({ type: 'approve', decidedAt: DECIDED_AT }, () => assert.fail('no text is built')),
      undefined,
    );
  });

  test('requireApproval throws it; without stop it returns the rejection text', async () => {
    const tool = { name: 'deploy', execute: async () => 'deployed' };
    const context = { toolCallId: 'call-1' };
    await assert.rejects(
      requireApproval(tool, { userInteraction: deciding(STOPPED) }).execute({}, context),
      isRunStopped,
    );
    assert.equal(
      await requireApproval(tool, { userInteraction: deciding(REJECTED) }).execute({}, context),
      'The user rejected this call of deploy: freeze',
    );
  });

  test("the AI SDK flows' runStop is the same failure", () => {
    isRunStopped(runStop(STOPPED, 'deploy', { userInteraction: deciding(STOPPED) }));
    assert.equal(runStop(REJECTED, 'deploy', { userInteraction: deciding(REJECTED) }), undefined);
  });

  test('the Claude Agent SDK hook interrupts the turn with the same rejection text', async () => {
    const context = { signal: new AbortController().signal, toolUseID: 'toolu-1' };
    assert.deepEqual(await claudeCanUseTool({ userInteraction: deciding(STOPPED) })('deploy', {}, context), {
      behavior: 'deny',
      message: 'The user rejected this call of deploy: freeze',
      interrupt: true,
    });
    assert.deepEqual(await claudeCanUseTool({ userInteraction: deciding(REJECTED) })('deploy', {}, context), {
      behavior: 'deny',
      message: 'The user rejected this call of deploy: freeze',
    });
  });
});
