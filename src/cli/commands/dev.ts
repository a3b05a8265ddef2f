/** `ask-user dev`: the Temporal dev server (SQLite, persisted), a worker and the ops inbox, for local use. */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { webhookOptionsFromEnv } from '../../activities/webhook-activities';
import { startDevServer } from '../../dev-server/dev-server-process';
import { ensureTemporalCliInstalled } from '../../dev-server/temporal-cli';
import { generateToken } from '../../inbox/inbox-auth';
import { startInboxServer, type InboxServer } from '../../inbox/inbox-server';
import { QuestionIndex } from '../../inbox/question-index';
import { createAskUserWorker } from '../../worker/worker';
import { COMMAND_SPECS } from '../command-specs';
import { parse, portNumber, stringOption } from '../parse';
import { print } from '../print';
import { installRuntimeLogger, runUntilSignal } from '../worker-runtime';
import { inboxAuthFromEnv, slackRouteFromEnv } from './inbox';

/**
 * Starts the inbox on `port`; when the port was not asked for explicitly and is taken (another `ask-user dev`),
 * on any free port instead.
 */
async function startDevInbox(
  options: Omit<Parameters<typeof startInboxServer>[0], 'port'>,
  port: number,
  explicit: boolean,
): Promise<InboxServer> {
  try {
    return await startInboxServer({ ...options, port });
  } catch (error) {
    if (explicit || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return await startInboxServer({ ...options, port: 0 });
  }
}

/** Runs the dev server, a worker and the inbox until SIGINT/SIGTERM, then stops them. */
export async function run(argv: string[]): Promise<void> {
  const { values } = parse(COMMAND_SPECS.dev, argv);
  const portText = stringOption(values, 'port');
  const port = portText === undefined ? 7233 : portNumber(portText, '--port', 1);
  const uiPortText = stringOption(values, 'ui-port');
  const uiPort =
    values.headless === true
      ? false
      : uiPortText === undefined
        ? port + 1000
        : portNumber(uiPortText, '--ui-port', 1);
  const inboxPortText = stringOption(values, 'inbox-port');
  // 8234 beside the Web UI's 8233 for the default gRPC port 7233.
  const inboxPort =
    inboxPortText === undefined ? Math.min(port + 1001, 65_535) : portNumber(inboxPortText, '--inbox-port');
  // The token travels in the printed link's fragment, which browsers never send to a server.
  const token = process.env.ASK_USER_INBOX_TOKEN?.trim() || generateToken();
  const auth = inboxAuthFromEnv({ ...process.env, ASK_USER_INBOX_TOKEN: token });
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
    const clientConnection = await Connection.connect({ address: server.address }).catch(
      async (error: unknown) => {
        await connection.close();
        throw error;
      },
    );
    let inbox: InboxServer | undefined;
    let slack: ReturnType<typeof slackRouteFromEnv>;
    try {
      const client = new Client({ connection: clientConnection, namespace: 'default' });
      const index = new QuestionIndex(client);
      slack = slackRouteFromEnv(index.questions, () => inbox?.url);
      inbox = await startDevInbox(
        { index, auth, extraRoutes: slack === undefined ? [] : [slack] },
        inboxPort,
        inboxPortText !== undefined,
      );
      const worker = await createAskUserWorker({
        connection,
        namespace: 'default',
        shutdownForceTime: '10s',
        // Webhook payloads link to this inbox, unless ASK_USER_INBOX_URL names another address for it.
        webhooks: { inboxUrl: inbox.url, ...webhookOptionsFromEnv() },
      });
      print(`Temporal dev server  ${server.address} (data: ${dbFile})`);
      if (server.uiUrl !== undefined) print(`Temporal Web UI      ${server.uiUrl}`);
      print(`Worker               task queue ${worker.options.taskQueue}`);
      print(`Inbox                ${inbox.url}#token=${encodeURIComponent(token)}`);
      if (slack !== undefined) print(`Slack interactivity  ${new URL(slack.path, inbox.url).href}`);
      // The same word as `ask-user inbox`: a login made here ends with this process unless the key is set.
      print(
        auth.sessionKeyIsEphemeral
          ? 'Logins               end when this process stops: set ASK_USER_INBOX_SESSION_KEY to keep them across restarts and replicas'
          : 'Logins               sealed with ASK_USER_INBOX_SESSION_KEY: they outlast restarts, on every replica with that key',
      );
      print(
        [
          '',
          'Ask:     npx ask-user ask --question "Deploy now?" --option Yes --option No',
          'Answer:  open the inbox link above, or npx ask-user list, then npx ask-user answer <id>',
          'Stop:    Ctrl-C',
        ].join('\n'),
      );
      await runUntilSignal(worker);
    } finally {
      await inbox?.close();
      await slack?.idle();
      await clientConnection.close();
      await connection.close();
    }
  } finally {
    await server.stop();
  }
}
