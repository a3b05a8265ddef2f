/**
 * What the model reads about `ask_user_question`: the description and the field descriptions state every rule
 * it needs, the JSON Schema carries the contract's limits, and each form (the tool's own, OpenAI strict mode,
 * the MCP listing) stays within its token budget.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import {
  MCP_LISTING_TOKEN_BUDGET,
  OPENAI_STRICT_TOKEN_BUDGET,
  TOOL_TOKEN_BUDGET,
  measureToolForms,
  measureToolSchema,
} from '../../scripts/print-schema';
import { askUserQuestionMcpTool } from '../../src/mcp/mcp-tool-definition';
import { openAiTool } from '../../src/adapters/openai';
import {
  ASK_USER_QUESTION_DESCRIPTION,
  LIMITS,
  askUserQuestionJsonSchema,
  createAskUserQuestionTool,
} from '../../src/tool';

const projectRoot = join(__dirname, '../..');

/**
 * The most cl100k_base tokens each form of what the model sees may cost: the tool's name, description and
 * schema (`plain`), OpenAI strict mode's, and the MCP listing's with its output schema. Written out here, not
 * imported from the script, so that raising one of the script's budgets fails this test.
 */
const TOKEN_BUDGET = 300;
const OPENAI_STRICT_BUDGET = 330;
const MCP_LISTING_BUDGET = 350;

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; items?: Schema };

function at(schema: Schema, ...path: string[]): Schema {
  let current = schema;
  for (const key of path) {
    const next = key === 'items' ? current.items : current.properties?.[key];
    assert.ok(next !== undefined, `the schema has no ${path.join('.')}`);
    current = next;
  }
  return current;
}

describe('the description states each rule the model needs', () => {
  const description = ASK_USER_QUESTION_DESCRIPTION;
  const statements: [string, string][] = [
    ['when to ask', 'when you need a confirmation, a choice or missing information'],
    ['how to recommend', 'To recommend an option, put it first and append " (Recommended)" to its label.'],
    ['the answer shape', 'Returns {"answers":[{"id":"...","selected":["..."],"custom":"..."}]}'],
    ['one item per question', 'one per question'],
    ['selected holds labels', 'selected holds the chosen labels'],
    ['custom overrides', 'custom, a free-form answer, overrides them'],
    ['skipped', 'selected [] without custom means skipped'],
  ];
  for (const [rule, text] of statements) {
    test(rule, () => {
      assert.ok(description.includes(text), `the description does not say: ${text}`);
    });
  }
});

describe('the field descriptions state the rules the JSON Schema keywords cannot', () => {
  const schema = askUserQuestionJsonSchema as Schema;

  test('ids unique in the call and echoed, question and labels non-blank, labels unique, free-form, default', () => {
    const question = at(schema, 'questions', 'items');
    const option = at(question, 'options', 'items');
    assert.deepEqual(
      {
        questions: at(schema, 'questions').description,
        id: at(question, 'id').description,
        question: at(question, 'question').description,
        header: at(question, 'header').description,
        options: at(question, 'options').description,
        multi_select: at(question, 'multi_select').description,
        label: at(option, 'label').description,
        description: at(option, 'description').description,
      },
      {
        // The limits, optional fields and types need no words: the schema's keywords state them.
        questions: undefined,
        id: 'Unique in the call; echoed in the answer',
        question: 'Non-blank',
        header: undefined,
        options: 'Omit or [] for free-form only',
        multi_select: 'Allow several choices; default false',
        label: 'Non-blank, unique in its question',
        description: undefined,
      },
    );
  });
});

describe('the JSON Schema carries the contract limits', () => {
  const schema = askUserQuestionJsonSchema as Schema;

  test('no $schema dialect line, and unknown keys are not forbidden', () => {
    assert.equal('$schema' in schema, false);
    assert.equal(JSON.stringify(schema).includes('additionalProperties'), false);
  });

  test('questions: required, 1 to 20 items', () => {
    assert.deepEqual(schema.required, ['questions']);
    const questions = at(schema, 'questions');
    assert.equal(questions.type, 'array');
    assert.equal(questions.minItems, 1);
    assert.equal(questions.maxItems, 20);
  });

  test('a question: id 1-100 chars, question at most 4000, header at most 80, multi_select boolean', () => {
    const question = at(schema, 'questions', 'items');
    assert.deepEqual(question.required, ['id', 'question']);
    assert.deepEqual(Object.keys(question.properties ?? {}), [
      'id',
      'question',
      'header',
      'options',
      'multi_select',
    ]);
    assert.equal(at(question, 'id').type, 'string');
    assert.equal(at(question, 'id').minLength, 1);
    assert.equal(at(question, 'id').maxLength, 100);
    assert.equal(at(question, 'question').type, 'string');
    assert.equal(at(question, 'question').maxLength, 4000);
    assert.equal(at(question, 'header').type, 'string');
    assert.equal(at(question, 'header').maxLength, 80);
    assert.equal(at(question, 'multi_select').type, 'boolean');
  });

  test('options: at most 20; label required, at most 200 chars; description at most 1000', () => {
    const options = at(schema, 'questions', 'items', 'options');
    assert.equal(options.type, 'array');
    assert.equal(options.maxItems, 20);
    const option = at(options, 'items');
    assert.deepEqual(option.required, ['label']);
    assert.equal(at(option, 'label').maxLength, 200);
    assert.equal(at(option, 'description').maxLength, 1000);
  });

  test('the limits the schema states are the ones the tool enforces', () => {
    assert.deepEqual(LIMITS, {
      questions: 20,
      idLength: 100,
      questionLength: 4000,
      headerLength: 80,
      options: 20,
      labelLength: 200,
      descriptionLength: 1000,
    });
  });
});

