/**
 * What an agent crash does to an approved tool call, shown with a real dev server, a worker process and the
 * agent (test/fixtures/approval-agent-process.ts: `requireApproval` over `TemporalUserInteraction`) as a child
 * process that is SIGKILLed. The tool's side effect is a line in a ledger file, so the test counts its runs.
 *
 * - Killed while the approval is pending, decided (with an edit) while no agent runs: the restarted agent
 *   re-attaches to the same approval, gets the decision at once and runs the tool once, with the edited input.
 * - Killed after the decision arrived and before the tool ran: the restart gets the same decision, starts no
 *   new approval, and runs the tool once.
 * - Killed after the tool's side effect and before its result was kept: the restart gets the same approval
 *   and runs the tool again. The side effect happens twice, under one approval key: nothing outside the tool
 *   can tell that it had run. A tool that keys its side effect by `context.approval.key` runs it once.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { inputSha256 } from '../../src/answer';
import type { QuestionClient } from '../../src/ops';
import {
  DEFAULT_DEPLOY_INPUT,
  readLedger,
  startApprovalAgentProcess,
  type ApprovalAgentProcessOptions,
} from '../fixtures/approval-agent-process';
import { jsonLines, killChildren } from '../fixtures/child-process';
import { startWorkerProcess } from '../fixtures/worker-process';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';

const DEPLOYED = `deployed ${JSON.stringify(DEFAULT_DEPLOY_INPUT)}`;

let stack: DevServerWithClient;
let questions: QuestionClient;
let directory: string;

before(async () => {
  stack = await startDevServerWithClient('approval-restart');
  ({ questions } = stack);
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'approval-restart-'));
});

after(async () => {
  try {
    await killChildren();
  } finally {
    await stack?.stop();
    fs.rmSync(directory, { recursive: true, force: true });
  }
});

/** A fresh agent id, task queue and ledger for one test, with a worker process polling the queue. */
async function scenario(name: string): Promise<{
  options: ApprovalAgentProcessOptions;
  workflowId: string;
  key: string;
}> {
  const agentId = `approval-${name}`;
  const taskQueue = `approval-restart-${name}-${process.pid}`;
  await startWorkerProcess(stack.server.address, taskQueue);
  return {
    options: {
      address: stack.server.address,
      taskQueue,
      agentId,
      ledger: path.join(directory, `${name}.jsonl`),
    },
    workflowId: `ask-user-question/${agentId}/call-1`,
    key: `${agentId}/call-1`,
  };
}

