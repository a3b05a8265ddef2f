/**
 * `ask-user inbox`: serves the ops inbox (page, HTTP API, live events) against any Temporal server, until
 * Ctrl-C. Needs `ASK_USER_INBOX_TOKEN` or `ASK_USER_INBOX_USERS`; binds 127.0.0.1 unless `--host` says otherwise.
 * With `ASK_USER_SLACK_SIGNING_SECRET` and `ASK_USER_SLACK_BOT_TOKEN` it also serves Slack's interactions at
 * `/slack/interactions` (see docs/slack.md). Page logins are sealed with `ASK_USER_INBOX_SESSION_KEY`; without
 * it, with a key of this process, and the inbox says so as it starts.
 */
import { errorText } from '../../common';
import type { QuestionClient } from '../../ops/question-client';
import { createSlackInteractions, type SlackInteractions } from '../../slack/slack-interactions';
import { slackInteractionSettingsFromEnv } from '../../slack/slack-settings';
import { InboxAuth } from '../../inbox/inbox-auth';
import { DEFAULT_INBOX_HOST, DEFAULT_INBOX_PORT, startInboxServer } from '../../inbox/inbox-server';
import { QuestionIndex } from '../../inbox/question-index';
import { loadTemporalSettings } from '../../connection/connection-config';
import { COMMAND_SPECS } from '../command-specs';
import { CliUsageError, parse, portNumber, stringOption } from '../parse';
import { print } from '../print';
import { untilSignal } from '../until-signal';
import { withClient } from '../with-client';

/** The inbox's token settings from the environment; a missing or unusable one is a usage error. */
export function inboxAuthFromEnv(env: Record<string, string | undefined> = process.env): InboxAuth {
  try {
    return InboxAuth.fromEnv(env);
  } catch (error) {
    throw new CliUsageError(errorText(error), { cause: error });
  }
}

/**
 * The Slack interactions route when `ASK_USER_SLACK_SIGNING_SECRET` is set (a usage error without
 * `ASK_USER_SLACK_BOT_TOKEN`), else `undefined`. An updated message links to
 * `ASK_USER_INBOX_URL`, else to `inboxUrl()`.
 */
export function slackRouteFromEnv(
  questions: QuestionClient,
  inboxUrl: () => string | undefined,
  env: Record<string, string | undefined> = process.env,
): SlackInteractions | undefined {
  let settings: ReturnType<typeof slackInteractionSettingsFromEnv>;
  try {
    settings = slackInteractionSettingsFromEnv(env);
  } catch (error) {
    throw new CliUsageError(errorText(error), { cause: error });
  }
  if (settings === undefined) return undefined;
  const configured = env.ASK_USER_INBOX_URL?.trim();
  return createSlackInteractions({
    ...settings,
    questions,
    inboxUrl: configured ? configured : inboxUrl,
  });
}

/** Serves the inbox until SIGINT/SIGTERM. */
export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(COMMAND_SPECS.inbox, argv);
  if (positionals.length > 0) throw new CliUsageError(`inbox takes no arguments (got ${positionals[0]})`);
  const portText = stringOption(values, 'port');
  const port = portText === undefined ? DEFAULT_INBOX_PORT : portNumber(portText, '--port');
  const host = stringOption(values, 'host') ?? DEFAULT_INBOX_HOST;
  if (host.trim() === '') throw new CliUsageError('--host must name an interface, e.g. 0.0.0.0');
  const auth = inboxAuthFromEnv();
  const settings = loadTemporalSettings();
  await withClient(async (client) => {
    const index = new QuestionIndex(client, {
      onPollError: (error) => process.stderr.write(`ask-user inbox: ${errorText(error)}\n`),
    });
    // The route is made before the server, which knows its address only once it listens.
    const served: { url?: string } = {};
    const slack = slackRouteFromEnv(index.questions, () => served.url);
    const inbox = await startInboxServer({
      index,
      auth,
      host,
      port,
      extraRoutes: slack === undefined ? [] : [slack],
    }).catch((error: unknown) => {
      throw new Error(`cannot serve the inbox on ${host}:${port}: ${errorText(error)}`, { cause: error });
    });
    served.url = inbox.url;
    try {
      print(`Inbox     ${inbox.url}`);
      if (slack !== undefined) print(`Slack     interactivity URL ${new URL(slack.path, inbox.url).href}`);
      print(`Temporal  ${settings.address}, namespace ${settings.namespace}`);
      print(
        auth.sessionKeyIsEphemeral
          ? 'Logins    end when this process stops: set ASK_USER_INBOX_SESSION_KEY to keep them across restarts and replicas'
          : 'Logins    sealed with ASK_USER_INBOX_SESSION_KEY: they outlast restarts, on every replica with that key',
      );
      print('Log in with ASK_USER_INBOX_TOKEN (or your token from ASK_USER_INBOX_USERS). Stop: Ctrl-C');
      await untilSignal();
    } finally {
      await inbox.close();
      await slack?.idle();
    }
  });
}
