/**
 * The forms of a 2026-07-28 client (one per question, keyed by position and attempt) and what their responses
 * become; and the event store that makes a 2025-11-25 session's streams resumable.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { McpSessionEventStore } from '../../src/mcp/mcp-event-store';
import { formKey, questionForms, replyFromForms } from '../../src/mcp/mcp-task-forms';
import type { AskUserQuestion } from '../../src/types';

const QUESTIONS: AskUserQuestion[] = [
  { id: 'region', question: 'Which region?', options: [{ label: 'eu' }, { label: 'us' }] },
  { id: 'note', question: 'Anything else?' },
];

describe('the forms of a task or a multi round-trip call', () => {
  test('one form per question, keyed by position, with new keys at each attempt and the note on top', () => {
    assert.deepEqual(Object.keys(questionForms(QUESTIONS, 0)), ['question-1', 'question-2']);
    const retry = questionForms(QUESTIONS, 2, 'Your answer was not recorded: no.');
    assert.deepEqual(Object.keys(retry), ['question-1-retry-2', 'question-2-retry-2']);
    assert.equal(formKey(0, 2), 'question-1-retry-2');
    const first = retry['question-1-retry-2']!;
    assert.equal(first.method, 'elicitation/create');
    assert.equal(first.params.mode, 'form');
    assert.ok(first.params.message.startsWith('Your answer was not recorded: no.\n\n'));
    assert.deepEqual(Object.keys(first.params.requestedSchema.properties), ['region', 'region_other']);
  });

  test('every form accepted: one answer item per question, in order', () => {
    const reply = replyFromForms(QUESTIONS, 1, {
      'question-1-retry-1': { action: 'accept', content: { region: 'eu' } },
      'question-2-retry-1': { action: 'accept', content: { note: 'after 6 pm' } },
    });
    assert.deepEqual(reply, {
      kind: 'answer',
      answers: [
        { id: 'region', selected: ['eu'] },
        { id: 'note', selected: [], custom: 'after 6 pm' },
      ],
    });
  });

  test('a decline of any form declines; a dismissed, missing or stale form records nothing', () => {
    assert.deepEqual(
      replyFromForms(QUESTIONS, 0, {
        'question-1': { action: 'accept', content: { region: 'eu' } },
        'question-2': { action: 'decline' },
      }),
      { kind: 'decline' },
    );
    assert.deepEqual(replyFromForms(QUESTIONS, 0, { 'question-1': { action: 'cancel' } }), { kind: 'none' });
    assert.deepEqual(
      replyFromForms(QUESTIONS, 0, { 'question-1': { action: 'accept', content: { region: 'eu' } } }),
      { kind: 'none' },
    );
    // Responses to the forms of an earlier attempt are not the current forms' responses.
    assert.deepEqual(
      replyFromForms(QUESTIONS, 1, {
        'question-1': { action: 'accept', content: { region: 'eu' } },
        'question-2': { action: 'accept', content: {} },
      }),
      { kind: 'none' },
    );
    assert.deepEqual(replyFromForms(QUESTIONS, 0, { 'question-1': 'accept', 'question-2': null }), {
      kind: 'none',
    });
  });
});

describe('the event store of a 2025-11-25 session', () => {
  test('replays the events of the same stream after the last one seen, and names the stream', async () => {
    const store = new McpSessionEventStore();
    const message = (id: number) => ({
      jsonrpc: '2.0' as const,
      method: 'notifications/progress',
      params: { id },
    });
    const first = await store.storeEvent('a', message(1));
    await store.storeEvent('b', message(2));
    const third = await store.storeEvent('a', message(3));
    const sent: [string, unknown][] = [];
    const stream = await store.replayEventsAfter(first, {
      send: async (eventId, sentMessage) => void sent.push([eventId, sentMessage]),
    });
    assert.equal(stream, 'a');
    assert.deepEqual(sent, [[third, message(3)]]);
    assert.equal(await store.getStreamIdForEventId(third), 'a');
    assert.equal(await store.replayEventsAfter('unknown', { send: async () => undefined }), '');
  });

  test('keeps the latest 1,000 events', async () => {
    const store = new McpSessionEventStore();
    const first = await store.storeEvent('a', { jsonrpc: '2.0', method: 'ping' });
    for (let n = 0; n < 1_000; n += 1) await store.storeEvent('a', { jsonrpc: '2.0', method: 'ping' });
    assert.equal(await store.getStreamIdForEventId(first), undefined);
  });
});
