/**
 * The soak (scripts/soak.ts, `npm run soak`) in small: agent processes ask durable questions while an answerer
 * process answers them, the worker is SIGKILLed and restarted and the dev server restarted on its database file
 * (or, scaled out, one of two workers is SIGKILLed), and every count comes out exactly right: every question
 * answered exactly once, every agent received exactly its own answer, no false `ASK_UNAVAILABLE`, no orphan.
 *
 * The checks themselves are tested first, on observations made by hand, so a soak that passes is known to be
 * able to fail.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import {
  parseSoakArgs,
  runSoak,
  soakWorkflowId,
  tallySoak,
  type SoakCounts,
  type SoakObservations,
  type SoakReport,
} from '../../scripts/soak';
import { soakAnswer, soakResultText } from '../fixtures/soak-questions';
import { killTrackedProcesses } from '../helpers/processes';

// A timed-out test never reaches the soak's own cleanup: kill what it started.
after(() => killTrackedProcesses());

/** One agent `a` that asked 3 questions and received each one's answer, answered once on the server. */
function cleanObservations(): SoakObservations {
  const agentId = 'a';
  const events: Record<string, unknown>[] = [];
  for (let index = 0; index < 3; index++) {
    events.push({ event: 'ask', index, at: 1_000 + index });
    events.push({ event: 'result', index, text: soakResultText(agentId, index), at: 2_000 + index });
  }
  return {
    agents: [{ agentId, questions: 3, events }],
    answerer: [0, 1, 2].map((index) => ({
      event: 'answered',
      workflowId: soakWorkflowId(agentId, index),
      attempt: 1,
      answeredBy: 'soak-answerer#1',
      at: 1_500 + index,
    })),
    server: [0, 1, 2].map((index) => ({
      workflowId: soakWorkflowId(agentId, index),
      status: 'answered' as const,
      acceptedAnswers: 1,
      answerSignals: 0,
      answerIds: new Set([`answer-${index}`]),
      taskFailures: 0,
      answer: soakAnswer(agentId, index),
      answeredBy: 'soak-answerer#1',
    })),
    downtimes: [{ from: 5_000, to: 6_000 }],
  };
}

const CLEAN: SoakCounts = {
  planned: 3,
  asked: 3,
  answered: 3,
  received: 3,
  lost: 0,
  doubled: 0,
  wrong: 0,
  falseUnavailable: 0,
  orphaned: 0,
  misreported: 0,
  unexplainedRefusals: 0,
  agentErrors: {},
  answerAttempts: { accepted: 3 },
  answerErrorSamples: {},
  taskFailures: 0,
  askedWhileDown: 0,
  waitingThroughDowntime: 0,
  latencyMs: { p50: 1_000, p95: 1_000, max: 1_000 },
};

test('the soak checks count a clean run as clean', () => {
  assert.deepEqual(tallySoak(cleanObservations()), CLEAN);
});

test('the soak checks count each kind of failure', () => {
  const lost = cleanObservations();
  lost.agents[0]!.events = lost.agents[0]!.events.filter(
    (event) => !(event.event === 'result' && event.index === 1),
  );
  // Asked while the server was down, and failed within the downtime: lost, but not a false ASK_UNAVAILABLE.
  lost.agents[0]!.events[2] = { event: 'ask', index: 1, at: 5_200 };
  lost.agents[0]!.events.push({
    event: 'error',
    index: 1,
    code: 'ASK_UNAVAILABLE',
    text: 'Error: ...',
    at: 5_500,
  });
  assert.deepEqual(tallySoak(lost), {
    ...CLEAN,
    received: 2,
    lost: 1,
    agentErrors: { ASK_UNAVAILABLE: 1 },
    askedWhileDown: 1,
    latencyMs: { p50: 1_000, p95: 1_000, max: 1_000 },
  });

  const falseUnavailable = cleanObservations();
  falseUnavailable.agents[0]!.events[3] = {
    event: 'error',
    index: 1,
    code: 'ASK_UNAVAILABLE',
    text: 'Error: ...',
    at: 6_001,
  };
  const unavailableCounts = tallySoak(falseUnavailable);
  assert.equal(unavailableCounts.falseUnavailable, 1);
  assert.equal(unavailableCounts.lost, 1);
  assert.equal(unavailableCounts.waitingThroughDowntime, 1);

  const wrong = cleanObservations();
  wrong.agents[0]!.events[1] = { event: 'result', index: 0, text: soakResultText('a', 2), at: 2_000 };
  wrong.server[1]!.answer = soakAnswer('a', 0);
  assert.equal(tallySoak(wrong).wrong, 2);

  // An answer sent again as the signal under its id (no worker took the update in time) is one answer.
  const resent = cleanObservations();
  resent.server[0]!.answerSignals = 1;
  assert.deepEqual(tallySoak(resent).answered, 3);

  const doubled = cleanObservations();
  doubled.server[2]!.acceptedAnswers = 2;
  doubled.server[2]!.answerIds.add('another answer');
  doubled.agents[0]!.events.push({ event: 'result', index: 0, text: soakResultText('a', 0), at: 3_000 });
  doubled.answerer.push({ ...doubled.answerer[1]!, attempt: 2 });
  const doubledCounts = tallySoak(doubled);
  assert.equal(doubledCounts.doubled, 3);
  assert.equal(doubledCounts.answered, 2);

  const orphaned = cleanObservations();
  orphaned.server[0]!.status = 'pending';
  orphaned.server.push({ ...orphaned.server[1]!, workflowId: 'ask-user-question/stranger/call-0' });
  const orphanedCounts = tallySoak(orphaned);
  assert.equal(orphanedCounts.orphaned, 2);
  assert.equal(orphanedCounts.answered, 2);

  const misreported = cleanObservations();
  const workflowId = soakWorkflowId('a', 0);
  misreported.answerer.push(
    {
      event: 'answer-error',
      workflowId,
      attempt: 2,
      code: 'NO_WORKER',
      message: 'no ask-user worker',
      at: 1,
    },
    {
      event: 'answer-error',
      workflowId,
      attempt: 3,
      code: 'ALREADY_RESOLVED',
      message: 'workflow execution already completed',
      at: 2,
    },
    {
      event: 'answer-error',
      workflowId,
      attempt: 4,
      code: 'ALREADY_RESOLVED',
      message: 'the question was already answered by soak-answerer#2 at 2026-01-01T00:00:00.000Z',
      at: 3,
    },
  );
  misreported.server[0]!.answeredBy = 'soak-answerer#2';
  const misreportedCounts = tallySoak(misreported);
  assert.equal(misreportedCounts.misreported, 1);
  assert.equal(misreportedCounts.unexplainedRefusals, 1);
  assert.deepEqual(misreportedCounts.answerAttempts, { accepted: 3, NO_WORKER: 1, ALREADY_RESOLVED: 2 });
});

