/**
 * Batches and the audit export against a real dev server, worker and inbox:
 * - `ask-user approve --all --tool T` approves exactly the pending approvals of that tool, each once;
 *   `POST /api/batch` with two ids, one of them decided elsewhere first, records one and refuses the other naming
 *   who won; `ask-user answer --all --same-as` answers the questions that ask the same, not the others;
 * - `ask-user audit export` (JSON lines) and `GET /api/audit` (CSV) of an answered question, a declined one, an
 *   approval whose deadline was moved then approved, and an expired question: who asked, what, each action with
 *   who and when, the deadline and its move, and how each ended.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import type { InboxServer } from '../../src/inbox';
import type { AuditLine } from '../../src/ops';
import { TemporalUserInteraction } from '../../src/provider';
import type { AskUserQuestion } from '../../src/types';
import { killChildren, startChild, type ChildExit } from '../fixtures/child-process';
import { bearer, request, startTestInbox } from '../helpers/inbox';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `batch-audit-${process.pid}`;
const ENV: AskUserQuestion = {
  id: 'env',
  question: 'Where to deploy?',
  options: [{ label: 'staging' }, { label: 'production' }],
};

let stack: DevServerWithClient;
let worker: RunningWorkers;
let inbox: InboxServer;
let provider: TemporalUserInteraction;
let expiring: TemporalUserInteraction;
const startedAt = new Date(Date.now() - 1000).toISOString();

before(async () => {
  stack = await startDevServerWithClient('batch-audit');
  worker = await startAskUserWorker(stack.server.address, TASK_QUEUE);
  inbox = await startTestInbox(stack.client);
  provider = new TemporalUserInteraction({ client: stack.client, taskQueue: TASK_QUEUE });
  expiring = new TemporalUserInteraction({
    client: stack.client,
    taskQueue: TASK_QUEUE,
    policy: { expireAfter: '2s' },
  });
});

after(async () => {
  try {
    await killChildren();
    await provider?.close();
    await expiring?.close();
    await inbox?.close();
    await worker?.stop();
  } finally {
    await stack?.stop();
  }
});

async function runCli(args: string[]): Promise<ChildExit & { stdout: string; stderr: string }> {
  const child = startChild(process.execPath, ['./bin/ask-user.js', ...args], {
    TEMPORAL_ADDRESS: stack.server.address,
    TEMPORAL_NAMESPACE: 'default',
    ASK_USER_TASK_QUEUE: TASK_QUEUE,
    USER: 'cli-tester',
  });
  const exit = await child.waitForExit();
  return { ...exit, stdout: child.stdout(), stderr: child.stderr() };
}

/** Asks `questions` as `agent`; resolves once pending, with the workflow id and the answer to come. */
async function ask(
  agent: string,
  questions: AskUserQuestion[],
  via = provider,
): Promise<{ workflowId: string; answer: Promise<unknown> }> {
  const toolCallId = `call-${randomUUID()}`;
  const answer = via.ask({ questions, agent: { id: agent }, toolCallId });
  answer.catch(() => undefined);
  const workflowId = `ask-user-question/${agent}/${toolCallId}`;
  await waitForPendingRecord(stack.client, workflowId);
  return { workflowId, answer };
}

/** Requests an approval of `toolName`; resolves once pending. */
async function approval(
  agent: string,
  toolName: string,
): Promise<{ workflowId: string; decision: Promise<unknown> }> {
  const toolCallId = `call-${randomUUID()}`;
  const decision = provider.requestApproval({ toolName, input: { n: 1 }, agent: { id: agent }, toolCallId });
  decision.catch(() => undefined);
  const workflowId = `ask-user-question/${agent}/${toolCallId}`;
  await waitForPendingRecord(stack.client, workflowId);
  return { workflowId, decision };
}

