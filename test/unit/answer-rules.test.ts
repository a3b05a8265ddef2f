/**
 * The answer rules and the serialiser, alone: what an answering API says when an answer breaks a rule, and
 * the exact text the model reads for each kind of answer.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  MAX_ANSWER_BYTES,
  MAX_CUSTOM_LENGTH,
  RECOMMENDED_SUFFIX,
  checkAnswer,
  isRecommendedLabel,
  serializeAnswer,
} from '../../src/answer/answer-rules';
import { codePointLength, jsonByteLength, utf8ByteLength } from '../../src/answer/json-size';
import type { AskUserQuestion } from '../../src/types';
import {
  checksQuestion as checks,
  environmentQuestion as environment,
  noteQuestion as note,
} from '../helpers/questions';

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
    {
      name: 'custom-too-long: one character over 10,000',
      raw: { answers: [skipAll[0], skipAll[1], { id: 'note', selected: [], custom: 'n'.repeat(10_001) }] },
      rule: 'custom-too-long',
      reason: 'answers[2].custom: must be at most 10000 characters, received 10001',
    },
    {
      name: 'too-large: a whole answer over 256 KiB of UTF-8 JSON, counted before its shape',
      raw: { answers: skipAll, answeredBy: 'é'.repeat(131_072) },
      rule: 'too-large',
      // 2 bytes per "é", plus the JSON around it.
      reason: `the answer is ${262_144 + JSON.stringify({ answers: skipAll, answeredBy: '' }).length} bytes, over the 262144-byte limit`,
    },
    {
      name: 'undecodable: what the payload converter hands over for a payload it could not decode',
      raw: { undecodable: 'unknown encoding "binary/x-oops"' },
      rule: 'undecodable',
      reason: 'the answer could not be decoded: unknown encoding "binary/x-oops"',
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

describe('size limits', () => {
  test('the limits are 10,000 characters of custom text and 256 KiB per answer', () => {
    assert.equal(MAX_CUSTOM_LENGTH, 10_000);
    assert.equal(MAX_ANSWER_BYTES, 262_144);
  });

  test('a custom text of exactly 10,000 characters is accepted; characters are code points', () => {
    for (const custom of ['界'.repeat(10_000), '😀'.repeat(10_000), `${'a'.repeat(9_999)}\ud800`]) {
      assert.equal(
        accepted([note], { answers: [{ id: 'note', selected: [], custom }] }),
        `{"answers":[{"id":"note","selected":[],"custom":${JSON.stringify(custom)}}]}`,
      );
    }
    assert.deepEqual(
      checkAnswer([note], { answers: [{ id: 'note', selected: [], custom: '😀'.repeat(10_001) }] }),
      {
        ok: false,
        rule: 'custom-too-long',
        reason: 'answers[0].custom: must be at most 10000 characters, received 10001',
      },
    );
  });

  test('an answer of exactly 262,144 bytes is accepted, one byte more is not', () => {
    const frame = JSON.stringify({ answers: [{ id: 'note', selected: [] }], answeredBy: '' }).length;
    const answerOf = (bytes: number): unknown => ({
      answers: [{ id: 'note', selected: [] }],
      answeredBy: 'a'.repeat(bytes - frame),
    });
    assert.equal(jsonByteLength(answerOf(MAX_ANSWER_BYTES)), MAX_ANSWER_BYTES);
    assert.equal(accepted([note], answerOf(MAX_ANSWER_BYTES)), '{"answers":[{"id":"note","selected":[]}]}');
    assert.deepEqual(checkAnswer([note], answerOf(MAX_ANSWER_BYTES + 1)), {
      ok: false,
      rule: 'too-large',
      reason: 'the answer is 262145 bytes, over the 262144-byte limit',
    });
  });

  test('bytes are counted as UTF-8: 1 to 4 bytes a character, 3 for a lone surrogate', () => {
    assert.equal(utf8ByteLength('a'), 1);
    assert.equal(utf8ByteLength('é'), 2);
    assert.equal(utf8ByteLength('界'), 3);
    assert.equal(utf8ByteLength('😀'), 4);
    assert.equal(utf8ByteLength('\ud800'), 3);
    assert.equal(utf8ByteLength('\udc00x'), 4);
    assert.equal(codePointLength('a😀\ud800\udc00\udc00'), 4);
    for (const text of ['', 'plain', 'é界😀', 'mixed 😀 and é and 界']) {
      assert.equal(utf8ByteLength(text), Buffer.byteLength(text, 'utf8'), text);
    }
    assert.equal(jsonByteLength(undefined), undefined);
    assert.equal(jsonByteLength({ a: '界' }), Buffer.byteLength('{"a":"界"}'));
  });
});

describe('checkAnswer never throws, whatever it is given', () => {
  const cyclic: Record<string, unknown> = { answers: [] };
  cyclic.self = cyclic;
  const throwingGetter = {
    get answers(): unknown {
      throw new Error('getter exploded');
    },
  };
  const hostileProxy = new Proxy(
    {},
    {
      get() {
        throw new Error('proxy exploded');
      },
      ownKeys() {
        throw new Error('proxy exploded');
      },
    },
  );
  const cases: { name: string; raw: unknown; rule: string; reason: string }[] = [
    {
      name: 'a BigInt',
      raw: 10n,
      rule: 'shape',
      reason: 'the answer must be an object with an "answers" array',
    },
    {
      name: 'a symbol',
      raw: Symbol('x'),
      rule: 'shape',
      reason: 'the answer must be an object with an "answers" array',
    },
    {
      name: 'a function',
      raw: () => 1,
      rule: 'shape',
      reason: 'the answer must be an object with an "answers" array',
    },
    {
      name: 'a cyclic object',
      raw: cyclic,
      rule: 'ids',
      reason: 'expected 1 answer (one per question, in order), received 0',
    },
    {
      name: 'a BigInt inside',
      raw: { answers: [{ id: 'note', selected: [], custom: 1n }] },
      rule: 'shape',
      reason: 'answers[0].custom must be a string',
    },
    {
      name: 'a throwing getter',
      raw: throwingGetter,
      rule: 'shape',
      reason: 'the answer could not be read: getter exploded',
    },
    {
      name: 'a hostile proxy',
      raw: hostileProxy,
      rule: 'shape',
      reason: 'the answer could not be read: proxy exploded',
    },
    {
      name: 'undecodable with other keys is just a bad shape',
      raw: { undecodable: 'x', answers: 1 },
      rule: 'shape',
      reason: 'answers must be an array',
    },
  ];
  for (const { name, raw, rule, reason } of cases) {
    test(name, () => {
      assert.deepEqual(checkAnswer([note], raw), { ok: false, rule, reason });
    });
  }
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
