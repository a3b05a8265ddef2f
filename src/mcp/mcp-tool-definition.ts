/**
 * `ask_user_question` as an MCP server lists it: the tool's name, description and JSON Schema, plus an output
 * schema for the `structuredContent` of its results. Kept apart from the server so that measuring what a model
 * sees loads neither the MCP SDK nor a provider.
 */
import { z } from 'zod';
import {
  ASK_USER_QUESTION_DESCRIPTION,
  ASK_USER_QUESTION_TOOL_NAME,
  askUserQuestionJsonSchema,
} from '../tool/ask-user-question-schema';

/** The answer the tool returns, as `structuredContent`: the same object as its JSON text. */
const answerOutputSchema = z.object({
  answers: z.array(
    z.object({
      id: z.string(),
      selected: z.array(z.string()),
      custom: z.string().optional(),
    }),
  ),
});

function outputJsonSchema(): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(answerOutputSchema, { io: 'input' });
  return schema;
}

/** An MCP tool listing entry (`tools/list`), as the MCP specification shapes it. */
export interface McpToolDefinition {
  name: string;
  description: string;
  inputSchema: { type: 'object' } & Record<string, unknown>;
  outputSchema?: { type: 'object' } & Record<string, unknown>;
}

/** The JSON Schema of `ask_user_question`'s `structuredContent`: `{ answers: [{ id, selected, custom? }] }`. */
export const askUserQuestionOutputJsonSchema = outputJsonSchema() as McpToolDefinition['outputSchema'] &
  object;

/** `ask_user_question` as `tools/list` returns it: the tool's own JSON Schema as `inputSchema`, unchanged. */
export function askUserQuestionMcpTool(): McpToolDefinition {
  return {
    name: ASK_USER_QUESTION_TOOL_NAME,
    description: ASK_USER_QUESTION_DESCRIPTION,
    inputSchema: askUserQuestionJsonSchema as McpToolDefinition['inputSchema'],
    outputSchema: askUserQuestionOutputJsonSchema,
  };
}
