/**
 * The `ask-user` command: run the embedded stack, a worker, and answer questions from a shell.
 * Every command closes its connections in `finally` and exits non-zero with a one-line reason on failure.
 *
 * One module per command under `commands/`, each exporting `run(argv)`. The table below loads a command's
 * module only when that command runs, so reading commands (`list`, `show`, `help`) never load
 * `@temporalio/worker`, its native core or the dev-server launcher. To add a command: a file in `commands/`,
 * one entry in `COMMANDS`, one line in `USAGE`.
 */
import { UserInteractionError, formatToolError } from '../interaction/user-interaction-error';
import { CliUsageError } from './parse';
import { print } from './print';

const USAGE = `Usage: ask-user <command> [options]

Commands:
  dev                      Temporal dev server (SQLite, persisted) + worker + inbox, for local use
      [--db FILE] [--port 7233] [--ui-port 8233 | --headless] [--inbox-port 8234]
  worker                   run the ask-user worker against TEMPORAL_ADDRESS
  ask                      ask from a shell and wait for the answer; prints the result text
      --question TEXT [--id ID] [--header TEXT] [--option LABEL]... [--multi]
      | --args JSON        the tool's arguments as the model sends them
      [--agent ID] [--session ID] [--tool-call-id ID]
  list [--status pending|answered|all] [--limit N] [--page-token T] [--json]
  show <id> [--json]
  answer <id> [--select QID=LABEL]... [--custom QID=TEXT]... [--as NAME] [--json]
                           interactive when run in a terminal with no --select/--custom
  decline <id> [--reason TEXT] [--as NAME] [--json]
  extend <id> <duration> [--as NAME] [--json]
                           move the deadline later (2h) or earlier (-30m)
  mcp                      serve ask_user_question over MCP on stdio
      [--http PORT] [--agent ID] [--keep-on-cancel] [--ops] [--progress-interval SECONDS]
  inbox [--port 8234] [--host 127.0.0.1]
                           serve the ops inbox (page + HTTP API); needs ASK_USER_INBOX_TOKEN
  watch [--json] [--interval SECONDS]
                           print each new pending question as it arrives

Connection: TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,
TEMPORAL_TLS*, TEMPORAL_PROFILE; task queue: ASK_USER_TASK_QUEUE.`;

/** A command module: parses its own arguments and runs. */
interface CliCommand {
  run(argv: string[]): Promise<void>;
}

// `require`, not `import()`: this package is CommonJS, and `import()` would send these relative paths through
// the ESM resolver (which wants file extensions and skips tsx's CommonJS hook in a source checkout).
/* eslint-disable @typescript-eslint/no-require-imports */
const COMMANDS: Record<string, () => CliCommand> = {
  dev: () => require('./commands/dev') as CliCommand,
  worker: () => require('./commands/worker') as CliCommand,
  ask: () => require('./commands/ask') as CliCommand,
  list: () => require('./commands/list') as CliCommand,
  show: () => require('./commands/show') as CliCommand,
  answer: () => require('./commands/answer') as CliCommand,
  decline: () => require('./commands/decline') as CliCommand,
  extend: () => require('./commands/extend') as CliCommand,
  mcp: () => require('./commands/mcp') as CliCommand,
  inbox: () => require('./commands/inbox') as CliCommand,
  watch: () => require('./commands/watch') as CliCommand,
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** Runs the CLI; sets `process.exitCode` (0 ok, 1 failure, 2 usage). */
export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    print(USAGE);
    if (command === undefined) process.exitCode = 2;
    return;
  }
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  try {
    if (load === undefined) throw new CliUsageError(`unknown command ${JSON.stringify(command)}`);
    await load().run(rest);
  } catch (error) {
    if (error instanceof CliUsageError) {
      process.stderr.write(`ask-user: ${error.message}\nRun \`ask-user help\` for usage.\n`);
      process.exitCode = 2;
    } else if (UserInteractionError.isInstance(error)) {
      process.stderr.write(`ask-user: ${formatToolError(error)}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`ask-user: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  }
}

if (require.main === module) void main(process.argv.slice(2));
