/**
 * Prints what the model sees of `ask_user_question` on every request where the tool is visible: its name,
 * its description and its JSON Schema, and what that costs in characters and in cl100k_base tokens.
 *
 *   npm run schema
 *
 * The count is over what a loop actually sends: the name, the description and the compact
 * `JSON.stringify(parameters)`. The tokenizer is a devDependency, so the measuring lives here and not in
 * `src/tool`. Each form has its budget: `TOOL_TOKEN_BUDGET` for the tool's own form,
 * `OPENAI_STRICT_TOKEN_BUDGET` and `MCP_LISTING_TOKEN_BUDGET` for the adapters'; `test/unit/schema-size.test.ts`
 * holds the figures to them. The script exits 1 when a form is over its budget.
 */
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { askUserQuestionMcpTool } from '../src/mcp/mcp-tool-definition';
import { openAiTool } from '../src/adapters/openai';
import { createAskUserQuestionTool } from '../src/tool';
import type { UserInteraction } from '../src/types';

/** The most tokens the tool's name, description and schema may cost together. */
export const TOOL_TOKEN_BUDGET = 300;

/** The most tokens OpenAI strict mode's name, description and strict schema may cost together. */
export const OPENAI_STRICT_TOKEN_BUDGET = 330;

/** The most tokens the MCP listing's name, description, input and output schemas may cost together. */
export const MCP_LISTING_TOKEN_BUDGET = 350;

/** Size of one part of what the model sees. */
export interface PartSize {
  characters: number;
  tokens: number;
}

/** What the model sees of the tool, and its size, part by part and in total. */
export interface ToolSchemaSize {
  name: string;
  description: string;
  /** The JSON Schema exactly as sent: compact, no whitespace. */
  parametersJson: string;
  parts: { name: PartSize; description: PartSize; parameters: PartSize };
  total: PartSize;
}

function sizeOf(text: string): PartSize {
  return { characters: text.length, tokens: countTokens(text) };
}

// Measuring needs no provider: the name, description and schema do not depend on it.
const unusedProvider: UserInteraction = {
  ask: () => Promise.reject(new Error('print-schema never asks')),
};

/** Measures the `ask_user_question` tool as a model would receive it. */
export function measureToolSchema(): ToolSchemaSize {
  const tool = createAskUserQuestionTool({ userInteraction: unusedProvider });
  const parametersJson = JSON.stringify(tool.parameters);
  const parts = {
    name: sizeOf(tool.name),
    description: sizeOf(tool.description),
    parameters: sizeOf(parametersJson),
  };
  const total = {
    characters: parts.name.characters + parts.description.characters + parts.parameters.characters,
    tokens: parts.name.tokens + parts.description.tokens + parts.parameters.tokens,
  };
  return { name: tool.name, description: tool.description, parametersJson, parts, total };
}

/** What the model sees of the tool in another form (an adapter's), in total. */
export interface ToolFormSize {
  label: string;
  total: PartSize;
  /** The most tokens this form may cost. */
  budget: number;
}

function totalOf(texts: string[]): PartSize {
  const sizes = texts.map(sizeOf);
  return {
    characters: sizes.reduce((sum, size) => sum + size.characters, 0),
    tokens: sizes.reduce((sum, size) => sum + size.tokens, 0),
  };
}

/**
 * The adapters' forms, each part counted as sent: OpenAI strict mode (its schema is larger: nullable optional
 * fields, `additionalProperties: false`, limits in the descriptions) and the MCP listing (with the output
 * schema, in case a client shows it to the model too).
 */
export function measureToolForms(): ToolFormSize[] {
  const strict = openAiTool({ strict: true }).chatCompletions.function;
  const mcp = askUserQuestionMcpTool();
  return [
    {
      label: 'OpenAI strict',
      total: totalOf([strict.name, strict.description, JSON.stringify(strict.parameters)]),
      budget: OPENAI_STRICT_TOKEN_BUDGET,
    },
    {
      label: 'MCP listing',
      total: totalOf([
        mcp.name,
        mcp.description,
        JSON.stringify(mcp.inputSchema),
        JSON.stringify(mcp.outputSchema),
      ]),
      budget: MCP_LISTING_TOKEN_BUDGET,
    },
  ];
}

/** The forms over their budget, the tool's own (`plain`) first. */
export function formsOverBudget(size: ToolSchemaSize, forms: ToolFormSize[] = []): ToolFormSize[] {
  return [{ label: 'plain', total: size.total, budget: TOOL_TOKEN_BUDGET }, ...forms].filter(
    (form) => form.total.tokens > form.budget,
  );
}

/** The report `npm run schema` prints. */
export function formatSchemaReport(size: ToolSchemaSize, forms: ToolFormSize[] = []): string {
  const row = (label: string, part: PartSize): string =>
    `  ${label.padEnd(12)}${String(part.characters).padStart(6)} chars ${String(part.tokens).padStart(5)} tokens`;
  const budget = (tokens: number): string => `  budget ${String(tokens).padStart(3)}`;
  const over = formsOverBudget(size, forms);
  return [
    `name: ${size.name}`,
    '',
    'description:',
    size.description,
    '',
    'parameters (JSON Schema):',
    JSON.stringify(JSON.parse(size.parametersJson), null, 2),
    '',
    'size as sent (cl100k_base; parameters as compact JSON):',
    row('name', size.parts.name),
    row('description', size.parts.description),
    row('parameters', size.parts.parameters),
    row('total', size.total) + budget(TOOL_TOKEN_BUDGET),
    ...(forms.length === 0 ? [] : ['', 'other forms, in total (each part counted as sent):']),
    ...forms.map(
      ({ label, total, budget: formBudget }) =>
        `  ${label.padEnd(14)}${String(total.characters).padStart(4)} chars ${String(total.tokens).padStart(5)} tokens` +
        budget(formBudget),
    ),
    over.length === 0
      ? '  every form within its budget'
      : `  OVER budget: ${over.map((form) => form.label).join(', ')}`,
  ].join('\n');
}

function main(): void {
  const size = measureToolSchema();
  const forms = measureToolForms();
  process.stdout.write(`${formatSchemaReport(size, forms)}\n`);
  for (const { label, total, budget } of formsOverBudget(size, forms)) {
    process.stderr.write(
      `ask_user_question (${label}) costs ${total.tokens} tokens, over the budget of ${budget}\n`,
    );
    process.exitCode = 1;
  }
}

if (require.main === module) main();