test('npm run soak reads its options and names the one that is wrong', () => {
  assert.deepEqual(
    parseSoakArgs(['--questions', '200', '--agents', '4', '--scale-out', '--keep', '--out', 'soak.json']),
    { options: { questions: 200, agents: 4, scaleOut: true, keep: true }, out: 'soak.json' },
  );
  assert.deepEqual(parseSoakArgs([]), { options: {} });
  assert.throws(() => parseSoakArgs(['--questions', 'abc']), {
    message: '--questions: must be a positive integer, got "abc"',
  });
  assert.throws(() => parseSoakArgs(['--agents', '0']), {
    message: '--agents: must be a positive integer, got "0"',
  });
  assert.throws(() => parseSoakArgs(['--out']), { message: '--out: needs a value' });
  assert.throws(() => parseSoakArgs(['--agents', '20', '--questions', '5']), {
    message: '--agents: 20 agents need at least as many questions (got 5)',
  });
  assert.throws(() => parseSoakArgs(['--fast']), {
    message: '--fast: unknown option (known: --questions N, --agents M, --scale-out, --out FILE, --keep)',
  });
});

/** What every soak must end with, for `questions` questions. */
function assertExact(report: SoakReport, questions: number): void {
  const { counts } = report;
  const shown = JSON.stringify(report, null, 2);
  assert.deepEqual(report.problems, [], shown);
  assert.deepEqual(
    {
      planned: counts.planned,
      asked: counts.asked,
      answered: counts.answered,
      received: counts.received,
      lost: counts.lost,
      doubled: counts.doubled,
      wrong: counts.wrong,
      falseUnavailable: counts.falseUnavailable,
      orphaned: counts.orphaned,
      misreported: counts.misreported,
      unexplainedRefusals: counts.unexplainedRefusals,
      agentErrors: counts.agentErrors,
    },
    {
      planned: questions,
      asked: questions,
      answered: questions,
      received: questions,
      lost: 0,
      doubled: 0,
      wrong: 0,
      falseUnavailable: 0,
      orphaned: 0,
      misreported: 0,
      unexplainedRefusals: 0,
      agentErrors: {},
    },
    shown,
  );
  for (const fault of report.faults)
    assert.ok(fault.settled < 1, `the fault hit questions outstanding: ${shown}`);
}

// Small: 3 agents × 20 questions, one a second each, so asking goes on through the faults; each answered 4 s or
// more after it was asked, so the faults find questions waiting; up to 3 questions per agent on long polls and
// the rest waiting on the visibility scan.
const SMALL = {
  questions: 60,
  agents: 3,
  askIntervalMs: 1_000,
  concurrency: 20,
  maxLongPolls: 3,
  answerDelayMs: 4_000,
  timeoutMs: 150_000,
};

test('soak: 3 agents × 20 questions through a worker SIGKILL and a server restart, every count exact', async () => {
  const report = await runSoak({ ...SMALL, workerRestarts: 1, serverRestarts: 1 });
  assertExact(report, 60);
  assert.deepEqual(
    report.faults.map((fault) => [fault.kind, fault.recoveredAt !== undefined]),
    [
      ['worker-kill', true],
      ['server-restart', true],
    ],
  );
});

test('soak, scaled out: two workers on one task queue, one SIGKILLed mid-run, every count exact', async () => {
  const report = await runSoak({ ...SMALL, scaleOut: true });
  assertExact(report, 60);
  assert.deepEqual(
    report.faults.map((fault) => [fault.kind, fault.recoveredAt !== undefined]),
    [['worker-kill', false]],
  );
});
