/**
 * The AG-UI conversation as the AI SDK reads it, and the tool calls it leaves open. The front end holds the
 * thread (AG-UI servers are stateless between runs); a tool call of an assistant message with no tool message
 * answering it is open: the run that called it paused on it, and the next run finishes it.
 */
import type { Message } from '@ag-ui/core';
import type { ModelMessage, ToolResultPart } from 'ai';
import { isPlainObject } from '../common';

/** A tool call of the conversation that has no result yet. */
export interface OpenToolCall {
  toolCallId: string;
  toolName: string;
  /** Its arguments, parsed from the message's JSON text. */
  input: unknown;
}

/** The text of a message's content: a string, or the text parts of a multimodal one. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => isPlainObject(part) && part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

/** A tool call's arguments as JSON text parses them; text that is not JSON is kept as the text. */
function parsedArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Every tool call of the assistant messages, by id, in order. */
function toolCallsOf(messages: readonly Message[]): Map<string, OpenToolCall> {
  const calls = new Map<string, OpenToolCall>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) {
      calls.set(call.id, {
        toolCallId: call.id,
        toolName: call.function.name,
        input: parsedArguments(call.function.arguments),
      });
    }
  }
  return calls;
}

/** The tool calls of `messages` that no tool message answers, in the order they were made. */
export function openToolCalls(messages: readonly Message[]): OpenToolCall[] {
  const answered = new Set(
    messages.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])),
  );
  return [...toolCallsOf(messages).values()].filter((call) => !answered.has(call.toolCallId));
}

/** A tool's output as the model reads it: text as text, anything else as JSON. */
export function toolOutput(output: unknown): ToolResultPart['output'] {
  return typeof output === 'string'
    ? { type: 'text', value: output }
    : { type: 'json', value: (output ?? null) as never };
}

/** The text a tool message of AG-UI carries for `output`. */
export function toolContent(output: unknown): string {
  return typeof output === 'string' ? output : (JSON.stringify(output) ?? 'null');
}

/**
 * The conversation as AI SDK model messages: user, system and developer text, assistant text with its tool
 * calls, and tool results. Activity and reasoning messages are the front end's own and are left out.
 */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  const calls = toolCallsOf(messages);
  const model: ModelMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        model.push({ role: 'system', content: message.content });
        break;
      case 'user':
        model.push({ role: 'user', content: textOf(message.content) });
        break;
      case 'assistant': {
        const text = textOf(message.content);
        const parts = [
          ...(text === '' ? [] : [{ type: 'text' as const, text }]),
          ...(message.toolCalls ?? []).map((call) => ({
            type: 'tool-call' as const,
            toolCallId: call.id,
            toolName: call.function.name,
            input: calls.get(call.id)?.input,
          })),
        ];
        if (parts.length > 0) model.push({ role: 'assistant', content: parts });
        break;
      }
      case 'tool': {
        const toolName = calls.get(message.toolCallId)?.toolName ?? 'unknown';
        model.push({
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: message.toolCallId,
              toolName,
              output: toolOutput(message.content),
            },
          ],
        });
        break;
      }
      default:
        break;
    }
  }
  return model;
}
