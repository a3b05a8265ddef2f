/**
 * The `ask-user` command: run the embedded stack, a worker, and answer questions from a shell.
 * Every command closes its connections in `finally` and exits non-zero with a one-line reason on failure.
 *
 * One module per command under `commands/`, each exporting `run(argv)`. The table below loads a command's
 * module only when that command runs, so reading commands (`list`, `show`, `help`) never load
 * `@temporalio/worker`, its native core or the dev-server launcher. Each command's options, usage and help text
 * are declared once, in `command-specs.ts`: the command parses with its entry there, and `--help` is answered
 * from it here, before the command's module is loaded. To add a command: a file in `commands/`, one entry in
 * `COMMANDS`, one in `COMMAND_SPECS`.
 */
import { errorText } from '../common';
import { UserInteractionError, formatToolError } from '../interaction/user-interaction-error';
import { commandSpec, type CommandName } from './command-specs';
import { commandHelp, overview } from './help';
import { CliUsageError, helpRequested, parse } from './parse';
import { print } from './print';

/** A command module: parses its own arguments and runs. */
interface CliCommand {
  run(argv: string[]): Promise<void>;
}

// `require`, not `import()`: this package is CommonJS, and `import()` would send these relative paths through
// the ESM resolver (which wants file extensions and skips tsx's CommonJS hook in a source checkout).
/* eslint-disable @typescript-eslint/no-require-imports */
const COMMANDS: Record<Exclude<CommandName, 'help'>, () => CliCommand> = {
  dev: () => require('./commands/dev') as CliCommand,
  worker: () => require('./commands/worker') as CliCommand,
  ask: () => require('./commands/ask') as CliCommand,
  list: () => require('./commands/list') as CliCommand,
  show: () => require('./commands/show') as CliCommand,
  answer: () => require('./commands/answer') as CliCommand,
  decline: () => require('./commands/decline') as CliCommand,
  approve: () => require('./commands/approve') as CliCommand,
  deny: () => require('./commands/deny') as CliCommand,
  respond: () => require('./commands/respond') as CliCommand,
  extend: () => require('./commands/extend') as CliCommand,
  mcp: () => require('./commands/mcp') as CliCommand,
  inbox: () => require('./commands/inbox') as CliCommand,
  watch: () => require('./commands/watch') as CliCommand,
  audit: () => require('./commands/audit') as CliCommand,
  grants: () => require('./commands/grants') as CliCommand,
  grant: () => require('./commands/grant') as CliCommand,
  'revoke-grant': () => require('./commands/revoke-grant') as CliCommand,
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** `ask-user help [<command>]`: the list of commands, or the help of one. */
function runHelp(argv: string[]): void {
  const { positionals } = parse(commandSpec('help')!, argv);
  const [name, ...extra] = positionals;
  if (extra.length > 0) throw new CliUsageError(`help takes one command (got ${positionals.join(' ')})`);
  if (name === undefined) {
    print(overview());
    return;
  }
  const spec = commandSpec(name);
  if (spec === undefined) throw new CliUsageError(`unknown command ${JSON.stringify(name)}`);
  print(commandHelp(spec));
}

/** The hint under a usage error: the command's own help, or the list of commands. */
function usageHint(command: string | undefined): string {
  return command === undefined
    ? 'Run `ask-user help` for usage.'
    : `Run \`ask-user ${command} --help\` for usage.`;
}

/** Runs the CLI; sets `process.exitCode` (0 ok, 1 failure, 2 usage). */
export async function main(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    // The list of commands, as `ask-user help` prints it, but a usage mistake all the same.
    print(overview());
    process.exitCode = 2;
    return;
  }
  // `ask-user --help` and `ask-user -h` are `ask-user help`; `ask-user --help <command>` too.
  const command = first === '--help' || first === '-h' ? 'help' : first;
  const spec = commandSpec(command);
  try {
    if (spec === undefined) throw new CliUsageError(`unknown command ${JSON.stringify(command)}`);
    if (helpRequested(spec, rest)) {
      print(commandHelp(spec));
      return;
    }
    if (command === 'help') {
      runHelp(rest);
      return;
    }
    await COMMANDS[command as keyof typeof COMMANDS]().run(rest);
  } catch (error) {
    if (CliUsageError.isInstance(error)) {
      // For an unknown command, or a mistake in `ask-user help ...`, the list of commands is the help to see.
      const hint = spec === undefined || command === 'help' ? undefined : command;
      process.stderr.write(`ask-user: ${error.message}\n${usageHint(hint)}\n`);
      process.exitCode = 2;
    } else if (UserInteractionError.isInstance(error)) {
      process.stderr.write(`ask-user: ${formatToolError(error)}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`ask-user: ${errorText(error)}\n`);
      process.exitCode = 1;
    }
  }
}

if (require.main === module) void main(process.argv.slice(2));
