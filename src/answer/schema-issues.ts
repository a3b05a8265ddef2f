/**
 * Every problem of a value against a JSON Schema, as validation issues (`path: reason` through `issueTexts`), from
 * the validator the edit check uses (`@cfworker/json-schema`, see `decision-rules.ts`). The reasons of the
 * keywords an input most often breaks (a missing field, a wrong type, a count or a length out of range) are
 * worded as the rest of the package words them; any other keyword keeps the validator's own text.
 *
 * Deterministic and workflow-safe.
 */
import { Validator, type OutputUnit } from '@cfworker/json-schema';
import { isPlainObject, type ValidationIssue } from '../common';
import type { JsonSchemaObject } from '../types';
import { draftOf, leafErrors } from './decision-rules';

/** The `pattern` of a text that must not be blank: a schema that uses it reads "must not be blank". */
export const NON_BLANK_PATTERN = '\\S';

/** The value at a JSON Pointer fragment (`#/questions/0`) of `root`, the tokens decoded. */
function pointed(root: unknown, pointer: string): { value: unknown; path: (string | number)[] } {
  const tokens = pointer
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((token) => decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~'));
  let value = root;
  const path: (string | number)[] = [];
  for (const token of tokens) {
    const index = Array.isArray(value) && /^\d+$/.test(token) ? Number(token) : undefined;
    path.push(index ?? token);
    value =
      isPlainObject(value) || Array.isArray(value) ? (value as Record<string, unknown>)[token] : undefined;
  }
  return { value, path };
}

/** `a string`, `an array`, `null`: a JSON value's type as a reason names it. */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** The schema keyword's reason in the package's words, or `undefined` to keep the validator's. */
function reasonOf(keyword: string, schema: Record<string, unknown>, value: unknown): string | undefined {
  switch (keyword) {
    case 'type': {
      const expected = [schema.type]
        .flat()
        .map((type) => (type === 'array' || type === 'object' ? `an ${type}` : `a ${String(type)}`));
      return `must be ${expected.join(' or ')}, received ${typeName(value)}`;
    }
    case 'minItems':
    case 'maxItems': {
      if (!Array.isArray(value)) return undefined;
      const { minItems, maxItems } = schema;
      if (typeof minItems === 'number' && typeof maxItems === 'number') {
        return `must have ${minItems} to ${maxItems} items, received ${value.length}`;
      }
      const bound = keyword === 'minItems' ? `at least ${String(minItems)}` : `at most ${String(maxItems)}`;
      return `must have ${bound} items, received ${value.length}`;
    }
    case 'maxLength':
      return typeof value === 'string'
        ? `must be at most ${String(schema.maxLength)} characters, received ${[...value].length}`
        : undefined;
    case 'pattern':
      return schema.pattern === NON_BLANK_PATTERN ? 'must not be blank' : undefined;
    case 'minLength':
      return typeof value === 'string'
        ? `must be at least ${String(schema.minLength)} characters`
        : undefined;
  }
  return undefined;
}

/** The issues one validator error stands for: one per missing field of a `required`, else one. */
function issuesOf(error: OutputUnit, schema: JsonSchemaObject, value: unknown): ValidationIssue[] {
  const instance = pointed(value, error.instanceLocation);
  const keywordAt = pointed(schema, error.keywordLocation.replace(/\/[^/]*$/, ''));
  const parent = isPlainObject(keywordAt.value) ? keywordAt.value : {};
  if (error.keyword === 'required' && isPlainObject(instance.value) && Array.isArray(parent.required)) {
    const present = instance.value;
    return parent.required
      .filter((field): field is string => typeof field === 'string' && !(field in present))
      .map((field) => ({ path: [...instance.path, field], message: 'is required' }));
  }
  const message = reasonOf(error.keyword, parent, instance.value) ?? error.error.replace(/\.$/, '');
  return [{ path: instance.path, message }];
}

/**
 * The problems of `value` against `schema`, in the validator's order (none when it passes). A schema the
 * validator cannot use is one issue at the root.
 */
export function schemaIssues(schema: JsonSchemaObject, value: unknown): ValidationIssue[] {
  let errors: OutputUnit[];
  try {
    const result = new Validator(schema, draftOf(schema), false).validate(value);
    if (result.valid) return [];
    errors = result.errors;
  } catch (error) {
    return [
      { message: `the schema cannot be used: ${error instanceof Error ? error.message : String(error)}` },
    ];
  }
  // The validator reports a `required` once per missing field; each report stands for all of them here.
  const seen = new Set<string>();
  return leafErrors(errors).flatMap((error) => {
    const key = `${error.keywordLocation} ${error.instanceLocation}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return issuesOf(error, schema, value);
  });
}
