/**
 * `createSlackInteractions`: the inbox route Slack posts clicks and modal submissions to (the app's
 * interactivity URL, `POST /slack/interactions`). Each request is verified with the app's signing secret by the
 * Slack SDK's own check (`verifySlackRequest`: v0 HMAC-SHA256 of `v0:<timestamp>:<body>`, compared in constant
 * time, timestamps older than five minutes refused) before anything is read; a request that fails it gets 401
 * and nothing else happens.
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
import { QuestionOperationError } from '../interaction/question-operation-error';
import type { QuestionClient } from '../ops/question-client';
import { inboxLink } from '../question/inbox-link';
import { resolvedReason } from '../question/question-text';
import type { AskUserQuestion, AskUserQuestionAnswerItem, QuestionOutcome, QuestionRecord } from '../types';
import {
  INPUT_ACTION,
  INPUT_BLOCK,
  REASON_BLOCK,
  SLACK_ACTIONS,
  SLACK_VIEWS,
  decodeRef,
  decodeViewContext,
  editModal,
  encodeViewContext,
  otherModal,
  questionBlockId,
  reasonModal,
  staticMessage,
  textBlockId,
  type SlackActionRef,
} from './slack-blocks';
import { slackWebClient, type SlackBotSettings } from './slack-client';
import { SlackUserNames, type SlackUserNamesOptions } from './slack-users';

/** Where the route is mounted. */
export const SLACK_INTERACTIONS_PATH = '/slack/interactions';

/** What the route needs of the ops client. */
export type SlackAnswering = Pick<QuestionClient, 'get' | 'answer' | 'decline' | 'decide'>;

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

/** Where a click happened: who clicked, and the message it was in. */
interface Place {
  user: string;
  channel: string | undefined;
  ts: string | undefined;
}

