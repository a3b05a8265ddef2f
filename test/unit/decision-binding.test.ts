/**
 * The input hashes a decision is recorded with and checked against (`decisionHashes`,
 * `decisionBindingProblem`, `boundDecision`), and the `stop` of a reject in the decision rules and the record.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { decisionBindingProblem, decisionHashes, recordedDecision } from '../../src/answer/decision-binding';
import { checkDecision } from '../../src/answer/decision-rules';
import { inputSha256 } from '../../src/answer/input-hash';
import { InMemoryUserInteraction, UserInteractionError, requireApproval } from '../../src';
import { boundDecision } from '../../src/tool/require-approval';
import type { ApprovalDecision } from '../../src/types';

const ASKED = { service: 'api', replicas: 3 };
const AT = '2026-12-04T10:00:00.000Z';

describe('decision hashes', () => {
  test('approve binds the asked input twice; edit binds the edit; reject and respond only the asked input', () => {
    const asked = inputSha256(ASKED);
    assert.deepEqual(decisionHashes(ASKED, { type: 'approve' }), {
      requestedInputSha256: asked,
      inputSha256: asked,
    });
    assert.deepEqual(decisionHashes(ASKED, { type: 'edit', input: { replicas: 2, service: 'api' } }), {
      requestedInputSha256: asked,
      inputSha256: inputSha256({ service: 'api', replicas: 2 }),
    });
    assert.deepEqual(decisionHashes(ASKED, { type: 'reject' }), { requestedInputSha256: asked });
    assert.deepEqual(decisionHashes(ASKED, { type: 'respond' }), { requestedInputSha256: asked });
    // A missing input is JSON null, as it reaches the workflow.
    assert.equal(decisionHashes(undefined, { type: 'reject' }).requestedInputSha256, inputSha256(null));
  });

  test('a recorded decision passes for its own input in any key order, and fails for other input', () => {
    const approved = recordedDecision({ type: 'approve', decidedBy: 'carol' }, AT, ASKED);
    assert.equal(decisionBindingProblem({ replicas: 3, service: 'api' }, approved), undefined);
    assert.equal(
      decisionBindingProblem({ service: 'api', replicas: 30 }, approved),
      `the decision was taken on other input (requestedInputSha256 ${inputSha256(ASKED)})`,
    );
    const edited = recordedDecision({ type: 'edit', input: { service: 'api', replicas: 2 } }, AT, ASKED);
    assert.equal(decisionBindingProblem(ASKED, edited), undefined);
    const rewritten = { ...edited, input: { service: 'api', replicas: 20 } } as ApprovalDecision;
    assert.match(
      decisionBindingProblem(ASKED, rewritten) ?? '',
      /^the decision approved other input than it carries/,
    );
    const { inputSha256: _removed, ...halfRemoved } = approved;
    assert.equal(
      decisionBindingProblem(ASKED, halfRemoved as ApprovalDecision),
      'the decision approved no input hash (inputSha256 is missing)',
    );
  });

  test("a hook's input hashes as the workflow's JSON copy of it: undefined fields, NaN and dates as JSON has them", () => {
    const asked = { service: 'api', replicas: 3, at: '1970-01-01T00:00:00.000Z', ratio: null };
    const approved = recordedDecision({ type: 'approve' }, AT, asked);
    const held = { service: 'api', replicas: 3, at: new Date(0), ratio: Number.NaN, note: undefined };
    assert.equal(decisionBindingProblem(held, approved), undefined);
  });

  test('a decision recorded before hashes existed is taken as before', () => {
    const legacy: ApprovalDecision = { type: 'approve', decidedBy: 'carol', decidedAt: AT };
    assert.equal(decisionBindingProblem({ anything: true }, legacy), undefined);
    assert.equal(boundDecision({ toolName: 'deploy', toolCallId: 'c1', input: ASKED }, legacy), legacy);
  });

  test('boundDecision refuses with DECISION_MISMATCH naming the tool call', () => {
    const approved = recordedDecision({ type: 'approve' }, AT, ASKED);
    assert.throws(
      () => boundDecision({ toolName: 'deploy', toolCallId: 'call-7', input: { service: 'db' } }, approved),
      (error: unknown) =>
        UserInteractionError.isInstance(error) &&
        error.code === 'DECISION_MISMATCH' &&
        error.message.startsWith(
          "deploy did not run: the decision on tool call call-7 approved other input than this call's: ",
        ),
    );
  });
});

describe('stop on a reject', () => {
  const subject = { toolName: 'deploy', input: ASKED };

  test('a reject may carry stop; the record keeps it, and only when true', () => {
    const checked = checkDecision(subject, { type: 'reject', reason: 'enough', stop: true });
    assert.deepEqual(checked, { ok: true, decision: { type: 'reject', reason: 'enough', stop: true } });
    assert.deepEqual(recordedDecision({ type: 'reject', stop: true }, AT, ASKED), {
      type: 'reject',
      stop: true,
      decidedAt: AT,
      requestedInputSha256: inputSha256(ASKED),
    });
    assert.deepEqual(checkDecision(subject, { type: 'reject', stop: false }), {
      ok: true,
      decision: { type: 'reject' },
    });
  });

  test('stop on another decision, or not a boolean, is refused naming the field', () => {
    assert.deepEqual(checkDecision(subject, { type: 'approve', stop: true }), {
      ok: false,
      rule: 'decision-shape',
      reason: 'decision.stop: not part of approve: only reject carries it',
    });
    assert.deepEqual(checkDecision(subject, { type: 'reject', stop: 'yes' }), {
      ok: false,
      rule: 'decision-shape',
      reason: 'decision.stop: must be true or false',
    });
  });

  test('requireApproval throws RUN_STOPPED with the rejection text, and the tool does not run', async () => {
    const provider = new InMemoryUserInteraction();
    provider.onApproval((pending) =>
      queueMicrotask(() => provider.decide(pending.id, { type: 'reject', reason: 'enough', stop: true })),
    );
    const runs: unknown[] = [];
    const wrapped = requireApproval(
      { name: 'deploy', execute: (input: typeof ASKED) => runs.push(input) },
      { userInteraction: provider },
    );
    await assert.rejects(wrapped.execute(ASKED, { toolCallId: 'call-1' }), {
      code: 'RUN_STOPPED',
      message: 'The user rejected this call of deploy: enough, and the run was stopped',
    });
    assert.deepEqual(runs, []);
  });
});
