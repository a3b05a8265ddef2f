/**
 * `schemaIssues`: a value's problems against a JSON Schema, from the edit check's validator, as `path: reason`
 * issues: the common keywords in the package's words, any other in the validator's, one issue per missing field.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { NON_BLANK_PATTERN, schemaIssues } from '../../src/answer/schema-issues';
import { issueTexts } from '../../src/common';

const schema = {
  type: 'object',
  required: ['name', 'tags', 'count'],
  properties: {
    name: { type: 'string', pattern: NON_BLANK_PATTERN, maxLength: 5 },
    tags: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } },
    count: { type: 'integer', minimum: 1 },
    'a/b': { type: ['string', 'null'] },
  },
};

const texts = (value: unknown): string[] => issueTexts(schemaIssues(schema, value));

describe('schemaIssues', () => {
  test('a value that fits has none', () => {
    assert.deepEqual(schemaIssues(schema, { name: 'api', tags: ['x'], count: 2 }), []);
  });

  test('each missing field is its own issue, at its own path', () => {
    assert.deepEqual(texts({ tags: ['x'] }), ['name: is required', 'count: is required']);
  });

  test('types, counts, lengths and blank texts in the package’s words', () => {
    assert.deepEqual(texts({ name: ' ', tags: [], count: 2, 'a/b': 3 }), [
      'name: must not be blank',
      'tags: must have 1 to 2 items, received 0',
      'a/b: must be a string or a null, received a number',
    ]);
    assert.deepEqual(texts({ name: 'service', tags: ['x', 'y', 'z'], count: 2 }), [
      'name: must be at most 5 characters, received 7',
      'tags: must have 1 to 2 items, received 3',
    ]);
    assert.deepEqual(texts({ name: 'api', tags: [1], count: 2 }), [
      'tags[0]: must be a string, received a number',
    ]);
  });

  test('another keyword keeps the validator’s text; a schema it cannot use is one issue', () => {
    const [minimum] = texts({ name: 'api', tags: ['x'], count: 0 });
    assert.match(minimum ?? '', /^count: \S/);
    assert.doesNotMatch(minimum ?? '', /\.$/);
    assert.deepEqual(
      schemaIssues({ $ref: '#/nowhere' }, {}).map((issue) => issue.path),
      [undefined],
    );
  });
});
