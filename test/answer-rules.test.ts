/**
 * The answer rules and the serialiser, alone: what an answering API says when an answer breaks a rule, and
 * the exact text the model reads for each kind of answer.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  RECOMMENDED_SUFFIX,
  checkAnswer,
  isRecommendedLabel,
  serializeAnswer,
} from '../src/answer/answer-rules';
import type { AskUserQuestion } from '../src/types';
import {
  checksQuestion as checks,
  environmentQuestion as environment,
  noteQuestion as note,
} from './helpers/questions';

const batch = [environment, checks, note];

function accepted(questions: readonly AskUserQuestion[], raw: unknown): string {
  const checked = checkAnswer(questions, raw);
  if (!checked.ok) assert.fail(`expected the answer to be accepted, got ${JSON.stringify(checked)}`);
  return serializeAnswer(checked.answer);
}

describe('accepted answers serialise to the exact text the model reads', () => {
  test('a single-select answer', () => {
    assert.equal(
      accepted([environment], { answers: [{ id: 'env', selected: ['production'] }] }),
      '{"answers":[{"id":"env","selected":["production"]}]}',
    );
  });

  test('a multi-select answer with several labels keeps the order the human chose', () => {
    assert.equal(
      accepted([checks], { answers: [{ id: 'checks', selected: ['e2e', 'lint', 'unit tests'] }] }),
      '{"answers":[{"id":"checks","selected":["e2e","lint","unit tests"]}]}',
    );
  });

  test('a custom answer carries selected [] and custom last', () => {
    assert.equal(
      accepted([environment], { answers: [{ id: 'env', selected: [], custom: 'canary only, 5%' }] }),
      '{"answers":[{"id":"env","selected":[],"custom":"canary only, 5%"}]}',
    );
  });

  test('a skipped question is selected [] without custom', () => {
    assert.equal(
      accepted([environment], { answers: [{ id: 'env', selected: [] }] }),
      '{"answers":[{"id":"env","selected":[]}]}',
    );
  });

  test('a label ending in " (Recommended)" passes through unchanged', () => {
    assert.equal(
      accepted([environment], { answers: [{ id: 'env', selected: ['staging (Recommended)'] }] }),
      '{"answers":[{"id":"env","selected":["staging (Recommended)"]}]}',
    );
  });

  test('a batch of three mixed questions, in the order asked', () => {
    assert.equal(
      accepted(batch, {
        answers: [
          { id: 'env', selected: ['staging (Recommended)'] },
          { id: 'checks', selected: ['lint', 'unit tests'] },
          { id: 'note', selected: [], custom: 'Ping #deploys when done' },
        ],
      }),
      '{"answers":[{"id":"env","selected":["staging (Recommended)"]},' +
        '{"id":"checks","selected":["lint","unit tests"]},' +
        '{"id":"note","selected":[],"custom":"Ping #deploys when done"}]}',
    );
  });

  test('unknown keys are dropped and a missing selected reads as []', () => {
    assert.equal(
      accepted([environment, note], {
        answers: [
          { id: 'env', selected: ['production'], confidence: 0.9 },
          { id: 'note', custom: 'none' },
        ],
        answeredBy: 'alice',
      }),
      '{"answers":[{"id":"env","selected":["production"]},{"id":"note","selected":[],"custom":"none"}]}',
    );
  });

  test('the normalised answer is a copy: changing the input later changes nothing', () => {
    const selected = ['lint'];
    const checked = checkAnswer([checks], { answers: [{ id: 'checks', selected }] });
    selected.push('e2e');
    assert.deepEqual(checked, { ok: true, answer: { answers: [{ id: 'checks', selected: ['lint'] }] } });
  });

  test('text that needs escaping is escaped as JSON, never broken', () => {
    assert.equal(
      accepted([note], { answers: [{ id: 'note', selected: [], custom: 'say "hi"\n\tthen \\ leave' }] }),
      '{"answers":[{"id":"note","selected":[],"custom":"say \\"hi\\"\\n\\tthen \\\\ leave"}]}',
    );
  });
});

describe('each answer rule refuses with its rule and a reason naming the field', () => {
  const skipAll = [
    { id: 'env', selected: [] },
    { id: 'checks', selected: [] },
    { id: 'note', selected: [] },
  ];
  const cases: { name: string; raw: unknown; rule: string; reason: string }[] = [
    {
      name: 'shape: not an object',
      raw: null,
      rule: 'shape',
      reason: 'the answer must be an object with an "answers" array',
    },
    {
      name: 'shape: an array instead of an object',
      raw: [],
      rule: 'shape',
      reason: 'the answer must be an object with an "answers" array',
    },
    { name: 'shape: no answers array', raw: {}, rule: 'shape', reason: 'answers must be an array' },
    {
      name: 'shape: item not an object',
      raw: { answers: ['staging'] },
      rule: 'shape',
      reason: 'answers[0] must be an object',
    },
    {
      name: 'shape: id not a string',
      raw: { answers: [{ id: 1, selected: [] }] },
      rule: 'shape',
      reason: 'answers[0].id must be a string',
    },
    {
      name: 'shape: selected a string',
      raw: { answers: [{ id: 'env', selected: 'production' }] },
      rule: 'shape',
      reason: 'answers[0].selected must be an array of strings',
    },
    {
      name: 'shape: selected holding a number',
      raw: { answers: [{ id: 'env', selected: [1] }] },
      rule: 'shape',
      reason: 'answers[0].selected must be an array of strings',
    },
    {
      name: 'shape: custom not a string',
      raw: { answers: [{ id: 'env', selected: [], custom: 5 }] },
      rule: 'shape',
      reason: 'answers[0].custom must be a string',
    },
    {
      name: 'ids: too few answers',
      raw: { answers: skipAll.slice(0, 2) },
      rule: 'ids',
      reason: 'expected 3 answers (one per question, in order), received 2',
    },
    {
      name: 'ids: too many answers',
      raw: { answers: [...skipAll, { id: 'extra', selected: [] }] },
      rule: 'ids',
      reason: 'expected 3 answers (one per question, in order), received 4',
    },
    {
      name: 'ids: right ids in the wrong order',
      raw: { answers: [skipAll[1], skipAll[0], skipAll[2]] },
      rule: 'ids',
      reason: 'answers[0].id: expected "env", received "checks"',
    },
    {
      name: 'ids: an id that was not asked',
      raw: { answers: [skipAll[0], skipAll[1], { id: 'notes', selected: [] }] },
      rule: 'ids',
      reason: 'answers[2].id: expected "note", received "notes"',
    },
    {
      name: 'unknown-label: a label not offered',
      raw: { answers: [{ id: 'env', selected: ['dev'] }, skipAll[1], skipAll[2]] },
      rule: 'unknown-label',
      reason: 'answers[0].selected: "dev" is not an option of question "env"',
    },
    {
      name: 'unknown-label: a label on a free-form question',
      raw: { answers: [skipAll[0], skipAll[1], { id: 'note', selected: ['yes'] }] },
      rule: 'unknown-label',
      reason: 'answers[2].selected: "yes" is not an option of question "note"',
    },
    {
      name: 'unknown-label: the label without its " (Recommended)" suffix',
      raw: { answers: [{ id: 'env', selected: ['staging'] }, skipAll[1], skipAll[2]] },
      rule: 'unknown-label',
      reason: 'answers[0].selected: "staging" is not an option of question "env"',
    },
    {
      name: 'single-select: two labels',
      raw: {
        answers: [{ id: 'env', selected: ['staging (Recommended)', 'production'] }, skipAll[1], skipAll[2]],
      },
      rule: 'single-select',
      reason: 'answers[0].selected: question "env" allows one label, received 2',
    },
    {
      name: 'duplicate-label',
      raw: { answers: [skipAll[0], { id: 'checks', selected: ['lint', 'e2e', 'lint'] }, skipAll[2]] },
      rule: 'duplicate-label',
      reason: 'answers[1].selected: duplicate label "lint"',
    },
    {
      name: 'blank-custom: empty',
      raw: { answers: [skipAll[0], skipAll[1], { id: 'note', selected: [], custom: '' }] },
      rule: 'blank-custom',
      reason: 'answers[2].custom: must not be blank',
    },
    {
      name: 'blank-custom: only whitespace',
      raw: { answers: [skipAll[0], skipAll[1], { id: 'note', selected: [], custom: ' \n\t ' }] },
      rule: 'blank-custom',
      reason: 'answers[2].custom: must not be blank',
    },
    {
      name: 'custom-with-labels',
      raw: {
        answers: [
          { id: 'env', selected: ['production'], custom: 'but only at night' },
          skipAll[1],
          skipAll[2],
        ],
      },
      rule: 'custom-with-labels',
      reason: 'answers[0]: custom cannot be combined with selected labels',
    },
  ];
  for (const { name, raw, rule, reason } of cases) {
    test(name, () => {
      assert.deepEqual(checkAnswer(batch, raw), { ok: false, rule, reason });
    });
  }

  test('one answer is expected for one question (singular wording)', () => {
    assert.deepEqual(checkAnswer([note], { answers: [] }), {
      ok: false,
      rule: 'ids',
      reason: 'expected 1 answer (one per question, in order), received 0',
    });
  });

  test('a long id or label is cut in the reason so it cannot flood the message', () => {
    const longId = 'x'.repeat(100);
    assert.deepEqual(checkAnswer([note], { answers: [{ id: longId, selected: [] }] }), {
      ok: false,
      rule: 'ids',
      reason: `answers[0].id: expected "note", received "${'x'.repeat(57)}..."`,
    });
  });
});

describe('the Recommended convention', () => {
  test('the suffix is " (Recommended)" and is recognised only at the end of a label', () => {
    assert.equal(RECOMMENDED_SUFFIX, ' (Recommended)');
    assert.equal(isRecommendedLabel('staging (Recommended)'), true);
    assert.equal(isRecommendedLabel('(Recommended) staging'), false);
    assert.equal(isRecommendedLabel('staging(Recommended)'), false);
    assert.equal(isRecommendedLabel('staging (recommended)'), false);
  });
});
