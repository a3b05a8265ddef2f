/**
 * `openAiTool`: the Chat Completions and Responses API entries, a strict-mode schema checked against OpenAI's
 * published strict-mode rules, and a strict model's arguments (every unused optional field `null`) through the
 * tool to the exact answer text.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { measureToolForms } from '../../scripts/print-schema';
import { openAiTool, toStrictJsonSchema, type JsonSchema } from '../../src/adapters';
import { InMemoryUserInteraction } from '../../src/interaction';
import {
  ASK_USER_QUESTION_DESCRIPTION,
  ASK_USER_QUESTION_TOOL_NAME,
  askUserQuestionJsonSchema,
  createAskUserQuestionTool,
} from '../../src/tool';

/**
 * The strict-mode rules for function parameters, as code. Sources: OpenAI's Structured Outputs guide
 * (platform.openai.com/docs/guides/structured-outputs), section "Supported schemas", which function calling
 * with `strict: true` follows (platform.openai.com/docs/guides/function-calling, "Strict mode"):
 *
 * - "Supported types": string, number, boolean, integer, object, array, enum, anyOf; `null` only in a union,
 *   for optional values.
 * - "Root objects must not be anyOf and must be an object".
 * - "All fields must be required": every key of `properties` is listed in `required`; optional fields are
 *   emulated with a union type that includes `null`.
 * - "additionalProperties: false must always be set in objects".
 * - "Some type-specific keywords are not yet supported": strings minLength, maxLength, pattern, format;
 *   numbers minimum, maximum, multipleOf; objects patternProperties, unevaluatedProperties, propertyNames,
 *   minProperties, maxProperties; arrays unevaluatedItems, contains, minContains, maxContains, minItems,
 *   maxItems, uniqueItems. (Later revisions of the guide accept some of these on some models; a schema
 *   without any of them is accepted everywhere.) `default` appears in no list of supported keywords either.
 * - "Objects have limitations on nesting depth and size": at most 100 object properties in total and 5 levels
 *   of nesting (the limits of the first published guide; later ones are larger).
 * - "Limitations on total string size": property names, definition names, enum and const values together at
 *   most 15,000 characters.
 * - Function names (function-calling guide): `^[a-zA-Z0-9_-]{1,64}$`.
 */
const SUPPORTED_TYPES = new Set(['string', 'number', 'boolean', 'integer', 'object', 'array', 'null']);
const UNSUPPORTED_KEYWORDS = [
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'multipleOf',
  'patternProperties',
  'unevaluatedProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'unevaluatedItems',
  'contains',
  'minContains',
  'maxContains',
  'minItems',
  'maxItems',
  'uniqueItems',
  'default',
];
const MAX_PROPERTIES = 100;
const MAX_NESTING = 5;
const MAX_STRING_SIZE = 15_000;

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every broken strict-mode rule, one line each, with the path of the node that breaks it. */
function strictModeViolations(functionName: string, parameters: JsonSchema): string[] {
  const violations: string[] = [];
  let propertyCount = 0;
  let stringSize = 0;
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(functionName))
    violations.push(`name ${functionName}: invalid function name`);
  if (parameters.type !== 'object' || 'anyOf' in parameters) violations.push('$: the root must be an object');

  const visit = (node: JsonSchema, path: string, depth: number): void => {
    const types = Array.isArray(node.type) ? (node.type as unknown[]) : [node.type];
    if (node.anyOf === undefined && node.enum === undefined && node.const === undefined) {
      for (const type of types) {
        if (typeof type !== 'string' || !SUPPORTED_TYPES.has(type)) {
          violations.push(`${path}: unsupported type ${JSON.stringify(type)}`);
        }
      }
      if (types.includes('null') && types.length === 1) violations.push(`${path}: null alone is not a type`);
    }
    for (const keyword of UNSUPPORTED_KEYWORDS) {
      if (keyword in node) violations.push(`${path}: unsupported keyword ${keyword}`);
    }
    for (const value of [...((node.enum as unknown[] | undefined) ?? []), node.const]) {
      if (typeof value === 'string') stringSize += value.length;
    }
    if (types.includes('object')) {
      if (depth > MAX_NESTING) violations.push(`${path}: nested deeper than ${MAX_NESTING} levels`);
      const properties = isSchema(node.properties) ? node.properties : {};
      const names = Object.keys(properties);
      propertyCount += names.length;
      for (const name of names) stringSize += name.length;
      if (node.additionalProperties !== false) violations.push(`${path}: additionalProperties must be false`);
      const required = Array.isArray(node.required) ? (node.required as unknown[]) : [];
      for (const name of names) {
        if (!required.includes(name)) violations.push(`${path}.${name}: not listed in required`);
      }
      for (const [name, property] of Object.entries(properties)) {
        if (isSchema(property)) visit(property, `${path}.${name}`, depth + 1);
      }
    }
    if (isSchema(node.items)) visit(node.items, `${path}[]`, depth);
    for (const [index, branch] of ((node.anyOf as unknown[] | undefined) ?? []).entries()) {
      if (isSchema(branch)) visit(branch, `${path}.anyOf[${index}]`, depth);
    }
  };
  visit(parameters, '$', 1);
  if (propertyCount > MAX_PROPERTIES)
    violations.push(`$: ${propertyCount} properties, over ${MAX_PROPERTIES}`);
  if (stringSize > MAX_STRING_SIZE)
    violations.push(`$: ${stringSize} characters of names, over ${MAX_STRING_SIZE}`);
  return violations;
}

