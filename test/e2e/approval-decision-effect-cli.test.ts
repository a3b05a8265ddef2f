/**
 * What `ask-user approve`, `deny` and `respond` print when the agent's hook cannot act on a decision as it was
 * taken. The AI SDK's `toolApproval` policy runs a call only with the model's own input, so an edit becomes a
 * denial that suggests the edited input: the approval records `onEdit: 'suggest'`, the CLI says what the agent
 * receives rather than `Approved`, and the agent does receive that denial. A reject and a response reach the
 * agent as decided, and print as before; `deny --stop` ends the agent's run.
 *
 * Run for real (`node ./bin/ask-user.js`) against a dev server and a worker, with the hook asking through
 * `TemporalUserInteraction`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import { aiToolApprovalPolicy, type AiToolApprovalStatus } from '../../src/ai';
import { decisionEffect } from '../../src/answer/decision-effect';
import { editedCallText } from '../../src/tool/require-approval';
import { startCliStack, type CliStack } from '../helpers/cli-stack';
import { waitUntilListedPending } from '../helpers/pending-questions';

const TASK_QUEUE = `decision-effect-cli-${process.pid}`;
const AGENT = { id: 'policy-agent' };
const INPUT = { service: 'checkout', version: '1.4.2' };

let cli: CliStack;

before(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  cli = await startCliStack('decision-effect-cli', TASK_QUEUE);
});

after(async () => {
  await cli?.stop();
});

/** The policy asked about a `deploy` call with id `toolCallId`; resolves once the approval is listed pending. */
async function pendingPolicyCall(
  toolCallId: string,
): Promise<{ workflowId: string; status: Promise<AiToolApprovalStatus> }> {
  const policy = aiToolApprovalPolicy({ userInteraction: cli.provider, agent: AGENT });
  const status = policy({ toolCall: { toolCallId, toolName: 'deploy', input: INPUT } });
  const workflowId = `ask-user-question/${AGENT.id}/${toolCallId}`;
  await waitUntilListedPending(cli.stack.questions, workflowId);
  return { workflowId, status };
}

describe('a decision the hook turns into something else is reported as what it became', () => {
  test('approve --input under the toolApproval policy prints the denial the agent receives', async () => {
    const { workflowId, status } = await pendingPolicyCall('edit-1');
    assert.equal((await cli.stack.questions.get(workflowId)).approval?.onEdit, 'suggest');

    const edited = { service: 'checkout', version: '1.4.3' };
    const result = await cli.run([
      'approve',
      `${AGENT.id}/edit-1`,
      '--input',
      JSON.stringify(edited),
      '--as',
      'alice',
    ]);
    assert.deepEqual(result, {
      code: 0,
      stdout:
        `Recorded the edit of ${workflowId}. deploy does not run: this agent runs a call only with the input ` +
        'its model gave, so it receives a denial that suggests calling deploy again with the edited input.\n',
      stderr: '',
    });
    assert.deepEqual(await status, {
      type: 'denied',
      reason: editedCallText({ input: edited }, 'deploy'),
    });
    // A late decision is refused naming the first as the agent received it, not as an approval.
    const { decision } = await cli.stack.questions.get(workflowId);
    assert.deepEqual(await cli.run(['approve', `${AGENT.id}/edit-1`, '--as', 'bob']), {
      code: 1,
      stdout: '',
      stderr: `ask-user: the approval was already denied with a suggested input by alice at ${decision?.decidedAt}\n`,
    });
  });

  test('approve without --input, deny and respond reach the agent as decided, and print as before', async () => {
    const approved = await pendingPolicyCall('approve-1');
    assert.deepEqual(await cli.run(['approve', `${AGENT.id}/approve-1`]), {
      code: 0,
      stdout: `Approved ${approved.workflowId}.\n`,
      stderr: '',
    });
    assert.deepEqual(await approved.status, { type: 'approved' });

    const denied = await pendingPolicyCall('deny-1');
    assert.deepEqual(await cli.run(['deny', `${AGENT.id}/deny-1`, '--reason', 'freeze']), {
      code: 0,
      stdout: `Denied ${denied.workflowId}.\n`,
      stderr: '',
    });
    assert.deepEqual(await denied.status, {
      type: 'denied',
      reason: 'The user rejected this call of deploy: freeze',
    });

    const responded = await pendingPolicyCall('respond-1');
    assert.deepEqual(await cli.run(['respond', `${AGENT.id}/respond-1`, '--text', 'Deployed by hand']), {
      code: 0,
      stdout: `Responded to ${responded.workflowId}.\n`,
      stderr: '',
    });
    assert.deepEqual(await responded.status, { type: 'denied', reason: 'Deployed by hand' });
  });

  test('deny --stop records the stop, and the agent ends its run; with --all it is refused', async () => {
    const stopped = await pendingPolicyCall('stop-1');
    stopped.status.catch(() => undefined); // asserted below
    assert.deepEqual(await cli.run(['deny', `${AGENT.id}/stop-1`, '--reason', 'incident', '--stop']), {
      code: 0,
      stdout: `Denied ${stopped.workflowId}.\n`,
      stderr: '',
    });
    await assert.rejects(stopped.status, {
      code: 'RUN_STOPPED',
      message: 'The user rejected this call of deploy: incident, and the run was stopped',
    });
    const { decision } = await cli.stack.questions.get(stopped.workflowId);
    assert.equal(decision?.type === 'reject' ? decision.stop : undefined, true);

    const batch = await cli.run(['deny', '--all', '--tool', 'deploy', '--stop']);
    assert.equal(batch.code, 2, batch.stderr);
    assert.match(
      batch.stderr,
      /^ask-user: --stop: stops the run of one denied call; give its id instead of --all/,
    );
  });

  test('decisionEffect words each decision, an edit by what the hook does with it', () => {
    const runs = { toolName: 'deploy' };
    const suggests = { toolName: 'deploy', onEdit: 'suggest' as const };
    assert.deepEqual(decisionEffect(runs, { type: 'edit' }), {
      asDecided: true,
      text: 'The agent runs deploy with the edited input.',
    });
    assert.equal(decisionEffect(suggests, { type: 'edit' }).asDecided, false);
    for (const type of ['approve', 'reject', 'respond'] as const) {
      assert.deepEqual(decisionEffect(suggests, { type }), decisionEffect(runs, { type }), type);
    }
    assert.deepEqual(decisionEffect(runs, { type: 'respond' }), {
      asDecided: true,
      text: 'deploy does not run: the agent reads the text in place of its result.',
    });
  });
});
