/**
 * The audit export's pieces that need no server: the `--since` times it reads, and its lines as JSON and CSV
 * (quoting per RFC 4180, nested values as JSON text). Its content against real histories is
 * test/e2e/batch-audit.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import type { AuditLine } from '../../src/ops';
import { auditHeader, auditText } from '../../src/ops';
import { auditSince } from '../../src/ops/audit-export';
import { sinceOf } from '../../src/cli/commands/audit';

const LINE: AuditLine = {
  workflowId: 'ask-user-question/bot/call-1',
  kind: 'question',
  status: 'declined',
  askedAt: '2026-12-04T09:00:00.000Z',
  agentId: 'bot',
  questions: [{ id: 'env', question: 'Where, "exactly"?' }],
  deadlineChanges: [],
  remindersSent: 0,
  reminderTimes: [],
  actions: [{ type: 'decline', at: '2026-12-04T09:01:00.000Z', by: 'bob' }],
  refusedAnswers: [],
  resolvedAt: '2026-12-04T09:01:00.000Z',
  resolvedBy: 'bob',
  declineReason: 'not today, sorry',
};

describe('the audit export', () => {
  test('--since reads a date, a date-time or a duration ago, and names anything else', () => {
    const now = Date.parse('2026-12-04T12:00:00Z');
    assert.equal(auditSince('7d', now)?.toISOString(), '2026-11-27T12:00:00.000Z');
    assert.equal(auditSince('2026-12-01', now)?.toISOString(), '2026-12-01T00:00:00.000Z');
    assert.equal(auditSince('2026-12-01T09:30:00+01:00', now)?.toISOString(), '2026-12-01T08:30:00.000Z');
    assert.equal(auditSince('yesterday', now), undefined);
    assert.equal(auditSince('2026-13-45', now), undefined);
    assert.throws(() => sinceOf('yesterday', now), /--since "yesterday": must be an ISO-8601 date or time/);
    assert.throws(() => sinceOf(undefined, now), /audit export needs --since TIME/);
  });

  test('a line as JSON, and as a CSV row under its header, quoted where it must be', () => {
    assert.deepEqual(JSON.parse(auditText(LINE, 'jsonl')), LINE);
    assert.equal(auditHeader('jsonl'), '');
    const header = auditHeader('csv').trimEnd().split(',');
    const row = auditText(LINE, 'csv');
    assert.ok(row.endsWith('\r\n'));
    assert.equal(header.length, 20);
    assert.match(row, /^ask-user-question\/bot\/call-1,question,declined,2026-12-04T09:00:00.000Z,bot,,,/);
    // Nested values are JSON in one quoted cell, their quotes doubled.
    assert.match(row, /,"\[\{""id"":""env"",""question"":""Where, \\""exactly\\""\?""\}\]",/);
    assert.match(row, /,bob,"\{""reason"":""not today, sorry""\}"\r\n$/);
  });
});