/** The `type` of the node at `path` (property names and `[]` for items). */
function nodeAt(schema: JsonSchema, ...path: string[]): JsonSchema {
  let node = schema;
  for (const step of path) {
    const next =
      step === '[]' ? node.items : (node.properties as Record<string, unknown> | undefined)?.[step];
    assert.ok(isSchema(next), `no node at ${path.join('.')}`);
    node = next;
  }
  return node;
}

describe('openAiTool entries', () => {
  test('strict: the Chat Completions tools entry and the Responses function tool carry the same strict schema', () => {
    const { chatCompletions, responses } = openAiTool({ strict: true });
    const parameters = toStrictJsonSchema(askUserQuestionJsonSchema);
    assert.deepEqual(chatCompletions, {
      type: 'function',
      function: {
        name: ASK_USER_QUESTION_TOOL_NAME,
        description: ASK_USER_QUESTION_DESCRIPTION,
        parameters,
        strict: true,
      },
    });
    assert.deepEqual(responses, {
      type: 'function',
      name: ASK_USER_QUESTION_TOOL_NAME,
      description: ASK_USER_QUESTION_DESCRIPTION,
      parameters,
      strict: true,
    });
  });

  test('not strict (the default): the tool own JSON Schema, and strict: false stated for the Responses API', () => {
    for (const tool of [openAiTool(), openAiTool({ strict: false })]) {
      assert.deepEqual(tool.chatCompletions.function.parameters, askUserQuestionJsonSchema);
      assert.equal(tool.chatCompletions.function.strict, false);
      assert.deepEqual(tool.responses.parameters, askUserQuestionJsonSchema);
      assert.equal(tool.responses.strict, false);
    }
  });
});

