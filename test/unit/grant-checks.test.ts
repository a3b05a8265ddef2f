/**
 * The provider's grant checks queue per agent (at most MAX_CHECKS_IN_FLIGHT updates to one grants workflow at
 * once), and the time a check waits in that queue counts against the caller's deadline: a check whose turn
 * comes after its deadline is never sent, and a person decides. The client is a double that holds every
 * `coverCall` until released, so the queue's order is what the test controls; what the server does with a
 * check is covered against a real server in test/integration/grants.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { WorkflowNotFoundError, type Client } from '@temporalio/client';

import { GrantChecks, MAX_CHECKS_IN_FLIGHT, coveringGrant } from '../../src/provider/grant-cover';
import type { ApprovalGrant } from '../../src/types';

const GRANT: ApprovalGrant = {
  id: 'agent-1/0123456789ab',
  grantedBy: 'alice',
  grantedAt: '2026-12-05T00:00:00.000Z',
  expiresAt: '2026-12-06T00:00:00.000Z',
};

/** A client whose `coverCall` updates all wait for `release()`, then answer `GRANT`; it counts them. */
function holdingClient(): { client: Client; sent: () => number; release: () => void } {
  let sent = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const client = {
    withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn(),
    workflow: {
      getHandle: () => ({
        executeUpdate: async () => {
          sent += 1;
          await released;
          return GRANT;
        },
      }),
    },
  } as unknown as Client;
  return { client, sent: () => sent, release };
}

const REQUEST = { agent: { id: 'agent-1' }, toolName: 'deploy', input: { env: 'staging' } };

/** Fills the agent's lane with checks that wait for the client's release. */
function fillLane(checks: GrantChecks, client: Client): Promise<ApprovalGrant | undefined>[] {
  return Array.from({ length: MAX_CHECKS_IN_FLIGHT }, (_unused, index) =>
    checks.covering(client, REQUEST, `approval-${index}`, Date.now() + 60_000),
  );
}

test('a check whose turn in the queue comes after its deadline is not sent: a person decides', async () => {
  const checks = new GrantChecks();
  const { client, sent, release } = holdingClient();
  const inFlight = fillLane(checks, client);
  const queued = checks.covering(client, REQUEST, 'approval-late', Date.now() + 50);
  await sleep(150);
  release();
  assert.equal(await queued, undefined);
  for (const each of await Promise.all(inFlight)) assert.deepEqual(each, GRANT);
  assert.equal(sent(), MAX_CHECKS_IN_FLIGHT);
});

test('a queued check whose turn comes in time is sent and finds the grant', async () => {
  const checks = new GrantChecks();
  const { client, sent, release } = holdingClient();
  const inFlight = fillLane(checks, client);
  const queued = checks.covering(client, REQUEST, 'approval-queued', Date.now() + 60_000);
  await sleep(150);
  assert.equal(sent(), MAX_CHECKS_IN_FLIGHT, 'the ninth check waits for a free place');
  release();
  assert.deepEqual(await queued, GRANT);
  await Promise.all(inFlight);
  assert.equal(sent(), MAX_CHECKS_IN_FLIGHT + 1);
});

/** A client whose `coverCall` attempts follow `script`, one outcome per attempt: an error to throw, or a grant. */
function scriptedClient(script: (Error | ApprovalGrant)[]): { client: Client; attempts: () => number } {
  let attempts = 0;
  const client = {
    withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn(),
    workflow: {
      getHandle: () => ({
        executeUpdate: () => {
          const outcome = script[Math.min(attempts, script.length - 1)]!;
          attempts += 1;
          return outcome instanceof Error ? Promise.reject(outcome) : Promise.resolve(outcome);
        },
      }),
    },
  } as unknown as Client;
  return { client, attempts: () => attempts };
}

test('an agent with no grants workflow is answered at once: no grant, one attempt', async () => {
  const { client, attempts } = scriptedClient([
    new WorkflowNotFoundError('workflow not found', 'ask-user-grants/agent-1', undefined),
  ]);
  assert.equal(await coveringGrant(client, REQUEST, 'approval-1', 10_000), undefined);
  assert.equal(attempts(), 1);
});

test('a check that met the grants workflow continuing as new is sent again and reaches the new run', async () => {
  const { client, attempts } = scriptedClient([new Error('workflow execution already completed'), GRANT]);
  assert.deepEqual(await coveringGrant(client, REQUEST, 'approval-1', 10_000), GRANT);
  assert.equal(attempts(), 2);
});

test('a check whose workflow task failed under it (the server refused a continue-as-new) is sent again', async () => {
  const { client, attempts } = scriptedClient([
    new Error('9 FAILED_PRECONDITION: unexpected workflow task failure'),
    GRANT,
  ]);
  assert.deepEqual(await coveringGrant(client, REQUEST, 'approval-1', 10_000), GRANT);
  assert.equal(attempts(), 2);
});
