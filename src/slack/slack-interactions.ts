/**
 * `createSlackInteractions`: the inbox route Slack posts clicks and modal submissions to (the app's
 * interactivity URL, `POST /slack/interactions`). Each request is verified with the app's signing secret before
 * anything is read (`slack-request.ts`); a request that fails it gets 401 and nothing else happens.
 *
 * A click is recorded through the same validated update as every other answer (`QuestionClient.answer`,
 * `decline`, `decide`), under the clicker's Slack name (`users.info`, cached). Then the message is updated to
 * show who answered what; a late click, an answerer outside the question's audience or an answer the rules
 * refuse gets an ephemeral message saying why, and nothing is recorded.
 *
 * Slack wants its 200 within 3 seconds. A click (`block_actions`) is acknowledged at once and handled right
 * after, in the background: Slack ignores the response's body, and what the clicker sees comes back through
 * `chat.update`, `chat.postEphemeral` or `views.open`. A modal's submission (`view_submission`) is handled
 * before responding, because only the response can keep the modal open with an error beside the field (text
 * that is not JSON, an edit outside the tool's schema); should the update take longer than
 * {@link SlackInteractionsOptions.viewBudgetMs}, the modal closes and the outcome arrives as an ephemeral
 * message instead.
 */
import type { WebClient } from '@slack/web-api';
import { errorText } from '../common';
import { slackWebClient, type SlackBotSettings } from '../slack-messages';
import { handleBlockAction } from './slack-block-actions';
import type { Json } from './slack-payload';
import { SlackRecorder, type SlackAnswering } from './slack-recorder';
import { SlackReplies } from './slack-replies';
import { slackRequestReader } from './slack-request';
import { SlackUserNames, type SlackUserNamesOptions } from './slack-users';
import { handleViewSubmission, submittedFrom, type ViewErrors } from './slack-view-submissions';

/** Where the route is mounted. */
export const SLACK_INTERACTIONS_PATH = '/slack/interactions';

/** Options of {@link createSlackInteractions}. */
export interface SlackInteractionsOptions {
  /** The Slack app's signing secret (Basic Information → App Credentials). */
  signingSecret: string;
  /** The bot that updates messages, opens modals and looks names up. */
  bot: SlackBotSettings;
  /** Records the answers. */
  questions: SlackAnswering;
  /** The inbox's address, for the "Open in the inbox" button of an updated message. */
  inboxUrl?: string | (() => string | undefined);
  /** Default {@link SLACK_INTERACTIONS_PATH}. */
  path?: string;
  /** Bounds of the name cache. */
  userNames?: Omit<SlackUserNamesOptions, 'onLookupError'>;
  /** How long a modal's submission may take before the modal closes and the outcome goes ephemeral. Default 2.5 s. */
  viewBudgetMs?: number;
  /** Told about failures nobody else hears of (a Slack call that failed, a name lookup). Default: stderr. */
  onError?: (error: unknown) => void;
}

/** The route, for `InboxAppOptions.extraRoutes`, and a way to wait for the clicks it is still handling. */
export interface SlackInteractions {
  path: string;
  fetch(request: Request): Promise<Response>;
  /** Resolves once every click received so far has been handled (tests, and a clean shutdown). */
  idle(): Promise<void>;
}

/** Work the route handles after responding, kept so that {@link SlackInteractions.idle} can wait for it. */
class BackgroundWork {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly onError: (error: unknown) => void) {}

  track<T>(work: Promise<T>): Promise<T> {
    const settled = work.catch(this.onError).finally(() => this.pending.delete(settled));
    this.pending.add(settled);
    return work;
  }

  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}

/** The response to a modal's submission: its errors, or an empty 200 that closes it. */
function viewResponse(shown: ViewErrors | undefined): Response {
  return shown === undefined
    ? new Response(null, { status: 200 })
    : new Response(JSON.stringify(shown), { status: 200, headers: { 'content-type': 'application/json' } });
}

/**
 * Creates the interactions route.
 *
 * @example
 * const slack = createSlackInteractions({ signingSecret, bot: { botToken }, questions });
 * await startInboxServer({ index, auth, extraRoutes: [slack] });
 */
export function createSlackInteractions(options: SlackInteractionsOptions): SlackInteractions {
  if (options.signingSecret.trim() === '') throw new Error('signingSecret: must not be empty');
  const onError =
    options.onError ?? ((error: unknown) => process.stderr.write(`ask-user slack: ${errorText(error)}\n`));
  let made: Promise<WebClient> | undefined;
  const client = (): Promise<WebClient> =>
    (made ??= slackWebClient(options.bot, { retries: 2, timeoutMs: 5_000 }));
  const names = new SlackUserNames(async (user) => (await (await client()).users.info({ user })).user?.name, {
    ...options.userNames,
    onLookupError: (user, error) => onError(new Error(`users.info ${user}: ${errorText(error)}`)),
  });
  const replies = new SlackReplies(client, options.inboxUrl);
  const recorder = new SlackRecorder(options.questions, names, replies, onError);
  const viewBudgetMs = options.viewBudgetMs ?? 2_500;
  const background = new BackgroundWork(onError);
  const read = slackRequestReader(options.signingSecret, onError);

  /** Answers within the budget; past it the modal has closed, and errors it can no longer show go ephemeral. */
  const onViewSubmission = async (payload: Json): Promise<Response> => {
    const work = background.track(handleViewSubmission(payload, recorder));
    const timeUp = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), viewBudgetMs).unref());
    const outcome = await Promise.race([work.catch(() => undefined), timeUp]);
    if (outcome !== 'late') return viewResponse(outcome);
    void background.track(
      work.then(async (shown) => {
        const from = submittedFrom(payload);
        if (shown === undefined || from === undefined) return;
        await replies.notRecorded(from.place, Object.values(shown.errors).join('; '));
      }),
    );
    return viewResponse(undefined);
  };

  return {
    path: options.path ?? SLACK_INTERACTIONS_PATH,

    async fetch(request: Request): Promise<Response> {
      const verified = await read(request);
      if ('refused' in verified) return verified.refused;
      const { payload } = verified;
      if (payload.type === 'block_actions') {
        void background.track(handleBlockAction(payload, { recorder, replies, client }));
        return new Response(null, { status: 200 });
      }
      if (payload.type === 'view_submission') return await onViewSubmission(payload);
      return new Response(null, { status: 200 });
    },

    idle: () => background.idle(),
  };
}
