/**
 * The rules of standing grants, without a server: what a grant request must hold (each refusal names the field),
 * which calls a grant covers (tool, session, exact input in any key order, input schema; never once revoked or
 * expired), the operator's policy (forbidden tools, the longest expiry), and what a continued run keeps.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { GrantProblem, checkGrantRequest, grantCovers } from '../../src/question/grant-rules';
import { resolveGrantPolicy, grantPolicyFromEnv } from '../../src/question/grant-policy';
import {
  grantsWorkflowId,
  grantsWorkflowIdOfGrant,
  type StandingGrant,
} from '../../src/question/grant-definitions';
import { GrantState, MAX_ENDED_GRANTS, grantPolicyRefusal } from '../../src/workflows/grant-state';

const NOW = Date.parse('2026-12-04T12:00:00.000Z');
const HOUR = 3_600_000;

function refusedField(raw: unknown): string {
  try {
    checkGrantRequest(raw, NOW);
  } catch (error) {
    assert.ok(error instanceof GrantProblem, String(error));
    return error.message;
  }
  assert.fail('the request was taken');
}

function grant(fields: Partial<StandingGrant> = {}): StandingGrant {
  return {
    id: 'bot/000000000001',
    agentId: 'bot',
    toolName: 'deploy',
    grantedBy: 'alice',
    grantedAt: new Date(NOW - HOUR).toISOString(),
    expiresAt: new Date(NOW + HOUR).toISOString(),
    uses: 0,
    ...fields,
  };
}

const CALL = { toolName: 'deploy', input: { env: 'staging', version: '1.2.3' }, workflowId: 'q' };

describe('grant requests', () => {
  test('a request with a tool, an agent, a granter and an expiry is taken; the expiry is counted from now', () => {
    const checked = checkGrantRequest(
      { agentId: 'bot', toolName: 'deploy', grantedBy: 'alice', expireAfter: '8h', note: null },
      NOW,
    );
    assert.equal(checked.expiresAtMs, NOW + 8 * HOUR);
    assert.deepEqual(checked.request, {
      agentId: 'bot',
      toolName: 'deploy',
      expireAfter: '8h',
      grantedBy: 'alice',
    });
  });

  test('each broken rule is refused naming the field', () => {
    const base = { agentId: 'bot', toolName: 'deploy', grantedBy: 'alice', expireAfter: '1h' };
    assert.match(refusedField({ ...base, expireAfter: undefined }), /^expiresAt: a grant needs an expiry/);
    assert.match(
      refusedField({ ...base, expiresAt: '2026-12-05T00:00:00Z' }),
      /^expiresAt: give expireAfter or expiresAt, not both/,
    );
    assert.match(
      refusedField({ ...base, expireAfter: undefined, expiresAt: '2026-12-01T00:00:00Z' }),
      /^expiresAt: must be in the future/,
    );
    assert.match(refusedField({ ...base, expireAfter: 'soon' }), /^expireAfter: must be a duration/);
    assert.match(refusedField({ ...base, toolName: '' }), /^toolName: must be a non-empty string/);
    assert.match(refusedField({ ...base, agentId: undefined }), /^agentId: required/);
    assert.match(
      refusedField({ ...base, grantedBy: 'policy:auto' }),
      /^grantedBy: names starting with "grant:" or "policy:" are reserved/,
    );
    assert.match(
      refusedField({ ...base, input: 1, inputSchema: {} }),
      /^input: give inputSchema or input, not both/,
    );
    assert.match(refusedField({ ...base, inputSchema: [] }), /^inputSchema: must be a JSON Schema object/);
    assert.match(refusedField({ ...base, scope: 'all' }), /^scope: unknown field/);
    assert.match(refusedField('deploy'), /^grant: must be an object/);
  });
});

describe('which calls a grant covers', () => {
  test('the tool, any input, until it expires or is revoked', () => {
    assert.equal(grantCovers(grant(), CALL, NOW), true);
    assert.equal(grantCovers(grant(), { ...CALL, toolName: 'drop_table' }, NOW), false);
    assert.equal(grantCovers(grant(), CALL, NOW + HOUR), false, 'expired at its expiry');
    assert.equal(
      grantCovers(grant({ revokedAt: new Date(NOW).toISOString(), revokedBy: 'bob' }), CALL, NOW),
      false,
    );
  });

  test('exact input in any key order, an input schema, one session', () => {
    const exact = grant({ input: { version: '1.2.3', env: 'staging' } });
    assert.equal(grantCovers(exact, CALL, NOW), true);
    assert.equal(grantCovers(exact, { ...CALL, input: { env: 'production', version: '1.2.3' } }, NOW), false);
    const schema = grant({ inputSchema: { properties: { env: { const: 'staging' } }, required: ['env'] } });
    assert.equal(grantCovers(schema, CALL, NOW), true);
    assert.equal(grantCovers(schema, { ...CALL, input: { env: 'production' } }, NOW), false);
    const session = grant({ sessionId: 's1' });
    assert.equal(grantCovers(session, { ...CALL, sessionId: 's1' }, NOW), true);
    assert.equal(grantCovers(session, CALL, NOW), false);
  });
});

describe("the operator's grant policy", () => {
  test('forbidden tools, every tool, and the longest expiry', () => {
    const policy = resolveGrantPolicy({ maxExpireAfter: '1d', forbidTools: ['wire_funds'] }, 'test');
    assert.equal(grantPolicyRefusal(policy, 'deploy', 24 * HOUR), undefined);
    assert.match(
      grantPolicyRefusal(policy, 'wire_funds', HOUR) ?? '',
      /forbids grants of "wire_funds" \(forbidTools\)/,
    );
    assert.match(
      grantPolicyRefusal(policy, 'deploy', 48 * HOUR) ?? '',
      /would last 2d, longer than the operator's maxExpireAfter of 1d/,
    );
    assert.match(
      grantPolicyRefusal(resolveGrantPolicy({ forbidTools: ['*'] }, 'test'), 'deploy', HOUR) ?? '',
      /every tool/,
    );
    assert.equal(grantPolicyFromEnv({}).maxExpireAfterMs, 30 * 24 * HOUR);
    assert.throws(
      () => grantPolicyFromEnv({ ASK_USER_GRANT_POLICY: '{"maxExpireAfter":"soon"}' }),
      /ASK_USER_GRANT_POLICY: maxExpireAfter: must be a duration/,
    );
    assert.throws(
      () => resolveGrantPolicy({ forbid: [] }, 'createAskUserWorker option grants'),
      /createAskUserWorker option grants: forbid: unknown field/,
    );
  });
});

describe('grant state', () => {
  test('a revoke is refused twice, naming who; a continued run keeps the active and the last ended grants', () => {
    const ended = Array.from({ length: MAX_ENDED_GRANTS + 5 }, (_, index) =>
      grant({ id: `bot/e${index}`, expiresAt: new Date(NOW - HOUR + index).toISOString() }),
    );
    const state = new GrantState('bot', [grant(), ...ended]);
    const { grant: found, input } = state.checkRevoke({ id: 'bot/000000000001', revokedBy: 'bob' }, NOW);
    state.revoke(found, input, NOW);
    assert.throws(
      () => state.checkRevoke({ id: 'bot/000000000001', revokedBy: 'carol' }, NOW),
      /already revoked by bob/,
    );
    assert.throws(() => state.checkRevoke({ id: 'bot/e0', revokedBy: 'carol' }, NOW), /already expired/);
    assert.throws(() => state.covering(CALL, NOW), /no active grant covers the call/);
    const kept = state.kept(NOW);
    assert.equal(kept.length, MAX_ENDED_GRANTS);
    assert.ok(
      kept.some((one) => one.id === 'bot/000000000001'),
      'the latest ended, the revoked one, is kept',
    );
    assert.ok(!kept.some((one) => one.id === 'bot/e0'), 'the oldest ended one is dropped');
  });

  test("a grant's id names its agent's grants workflow", () => {
    assert.equal(grantsWorkflowIdOfGrant('deploy%2Fbot/3f9a0c2b7d41'), grantsWorkflowId('deploy/bot'));
    assert.equal(grantsWorkflowIdOfGrant('no-slash'), undefined);
  });
});
