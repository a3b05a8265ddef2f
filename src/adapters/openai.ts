/**
 * OpenAI function calling: the `ask_user_question` entry for the Chat Completions `tools` array and the
 * function tool of the Responses API, in plain or strict mode (Structured Outputs for function arguments).
 *
 * Strict mode accepts a subset of JSON Schema only: every object lists all its properties in `required` and
 * sets `additionalProperties: false`, optional fields are emulated by adding `"null"` to their type, and
 * keywords such as `minLength` or `maxItems` are refused. `toStrictJsonSchema` converts the tool's schema
 * accordingly and moves the limits into the descriptions, where the model still reads them; the tool's argument
 * parser enforces them, and reads a `null` in an optional field as absent.
 *
 * Dependency-free apart from the tool itself: no OpenAI SDK, no Temporal.
 */
import {
  ASK_USER_QUESTION_DESCRIPTION,
  ASK_USER_QUESTION_TOOL_NAME,
  askUserQuestionJsonSchema,
} from '../tool/ask-user-question-schema';
import { UserInteractionError } from '../interaction/user-interaction-error';

/** A JSON Schema node, as generated from the tool's zod schema. */
export type JsonSchema = Record<string, unknown>;

/** Options of {@link openAiTool}. */
export interface OpenAiToolOptions {
  /**
   * Send the schema in strict mode (Structured Outputs): the model's arguments then always match it. Default
   * `false`: the tool's own schema, as every other adapter sends it. The Responses API defaults to strict when
   * `strict` is omitted, so both entries always state it.
   */
  strict?: boolean;
}

/** One entry of the Chat Completions `tools` array. */
export interface OpenAiChatCompletionsTool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema; strict: boolean };
}

/** One function tool of the Responses API `tools` array. */
export interface OpenAiResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
}

/** `ask_user_question` for both OpenAI APIs. */
export interface OpenAiTool {
  /** For `chat.completions.create({ tools: [chatCompletions] })`. */
  chatCompletions: OpenAiChatCompletionsTool;
  /** For `responses.create({ tools: [responses] })`. */
  responses: OpenAiResponsesTool;
}

/** Keywords that carry limits strict mode does not accept, and how each reads in a description. */
const LIMIT_KEYWORDS = ['minLength', 'maxLength', 'minItems', 'maxItems'] as const;

/**
 * Keywords the conversion copies as they are: the ones strict mode accepts. Anything else in the source schema
 * is an error, so a schema change that strict mode cannot express fails at once, not at the model's endpoint.
 */
const COPIED_KEYWORDS = new Set(['type', 'description', 'properties', 'items', 'enum', 'const']);

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `1-100 chars`, `max 80 chars`, `1-20 items`, `at least 1 item`: the limits a node states, in words. */
function limitText(node: JsonSchema): string | undefined {
  const parts: string[] = [];
  for (const [min, max, unit] of [
    [node.minLength, node.maxLength, 'chars'],
    [node.minItems, node.maxItems, 'items'],
  ] as const) {
    if (typeof min === 'number' && typeof max === 'number') parts.push(`${min}-${max} ${unit}`);
    else if (typeof max === 'number') parts.push(`max ${max} ${unit}`);
    else if (typeof min === 'number') parts.push(`min ${min} ${unit}`);
  }
  return parts.length === 0 ? undefined : parts.join(', ');
}

function strictNode(node: JsonSchema, path: string, nullable: boolean): JsonSchema {
  const result: JsonSchema = {};
  const required = Array.isArray(node.required) ? (node.required as unknown[]) : [];
  for (const [keyword, value] of Object.entries(node)) {
    if ((LIMIT_KEYWORDS as readonly string[]).includes(keyword) || keyword === 'required') continue;
    if (!COPIED_KEYWORDS.has(keyword)) {
      throw UserInteractionError.invalidSetting(
        `toStrictJsonSchema: ${path} uses "${keyword}", which strict mode does not accept`,
      );
    }
    if (keyword === 'properties' && isSchema(value)) {
      result.properties = Object.fromEntries(
        Object.entries(value).map(([name, property]) => {
          if (!isSchema(property))
            throw UserInteractionError.invalidSetting(`toStrictJsonSchema: ${path}.${name} is not a schema`);
          return [name, strictNode(property, `${path}.${name}`, !required.includes(name))];
        }),
      );
    } else if (keyword === 'items' && isSchema(value)) {
      result.items = strictNode(value, `${path}[]`, false);
    } else {
      result[keyword] = value;
    }
  }
  const limits = limitText(node);
  if (limits !== undefined) {
    result.description = typeof node.description === 'string' ? `${node.description} (${limits})` : limits;
  }
  if (isSchema(result.properties)) {
    result.required = Object.keys(result.properties);
    result.additionalProperties = false;
  }
  if (nullable) {
    const types = Array.isArray(result.type) ? (result.type as unknown[]) : [result.type];
    if (types.includes(undefined))
      throw UserInteractionError.invalidSetting(`toStrictJsonSchema: ${path} has no type to make nullable`);
    if (!types.includes('null')) result.type = [...types, 'null'];
  }
  return result;
}

/**
 * Converts a JSON Schema generated from zod to one that OpenAI's strict mode accepts: every property required,
 * optional ones nullable (`"type": ["string", "null"]`), `additionalProperties: false` on every object, and
 * the length and count limits moved into the descriptions (`Non-blank (max 4000 chars)`, or `max 80 chars` for
 * a field without one).
 *
 * @throws Error naming the path when the schema uses a keyword strict mode cannot express.
 */
export function toStrictJsonSchema(schema: JsonSchema): JsonSchema {
  return strictNode(schema, '$', false);
}

/**
 * `ask_user_question` as OpenAI function tools: the Chat Completions `tools` entry and the Responses API
 * function tool. Run the model's calls through `createAskUserQuestionTool(...).execute(JSON.parse(arguments))`:
 * it accepts what a strict model sends (`null` for every unused optional field).
 *
 * @example
 * const { chatCompletions } = openAiTool({ strict: true });
 * const completion = await openai.chat.completions.create({ model, messages, tools: [chatCompletions] });
 */
export function openAiTool(options: OpenAiToolOptions = {}): OpenAiTool {
  const strict = options.strict ?? false;
  const parameters = strict ? toStrictJsonSchema(askUserQuestionJsonSchema) : askUserQuestionJsonSchema;
  const entry = {
    name: ASK_USER_QUESTION_TOOL_NAME,
    description: ASK_USER_QUESTION_DESCRIPTION,
    parameters,
    strict,
  };
  return {
    chatCompletions: { type: 'function', function: { ...entry } },
    responses: { type: 'function', ...entry },
  };
}