/** The response that keeps a modal open with errors beside its inputs. */
interface ViewErrors {
  response_action: 'errors';
  errors: Record<string, string>;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectAt(value: unknown, key: string): Json | undefined {
  const found = isObject(value) ? value[key] : undefined;
  return isObject(found) ? found : undefined;
}

function stringAt(value: unknown, key: string): string | undefined {
  const found = isObject(value) ? value[key] : undefined;
  return typeof found === 'string' && found !== '' ? found : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `text` ending in a full stop. */
function period(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** `text` as a sentence: capitalised, ending in a full stop. */
function sentence(text: string): string {
  const trimmed = period(text);
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}`;
}

/** The option indices each question's control holds in a message's `state.values`. */
export function chosenFromState(values: unknown, count: number): (number[] | null)[] {
  const chosen: (number[] | null)[] = [];
  for (let index = 0; index < count; index++) {
    const block = objectAt(values, questionBlockId(index));
    let picked: number[] | null = null;
    for (const state of Object.values(block ?? {})) {
      if (!isObject(state)) continue;
      const single = objectAt(state, 'selected_option');
      const many = Array.isArray(state.selected_options) ? (state.selected_options as unknown[]) : undefined;
      const options = single !== undefined ? [single] : many;
      if (options === undefined) continue;
      picked = options
        .map((option) => Number(stringAt(option, 'value')))
        .filter((value) => Number.isInteger(value) && value >= 0);
    }
    chosen.push(picked);
  }
  return chosen;
}

/**
 * The answer a message and a modal give: a question's text when one was written, else the labels of the
 * options chosen for it (by index), else nothing (skipped). An index no option has is refused, naming it.
 */
export function answerFrom(
  questions: readonly AskUserQuestion[],
  chosen: readonly (readonly number[] | null | undefined)[],
  texts: ReadonlyMap<number, string> = new Map(),
): { ok: true; answers: AskUserQuestionAnswerItem[] } | { ok: false; reason: string } {
  const answers: AskUserQuestionAnswerItem[] = [];
  for (const [index, question] of questions.entries()) {
    const text = texts.get(index);
    if (text !== undefined && text.trim() !== '') {
      answers.push({ id: question.id, selected: [], custom: text });
      continue;
    }
    const selected: string[] = [];
    for (const optionIndex of chosen[index] ?? []) {
      const label = question.options?.[optionIndex]?.label;
      if (label === undefined) {
        return {
          ok: false,
          reason: `answers[${index}].selected: option ${optionIndex} is not an option of question ${JSON.stringify(question.id)}`,
        };
      }
      selected.push(label);
    }
    answers.push({ id: question.id, selected });
  }
  return { ok: true, answers };
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
  let made: Promise<WebClient> | undefined;
  const slackClient = (): Promise<WebClient> =>
    (made ??= slackWebClient(options.bot, { retries: 2, timeoutMs: 5_000 }));
  const onError =
    options.onError ?? ((error: unknown) => process.stderr.write(`ask-user slack: ${messageOf(error)}\n`));
  const names = new SlackUserNames(
    async (user) => {
      const result = await (await slackClient()).users.info({ user });
      return result.user?.name;
    },
    {
      ...options.userNames,
      onLookupError: (user, error) => onError(new Error(`users.info ${user}: ${messageOf(error)}`)),
    },
  );
  const questions = options.questions;
  const viewBudgetMs = options.viewBudgetMs ?? 2_500;
  const pending = new Set<Promise<unknown>>();
  // The verifier is the only part of Bolt used; the package is loaded when a route is made, not on import.
  const verifier = import('@slack/bolt').then((bolt) => bolt.verifySlackRequest);
  verifier.catch(onError);

  const track = <T>(work: Promise<T>): Promise<T> => {
    const settled = work.catch(onError).finally(() => pending.delete(settled));
    pending.add(settled);
    return work;
  };

  const link = (workflowId: string): string | undefined => {
    const base = typeof options.inboxUrl === 'function' ? options.inboxUrl() : options.inboxUrl;
    return base === undefined ? undefined : inboxLink(base, workflowId);
  };

  const ephemeral = async (place: Place, text: string): Promise<void> => {
    if (place.channel === undefined) return;
    await (await slackClient()).chat.postEphemeral({ channel: place.channel, user: place.user, text });
  };

  /** Writes the resolved question over the message it was answered in. */
  const showResolved = async (place: Place, workflowId: string, record: QuestionRecord): Promise<void> => {
    if (place.channel === undefined || place.ts === undefined || record.status === 'pending') return;
    const linkText = link(workflowId);
    const message = staticMessage({
      event: record.approval === undefined ? 'question.resolved' : 'approval.decided',
      workflowId,
      record,
      ...(linkText === undefined ? {} : { link: linkText }),
    });
    await (
      await slackClient()
    ).chat.update({
      channel: place.channel,
      ts: place.ts,
      text: message.text,
      blocks: message.blocks,
    });
  };

  /** A question no longer pending: the clicker is told who resolved it and when, and the message shows it. */
  const late = async (place: Place, workflowId: string, record: QuestionRecord): Promise<void> => {
    await ephemeral(place, sentence(resolvedReason(record) ?? `the question is ${record.status}`));
    await showResolved(place, workflowId, record);
  };

  /**
   * Records one answer, decline or decision, and shows it in the message. Otherwise returns why not: already
   * told to the clicker, unless it is a bad input and `badInput` is `'modal'` (the modal shows it beside its
   * field instead).
   */
  const recordAs = async (
    place: Place,
    workflowId: string,
    record: QuestionRecord,
    send: (name: string) => Promise<QuestionOutcome>,
    badInput: 'ephemeral' | 'modal' = 'ephemeral',
  ): Promise<{ untold: string } | undefined> => {
    const name = await names.nameOf(place.user);
    let outcome: QuestionOutcome;
    try {
      outcome = await send(name);
    } catch (error) {
      if (QuestionOperationError.isInstance(error) && error.code === 'ALREADY_RESOLVED') {
        await ephemeral(place, sentence(error.message));
        if (error.record !== undefined) await showResolved(place, workflowId, error.record);
        return undefined;
      }
      const bad =
        QuestionOperationError.isInstance(error) &&
        (error.code === 'BAD_ANSWER' || error.code === 'INVALID_ARGS');
      if (bad && badInput === 'modal') return { untold: error.message };
      if (!bad && !QuestionOperationError.isInstance(error)) onError(error);
      await ephemeral(place, `Not recorded: ${period(messageOf(error))}`);
      return undefined;
    }
    await showResolved(place, workflowId, { ...outcome, questions: record.questions });
    return undefined;
  };

  /** Reads the question; `undefined` (and the clicker told why) when it cannot be answered any more. */
  const pendingRecord = async (place: Place, workflowId: string): Promise<QuestionRecord | undefined> => {
    let record: QuestionRecord;
    try {
      record = await questions.get(workflowId);
    } catch (error) {
      await ephemeral(place, `Not recorded: ${period(messageOf(error))}`);
      return undefined;
    }
    if (record.status === 'pending') return record;
    await late(place, workflowId, record);
    return undefined;
  };

  const openModal = async (
    place: Place,
    triggerId: string | undefined,
    view: Parameters<WebClient['views']['open']>[0]['view'],
  ): Promise<void> => {
    if (triggerId === undefined) return;
    await (await slackClient()).views.open({ trigger_id: triggerId, view });
  };

  const onBlockAction = async (payload: Json): Promise<void> => {
    const actions = Array.isArray(payload.actions) ? (payload.actions as unknown[]) : [];
    const action = actions[0];
    const actionId = stringAt(action, 'action_id') ?? '';
    const user = stringAt(objectAt(payload, 'user'), 'id');
    const ref: SlackActionRef | undefined = decodeRef(isObject(action) ? action.value : undefined);
    // Selects and checkboxes only hold state until Submit; the inbox link opens a page.
    if (user === undefined || ref === undefined) return;
    const container = objectAt(payload, 'container');
    const place: Place = {
      user,
      channel: stringAt(objectAt(payload, 'channel'), 'id') ?? stringAt(container, 'channel_id'),
      ts: stringAt(container, 'message_ts') ?? stringAt(objectAt(payload, 'message'), 'ts'),
    };
    const triggerId = stringAt(payload, 'trigger_id');
    const { workflowId } = ref;
    const record = await pendingRecord(place, workflowId);
    if (record === undefined) return;
    const context = (extra: { question?: number; chosen?: (number[] | null)[] } = {}): string | undefined =>
      place.channel === undefined || place.ts === undefined
        ? undefined
        : encodeViewContext({ workflowId, channel: place.channel, ts: place.ts, ...extra });

    if (actionId.startsWith(`${SLACK_ACTIONS.answer}.`) || actionId === SLACK_ACTIONS.submit) {
      const chosen =
        actionId === SLACK_ACTIONS.submit
          ? chosenFromState(objectAt(payload, 'state')?.values, record.questions.length)
          : record.questions.map((_question, index) => (index === ref.question ? [ref.option ?? -1] : null));
      if (chosen.every((entry) => entry === null || entry.length === 0)) {
        await ephemeral(place, 'Nothing chosen yet: pick an option first, or use Other… to write an answer.');
        return;
      }
      const answer = answerFrom(record.questions, chosen);
      if (!answer.ok) {
        await ephemeral(place, `Not recorded: ${period(answer.reason)}`);
        return;
      }
      await recordAs(place, workflowId, record, (name) =>
        questions.answer(workflowId, { answers: answer.answers, answeredBy: name }),
      );
      return;
    }
    switch (actionId) {
      case SLACK_ACTIONS.approve:
        await recordAs(place, workflowId, record, (name) =>
          questions.decide(workflowId, { type: 'approve', decidedBy: name }),
        );
        return;
      case SLACK_ACTIONS.other: {
        const question = Math.min(ref.question ?? 0, Math.max(0, record.questions.length - 1));
        const chosen =
          record.questions.length > 1
            ? chosenFromState(objectAt(payload, 'state')?.values, record.questions.length)
            : undefined;
        const metadata = context({ question, ...(chosen === undefined ? {} : { chosen }) });
        if (metadata === undefined) return;
        await openModal(place, triggerId, otherModal(record.questions, metadata, question));
        return;
      }
      case SLACK_ACTIONS.decline:
      case SLACK_ACTIONS.deny: {
        const metadata = context();
        if (metadata === undefined) return;
        await openModal(
          place,
          triggerId,
          reasonModal(actionId === SLACK_ACTIONS.decline ? 'decline' : 'deny', metadata),
        );
        return;
      }
      case SLACK_ACTIONS.edit: {
        const metadata = context();
        if (metadata === undefined || record.approval === undefined) return;
        await openModal(place, triggerId, editModal(record, metadata));
        return;
      }
    }
  };

  const onViewSubmission = async (payload: Json): Promise<ViewErrors | undefined> => {
    const view = objectAt(payload, 'view');
    const callbackId = stringAt(view, 'callback_id');
    const context = decodeViewContext(view?.private_metadata);
    const user = stringAt(objectAt(payload, 'user'), 'id');
    if (context === undefined || user === undefined) return undefined;
    const values = objectAt(objectAt(view, 'state'), 'values');
    const input = (blockId: string): string | undefined => {
      const value = objectAt(objectAt(values, blockId), INPUT_ACTION)?.value;
      return typeof value === 'string' && value.trim() !== '' ? value : undefined;
    };
    const place: Place = { user, channel: context.channel, ts: context.ts };
    const { workflowId } = context;
    const record = await pendingRecord(place, workflowId);
    if (record === undefined) return undefined;
    const errors = (blockId: string, reason: string): ViewErrors => ({
      response_action: 'errors',
      errors: { [blockId]: reason.slice(0, 2000) },
    });

    switch (callbackId) {
      case SLACK_VIEWS.other: {
        const question = context.question ?? 0;
        const texts = new Map<number, string>();
        record.questions.forEach((_question, index) => {
          const text = input(textBlockId(index));
          if (text !== undefined) texts.set(index, text);
        });
        if (!texts.has(question)) return errors(textBlockId(question), 'Write an answer.');
        const answer = answerFrom(record.questions, context.chosen ?? [], texts);
        if (!answer.ok) return errors(textBlockId(question), answer.reason);
        const refused = await recordAs(
          place,
          workflowId,
          record,
          (name) => questions.answer(workflowId, { answers: answer.answers, answeredBy: name }),
          'modal',
        );
        if (refused === undefined) return undefined;
        // The rules name the answer they refused (`answers[1].custom: ...`): shown beside that question's text.
        const at = /answers\[(\d+)\]/.exec(refused.untold)?.[1];
        const blockId =
          at !== undefined && texts.has(Number(at)) ? textBlockId(Number(at)) : textBlockId(question);
        return errors(blockId, refused.untold);
      }
      case SLACK_VIEWS.decline: {
        const reason = input(REASON_BLOCK)?.trim();
        await recordAs(place, workflowId, record, (name) =>
          questions.decline(workflowId, { ...(reason === undefined ? {} : { reason }), declinedBy: name }),
        );
        return undefined;
      }
      case SLACK_VIEWS.deny: {
        const reason = input(REASON_BLOCK)?.trim();
        const refused = await recordAs(
          place,
          workflowId,
          record,
          (name) =>
            questions.decide(workflowId, {
              type: 'reject',
              ...(reason === undefined ? {} : { reason }),
              decidedBy: name,
            }),
          'modal',
        );
        return refused === undefined ? undefined : errors(REASON_BLOCK, refused.untold);
      }
      case SLACK_VIEWS.edit: {
        let edited: unknown;
        try {
          edited = JSON.parse(input(INPUT_BLOCK) ?? '');
        } catch (error) {
          return errors(INPUT_BLOCK, `Not valid JSON: ${messageOf(error)}`);
        }
        const refused = await recordAs(
          place,
          workflowId,
          record,
          (name) => questions.decide(workflowId, { type: 'edit', input: edited, decidedBy: name }),
          'modal',
        );
        return refused === undefined ? undefined : errors(INPUT_BLOCK, refused.untold);
      }
      default:
        return undefined;
    }
  };

  return {
    path: options.path ?? SLACK_INTERACTIONS_PATH,

    async fetch(request: Request): Promise<Response> {
      if (request.method !== 'POST')
        return new Response('POST only\n', { status: 405, headers: { allow: 'POST' } });
      const body = await request.text();
      const signature = request.headers.get('x-slack-signature') ?? '';
      const timestamp = request.headers.get('x-slack-request-timestamp') ?? '';
      const verifySlackRequest = await verifier;
      try {
        if (!/^\d{1,12}$/.test(timestamp)) throw new Error('no x-slack-request-timestamp');
        verifySlackRequest({
          signingSecret: options.signingSecret,
          body,
          headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': Number(timestamp) },
        });
      } catch {
        return new Response('invalid Slack signature\n', { status: 401 });
      }
      let payload: unknown;
      try {
        payload = JSON.parse(new URLSearchParams(body).get('payload') ?? '');
      } catch {
        return new Response('payload: must be the JSON of a Slack interaction\n', { status: 400 });
      }
      if (!isObject(payload)) return new Response('payload: must be a JSON object\n', { status: 400 });
      if (payload.type === 'block_actions') {
        void track(onBlockAction(payload));
        return new Response(null, { status: 200 });
      }
      if (payload.type === 'view_submission') {
        const work = track(onViewSubmission(payload));
        const outcome = await Promise.race([
          work.catch(() => undefined),
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), viewBudgetMs).unref()),
        ]);
        if (outcome === undefined) {
          // Past the budget the modal has closed: errors it can no longer show go to the clicker instead.
          void track(
            work.then(async (shown) => {
              if (shown === undefined) return;
              const context = decodeViewContext(objectAt(payload, 'view')?.private_metadata);
              const user = stringAt(objectAt(payload, 'user'), 'id');
              if (context === undefined || user === undefined) return;
              const place = { user, channel: context.channel, ts: context.ts };
              await ephemeral(place, `Not recorded: ${period(Object.values(shown.errors).join('; '))}`);
            }),
          );
        }
        return outcome === undefined
          ? new Response(null, { status: 200 })
          : new Response(JSON.stringify(outcome), {
              status: 200,
              headers: { 'content-type': 'application/json' },
            });
      }
      return new Response(null, { status: 200 });
    },

    async idle(): Promise<void> {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
