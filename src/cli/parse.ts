/** Argument parsing shared by the commands: `node:util` `parseArgs`, with mistakes reported as usage errors. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake in how a command was called; printed with the usage hint, exit code 2. */
export class CliUsageError extends Error {
  override name = 'CliUsageError';
}

/** Parsed option values, by option name. */
export type Options = Record<string, string | boolean | string[] | undefined>;

/** Parses `argv` strictly against `options`; positionals allowed. */
export function parse(
  argv: string[],
  options: ParseArgsConfig['options'],
): { values: Options; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: values, positionals };
  } catch (error) {
    throw new CliUsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The first positional, the question id `command` needs. */
export function requireId(positionals: string[], command: string): string {
  const [id] = positionals;
  if (id === undefined) throw new CliUsageError(`${command} needs a question id (see \`ask-user list\`)`);
  return id;
}

/** A string option's value, if given. */
export function stringOption(values: Options, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A repeatable string option's values, `[]` if not given. */
export function stringList(values: Options, name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value : [];
}
