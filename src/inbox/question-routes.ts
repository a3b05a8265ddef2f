/**
 * The question routes of the API: list (with counts, and the questions assigned to the caller), read, answer,
 * decide, decline and extend. Who answered, declined, decided or extended is the login's, never the body's.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { DecisionEffect } from '../answer/decision-effect';
import { definedFields, errorText } from '../common';
import { toWorkflowId } from '../ops/question-client';
import { isAssignedTo } from '../ops/question-listing';
import type { QuestionSummary } from '../ops/question-rows';
import type { AskUserQuestionAnswerItem, DecideInput, QuestionOutcome } from '../types';
import {
  answerQuestionRoute,
  decideApprovalRoute,
  declineQuestionRoute,
  extendDeadlineRoute,
  getQuestionRoute,
  listQuestionsRoute,
} from './api-routes';
import { LOGIN_SET_FIELDS } from './api-request-schemas';
import { codeOf, errorResponse, ruleOf } from './error-response';
import { inboxHono, type Identity, type InboxHono } from './inbox-hono';
import { withJsonBody } from './json-body';
import { effectOf, type QuestionIndex } from './question-index';

/**
 * A row or record as this caller sees it: `assignedToYou` when its audience names them or one of their groups
 * (the page's "assigned to you"). A question without an audience is anyone's, and assigned to no one.
 */
export function withAssignment<T extends Pick<QuestionSummary, 'audience'>>(
  question: T,
  identity: Identity,
): T & { assignedToYou?: true } {
  return isAssignedTo(question, identity) ? { ...question, assignedToYou: true } : question;
}

/**
 * A record or outcome with what the agent receives for its decision, once an approval is decided: the inbox
 * says what a decision became where a hook turns it into something else (an edit into a denial).
 */
function withEffect<T extends Pick<QuestionOutcome, 'approval' | 'decision'>>(
  record: T,
): T & { effect?: DecisionEffect } {
  return { ...record, ...definedFields({ effect: effectOf(record) }) };
}

/**
 * An answer sent to an approval: the workflow's refusal names its `decide` update, which is how the Temporal
 * CLI decides; over HTTP the route to use is named instead.
 */
function answeredApproval(c: Context, error: unknown, id: string) {
  const decideRoute = `POST /api/questions/${encodeURIComponent(toWorkflowId(id))}/decide`;
  const message = errorText(error);
  const named = message.includes('(update decide)')
    ? message.replace('(update decide)', `(${decideRoute})`)
    : `${message} (${decideRoute})`;
  return c.json({ error: 'BAD_ANSWER', message: named, rule: 'approval' }, 400);
}

/** `GET /api/questions` and `GET /api/questions/{id}`. */
function readRoutes(routes: InboxHono, index: QuestionIndex): void {
  routes.openapi(listQuestionsRoute, async (c) => {
    const { status, assigned, pageSize, pageToken } = c.req.valid('query');
    const identity = c.get('identity');
    try {
      const [page, counts] = await Promise.all([
        index.list(
          definedFields({
            status,
            pageSize,
            pageToken,
            assignedTo: assigned === 'me' ? identity : undefined,
            withResolver: status !== undefined && status !== 'pending',
          }),
        ),
        index.counts(),
      ]);
      const questions = page.questions.map((question) => withAssignment(question, identity));
      return c.json({ ...page, questions, counts }, 200);
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  routes.openapi(getQuestionRoute, async (c) => {
    try {
      const record = withEffect(await index.get(c.req.valid('param').id));
      return c.json(withAssignment(record, c.get('identity')), 200);
    } catch (error) {
      return errorResponse(c, error);
    }
  });
}

/**
 * The response to a change of question `id`: its outcome with the workflow id (and an approval's decision
 * effect) (200), or the failure's status with its code and message (and rule). A change the question's own
 * rules refuse (`BAD_ANSWER`: an answer or a decision that breaks them; `INVALID_ARGS`: a deadline move out of
 * bounds, a decision on a question) is 400, an invalid request, although its body fits the document: only the
 * question knows its options and bounds. 409 is for a question already resolved.
 */
async function changeResponse<T extends Pick<QuestionOutcome, 'approval' | 'decision'>>(
  c: Context,
  id: string,
  change: () => Promise<T>,
) {
  try {
    return c.json({ workflowId: toWorkflowId(id), ...withEffect(await change()) }, 200);
  } catch (error) {
    return errorResponse(c, error);
  }
}

/** `POST /api/questions/{id}/answer`, `.../decide`, `.../decline` and `.../extend`, as the caller's login. */
function changeRoutes(routes: InboxHono, index: QuestionIndex, cap: MiddlewareHandler): void {
  routes.openapi(withJsonBody(answerQuestionRoute, cap, LOGIN_SET_FIELDS.answer), async (c) => {
    const { id } = c.req.valid('param');
    // The shape is the schema's; whether it fits the question is the workflow validator's (400, nothing
    // recorded). A missing `selected` is read as none, as the answer rules do.
    const answers: AskUserQuestionAnswerItem[] = c.req
      .valid('json')
      .answers.map((item) => definedFields({ ...item, selected: item.selected ?? [] }));
    try {
      const outcome = await index.answer(id, answers, c.get('identity'));
      const body = { workflowId: toWorkflowId(id), ...outcome };
      // Recorded for a worker to validate later (none runs the question now): accepted, not yet taken.
      return outcome.awaitingWorker === undefined ? c.json(body, 200) : c.json(body, 202);
    } catch (error) {
      // An approval is answered by deciding it: the refusal names the route that does.
      return codeOf(error) === 'BAD_ANSWER' && ruleOf(error) === 'approval'
        ? answeredApproval(c, error, id)
        : errorResponse(c, error);
    }
  });

  routes.openapi(withJsonBody(decideApprovalRoute, cap, LOGIN_SET_FIELDS.decide), (c) => {
    const { id } = c.req.valid('param');
    // The decision rules refuse a field the type does not carry, a blank text and an edit that breaks the
    // tool's input schema (naming the path), before anything is recorded.
    const decision: Omit<DecideInput, 'decidedBy'> = definedFields(c.req.valid('json'));
    return changeResponse(c, id, async () => ({
      kind: 'approval' as const,
      ...(await index.decide(id, decision, c.get('identity'))),
    }));
  });

  routes.openapi(withJsonBody(declineQuestionRoute, cap, LOGIN_SET_FIELDS.decline), (c) => {
    const { id } = c.req.valid('param');
    const { reason } = c.req.valid('json');
    return changeResponse(c, id, () => index.decline(id, c.get('identity'), reason));
  });

  routes.openapi(withJsonBody(extendDeadlineRoute, cap, LOGIN_SET_FIELDS.extend), (c) => {
    const { id } = c.req.valid('param');
    const { by } = c.req.valid('json');
    return changeResponse(c, id, () => index.questions.extendDeadline(id, by, c.get('identity').name));
  });
}

/** Every question route, over `index`, with `cap` on their bodies. */
export function questionRoutes(index: QuestionIndex, cap: MiddlewareHandler): InboxHono {
  const routes = inboxHono();
  readRoutes(routes, index);
  changeRoutes(routes, index, cap);
  return routes;
}