describe('an agent SIGKILLed around an approved tool call', () => {
  test('killed while pending and decided meanwhile: the restart re-attaches and runs the edited call once', async () => {
    const { options, workflowId, key } = await scenario('pending');
    try {
      const first = startApprovalAgentProcess(options);
      await waitForPendingRecord(stack.client, workflowId);
      assert.deepEqual(await first.kill('SIGKILL'), { code: null, signal: 'SIGKILL' });
      assert.deepEqual(jsonLines(first.stdout()), [], 'the killed agent got no decision');

      const edited = { ...DEFAULT_DEPLOY_INPUT, replicas: 5 };
      await questions.decide(workflowId, { type: 'edit', input: edited, decidedBy: 'alice' });

      const second = startApprovalAgentProcess(options);
      assert.deepEqual(await second.waitForExit(), { code: 0, signal: null }, second.stderr());
      assert.deepEqual(jsonLines(second.stdout()), [
        { event: 'decided', type: 'edit' },
        { event: 'result', text: `deployed ${JSON.stringify(edited)}` },
      ]);
      assert.deepEqual(readLedger(options.ledger), [{ key, input: edited }]);

      const record = await questions.get(workflowId);
      assert.equal(record.status, 'answered');
      assert.deepEqual(record.decision && { ...record.decision, decidedAt: 'at' }, {
        type: 'edit',
        input: edited,
        decidedBy: 'alice',
        decidedAt: 'at',
        requestedInputSha256: inputSha256(DEFAULT_DEPLOY_INPUT),
        inputSha256: inputSha256(edited),
      });
      assert.deepEqual(record.approval?.input, DEFAULT_DEPLOY_INPUT, 'the record keeps the original input');
    } finally {
      await killChildren();
    }
  });

  test('killed after the decision and before the tool ran: the restart runs the tool once', async () => {
    const { options, workflowId, key } = await scenario('before-tool');
    try {
      const first = startApprovalAgentProcess({ ...options, crash: 'before-tool' });
      await waitForPendingRecord(stack.client, workflowId);
      await questions.decide(workflowId, { type: 'approve', decidedBy: 'alice' });
      assert.deepEqual(await first.waitForExit(), { code: null, signal: 'SIGKILL' });
      assert.deepEqual(jsonLines(first.stdout()), [{ event: 'decided', type: 'approve' }]);
      assert.deepEqual(readLedger(options.ledger), [], 'the tool had not run');

      const second = startApprovalAgentProcess(options);
      assert.deepEqual(await second.waitForExit(), { code: 0, signal: null }, second.stderr());
      assert.deepEqual(jsonLines(second.stdout()), [
        { event: 'decided', type: 'approve' },
        { event: 'result', text: DEPLOYED },
      ]);
      assert.deepEqual(readLedger(options.ledger), [{ key, input: DEFAULT_DEPLOY_INPUT }]);

      // One approval for the call, decided once: the restart asked no one again.
      const listed = (await questions.list('all')).filter((question) => question.workflowId === workflowId);
      assert.deepEqual(
        listed.map((question) => [question.kind, question.status]),
        [['approval', 'answered']],
      );
    } finally {
      await killChildren();
    }
  });

  test('killed after the side effect, before the result was kept: the restart runs the tool again', async () => {
    const { options, workflowId, key } = await scenario('after-side-effect');
    try {
      const first = startApprovalAgentProcess({ ...options, crash: 'after-side-effect' });
      await waitForPendingRecord(stack.client, workflowId);
      await questions.decide(workflowId, { type: 'approve', decidedBy: 'alice' });
      assert.deepEqual(await first.waitForExit(), { code: null, signal: 'SIGKILL' });
      assert.deepEqual(readLedger(options.ledger), [{ key, input: DEFAULT_DEPLOY_INPUT }]);

      const second = startApprovalAgentProcess(options);
      assert.deepEqual(await second.waitForExit(), { code: 0, signal: null }, second.stderr());
      assert.deepEqual(jsonLines(second.stdout()), [
        { event: 'decided', type: 'approve' },
        { event: 'result', text: DEPLOYED },
      ]);
      // The gap: one approval, two side effects, both under the same key.
      assert.deepEqual(readLedger(options.ledger), [
        { key, input: DEFAULT_DEPLOY_INPUT },
        { key, input: DEFAULT_DEPLOY_INPUT },
      ]);
    } finally {
      await killChildren();
    }
  });

  test('the same crash with a tool keyed by approval.key: the side effect happens once', async () => {
    const { options, workflowId, key } = await scenario('idempotent');
    try {
      const first = startApprovalAgentProcess({ ...options, crash: 'after-side-effect', idempotent: true });
      await waitForPendingRecord(stack.client, workflowId);
      await questions.decide(workflowId, { type: 'approve', decidedBy: 'alice' });
      assert.deepEqual(await first.waitForExit(), { code: null, signal: 'SIGKILL' });

      const second = startApprovalAgentProcess({ ...options, idempotent: true });
      assert.deepEqual(await second.waitForExit(), { code: 0, signal: null }, second.stderr());
      assert.deepEqual(jsonLines(second.stdout()), [
        { event: 'decided', type: 'approve' },
        { event: 'result', text: `deploy ${key} had already run` },
      ]);
      assert.deepEqual(readLedger(options.ledger), [{ key, input: DEFAULT_DEPLOY_INPUT }]);
    } finally {
      await killChildren();
    }
  });
});
