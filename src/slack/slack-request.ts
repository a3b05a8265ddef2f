/**
 * Reading a request Slack posted to the interactivity URL: its signature checked with the app's signing secret by
 * the Slack SDK's own check (`verifySlackRequest`: v0 HMAC-SHA256 of `v0:<timestamp>:<body>`, compared in constant
 * time, timestamps older than five minutes refused) before anything of it is read, then its `payload` parsed.
 */
import { isPlainObject } from '../common';
import type { Json } from './slack-payload';

/** The interaction a request carried, or the response that refuses the request. */
export type SlackRequestRead = { payload: Json } | { refused: Response };

/** Reads verified requests. */
export type SlackRequestReader = (request: Request) => Promise<SlackRequestRead>;

function refused(status: number, text: string, headers?: Record<string, string>): { refused: Response } {
  return { refused: new Response(`${text}\n`, headers === undefined ? { status } : { status, headers }) };
}

/**
 * A reader of requests signed with `signingSecret`: a method other than POST gets 405, a signature that does not
 * verify 401, a body that is not an interaction 400.
 *
 * @param onLoadError told when `@slack/bolt` cannot be loaded (then every request fails, and is not read)
 */
export function slackRequestReader(
  signingSecret: string,
  onLoadError: (error: unknown) => void,
): SlackRequestReader {
  // The verifier is the only part of Bolt used; the package is loaded when a route is made, not on import.
  const verifier = import('@slack/bolt').then((bolt) => bolt.verifySlackRequest);
  verifier.catch(onLoadError);

  return async (request) => {
    if (request.method !== 'POST') return refused(405, 'POST only', { allow: 'POST' });
    const body = await request.text();
    const signature = request.headers.get('x-slack-signature') ?? '';
    const timestamp = request.headers.get('x-slack-request-timestamp') ?? '';
    const verifySlackRequest = await verifier;
    try {
      if (!/^\d{1,12}$/.test(timestamp)) throw new Error('no x-slack-request-timestamp');
      verifySlackRequest({
        signingSecret,
        body,
        headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': Number(timestamp) },
      });
    } catch {
      return refused(401, 'invalid Slack signature');
    }
    let payload: unknown;
    try {
      payload = JSON.parse(new URLSearchParams(body).get('payload') ?? '');
    } catch {
      return refused(400, 'payload: must be the JSON of a Slack interaction');
    }
    return isPlainObject(payload) ? { payload } : refused(400, 'payload: must be a JSON object');
  };
}
