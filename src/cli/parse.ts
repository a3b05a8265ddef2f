/**
 * Argument parsing shared by the commands: `node:util` `parseArgs` over a command's option table
 * (`command-specs.ts`), with mistakes reported as usage errors. The same table makes the command's help.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { definedFields, errorText } from '../common';
import { answererGroups } from '../answer/audience-rules';
import { AskUserError, hasMarker } from '../interaction/ask-user-error';
import { HELP_OPTION, type CommandSpec } from './command-specs';

const marker = Symbol.for('durable-ask-user.CliUsageError');

/** A mistake in how a command was called; printed with the usage hint, exit code 2. */
export class CliUsageError extends AskUserError<'USAGE'> {
  private readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super('USAGE', message, options);
  }

  /** True for any `CliUsageError`, from any copy of this package. */
  static override isInstance(value: unknown): value is CliUsageError {
    return hasMarker(value, marker);
  }
}

/** Parsed option values, by option name. */
export type Options = Record<string, string | boolean | string[] | undefined>;

/** What `parse` returns: option values, positionals, and the arguments the spec's `literal` set apart. */
export interface Parsed {
  values: Options;
  positionals: string[];
  /** The arguments matching `spec.literal` (`extend`'s `-30m`), in order; `[]` when the spec has none. */
  literals: string[];
}

/** `parseArgs`'s option table for `spec`: only what parses (help text and defaults stay out). */
function parseOptions(spec: CommandSpec, withHelp: boolean): ParseArgsConfig['options'] {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  const entries = Object.entries(spec.options);
  if (withHelp) entries.push(['help', HELP_OPTION]);
  for (const [name, option] of entries) {
    options[name] = definedFields({
      type: option.type,
      multiple: option.multiple === true ? true : undefined,
      short: option.short,
    });
  }
  return options;
}

/** Splits `argv` into the arguments `spec.literal` claims and the rest. */
function splitLiterals(spec: CommandSpec, argv: readonly string[]): { rest: string[]; literals: string[] } {
  const literal = spec.literal;
  if (literal === undefined) return { rest: [...argv], literals: [] };
  return {
    rest: argv.filter((arg) => !literal.test(arg)),
    literals: argv.filter((arg) => literal.test(arg)),
  };
}

/** Parses `argv` strictly against the options of `spec`; positionals allowed. */
export function parse(spec: CommandSpec, argv: readonly string[]): Parsed {
  const { rest, literals } = splitLiterals(spec, argv);
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: parseOptions(spec, false),
      allowPositionals: true,
      strict: true,
    });
    return { values, positionals, literals };
  } catch (error) {
    throw new CliUsageError(errorText(error), { cause: error });
  }
}

/**
 * Whether `argv` asks for the command's help: `--help` or `-h` given as an option (not as the value of one,
 * `--question --help`, not after `--`), whatever else is wrong with the line.
 */
export function helpRequested(spec: CommandSpec, argv: readonly string[]): boolean {
  const { rest } = splitLiterals(spec, argv);
  const { tokens } = parseArgs({
    args: rest,
    options: parseOptions(spec, true),
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  return tokens.some((token) => token.kind === 'option' && token.name === 'help');
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

/** A port given as `flag`: a whole number from `min` (0 asks for any free port) to 65535. */
export function portNumber(text: string, flag: string, min = 0): number {
  const port = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(Number.isInteger(port) && port >= min && port <= 65_535)) {
    throw new CliUsageError(`${flag} must be a port number from ${min} to 65535`);
  }
  return port;
}

/**
 * Who resolves a question from this shell: `--as`, else the login name (`$USER`), and the groups of `--group`
 * (`undefined` for none given). Taken as said: the CLI acts with its Temporal access and authenticates no one.
 *
 * @throws CliUsageError naming `--group` when a group is blank or too long, or there are too many: checked here
 *   with the workflow's rule, so that the mistake is named as the flag the user typed, not as the request's field
 */
export function actingAs(values: Options): { name: string | undefined; groups: string[] | undefined } {
  const groups = stringList(values, 'group');
  const checked = answererGroups({ groups }, 'answerer');
  if (!checked.ok) {
    // `answerer.groups[1]: must be a non-blank string`, or `answerer.groups: at most 200 names`.
    const [, index, reason] = /^answerer\.groups(?:\[(\d+)\])?: (.*)$/.exec(checked.reason) ?? [];
    const which = index === undefined ? '--group' : `--group ${JSON.stringify(groups[Number(index)])}`;
    throw new CliUsageError(`${which}: ${reason ?? checked.reason}`);
  }
  return {
    name: stringOption(values, 'as') ?? process.env.USER,
    groups: groups.length === 0 ? undefined : groups,
  };
}
