/**
 * The help text, made from the command specs (`command-specs.ts`): the list of commands (`ask-user help`) and
 * each command's usage and options (`ask-user <command> --help`, `ask-user help <command>`). Imports only the
 * specs, so help never loads a command module.
 */
import { COMMAND_SPECS, HELP_OPTION, type CommandSpec, type OptionSpec } from './command-specs';

const CONNECTION = [
  'Connection: TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,',
  'TEMPORAL_TLS*, TEMPORAL_PROFILE; task queue: ASK_USER_TASK_QUEUE.',
].join('\n');

/** Help lines are wrapped to this width, where a line has room to break. */
const WIDTH = 100;

/** `--name VALUE` or `-x, --name VALUE`: how an option is written on the command line. */
function optionSyntax(name: string, option: OptionSpec): string {
  const flag = option.short === undefined ? `--${name}` : `-${option.short}, --${name}`;
  return option.type === 'string' ? `${flag} ${option.placeholder ?? 'VALUE'}` : flag;
}

/** The option's description with what help adds: repeatable, default. */
function optionDescription(option: OptionSpec): string {
  const notes = [
    ...(option.multiple === true ? ['repeatable'] : []),
    ...(option.default === undefined ? [] : [`default: ${option.default}`]),
  ];
  return notes.length === 0 ? option.description : `${option.description} (${notes.join('; ')})`;
}

/** Wraps `text` at spaces so that no line (after `indent`) passes `WIDTH`, where it can. */
function wrap(text: string, indent: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && indent + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** Two columns, the second aligned (and wrapped under itself): `  left   right`. */
function columns(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  const indent = 2 + width + 3;
  return rows.flatMap(([left, right]) =>
    wrap(right, indent).map((text, index) =>
      index === 0 ? `  ${left.padEnd(width)}   ${text}` : `${' '.repeat(indent)}${text}`,
    ),
  );
}

/** `Usage: ask-user <name> <positionals> [options]`. */
export function usageLine(spec: CommandSpec): string {
  return ['Usage: ask-user', spec.name, spec.usage, '[options]'].filter((part) => part !== '').join(' ');
}

/** The help of one command: usage line, summary, details, and every option it parses. */
export function commandHelp(spec: CommandSpec): string {
  const options = [...Object.entries(spec.options), ['help', HELP_OPTION] as const];
  const summary = `${spec.summary.charAt(0).toUpperCase()}${spec.summary.slice(1)}.`;
  return [
    usageLine(spec),
    '',
    ...wrap(summary, 0),
    ...(spec.details ?? []).flatMap((paragraph) => ['', ...wrap(paragraph, 0)]),
    '',
    'Options:',
    ...columns(options.map(([name, option]) => [optionSyntax(name, option), optionDescription(option)])),
  ].join('\n');
}

/** The list of commands: what `ask-user help` and `ask-user --help` print. */
export function overview(): string {
  const specs: readonly CommandSpec[] = Object.values(COMMAND_SPECS);
  return [
    'Usage: ask-user <command> [options]',
    '',
    'Commands:',
    ...columns(
      specs.map((spec) => [spec.usage === '' ? spec.name : `${spec.name} ${spec.usage}`, spec.summary]),
    ),
    '',
    'Run `ask-user <command> --help` (or `ask-user help <command>`) for the options of a command.',
    '',
    CONNECTION,
  ].join('\n');
}
