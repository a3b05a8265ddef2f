/**
 * What the CLI prints for text it did not write: question text comes from a model and from anyone who can start
 * a question, so terminal control sequences in it are shown as escapes, never obeyed by the terminal.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { answersFromFlags, splitPair } from '../../src/cli/answer-flags';
import { formatRecord, formatSummaries, printable } from '../../src/cli/format';
import type { QuestionRecord } from '../../src/types';

test('control characters and bidirectional overrides are shown as escapes; tabs and line breaks kept', () => {
  assert.equal(
    printable('Deploy?\u001b[2J\u001b[1;1HAll clear\u0007\ttab\nline\u202eevil\u0085'),
    'Deploy?\\u{1b}[2J\\u{1b}[1;1HAll clear\\u{7}\ttab\nline\\u{202e}evil\\u{85}',
  );
  assert.equal(printable('plain text, é 界 😀'), 'plain text, é 界 😀');
});

test('list rows stay one line each, whatever the title holds', () => {
  const table = formatSummaries([
    {
      workflowId: 'ask-user-question/a/1',
      status: 'pending',
      askedAt: '2026-01-01T00:00:00.000Z',
      agentId: 'a',
      title: 'Line one\nline two\u001b[31m',
      questionCount: 1,
    },
  ]);
  assert.equal(
    table,
    [
      'ID                     KIND      STATUS   ASKED                     AGENT  QUESTION',
      'ask-user-question/a/1  question  pending  2026-01-01T00:00:00.000Z  a      Line one line two\\u{1b}[31m',
    ].join('\n'),
  );
});

test('show escapes the question, its options and the recorded reasons', () => {
  const record: QuestionRecord = {
    questions: [
      {
        id: 'q',
        question: 'Approve?\u001b[8m hidden',
        options: [{ label: 'Yes\u001b[0m' }, { label: 'No' }],
      },
    ],
    status: 'pending',
    askedAt: '2026-01-01T00:00:00.000Z',
    rejectedAnswers: [
      { receivedAt: '2026-01-01T00:00:01.000Z', reason: 'answers[0].selected: "\u001b[1m" is not an option' },
    ],
  };
  assert.equal(
    formatRecord('ask-user-question/x', record),
    [
      'ask-user-question/x  [pending]',
      'asked 2026-01-01T00:00:00.000Z',
      '',
      '[q] Approve?\\u{1b}[8m hidden (choose one)',
      '  - Yes\\u{1b}[0m',
      '  - No',
      '',
      'ignored answers:',
      '  2026-01-01T00:00:01.000Z answers[0].selected: "\\u{1b}[1m" is not an option',
    ].join('\n'),
  );
});

test('--select resolves a question id holding "=" by the longest known id', () => {
  const questions = [
    { id: 'q', question: 'First?', options: [{ label: '1=Yes' }] },
    { id: 'q=1', question: 'Second?', options: [{ label: 'Yes' }] },
  ];
  assert.deepEqual(splitPair('--select', 'q=1=Yes', ['q', 'q=1']), ['q=1', 'Yes']);
  assert.deepEqual(splitPair('--select', 'q=1=Yes', ['q']), ['q', '1=Yes']);
  assert.deepEqual(splitPair('--select', 'r=1', ['q']), ['r', '1']);
  assert.throws(() => splitPair('--select', 'nothing', ['q']), {
    name: 'CliUsageError',
    message: '--select "nothing": expected QID=VALUE',
  });
  assert.deepEqual(answersFromFlags(questions, ['q=1=Yes'], []), [
    { id: 'q', selected: [] },
    { id: 'q=1', selected: ['Yes'] },
  ]);
});