describe('the strict schema against the strict-mode rules', () => {
  const { chatCompletions } = openAiTool({ strict: true });
  const strict = chatCompletions.function.parameters;

  test('it breaks none of them', () => {
    assert.deepEqual(strictModeViolations(chatCompletions.function.name, strict), []);
  });

  test('the checker finds what the plain schema breaks (so it can fail)', () => {
    assert.deepEqual(strictModeViolations(ASK_USER_QUESTION_TOOL_NAME, askUserQuestionJsonSchema), [
      '$: additionalProperties must be false',
      '$.questions: unsupported keyword minItems',
      '$.questions: unsupported keyword maxItems',
      '$.questions[]: additionalProperties must be false',
      '$.questions[].header: not listed in required',
      '$.questions[].options: not listed in required',
      '$.questions[].multi_select: not listed in required',
      '$.questions[].id: unsupported keyword minLength',
      '$.questions[].id: unsupported keyword maxLength',
      '$.questions[].question: unsupported keyword maxLength',
      '$.questions[].header: unsupported keyword maxLength',
      '$.questions[].options: unsupported keyword maxItems',
      '$.questions[].options[]: additionalProperties must be false',
      '$.questions[].options[].description: not listed in required',
      '$.questions[].options[].label: unsupported keyword maxLength',
      '$.questions[].options[].description: unsupported keyword maxLength',
    ]);
    assert.deepEqual(
      strictModeViolations('ask user', { type: 'object', properties: {}, additionalProperties: false }),
      ['name ask user: invalid function name'],
    );
  });

  test('exactly the optional fields are nullable; required ones keep their single type', () => {
    const question = ['questions', '[]'];
    const types = {
      id: nodeAt(strict, ...question, 'id').type,
      question: nodeAt(strict, ...question, 'question').type,
      header: nodeAt(strict, ...question, 'header').type,
      options: nodeAt(strict, ...question, 'options').type,
      multi_select: nodeAt(strict, ...question, 'multi_select').type,
      label: nodeAt(strict, ...question, 'options', '[]', 'label').type,
      description: nodeAt(strict, ...question, 'options', '[]', 'description').type,
    };
    assert.deepEqual(types, {
      id: 'string',
      question: 'string',
      header: ['string', 'null'],
      options: ['array', 'null'],
      multi_select: ['boolean', 'null'],
      label: 'string',
      description: ['string', 'null'],
    });
    assert.equal(nodeAt(strict, 'questions').type, 'array');
  });

  test('the limits the schema can no longer state are in the descriptions', () => {
    const question = ['questions', '[]'];
    assert.deepEqual(
      {
        questions: nodeAt(strict, 'questions').description,
        id: nodeAt(strict, ...question, 'id').description,
        question: nodeAt(strict, ...question, 'question').description,
        header: nodeAt(strict, ...question, 'header').description,
        options: nodeAt(strict, ...question, 'options').description,
        label: nodeAt(strict, ...question, 'options', '[]', 'label').description,
        description: nodeAt(strict, ...question, 'options', '[]', 'description').description,
      },
      {
        questions: '1-20 items',
        id: 'Unique in the call; echoed in the answer (1-100 chars)',
        question: 'Non-blank (max 4000 chars)',
        header: 'max 80 chars',
        options: 'Omit or [] for free-form only (max 20 items)',
        label: 'Non-blank, unique in its question (max 200 chars)',
        description: 'max 1000 chars',
      },
    );
  });

  test('a keyword strict mode cannot express is refused by the conversion, naming where it is', () => {
    assert.throws(
      () =>
        toStrictJsonSchema({
          type: 'object',
          properties: { when: { type: 'string', pattern: '^[0-9]+$' } },
          required: ['when'],
        }),
      { message: 'toStrictJsonSchema: $.when uses "pattern", which strict mode does not accept' },
    );
  });

  test('what the model reads of the strict tool stays within 330 cl100k_base tokens', () => {
    const { name, description, parameters } = chatCompletions.function;
    const tokens = countTokens(name) + countTokens(description) + countTokens(JSON.stringify(parameters));
    assert.ok(tokens <= 330, `the strict form costs ${tokens} tokens`);
    assert.equal(measureToolForms().find((form) => form.label === 'OpenAI strict')?.total.tokens, tokens);
  });

  test('the README quotes the measured figures of the adapter forms', () => {
    const readme = fs.readFileSync(path.join(__dirname, '../..', 'README.md'), 'utf8');
    const match = /OpenAI strict mode (\d+) tokens, the MCP\s+listing (\d+) tokens/.exec(readme);
    assert.ok(match, 'README.md no longer states the adapter forms figures in the expected form');
    assert.deepEqual(
      match.slice(1).map(Number),
      ['OpenAI strict', 'MCP listing'].map(
        (label) => measureToolForms().find((form) => form.label === label)?.total.tokens,
      ),
    );
  });
});

describe('a strict model arguments through the tool', () => {
  test('every unused optional field null: read as absent, and the exact answer text comes back', async () => {
    const userInteraction = new InMemoryUserInteraction();
    const tool = createAskUserQuestionTool({ userInteraction });
    // What a strict model sends: every field present, `null` where it has nothing to say.
    const strictArguments = JSON.parse(
      JSON.stringify({
        questions: [
          {
            id: 'deploy',
            question: 'Deploy build 1.4.2 to production now?',
            header: null,
            options: [
              { label: 'Yes (Recommended)', description: null },
              { label: 'No', description: 'Wait for the next window' },
            ],
            multi_select: null,
          },
          {
            id: 'note',
            question: 'Anything to tell the on-call engineer?',
            header: null,
            options: null,
            multi_select: null,
          },
        ],
      }),
    ) as unknown;

    const answered = userInteraction.nextQuestion().then((pending) => {
      userInteraction.answer(pending.id, {
        answers: [
          { id: 'deploy', selected: ['Yes (Recommended)'] },
          { id: 'note', selected: [], custom: 'Watch the error rate' },
        ],
      });
      return pending;
    });
    const text = await tool.execute(strictArguments, { toolCallId: 'call_strict_1' });

    assert.equal(
      text,
      '{"answers":[{"id":"deploy","selected":["Yes (Recommended)"]},{"id":"note","selected":[],"custom":"Watch the error rate"}]}',
    );
    assert.deepEqual((await answered).request.questions, [
      {
        id: 'deploy',
        question: 'Deploy build 1.4.2 to production now?',
        options: [{ label: 'Yes (Recommended)' }, { label: 'No', description: 'Wait for the next window' }],
      },
      { id: 'note', question: 'Anything to tell the on-call engineer?' },
    ]);
  });
});
