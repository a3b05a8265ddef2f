/**
 * A loopback stand-in for Slack, both ways: its Web API (`chat.postMessage`, `chat.update`,
 * `chat.postEphemeral`, `views.open`, `users.info`) for the bot's `WebClient` to call (through `slackApiUrl`),
 * recording every call and answering with Slack's JSON; and Slack's side of interactivity, which sends signed
 * interaction payloads to the inbox's route over real HTTP, built from the messages and modals the bot really
 * posted and opened. It signs as Slack does (v0 HMAC-SHA256 of `v0:<timestamp>:<body>` with the signing secret):
 * this is Slack's half of the protocol, so node:crypto is used here directly.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One Web API call the bot made. */
export interface SlackCall {
  method: string;
  token: string | undefined;
  /** The call's arguments, with JSON-encoded fields (`blocks`, `view`) parsed. */
  args: Record<string, unknown>;
}

/** A Block Kit block or element, or a payload: JSON the stand-in reads or writes. */
export type Json = Record<string, unknown>;

/** A string field, or `''`. */
function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A message as the stand-in keeps it. */
export interface PostedMessage {
  channel: string;
  ts: string;
  threadTs?: string;
  text: string;
  blocks: Json[];
}

/** A modal the bot opened. */
export interface OpenedView {
  id: string;
  triggerId: string;
  view: Json;
}

/** A running stand-in. */
export interface SlackStandIn {
  /** For `slackApiUrl`. */
  apiUrl: string;
  calls: SlackCall[];
  /** Every message posted, top-level and in threads, by ts; updated in place by `chat.update`. */
  messages: Map<string, PostedMessage>;
  views: OpenedView[];
  /** Users `users.info` knows: id to name. Others get `user_not_found`. */
  users: Map<string, string>;
  callsOf(method: string): SlackCall[];
  close(): Promise<void>;
}

/** Fields the Web API client sends as JSON text inside its form. */
const JSON_FIELDS = new Set(['blocks', 'view', 'attachments', 'metadata']);

function parseArgs(contentType: string, body: string): Record<string, unknown> {
  if (contentType.includes('application/json')) return JSON.parse(body) as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    args[key] = JSON_FIELDS.has(key) ? JSON.parse(value) : value;
  }
  return args;
}