/** Waits until visibility lists `ids` as pending (the batch selects from the list). */
async function listed(ids: string[]): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const pending = new Set((await stack.questions.list('pending', 1000)).map((row) => row.workflowId));
    if (ids.every((id) => pending.has(id))) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not listed as pending: ${ids.join(', ')}`);
}

describe('batches', () => {
  test('approve --all --tool approves exactly that tool’s pending approvals, once each', async () => {
    const restarts = [
      await approval('batch-cli', 'restart'),
      await approval('batch-cli', 'restart'),
      await approval('batch-cli', 'restart'),
    ];
    const deploy = await approval('batch-cli', 'deploy');
    await listed([...restarts, deploy].map((each) => each.workflowId));
    const run = await runCli(['approve', '--all', '--tool', 'restart', '--as', 'erin', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as {
      recorded: number;
      refused: number;
      results: { workflowId: string }[];
    };
    assert.equal(result.recorded, 3);
    assert.deepEqual(
      result.results.map((each) => each.workflowId).sort(),
      restarts.map((each) => each.workflowId).sort(),
    );
    for (const { workflowId, decision } of restarts) {
      assert.deepEqual(
        {
          type: ((await decision) as { type: string }).type,
          by: (await stack.questions.get(workflowId)).decision?.decidedBy,
        },
        { type: 'approve', by: 'erin' },
      );
      const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
      const accepted = (history.events ?? []).filter(
        (event) => event.workflowExecutionUpdateAcceptedEventAttributes,
      );
      assert.equal(accepted.length, 1, `${workflowId}: one decision recorded`);
    }
    assert.equal((await stack.questions.get(deploy.workflowId)).status, 'pending');
    await stack.questions.decide(deploy.workflowId, { type: 'reject', decidedBy: 'cleanup' });

    // A filter without --all is a usage mistake.
    const stray = await runCli(['deny', '--tool', 'restart']);
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /--tool selects questions for --all; add --all/);
  });

  test('POST /api/batch refuses the one decided elsewhere, naming the winner; the other is recorded', async () => {
    const first = await approval('batch-api', 'restart');
    const second = await approval('batch-api', 'restart');
    await stack.questions.decide(second.workflowId, { type: 'reject', decidedBy: 'frank' });
    const response = await request(inbox, 'POST', '/api/batch', {
      headers: { ...bearer(), 'x-ask-user-name': 'henry' },
      body: JSON.stringify({ action: 'approve', select: { ids: [first.workflowId, second.workflowId] } }),
    });
    assert.equal(response.status, 200, response.text);
    const body = response.json as { recorded: number; refused: number; results: Record<string, unknown>[] };
    assert.equal(body.recorded, 1);
    assert.equal(body.refused, 1);
    assert.deepEqual(body.results[0], { workflowId: first.workflowId, recorded: true, status: 'answered' });
    const refused = body.results[1]!;
    assert.equal(refused.refusal, 'already-resolved');
    assert.equal(refused.error, 'ALREADY_RESOLVED');
    assert.equal(refused.resolvedBy, 'frank');
    assert.match(String(refused.message), /already rejected by frank/);
    assert.equal((await stack.questions.get(first.workflowId)).decision?.decidedBy, 'henry');
  });

  test('answer --all --same-as answers the questions that ask the same, and only those', async () => {
    const same = [await ask('batch-same', [ENV]), await ask('batch-same', [ENV])];
    const other = await ask('batch-same', [{ ...ENV, question: 'Where else?' }]);
    await listed([...same, other].map((each) => each.workflowId));
    const run = await runCli([
      'answer',
      '--all',
      '--same-as',
      same[0]!.workflowId,
      '--select',
      'env=staging',
      '--as',
      'gina',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /2 recorded, 0 refused\./);
    for (const { answer } of same) {
      assert.deepEqual(await answer, { answers: [{ id: 'env', selected: ['staging'] }] });
    }
    assert.equal((await stack.questions.get(other.workflowId)).status, 'pending');
    await stack.questions.decline(other.workflowId, { declinedBy: 'cleanup' });
  });
});

describe('the audit export', () => {
  test('one line per request: who asked, what, each action with who and when, deadlines, and the end', async () => {
    const answered = await ask('audit-agent', [ENV]);
    await stack.questions.answer(answered.workflowId, {
      answers: [{ id: 'env', selected: ['staging'] }],
      answeredBy: 'alice',
    });
    const declined = await ask('audit-agent', [ENV]);
    await stack.questions.decline(declined.workflowId, { declinedBy: 'bob', reason: 'not today' });
    const approved = await approval('audit-agent', 'deploy');
    await stack.questions.extendDeadline(approved.workflowId, '2h', 'dave');
    await stack.questions.decide(approved.workflowId, { type: 'approve', decidedBy: 'carol' });
    const expired = await ask('audit-agent', [ENV], expiring);
    await assert.rejects(expired.answer);

    const run = await runCli(['audit', 'export', '--since', startedAt]);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as AuditLine);
    const line = (workflowId: string): AuditLine => {
      const found = lines.filter((each) => each.workflowId === workflowId);
      assert.equal(found.length, 1, `${workflowId}: one line`);
      return found[0]!;
    };

    const a = line(answered.workflowId);
    assert.equal(a.kind, 'question');
    assert.equal(a.status, 'answered');
    assert.equal(a.agentId, 'audit-agent');
    assert.deepEqual(a.questions, [ENV]);
    assert.deepEqual(a.answer, { answers: [{ id: 'env', selected: ['staging'] }] });
    assert.equal(a.resolvedBy, 'alice');
    assert.deepEqual(
      a.actions.map(({ type, by, via }) => ({ type, by, via })),
      [{ type: 'answer', by: 'alice', via: 'update' }],
    );
    assert.ok(Date.parse(a.actions[0]!.at) >= Date.parse(a.askedAt));

    const d = line(declined.workflowId);
    assert.equal(d.status, 'declined');
    assert.equal(d.resolvedBy, 'bob');
    assert.equal(d.declineReason, 'not today');
    assert.deepEqual(
      d.actions.map(({ type, by }) => ({ type, by })),
      [{ type: 'decline', by: 'bob' }],
    );

    const p = line(approved.workflowId);
    assert.equal(p.kind, 'approval');
    assert.equal(p.approval?.toolName, 'deploy');
    assert.equal(p.decision?.type, 'approve');
    assert.equal(p.resolvedBy, 'carol');
    assert.deepEqual(
      p.actions.map(({ type, by }) => ({ type, by })),
      [
        { type: 'extend', by: 'dave' },
        { type: 'decide', by: 'carol' },
      ],
    );
    assert.equal(p.deadlineChanges.length, 1);
    assert.equal(p.deadlineChanges[0]!.extendedBy, 'dave');
    assert.equal(p.deadline, p.deadlineChanges[0]!.to);

    const e = line(expired.workflowId);
    assert.equal(e.status, 'expired');
    assert.deepEqual(e.actions, []);
    assert.ok(e.firstDeadline !== undefined && e.resolvedAt !== undefined);
    assert.ok(Date.parse(e.resolvedAt) >= Date.parse(e.firstDeadline));

    // The API: the same export as CSV, one row per request after the header.
    const csv = await request(inbox, 'GET', `/api/audit?since=${encodeURIComponent(startedAt)}&format=csv`, {
      headers: bearer(),
    });
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    const rows = csv.text.trim().split('\r\n');
    assert.match(rows[0]!, /^workflowId,kind,status,askedAt,/);
    assert.equal(rows.length, lines.length + 1);
    const row = rows.find((each) => each.startsWith(`${declined.workflowId},`));
    assert.match(row ?? '', /,declined,.*,bob,"\{""reason"":""not today""\}"$/);
  });
});
