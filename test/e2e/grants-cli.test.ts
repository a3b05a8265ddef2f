/**
 * `ask-user grant`, `grants` and `revoke-grant`, run for real (`node ./bin/ask-user.js`) against a dev server and
 * a worker whose operator forbids grants of `wire_funds`: a grant by flags, approve-and-grant by an approval's
 * id (the call approved, the same call again approved by the grant), the list, a revoke, and the refusals the
 * CLI prints (the policy's, a missing expiry); and `--group`, the granter's groups, which a call's audience
 * checks as it checks a person's own decision.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import { TemporalUserInteraction } from '../../src/provider';
import { deployThroughApproval, type DeployCall } from '../helpers/approval-calls';
import { startCliStack, type CliStack } from '../helpers/cli-stack';
import { waitForPendingRecord } from '../helpers/pending-questions';

const TASK_QUEUE = `grants-cli-${process.pid}`;
const AGENT = { id: 'cli-grants-agent' };

let cli: CliStack;

before(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  cli = await startCliStack('grants-cli', TASK_QUEUE, {
    grants: { forbidTools: ['wire_funds'] },
  });
});

after(async () => {
  await cli?.stop();
});

function deploy(input: unknown): DeployCall {
  return deployThroughApproval(cli.provider, AGENT, input);
}

describe('ask-user grant, grants, revoke-grant', () => {
  test('grant by flags and by an approval id, list, revoke; refusals are printed', async () => {
    const forbidden = await cli.run([
      'grant',
      '--agent',
      AGENT.id,
      '--tool',
      'wire_funds',
      '--expire-after',
      '1h',
    ]);
    assert.notEqual(forbidden.code, 0);
    assert.match(
      forbidden.stderr,
      /grant refused: toolName: the operator's grant policy forbids grants of "wire_funds"/,
    );
    const endless = await cli.run(['grant', '--agent', AGENT.id, '--tool', 'deploy']);
    assert.notEqual(endless.code, 0);
    assert.match(endless.stderr, /invalid grant: expiresAt: a grant needs an expiry/);

    const byFlags = await cli.run([
      'grant',
      '--agent',
      AGENT.id,
      '--tool',
      'deploy',
      '--input-schema',
      '{"properties":{"env":{"const":"staging"}},"required":["env"]}',
      '--expire-after',
      '2h',
      '--json',
    ]);
    assert.equal(byFlags.code, 0, byFlags.stderr);
    const staging = JSON.parse(byFlags.stdout) as { id: string; grantedBy: string };
    assert.equal(staging.grantedBy, 'cli-tester');
    assert.equal(await deploy({ env: 'staging' }).result, 'ran {"env":"staging"}');

    // Approve and grant: the pending call is approved, and the same input is approved by the grant from then on.
    const pending = deploy({ env: 'production' });
    await waitForPendingRecord(cli.stack.client, pending.workflowId);
    const approved = await cli.run(['grant', pending.workflowId, '--expire-after', '30m', '--as', 'alice']);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(
      approved.stdout,
      /^Approved .+\. Granted .+: deploy, input \{"env":"production"\} for agent cli-grants-agent until /,
    );
    assert.equal(await pending.result, 'ran {"env":"production"}');
    const again = deploy({ env: 'production' });
    assert.equal(await again.result, 'ran {"env":"production"}');
    assert.match((await cli.stack.questions.get(again.workflowId)).decision?.decidedBy ?? '', /^grant:/);

    const listed = await cli.run(['grants', '--agent', AGENT.id]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${staging.id}  active  agent ${AGENT.id}`));
    assert.match(listed.stdout, /granted by alice at .+; used 1×/);

    const revoked = await cli.run(['revoke-grant', staging.id]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(revoked.stdout.trim(), `Revoked ${staging.id}: it covers no call from now on.`);
    const twice = await cli.run(['revoke-grant', staging.id]);
    assert.notEqual(twice.code, 0);
    assert.match(twice.stderr, /already revoked by cli-tester/);
    const onlyRevoked = await cli.run(['grants', '--agent', AGENT.id, '--status', 'revoked', '--json']);
    assert.deepEqual(
      (JSON.parse(onlyRevoked.stdout) as { id: string }[]).map((one) => one.id),
      [staging.id],
    );
  });

  test("--group: the grant and approve-and-grant decide calls whose audience the granter's groups meet", async () => {
    // Every call this provider asks about is for the database team to decide.
    const dba = new TemporalUserInteraction({
      client: cli.stack.client,
      taskQueue: TASK_QUEUE,
      policy: { audience: { groups: ['dba'] } },
    });
    try {
      const agent = { id: `cli-groups-${randomUUID()}` };
      const made = await cli.run(
        ['grant', '--agent', agent.id, '--tool', 'deploy', '--expire-after', '1h', '--as', 'carol'].concat([
          '--group',
          'dba',
          '--group',
          'ops',
          '--input',
          '{"env":"db"}',
          '--json',
        ]),
      );
      assert.equal(made.code, 0, made.stderr);
      const grant = JSON.parse(made.stdout) as { id: string; grantedByGroups?: string[] };
      assert.deepEqual(grant.grantedByGroups, ['dba', 'ops']);
      const covered = deployThroughApproval(dba, agent, { env: 'db' });
      assert.equal(await covered.result, 'ran {"env":"db"}');
      assert.equal(
        (await cli.stack.questions.get(covered.workflowId)).decision?.decidedBy,
        `grant:${grant.id}`,
      );

      // Without --group, carol's approval of the pending call is refused by its audience, and nothing is granted.
      const pending = deployThroughApproval(dba, agent, { env: 'cache' });
      await waitForPendingRecord(cli.stack.client, pending.workflowId);
      const refused = await cli.run(['grant', pending.workflowId, '--expire-after', '30m', '--as', 'carol']);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /may not decide this: it is assigned to groups dba/);
      const withGroup = await cli.run([
        'grant',
        pending.workflowId,
        '--expire-after',
        '30m',
        '--as',
        'carol',
        '--group',
        'dba',
        '--json',
      ]);
      assert.equal(withGroup.code, 0, withGroup.stderr);
      assert.deepEqual((JSON.parse(withGroup.stdout) as { grantedByGroups?: string[] }).grantedByGroups, [
        'dba',
      ]);
      assert.equal(await pending.result, 'ran {"env":"cache"}');
      const again = deployThroughApproval(dba, agent, { env: 'cache' });
      assert.equal(await again.result, 'ran {"env":"cache"}');
      assert.match((await cli.stack.questions.get(again.workflowId)).decision?.decidedBy ?? '', /^grant:/);
    } finally {
      await dba.close();
    }
  });
});
