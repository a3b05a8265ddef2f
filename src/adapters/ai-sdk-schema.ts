/**
 * An AI SDK tool's input schema (Zod, another Standard Schema, `jsonSchema()`) as the approval hooks use it:
 * its JSON Schema, which an edit is checked against when it is decided, and its parse of an edited input, as
 * the SDK parses the model's. `ai` is loaded here, on first use, so the `durable-ask-user/ai` entry loads
 * without it.
 */
import type * as AiSdk from 'ai';
import { errorText, isPlainObject } from '../common';
import type { JsonSchemaObject } from '../types';
import { loadAiSdk } from './load-ai-sdk';

/** A call's way forward once decided: run with this input, or return this text without running. */
export type Outcome<Input> = { run: true; input: Input } | { run: false; text: string };

/**
 * The JSON Schema of an AI SDK input schema, which an edit must satisfy when it is decided; none for a tool
 * without a schema, or one with no JSON form (a transform).
 */
export async function jsonSchemaOf(
  inputSchema: unknown,
  owner: string,
): Promise<JsonSchemaObject | undefined> {
  if (inputSchema === undefined || inputSchema === null) return undefined;
  const { asSchema } = loadAiSdk(owner);
  try {
    const converted: unknown = await asSchema(inputSchema as AiSdk.FlexibleSchema<unknown>).jsonSchema;
    return isPlainObject(converted) ? converted : undefined;
  } catch {
    // No JSON form: the edit is still parsed by the schema itself before the tool runs with it.
    return undefined;
  }
}

/** The JSON Schema of the input schema of `tools[toolName]` (the `tools` the SDK passes a policy, or the caller's). */
export async function toolJsonSchema(
  tools: object | undefined,
  toolName: string,
  owner: string,
): Promise<JsonSchemaObject | undefined> {
  const tool = (tools as Readonly<Record<string, { inputSchema?: unknown } | undefined>> | undefined)?.[
    toolName
  ];
  return await jsonSchemaOf(tool?.inputSchema, owner);
}

/**
 * An edited input as `execute` takes it: parsed by the tool's schema as the SDK parses the model's input (Zod
 * defaults and transforms apply); as it is for a schema without a validator (`jsonSchema()` without one),
 * which the SDK does not check either. A problem is the text the model reads.
 */
export async function editedInput<Input>(
  inputSchema: unknown,
  input: unknown,
  toolName: string,
  owner: string,
): Promise<Outcome<Input>> {
  if (inputSchema === undefined || inputSchema === null) return { run: true, input: input as Input };
  const schema = loadAiSdk(owner).asSchema(inputSchema as AiSdk.FlexibleSchema<Input>);
  if (schema.validate === undefined) return { run: true, input: input as Input };
  const result = await schema.validate(input);
  if (result.success) return { run: true, input: result.value };
  return {
    run: false,
    text:
      `Error: the edited input of ${toolName} does not fit its input schema, so the call did not run: ` +
      errorText(result.error),
  };
}
