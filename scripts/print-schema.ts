/**
 * Prints what the model sees of `ask_user_question` on every request where the tool is visible: its name,
 * its description and its JSON Schema, and what that costs in characters and in cl100k_base tokens.
 *
 *   npm run schema
 *
 * The count is over what a loop actually sends: the name, the description and the compact
 * `JSON.stringify(parameters)`. The tokenizer is a devDependency, so the measuring lives here and not in
 * `src/tool`. `test/schema-size.test.ts` holds the figure to `TOOL_TOKEN_BUDGET`.
 */
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { createAskUserQuestionTool } from '../src/tool';
import type { UserInteraction } from '../src/types';

/** The most tokens the tool's name, description and schema may cost together. */
export const TOOL_TOKEN_BUDGET = 400;

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

/** The report `npm run schema` prints. */
export function formatSchemaReport(size: ToolSchemaSize): string {
  const row = (label: string, part: PartSize): string =>
    `  ${label.padEnd(12)}${String(part.characters).padStart(6)} chars ${String(part.tokens).padStart(5)} tokens`;
  const verdict = size.total.tokens <= TOOL_TOKEN_BUDGET ? 'within' : 'OVER';
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
    row('total', size.total),
    `  ${'budget'.padEnd(12)}${String(TOOL_TOKEN_BUDGET).padStart(18)} tokens (${verdict})`,
  ].join('\n');
}

function main(): void {
  const size = measureToolSchema();
  process.stdout.write(`${formatSchemaReport(size)}\n`);
  if (size.total.tokens > TOOL_TOKEN_BUDGET) {
    const overBy = `${size.total.tokens} tokens, over the budget of ${TOOL_TOKEN_BUDGET}`;
    process.stderr.write(`ask_user_question costs ${overBy}\n`);
    process.exitCode = 1;
  }
}

if (require.main === module) main();
