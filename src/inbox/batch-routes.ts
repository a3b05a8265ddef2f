/**
 * `POST /api/batch` (one action on many pending questions, as the caller's login) and `GET /api/audit` (the
 * audit export, streamed). Both are thin over the ops layer: `runBatch` and `selectPending`
 * (ops/batch-decisions.ts), `auditLines` (ops/audit-export.ts).
 */
import type { MiddlewareHandler } from 'hono';
import { stream } from 'hono/streaming';
import { definedFields, errorText } from '../common';
import { auditLines } from '../ops/audit-export';
import { auditHeader, auditText, type AuditFormat } from '../ops/audit-format';
import { runBatch, selectPending, type BatchRequest } from '../ops/batch-decisions';
import { MAX_CUSTOM_LENGTH } from '../answer/answer-rules';
import { auditExportRoute, batchRoute } from './api-routes';
import { LOGIN_SET_FIELDS } from './api-request-schemas';
import { dateTimeOf } from './batch-schemas';
import { errorResponse } from './error-response';
import { failure, inboxHono, type InboxHono } from './inbox-hono';
import { withJsonBody } from './json-body';
import type { QuestionIndex } from './question-index';

const MEDIA_TYPES: Record<AuditFormat, string> = {
  jsonl: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

/** The batch and audit routes over `index`, with `cap` on the batch's body. */
export function batchRoutes(index: QuestionIndex, cap: MiddlewareHandler): InboxHono {
  const routes = inboxHono();
  // Who acts is the login's: a body naming `decidedBy` is refused by name, as on the single routes.
  routes.openapi(withJsonBody(batchRoute, cap, LOGIN_SET_FIELDS.decide), async (c) => {
    const body = c.req.valid('json');
    const identity = c.get('identity');
    // The document's bound on a free text, checked here for the whole batch: one answer over it is a request
    // that breaks the document, where on the single route the answer rules refuse it (409).
    const long =
      body.action === 'answer'
        ? body.answers.findIndex((item) => [...(item.custom ?? '')].length > MAX_CUSTOM_LENGTH)
        : -1;
    if (long !== -1) {
      return failure(
        c,
        400,
        'BAD_REQUEST',
        `answers.${long}.custom: at most ${MAX_CUSTOM_LENGTH} characters`,
      );
    }
    try {
      const ids =
        'ids' in body.select
          ? body.select.ids
          : await selectPending(index.questions, definedFields(body.select.filter));
      const request: BatchRequest = definedFields({
        action: body.action,
        answers:
          body.action === 'answer'
            ? body.answers.map((item) => definedFields({ ...item, selected: item.selected ?? [] }))
            : undefined,
        reason: body.action === 'deny' ? body.reason : undefined,
        by: { name: identity.name, groups: [...identity.groups] },
      });
      return c.json(await runBatch(index.questions, ids, request), 200);
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  routes.openapi(auditExportRoute, (c) => {
    const { since, format = 'jsonl' } = c.req.valid('query');
    c.header('content-type', MEDIA_TYPES[format]);
    return stream(c, async (out) => {
      await out.write(auditHeader(format));
      try {
        for await (const line of auditLines(index.questions.client, { since: dateTimeOf(since)! })) {
          if (out.aborted) return;
          await out.write(auditText(line, format));
        }
      } catch (error) {
        // The status is sent already: the export ends with a line that says why, which no request line resembles.
        await out.write(
          format === 'csv'
            ? `# export failed: ${errorText(error)}\r\n`
            : `${JSON.stringify({ error: errorText(error) })}\n`,
        );
      }
    });
  });
  return routes;
}
