/**
 * The `ask-user` command: run the embedded stack, a worker, and answer questions from a shell.
 * Every command closes its connections in `finally` and exits non-zero with a one-line reason on failure.
 */
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type LogLevel } from '@temporalio/worker';
import { UserInteractionError, formatToolError } from '../interaction/user-interaction-error';
import { createAskUserQuestionTool } from '../tool/ask-user-question-tool';
import {
  QuestionClient,
  alreadyResolvedError,
  toWorkflowId,
  type QuestionListFilter,
} from '../temporal/question-client';
import { TemporalUserInteraction } from '../temporal/temporal-user-interaction';
import { createAskUserWorker } from '../temporal/worker';
import { loadTemporalSettings } from '../temporal/connection-config';
import { ensureTemporalCliInstalled } from '../dev-server/temporal-cli';
import { startDevServer } from '../dev-server/dev-server-process';
import { CliUsageError, answersFromFlags } from './answer-flags';
import { formatRecord, formatSummaries } from './format';
import { promptForAnswers } from './interactive-answer';

const USAGE = `Usage: ask-user <command> [options]

Commands:
  dev                      Temporal dev server (SQLite, persisted) + worker, for local use
      [--db FILE] [--port 7233] [--ui-port 8233 | --headless]
  worker                   run the ask-user worker against TEMPORAL_ADDRESS
  ask                      ask from a shell and wait for the answer; prints the result text
      --question TEXT [--id ID] [--header TEXT] [--option LABEL]... [--multi]
      | --args JSON        the tool's arguments as the model sends them
      [--agent ID] [--session ID] [--tool-call-id ID]
  list [--status pending|answered|all] [--json]
  show <id> [--json]
  answer <id> [--select QID=LABEL]... [--custom QID=TEXT]... [--as NAME] [--json]
                           interactive when run in a terminal with no --select/--custom
  decline <id> [--reason TEXT] [--as NAME] [--json]

Connection: TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,
TEMPORAL_TLS*, TEMPORAL_PROFILE; task queue: ASK_USER_TASK_QUEUE.`;

type Options = Record<string, string | boolean | string[] | undefined>;

