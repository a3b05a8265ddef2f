/**
 * An approval with an agent (so the provider first asks the agent's standing grants) while the server is gone:
 * - the grant check and the start share one outage bound, so `ASK_UNAVAILABLE` comes within the bound plus
 *   2 s, as for a question (the check spent a bound of its own, and the start then a fresh one: twice as long);
 * - `close()` waits for an approval whose grant check is still in flight: once it returns, the approval has
 *   settled (`close()` used to return at once, the check being outside what it waits for).
 * A real dev server process on a temporary SQLite file, stopped under the provider's connection.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { inspect } from 'node:util';

import { TemporalUserInteraction, UserInteractionError, type ApprovalRequest } from '../../src';
import { killTrackedProcesses } from '../helpers/processes';
import { freePort, startDevServerProcess } from '../helpers/temporal';

/** The unavailability bound under test. */
const BOUND_MS = 4_000;

after(() => killTrackedProcesses());

describe('an approval with a grant check while the server is gone', () => {
  let directory: string;
  let address: string;

  before(async () => {
    directory = await fs.mkdtemp(path.join(os.tmpdir(), 'ask-user-approval-outage-'));
    const server = await startDevServerProcess({
      dbFile: path.join(directory, 'temporal.sqlite'),
      port: await freePort(),
    });
    address = server.address;
    // The provider connects while the server is up, then loses it: an outage, not a wrong address.
    process.env.TEMPORAL_ADDRESS = address;
    providers.push(new TemporalUserInteraction({ unavailableTimeoutMs: BOUND_MS }));
    providers.push(new TemporalUserInteraction({ unavailableTimeoutMs: BOUND_MS }));
    for (const provider of providers) await provider.client();
    await server.stop();
  });

  after(async () => {
    delete process.env.TEMPORAL_ADDRESS;
    for (const provider of providers) await provider.close();
    await fs.rm(directory, { recursive: true, force: true });
  });

  const providers: TemporalUserInteraction[] = [];

  function approvalOf(): ApprovalRequest {
    return {
      toolName: 'deploy',
      toolCallId: `call-${randomUUID()}`,
      input: { service: 'api' },
      agent: { id: `agent-${randomUUID()}` },
    };
  }

  test('ASK_UNAVAILABLE within the bound plus 2 s: the grant check and the start share it', async () => {
    const askedAt = Date.now();
    const failure = await providers[0]!.requestApproval(approvalOf()).then(
      (decision) => assert.fail(`decided while the server was down: ${inspect(decision)}`),
      (error: unknown) => error,
    );
    const elapsed = Date.now() - askedAt;
    assert.ok(
      UserInteractionError.isInstance(failure),
      `expected a UserInteractionError, got ${inspect(failure)}`,
    );
    assert.equal(failure.code, 'ASK_UNAVAILABLE');
    assert.ok(
      elapsed <= BOUND_MS + 2_000,
      `ASK_UNAVAILABLE came ${elapsed} ms after the approval was asked; the bound is ${BOUND_MS} ms + 2 s`,
    );
  });

  test('close() waits for an approval whose grant check is in flight', async () => {
    const provider = providers[1]!;
    let settled = false;
    const approval = provider.requestApproval(approvalOf()).finally(() => {
      settled = true;
    });
    approval.catch(() => undefined); // awaited below
    await provider.close();
    // A settled promise's handlers run within a turn of the microtask queue; an unsettled one's never do.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, true, 'close() returned while the approval was still in flight');
    await assert.rejects(approval, (error: unknown) => UserInteractionError.isInstance(error));
  });
});
