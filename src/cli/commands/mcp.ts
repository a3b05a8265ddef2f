/**
 * `ask-user mcp`: serves `ask_user_question` over MCP, on stdio (the default) or streamable HTTP on
 * 127.0.0.1 (`--http PORT`). Questions are durable: the provider is `TemporalUserInteraction`, connected from the
 * `TEMPORAL_*` environment on the first call, so the server starts (and lists its tools) even before Temporal
 * is reachable.
 *
 * When the client declares form elicitation, the person at it is asked too, in a form, while ops may answer
 * (`--no-elicit` turns that off; `--elicit-as NAME` names who the record says answered). On by default: a
 * client declares the capability to say its person can fill in forms, and a question with no audience is anyone's
 * to answer anyway; one with an audience gets a form only when that name is in it.
 *
 * Both MCP eras are served: a 2026-07-28 client that declares the Tasks extension gets the question as a task
 * whose id is the question's workflow id (`tasks/get`, `tasks/update`, `tasks/cancel`), from any instance.
 *
 * On stdio, stdout belongs to the protocol: this command prints nothing there, and its messages go to stderr.
 * It ends when the client closes stdin (a client that exits), on SIGINT or SIGTERM; questions still pending
 * then stay pending, so a restarted client that calls again with the same key re-attaches.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { definedFields } from '../../common';
import {
  DEFAULT_MCP_AGENT_ID,
  DEFAULT_PROGRESS_INTERVAL_MS,
  connectMcpOverStdio,
  createAskUserMcpServer,
  serveMcpOverHttp,
  type AskUserMcpServerOptions,
} from '../../mcp';
import { mcpQuestionOperations } from '../../mcp/mcp-temporal-operations';
import { TemporalUserInteraction } from '../../provider/temporal-user-interaction';
import { COMMAND_SPECS } from '../command-specs';
import { CliUsageError, parse, portNumber, stringOption } from '../parse';
import { print } from '../print';

/** The package's name and version, as the server reports them to clients. */
function serverInfo(): { name: string; version: string } {
  // src/cli/commands/ and dist/cli/commands/ both sit three levels below the package root.
  const file = path.join(__dirname, '..', '..', '..', 'package.json');
  const { name, version } = JSON.parse(fs.readFileSync(file, 'utf8')) as { name: string; version: string };
  return { name, version };
}

/** One line on stderr, which every transport leaves to this command. */
function logLine(line: string): void {
  process.stderr.write(`ask-user mcp: ${line}\n`);
}

function intervalOption(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PROGRESS_INTERVAL_MS;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new CliUsageError(
      `--progress-interval must be a positive number of seconds, got ${JSON.stringify(text)}`,
    );
  }
  return seconds * 1000;
}

/**
 * The key and lifetime of multi round-trip `requestState`s: `ASK_USER_MCP_STATE_KEY` (at least 32 bytes),
 * else a random key of this process, which serves a round trip only when this one process serves all of it;
 * `ASK_USER_MCP_STATE_TTL` in seconds.
 */
function requestStateOptions(env: NodeJS.ProcessEnv): { key: string | Uint8Array; ttlSeconds?: number } {
  const key = env.ASK_USER_MCP_STATE_KEY;
  if (key !== undefined && Buffer.byteLength(key, 'utf8') < 32) {
    throw new CliUsageError('ASK_USER_MCP_STATE_KEY must be at least 32 bytes');
  }
  const ttl = env.ASK_USER_MCP_STATE_TTL;
  const ttlSeconds = ttl === undefined ? undefined : Number(ttl);
  if (ttlSeconds !== undefined && !(Number.isInteger(ttlSeconds) && ttlSeconds > 0)) {
    throw new CliUsageError(
      `ASK_USER_MCP_STATE_TTL must be a positive number of seconds, got ${JSON.stringify(ttl)}`,
    );
  }
  return definedFields({ key: key ?? randomBytes(32), ttlSeconds });
}

/** Resolves on the first SIGINT or SIGTERM, or when `also` resolves. */
function untilStopped(also: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    void also.then(stop);
  });
}

/** Serves MCP until the client goes away (stdio) or a signal arrives. */
export async function run(argv: string[]): Promise<void> {
  const { values } = parse(COMMAND_SPECS.mcp, argv);
  const httpPort = stringOption(values, 'http');
  const port = httpPort === undefined ? undefined : portNumber(httpPort, '--http');
  const agentId = stringOption(values, 'agent') ?? DEFAULT_MCP_AGENT_ID;
  if (agentId === '') throw new CliUsageError('--agent must not be empty');
  const progressIntervalMs = intervalOption(stringOption(values, 'progress-interval'));
  const elicit = values['no-elicit'] !== true;
  const elicitAs = stringOption(values, 'elicit-as');
  if (elicitAs !== undefined && elicitAs.trim() === '') {
    throw new CliUsageError('--elicit-as must not be empty');
  }
  if (elicitAs !== undefined && !elicit) throw new CliUsageError('--elicit-as cannot go with --no-elicit');

  const userInteraction = new TemporalUserInteraction();
  const questions = mcpQuestionOperations(() => userInteraction.client());
  const serverOptions: AskUserMcpServerOptions = {
    userInteraction,
    agentId,
    keepOnCancel: values['keep-on-cancel'] === true,
    progressIntervalMs,
    serverInfo: serverInfo(),
    log: logLine,
    tasks: questions,
    requestState: requestStateOptions(process.env),
  };
  if (values.ops === true) serverOptions.questions = questions;
  if (elicit) {
    serverOptions.elicitation = definedFields({ questions, answeredBy: elicitAs });
  }

  try {
    if (port === undefined) {
      const closed = new Promise<void>((resolve) => process.stdin.once('end', resolve));
      const connection = connectMcpOverStdio(
        () => createAskUserMcpServer(serverOptions),
        (error) => logLine(`protocol: ${error.message}`),
      );
      await untilStopped(closed);
      await connection.close();
    } else {
      const endpoint = await serveMcpOverHttp({
        port,
        createServer: () => createAskUserMcpServer(serverOptions),
        log: logLine,
      });
      print(`ask-user mcp: streamable HTTP on ${endpoint.url}`);
      await untilStopped(new Promise<void>(() => undefined));
      await endpoint.close();
    }
  } finally {
    await userInteraction.close();
  }
}