function parse(
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

function requireId(positionals: string[], command: string): string {
  const [id] = positionals;
  if (id === undefined) throw new CliUsageError(`${command} needs a question id (see \`ask-user list\`)`);
  return id;
}

function stringOption(values: Options, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

function stringList(values: Options, name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value : [];
}

function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** Opens a client from the environment, runs `fn`, closes the connection. */
async function withClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const settings = loadTemporalSettings();
  let connection: Connection;
  try {
    connection = await Connection.connect({
      ...settings.connectionOptions,
      connectTimeout: 10_000,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot reach Temporal at ${settings.address}: ${reason}`, { cause: error });
  }
  try {
    return await fn(new Client({ connection, namespace: settings.namespace }));
  } finally {
    await connection.close();
  }
}

/** Resolves on the first SIGINT or SIGTERM. */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
      resolve(signal);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}

/**
 * The worker logs at INFO by default, bundler output included; a terminal command shows warnings only unless
 * `ASK_USER_LOG_LEVEL` says otherwise. Must run before the first worker or native connection is created.
 */
function installRuntimeLogger(): void {
  const level = (process.env.ASK_USER_LOG_LEVEL ?? 'WARN').toUpperCase() as LogLevel;
  // Shutdown on SIGINT/SIGTERM is ours to order (worker, then connection, then dev server), not the runtime's.
  Runtime.install({ logger: new DefaultLogger(level), shutdownSignals: [] });
}

async function runDev(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    db: { type: 'string' },
    port: { type: 'string' },
    'ui-port': { type: 'string' },
    headless: { type: 'boolean' },
  });
  const port = Number(stringOption(values, 'port') ?? 7233);
  if (!Number.isInteger(port) || port <= 0) throw new CliUsageError('--port must be a port number');
  const uiPortText = stringOption(values, 'ui-port');
  const uiPort =
    values.headless === true ? false : uiPortText === undefined ? port + 1000 : Number(uiPortText);
  const dbFile = path.resolve(
    stringOption(values, 'db') ??
      process.env.ASK_USER_DEV_DB ??
      path.join(process.cwd(), '.data', 'temporal.sqlite'),
  );

  installRuntimeLogger();
  const binary = ensureTemporalCliInstalled();
  const server = await startDevServer({ dbFile, port, uiPort, binary });
  try {
    const connection = await NativeConnection.connect({ address: server.address });
    try {
      const worker = await createAskUserWorker({
        connection,
        namespace: 'default',
        shutdownForceTime: '10s',
      });
      print(`Temporal dev server  ${server.address} (data: ${dbFile})`);
      if (server.uiUrl !== undefined) print(`Temporal Web UI      ${server.uiUrl}`);
      print(`Worker               task queue ${worker.options.taskQueue}`);
      print(
        [
          '',
          'Ask:     npx ask-user ask --question "Deploy now?" --option Yes --option No',
          'Answer:  npx ask-user list, then npx ask-user answer <id>',
          'Stop:    Ctrl-C',
        ].join('\n'),
      );
      await runUntilSignal(worker);
    } finally {
      await connection.close();
    }
  } finally {
    await server.stop();
  }
}

/** Runs the worker until SIGINT/SIGTERM, then shuts it down and waits for it to drain. */
async function runUntilSignal(worker: Awaited<ReturnType<typeof createAskUserWorker>>): Promise<void> {
  const running = worker.run();
  const signal = await Promise.race([untilSignal(), running.then(() => undefined)]);
  if (signal !== undefined && worker.getState() === 'RUNNING') worker.shutdown();
  await running;
}

async function runWorker(): Promise<void> {
  installRuntimeLogger();
  const worker = await createAskUserWorker({ shutdownForceTime: '10s' });
  print(
    `ask-user worker polling task queue ${worker.options.taskQueue} in namespace ${worker.options.namespace}`,
  );
  await runUntilSignal(worker);
}

function argsFromFlags(values: Options): unknown {
  const json = stringOption(values, 'args');
  if (json !== undefined) {
    try {
      return JSON.parse(json) as unknown;
    } catch (error) {
      throw new CliUsageError(
        `--args is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const question = stringOption(values, 'question');
  if (question === undefined) throw new CliUsageError('ask needs --question TEXT or --args JSON');
  const options = stringList(values, 'option').map((label) => ({ label }));
  const header = stringOption(values, 'header');
  return {
    questions: [
      {
        id: stringOption(values, 'id') ?? 'q1',
        question,
        ...(header === undefined ? {} : { header }),
        ...(options.length === 0 ? {} : { options }),
        ...(values.multi === true ? { multi_select: true } : {}),
      },
    ],
  };
}

async function runAsk(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    question: { type: 'string' },
    id: { type: 'string' },
    header: { type: 'string' },
    option: { type: 'string', multiple: true },
    multi: { type: 'boolean' },
    args: { type: 'string' },
    agent: { type: 'string' },
    session: { type: 'string' },
    'tool-call-id': { type: 'string' },
  });
  const args = argsFromFlags(values);
  const agentId = stringOption(values, 'agent') ?? 'cli';
  const sessionId = stringOption(values, 'session');
  const toolCallId = stringOption(values, 'tool-call-id');
  const userInteraction = new TemporalUserInteraction();
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  try {
    const tool = createAskUserQuestionTool({ userInteraction });
    const text = await tool.execute(args, {
      signal: controller.signal,
      agent: sessionId === undefined ? { id: agentId } : { id: agentId, sessionId },
      ...(toolCallId === undefined ? {} : { toolCallId }),
    });
    print(text);
  } finally {
    process.off('SIGINT', onSignal);
    await userInteraction.close();
  }
}

async function runList(argv: string[]): Promise<void> {
  const { values } = parse(argv, { status: { type: 'string' }, json: { type: 'boolean' } });
  const status = stringOption(values, 'status') ?? 'pending';
  if (!['pending', 'answered', 'all'].includes(status)) {
    throw new CliUsageError('--status must be pending, answered or all');
  }
  const summaries = await withClient((client) =>
    new QuestionClient(client).list(status as QuestionListFilter),
  );
  print(values.json === true ? JSON.stringify(summaries, null, 2) : formatSummaries(summaries));
}

async function runShow(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, { json: { type: 'boolean' } });
  const id = requireId(positionals, 'show');
  const record = await withClient((client) => new QuestionClient(client).get(id));
  print(values.json === true ? JSON.stringify(record, null, 2) : formatRecord(toWorkflowId(id), record));
}

async function runAnswer(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {
    select: { type: 'string', multiple: true },
    custom: { type: 'string', multiple: true },
    as: { type: 'string' },
    json: { type: 'boolean' },
  });
  const id = requireId(positionals, 'answer');
  const selects = stringList(values, 'select');
  const customs = stringList(values, 'custom');
  const answeredBy = stringOption(values, 'as') ?? process.env.USER;
  await withClient(async (client) => {
    const questions = new QuestionClient(client);
    const current = await questions.get(id);
    if (current.status !== 'pending') {
      throw alreadyResolvedError(current);
    }
    let answers;
    if (selects.length === 0 && customs.length === 0) {
      if (!process.stdin.isTTY) {
        throw new CliUsageError(
          'answer needs --select QID=LABEL or --custom QID=TEXT when not run in a terminal',
        );
      }
      process.stdout.write(`${formatRecord(toWorkflowId(id), current)}\n`);
      answers = await promptForAnswers(current, process.stdin, process.stdout);
    } else {
      answers = answersFromFlags(current.questions, selects, customs);
    }
    const record = await questions.answer(id, {
      answers,
      ...(answeredBy === undefined ? {} : { answeredBy }),
    });
    print(values.json === true ? JSON.stringify(record, null, 2) : `Answered ${toWorkflowId(id)}.`);
  });
}

async function runDecline(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {
    reason: { type: 'string' },
    as: { type: 'string' },
    json: { type: 'boolean' },
  });
  const id = requireId(positionals, 'decline');
  const reason = stringOption(values, 'reason');
  const declinedBy = stringOption(values, 'as') ?? process.env.USER;
  const record = await withClient((client) =>
    new QuestionClient(client).decline(id, {
      ...(reason === undefined ? {} : { reason }),
      ...(declinedBy === undefined ? {} : { declinedBy }),
    }),
  );
  print(values.json === true ? JSON.stringify(record, null, 2) : `Declined ${toWorkflowId(id)}.`);
}

const COMMANDS: Record<string, (argv: string[]) => Promise<void>> = {
  dev: runDev,
  worker: runWorker,
  ask: runAsk,
  list: runList,
  show: runShow,
  answer: runAnswer,
  decline: runDecline,
};

/** Runs the CLI; sets `process.exitCode` (0 ok, 1 failure, 2 usage). */
export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    print(USAGE);
    if (command === undefined) process.exitCode = 2;
    return;
  }
  const run = COMMANDS[command];
  try {
    if (run === undefined) throw new CliUsageError(`unknown command ${JSON.stringify(command)}`);
    await run(rest);
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
