/**
 * The inbox API's requests as zod schemas: what the routes of `api-routes.ts` validate requests with, and what
 * the OpenAPI document at `/api/openapi.json` is generated from, so the two cannot disagree (the responses are
 * `api-schemas.ts`).
 *
 * Requests are checked here for their shape (types, required fields, no unknown field); what an answer or a
 * decision means (is the label an option of that question, does the edit fit the tool's input schema) is the
 * answer and decision rules' work in `src/answer`, applied by the question's workflow, because only the
 * question knows its options.
 */
import { z } from '@hono/zod-openapi';

import { MAX_CUSTOM_LENGTH } from '../answer/answer-rules';
import { MAX_PAGE_SIZE, QUESTION_INDEX_STATUSES, type QuestionIndexStatus } from '../ops/question-listing';
import { MAX_POLICY_DURATION_MS, SIGNED_DURATION_PATTERN } from '../question/question-policy';
import { decisionTypeSchema } from './api-schemas';

const FROM_LOGIN = 'comes from your login, not from the request body';
/** What a page token is made of: the inbox issues base64url text (`nextPageToken`), and reads nothing else. */
const PAGE_TOKEN_PATTERN = /^[A-Za-z0-9_-]*$/;
const PAGE_SIZE_REASON = `must be an integer from 1 to ${MAX_PAGE_SIZE}`;

/**
 * The length bound of a free text: documented, not checked here. The answer and decision rules check it,
 * counting characters (code points) as JSON Schema's `maxLength` does, where zod's `.max()` counts UTF-16 units
 * and would refuse 10,000 emoji that the rules take.
 */
const FREE_TEXT_LENGTH = { maxLength: MAX_CUSTOM_LENGTH };

export const listQuerySchema = z.strictObject({
  status: z
    .enum(QUESTION_INDEX_STATUSES as [QuestionIndexStatus, ...QuestionIndexStatus[]], {
      error: `must be one of ${QUESTION_INDEX_STATUSES.join(', ')}`,
    })
    .optional()
    .openapi({ description: 'Default `pending`; `all` lists pending questions first.' }),
  assigned: z
    .literal('me', { error: 'must be "me" (the questions assigned to you)' })
    .optional()
    .openapi({ description: 'Only the questions of `status` assigned to you.' }),
  pageSize: z.coerce
    .number({ error: PAGE_SIZE_REASON })
    .int({ error: PAGE_SIZE_REASON })
    .min(1, { error: PAGE_SIZE_REASON })
    .max(MAX_PAGE_SIZE, { error: PAGE_SIZE_REASON })
    .optional()
    .openapi({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, description: 'Default 50.' }),
  pageToken: z
    .string()
    .regex(PAGE_TOKEN_PATTERN, { error: 'must be the nextPageToken of a page (base64url)' })
    .optional()
    .openapi({
      description:
        'Opaque: the `nextPageToken` of the previous page of the same list (the same `status` and `assigned`), passed back unchanged; empty or absent for the first page. A token that names no page of this list (one this inbox did not issue, or one of another list) is 404 `NOT_FOUND`.',
    }),
});

export const questionIdSchema = z.strictObject({
  id: z.string().min(1).openapi({
    description: 'The workflow id, URL-encoded (`ask-user-question%2Fagent%2Fcall-1`).',
    example: 'ask-user-question/deploy-bot/call-1',
  }),
});

export const loginBodySchema = z
  .strictObject({
    token: z.string({ error: 'must be a string' }),
    name: z
      .string({ error: 'required' })
      .optional()
      .openapi({ description: 'Who you are; required with the shared token, ignored with a per-user one.' }),
  })
  .openapi('Login');

export const loginResponseSchema = z
  .strictObject({ name: z.string(), groups: z.array(z.string()), csrfToken: z.string() })
  .openapi('LoginResult');

export const answerBodySchema = z
  .strictObject({
    answers: z
      .array(
        z.strictObject({
          id: z.string(),
          selected: z.array(z.string()).optional(),
          custom: z.string().optional().openapi(FREE_TEXT_LENGTH),
        }),
      )
      .min(1),
  })
  .openapi('AnswerRequest', {
    description: `One answer per question. Who answered comes from your login (\`answeredBy\` ${FROM_LOGIN}).`,
  });

export const declineBodySchema = z
  .strictObject({ reason: z.string({ error: 'must be a string' }).optional() })
  .openapi('DeclineRequest');

export const decideBodySchema = z
  .strictObject({
    type: decisionTypeSchema,
    input: z.unknown().optional().openapi({ description: '`edit` only: the input the tool runs with.' }),
    reason: z
      .string()
      .optional()
      .openapi({ ...FREE_TEXT_LENGTH, description: '`reject` only, optional.' }),
    text: z
      .string()
      .optional()
      .openapi({ ...FREE_TEXT_LENGTH, description: '`respond` only.' }),
    stop: z.boolean().optional().openapi({ description: "`reject` only: also stop the agent's run." }),
  })
  .openapi('DecideRequest', {
    description:
      'A field the type does not carry, a blank `text` or an edit that breaks the tool input schema is refused by the decision rules (400 `BAD_ANSWER` with `rule`).',
  });

const BY_REASON = 'must be a duration such as 2h or -30m';

export const extendBodySchema = z
  .strictObject({
    by: z
      .union(
        [
          z.string().regex(new RegExp(SIGNED_DURATION_PATTERN), { error: BY_REASON }),
          // The bound is documented; the deadline rules check it, for text and numbers alike.
          z.number().int().openapi({ minimum: -MAX_POLICY_DURATION_MS, maximum: MAX_POLICY_DURATION_MS }),
        ],
        { error: BY_REASON },
      )
      .openapi({
        description:
          'A duration such as `2h`, `1h30m` or `-30m` (amounts with units `d`, `h`, `m`, `s`, `ms`, as the pattern says), or milliseconds; negative moves the deadline earlier. At most 365 days either way, never zero, never before the question was asked: the question refuses other moves (400 `INVALID_ARGS`).',
        example: '2h',
      }),
  })
  .openapi('ExtendRequest');

/** The fields of a body that only a login may set: refused by name, before the shape is checked. */
export const LOGIN_SET_FIELDS = {
  answer: 'answeredBy',
  decline: 'declinedBy',
  decide: 'decidedBy',
  extend: 'extendedBy',
} as const;

/** The message of a body field that only a login may set. */
export function fromLoginMessage(field: string): string {
  return `${field}: ${FROM_LOGIN}`;
}