describe('size of what the model sees', () => {
  test(`name, description and compact schema together cost at most ${TOKEN_BUDGET} cl100k_base tokens`, () => {
    // Counted here from the tool itself, in one piece, rather than trusting the script's own sum.
    const tool = createAskUserQuestionTool({
      userInteraction: { ask: () => Promise.reject(new Error('never asked')) },
    });
    const sent = tool.name + tool.description + JSON.stringify(tool.parameters);
    const tokens = encode(sent).length;
    assert.ok(tokens <= TOKEN_BUDGET, `ask_user_question costs ${tokens} tokens, over ${TOKEN_BUDGET}`);

    // The script measures exactly what is sent: the same characters, and the same tokens up to the two
    // boundaries between the parts (it counts each part on its own).
    const size = measureToolSchema();
    assert.equal(size.parametersJson, JSON.stringify(askUserQuestionJsonSchema));
    assert.equal(size.total.characters, sent.length);
    assert.ok(
      Math.abs(size.total.tokens - tokens) <= 2,
      `the script counts ${size.total.tokens} tokens, one encoding of what is sent has ${tokens}`,
    );
  });

  test(`OpenAI strict mode costs at most ${OPENAI_STRICT_BUDGET} tokens, the MCP listing at most ${MCP_LISTING_BUDGET}`, () => {
    // Counted here from the adapters' entries, each part as sent, and compared with the script's figures.
    const strict = openAiTool({ strict: true }).chatCompletions.function;
    const strictTokens = [strict.name, strict.description, JSON.stringify(strict.parameters)]
      .map((text) => countTokens(text))
      .reduce((sum, count) => sum + count, 0);
    assert.ok(
      strictTokens <= OPENAI_STRICT_BUDGET,
      `the OpenAI strict form costs ${strictTokens} tokens, over ${OPENAI_STRICT_BUDGET}`,
    );
    const mcp = askUserQuestionMcpTool();
    const mcpTokens = [
      mcp.name,
      mcp.description,
      JSON.stringify(mcp.inputSchema),
      JSON.stringify(mcp.outputSchema),
    ]
      .map((text) => countTokens(text))
      .reduce((sum, count) => sum + count, 0);
    assert.ok(
      mcpTokens <= MCP_LISTING_BUDGET,
      `the MCP listing costs ${mcpTokens} tokens, over ${MCP_LISTING_BUDGET}`,
    );
    assert.deepEqual(
      measureToolForms().map(({ label, total, budget }) => ({ label, tokens: total.tokens, budget })),
      [
        { label: 'OpenAI strict', tokens: strictTokens, budget: OPENAI_STRICT_BUDGET },
        { label: 'MCP listing', tokens: mcpTokens, budget: MCP_LISTING_BUDGET },
      ],
    );
  });

  test('the script holds the same budgets', () => {
    assert.deepEqual(
      [TOOL_TOKEN_BUDGET, OPENAI_STRICT_TOKEN_BUDGET, MCP_LISTING_TOKEN_BUDGET],
      [TOKEN_BUDGET, OPENAI_STRICT_BUDGET, MCP_LISTING_BUDGET],
    );
  });

  test('npm run schema prints the name, the description, the schema and the figures', async () => {
    const size = measureToolSchema();
    const forms = measureToolForms();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join('scripts', 'print-schema.ts')],
      { cwd: projectRoot },
    );
    const lines = stdout.split('\n');
    assert.equal(lines[0], 'name: ask_user_question');
    assert.equal(lines[2], 'description:');
    assert.equal(lines[3], ASK_USER_QUESTION_DESCRIPTION);
    assert.equal(lines[5], 'parameters (JSON Schema):');
    assert.ok(stdout.includes(`${JSON.stringify(askUserQuestionJsonSchema, null, 2)}\n`));
    const total =
      `${size.total.characters}`.padStart(6) + ' chars ' + `${size.total.tokens}`.padStart(5) + ' tokens';
    assert.ok(stdout.includes(`  total       ${total}  budget ${TOKEN_BUDGET}\n`), stdout);
    for (const [label, budget] of [
      ['OpenAI strict', OPENAI_STRICT_BUDGET],
      ['MCP listing', MCP_LISTING_BUDGET],
    ] as const) {
      const form = forms.find((candidate) => candidate.label === label);
      assert.ok(form !== undefined, `no ${label} form`);
      const figures =
        `${form.total.characters}`.padStart(4) + ' chars ' + `${form.total.tokens}`.padStart(5) + ' tokens';
      assert.ok(stdout.includes(`  ${label.padEnd(14)}${figures}  budget ${budget}\n`), stdout);
    }
    assert.ok(stdout.endsWith('  every form within its budget\n'), stdout);
  });
});