/** Starts the stand-in on 127.0.0.1. */
export async function startSlackStandIn(): Promise<SlackStandIn> {
  const calls: SlackCall[] = [];
  const messages = new Map<string, PostedMessage>();
  const views: OpenedView[] = [];
  const users = new Map<string, string>();
  let clock = 1_700_000_000;
  const nextTs = (): string => `${++clock}.000100`;

  const handle = (method: string, args: Record<string, unknown>): Json => {
    const channel = text(args.channel);
    switch (method) {
      case 'chat.postMessage': {
        const ts = nextTs();
        const message: PostedMessage = {
          channel,
          ts,
          text: text(args.text),
          blocks: (args.blocks as Json[] | undefined) ?? [],
          ...(args.thread_ts === undefined ? {} : { threadTs: text(args.thread_ts) }),
        };
        messages.set(ts, message);
        return { ok: true, channel, ts, message: { text: message.text, ts } };
      }
      case 'chat.update': {
        const ts = text(args.ts);
        const message = messages.get(ts);
        if (message === undefined || message.channel !== channel)
          return { ok: false, error: 'message_not_found' };
        message.text = text(args.text);
        message.blocks = (args.blocks as Json[] | undefined) ?? [];
        return { ok: true, channel, ts, text: message.text };
      }
      case 'chat.postEphemeral':
        return { ok: true, message_ts: nextTs() };
      case 'views.open': {
        const id = `V${views.length + 1}`;
        views.push({ id, triggerId: text(args.trigger_id), view: args.view as Json });
        return { ok: true, view: { id, ...(args.view as Json) } };
      }
      case 'users.info': {
        const id = text(args.user);
        const name = users.get(id);
        return name === undefined
          ? { ok: false, error: 'user_not_found' }
          : { ok: true, user: { id, name, real_name: name, profile: { display_name: name } } };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const method = (request.url ?? '').replace(/^\/api\//, '').split('?')[0] ?? '';
      const args = parseArgs(request.headers['content-type'] ?? '', Buffer.concat(chunks).toString('utf8'));
      const token = request.headers.authorization?.replace(/^Bearer /, '');
      calls.push({ method, token, args });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(handle(method, args)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls,
    messages,
    views,
    users,
    callsOf: (method) => calls.filter((call) => call.method === method),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Options of {@link sendInteraction}: how to sign, for tests of a bad signature or a stale timestamp. */
export interface SignOptions {
  signingSecret: string;
  /** Seconds since the epoch. Default now. */
  timestamp?: number;
  /** Replaces the computed signature. */
  signature?: string;
}

/** The `x-slack-signature` Slack computes for a body. */
export function slackSignature(signingSecret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/** Posts one interaction payload to `url` as Slack does (form-encoded `payload`, signed); the response, read. */
export async function sendInteraction(
  url: string,
  payload: Json,
  sign: SignOptions,
): Promise<{ status: number; text: string }> {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = sign.timestamp ?? Math.floor(Date.now() / 1000);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': sign.signature ?? slackSignature(sign.signingSecret, timestamp, body),
    },
    body,
  });
  return { status: response.status, text: await response.text() };
}

/** The element with `actionId` (or whose id starts with it) in a message's blocks, and its block's id. */
export function findElement(
  message: PostedMessage,
  actionId: string,
  match: (element: Json) => boolean = () => true,
): { blockId: string; element: Json } {
  for (const block of message.blocks) {
    for (const element of (block.elements as Json[] | undefined) ?? []) {
      if (typeof element.action_id === 'string' && element.action_id.startsWith(actionId) && match(element)) {
        return { blockId: text(block.block_id), element };
      }
    }
  }
  throw new Error(`no element ${actionId} in message ${message.ts}: ${JSON.stringify(message.blocks)}`);
}

/** A `block_actions` payload: `user` clicked `element` of `message`, with the message's `state`. */
export function blockAction(
  message: PostedMessage,
  user: { id: string; username: string },
  clicked: { blockId: string; element: Json },
  state: Record<string, Record<string, Json>> = {},
): Json {
  const { element } = clicked;
  const action: Json = {
    type: element.type,
    action_id: element.action_id,
    block_id: clicked.blockId,
    action_ts: `${Date.now() / 1000}`,
  };
  if (element.value !== undefined) action.value = element.value;
  if (element.text !== undefined) action.text = element.text;
  return {
    type: 'block_actions',
    user: { id: user.id, username: user.username, team_id: 'T0' },
    api_app_id: 'A0',
    token: 'legacy-verification-token',
    container: { type: 'message', message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
    trigger_id: `trigger-${Math.random().toString(36).slice(2)}`,
    team: { id: 'T0', domain: 'example' },
    channel: { id: message.channel, name: 'ops' },
    message: { type: 'message', ts: message.ts, text: message.text, blocks: message.blocks },
    state: { values: state },
    response_url: 'http://127.0.0.1:9/unused',
    actions: [action],
  };
}

/** The `state.values` entry of a static select with option `value` chosen. */
export function selectState(element: Json, values: string[]): Json {
  const options = (element.options as Json[]).filter((option) => values.includes(String(option.value)));
  if (element.type === 'static_select') return { type: 'static_select', selected_option: options[0] ?? null };
  return { type: element.type, selected_options: options };
}

/**
 * A `view_submission` payload of `opened` with input values by block id: text for a text input, the values to
 * tick for checkboxes (only options the modal offers, under its own `action_id`, as Slack sends them).
 */
export function viewSubmission(
  opened: OpenedView,
  user: { id: string; username: string },
  inputs: Record<string, string | string[]>,
): Json {
  const values: Record<string, Record<string, Json>> = {};
  for (const [blockId, value] of Object.entries(inputs)) {
    if (typeof value === 'string') {
      values[blockId] = { value: { type: 'plain_text_input', value } };
      continue;
    }
    const block = (opened.view.blocks as Json[]).find((each) => each.block_id === blockId);
    const element = block?.element as Json | undefined;
    if (element?.type !== 'checkboxes') throw new Error(`the modal has no checkboxes in block ${blockId}`);
    values[blockId] = { [String(element.action_id)]: selectState(element, value) };
  }
  return {
    type: 'view_submission',
    team: { id: 'T0', domain: 'example' },
    user: { id: user.id, username: user.username, name: user.username, team_id: 'T0' },
    api_app_id: 'A0',
    token: 'legacy-verification-token',
    trigger_id: `trigger-${Math.random().toString(36).slice(2)}`,
    view: {
      id: opened.id,
      type: 'modal',
      callback_id: opened.view.callback_id,
      private_metadata: opened.view.private_metadata,
      blocks: opened.view.blocks,
      state: { values },
      hash: 'h',
    },
  };
}
