/**
 * Decisions on many questions in one action: select pending approvals and questions (by tool, by agent, or those
 * asking the same questions as one), then approve, deny or answer each. Every item goes through
 * `QuestionClient`'s own `decide`, `decline` or `answer`, so each is recorded at most once by its workflow (an
 * update with its own id, checked by the workflow's validator) and a batch adds no second path to a decision.
 * The result says, per item, whether it was recorded or refused, and why: already resolved (by whom, and when),
 * outside the audience, invalid for that question, or not found.
 */
import { isTwoPersonRefusal } from '../answer/two-person-rule';
import { definedFields, errorText } from '../common';
import { QuestionOperationError } from '../interaction/question-operation-error';
import { questionsFingerprint } from '../question/questions-fingerprint';
import type { AskUserQuestionAnswerItem, QuestionOutcome, QuestionRecord, QuestionStatus } from '../types';
import { toWorkflowId, type QuestionClient, type QuestionSummary } from './question-client';
import { MAX_PAGE_SIZE } from './question-listing';

/** What a batch does to each item: an approval is approved or denied; a question is answered, or declined by deny. */
export const BATCH_ACTIONS = ['approve', 'deny', 'answer'] as const;
export type BatchAction = (typeof BATCH_ACTIONS)[number];

/** Which pending questions a batch takes; every field given must match. */
export interface BatchFilter {
  /** Only approvals, or only questions. */
  kind?: 'approval' | 'question';
  /** Only approvals of this tool. */
  toolName?: string;
  /** Only those asked by this agent. */
  agentId?: string;
  /** Only questions asking the same as this one (its id): the same questions, ids and options. */
  sameAs?: string;
}

/** One batch: what to do, with what (`answers` to answer, an optional `reason` to deny), as whom. */
export interface BatchRequest {
  action: BatchAction;
  answers?: AskUserQuestionAnswerItem[];
  reason?: string;
  by: { name?: string | undefined; groups?: string[] | undefined };
}

/**
 * Why an item was not recorded; `separation-of-duties` is the two-person rule's: the requester deciding their
 * own call, or someone approving a call twice.
 */
export type BatchRefusal =
  'already-resolved' | 'audience' | 'separation-of-duties' | 'invalid' | 'not-found' | 'failed';

/** The result of one item. */
export type BatchItemResult =
  | {
      workflowId: string;
      recorded: true;
      status: QuestionStatus;
      /** An answer no worker took yet: recorded for one to validate (see `QuestionClient.answer`). */
      awaitingWorker?: true;
      /**
       * An approval counted toward its `requiredApprovals` and still pending: how many were given, of how
       * many (`recorded: 1 of 2 approvals`). The call runs once the last one is given.
       */
      approvals?: { given: number; required: number };
      /** A deny counted toward the approval's `requiredRejections` and still pending: how many of how many. */
      rejections?: { given: number; required: number };
    }
  | {
      workflowId: string;
      recorded: false;
      refusal: BatchRefusal;
      /** The failure's code (`ALREADY_RESOLVED`, `FORBIDDEN`, `BAD_ANSWER`, ...). */
      error: string;
      message: string;
      /** For `already-resolved`: who answered, declined or decided it, when the record names them. */
      resolvedBy?: string;
      resolvedAt?: string;
    };

/** A batch's results, in the order of its items, and how many of each. */
export interface BatchResult {
  results: BatchItemResult[];
  recorded: number;
  refused: number;
}

/** The most items one batch takes: as many as one page of the list. */
export const MAX_BATCH_ITEMS = MAX_PAGE_SIZE;

/** How many items of a batch are sent at once: enough to decide 1,000 in seconds, few enough not to flood. */
const BATCH_CONCURRENCY = 8;

/** Whether a row matches the filter's fields that a row carries (`sameAs` is checked on the record). */
export function matchesFilter(row: QuestionSummary, filter: BatchFilter): boolean {
  if (filter.kind === 'approval' && row.kind !== 'approval') return false;
  if (filter.kind === 'question' && row.kind === 'approval') return false;
  if (filter.toolName !== undefined && row.toolName !== filter.toolName) return false;
  if (filter.agentId !== undefined && row.agentId !== filter.agentId) return false;
  return true;
}

/**
 * The ids of the pending questions `filter` selects, newest first, at most `limit` (default
 * {@link MAX_BATCH_ITEMS}). `sameAs` reads the record of each candidate of the same title and count, and keeps
 * those whose questions have the same fingerprint.
 *
 * @throws QuestionOperationError `NOT_FOUND` for a `sameAs` that names no question.
 */
export async function selectPending(
  questions: QuestionClient,
  filter: BatchFilter,
  limit = MAX_BATCH_ITEMS,
): Promise<string[]> {
  const model = filter.sameAs === undefined ? undefined : await questions.get(filter.sameAs);
  const fingerprint = model === undefined ? undefined : questionsFingerprint(model.questions);
  const selected: string[] = [];
  let pageToken: string | undefined;
  do {
    const page = await questions.listPage(
      definedFields({ status: 'pending' as const, pageSize: MAX_PAGE_SIZE, pageToken }),
    );
    for (const row of page.questions) {
      if (selected.length >= limit) return selected;
      if (!matchesFilter(row, filter)) continue;
      if (fingerprint !== undefined && !(await sameQuestions(questions, row, model!, fingerprint))) continue;
      selected.push(row.workflowId);
    }
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined && selected.length < limit);
  return selected;
}

/** Whether `row` asks what `model` asks: the title and count first (free), then its record's fingerprint. */
async function sameQuestions(
  questions: QuestionClient,
  row: QuestionSummary,
  model: QuestionRecord,
  fingerprint: string,
): Promise<boolean> {
  if (row.kind === 'approval' || model.approval !== undefined) return false;
  if (row.questionCount !== model.questions.length) return false;
  try {
    return questionsFingerprint((await questions.get(row.workflowId)).questions) === fingerprint;
  } catch {
    // Gone meanwhile: not one of the same.
    return false;
  }
}

/** What a refusal's code (and, for `FORBIDDEN`, its message) means for the person who sent the batch. */
function refusalOf(code: string | undefined, message: string): BatchRefusal {
  switch (code) {
    case 'ALREADY_RESOLVED':
      return 'already-resolved';
    case 'FORBIDDEN':
      return isTwoPersonRefusal(message) ? 'separation-of-duties' : 'audience';
    case 'BAD_ANSWER':
    case 'INVALID_ARGS':
    case 'BAD_REQUEST':
      return 'invalid';
    case 'NOT_FOUND':
      return 'not-found';
    default:
      return 'failed';
  }
}

/** Who resolved a closed record, and when. */
function resolverOf(record: QuestionRecord | undefined): { resolvedBy?: string; resolvedAt?: string } {
  if (record === undefined) return {};
  return definedFields({
    resolvedBy: record.answeredBy ?? record.declinedBy ?? record.decision?.decidedBy,
    resolvedAt: record.resolvedAt,
  });
}

/**
 * An item refused: its reason, and for one already resolved the winner, from the error's record or, when the
 * refusal came from the workflow's validator (a race lost by milliseconds), from a read of the record.
 */
async function refused(
  questions: QuestionClient,
  workflowId: string,
  error: unknown,
): Promise<BatchItemResult> {
  const code = QuestionOperationError.isInstance(error) ? error.code : undefined;
  const refusal = refusalOf(code, errorText(error));
  let winner = QuestionOperationError.isInstance(error) ? error.record : undefined;
  if (refusal === 'already-resolved' && winner === undefined) {
    winner = await questions.get(workflowId).catch(() => undefined);
  }
  return {
    workflowId,
    recorded: false,
    refusal,
    error: code ?? 'INTERNAL',
    message: errorText(error),
    ...(refusal === 'already-resolved' ? resolverOf(winner) : {}),
  };
}

/** Sends the batch's change to one item through the ops client. */
async function change(
  questions: QuestionClient,
  id: string,
  request: BatchRequest,
): Promise<QuestionOutcome> {
  const { name, groups } = request.by;
  const who = definedFields({ groups: groups !== undefined && groups.length > 0 ? groups : undefined });
  switch (request.action) {
    case 'approve':
      return await questions.decide(id, { type: 'approve', ...definedFields({ decidedBy: name }), ...who });
    case 'deny': {
      // A deny is an approval's rejection, and a question's decline: one action over a mixed selection.
      const record = await questions.get(id);
      if (record.status !== 'pending' || record.approval !== undefined) {
        const reason = definedFields({ reason: request.reason, decidedBy: name });
        return await questions.decide(id, { type: 'reject', ...reason, ...who });
      }
      return await questions.decline(id, definedFields({ reason: request.reason, declinedBy: name, ...who }));
    }
    case 'answer':
      return await questions.answer(id, {
        answers: request.answers ?? [],
        ...definedFields({ answeredBy: name }),
        ...who,
      });
  }
}

/** For an approval still pending after a decision was counted: how many approvals and rejections, of how many. */
function partialApproval(outcome: QuestionOutcome): {
  approvals?: { given: number; required: number };
  rejections?: { given: number; required: number };
} {
  const { status, approvals, requiredApprovals, rejections, requiredRejections } = outcome;
  if (status !== 'pending') return {};
  const count = (given: unknown[] | undefined, required: number | undefined) =>
    given === undefined || required === undefined ? undefined : { given: given.length, required };
  return definedFields({
    approvals: count(approvals, requiredApprovals),
    rejections: count(rejections, requiredRejections),
  });
}

/** Checks what a batch needs before anything is sent. */
function checkRequest(ids: readonly string[], request: BatchRequest): void {
  const problems: string[] = [];
  if (ids.length > MAX_BATCH_ITEMS)
    problems.push(`ids: at most ${MAX_BATCH_ITEMS} in one batch (got ${ids.length})`);
  if (request.action === 'answer' && (request.answers?.length ?? 0) === 0) {
    problems.push('answers: an answer batch needs the answers to give');
  }
  if (request.action !== 'answer' && request.answers !== undefined) {
    problems.push(`answers: only an answer batch carries answers (action is ${request.action})`);
  }
  if (request.action !== 'deny' && request.reason !== undefined) {
    problems.push(`reason: only a deny carries a reason (action is ${request.action})`);
  }
  if (problems.length > 0) throw QuestionOperationError.invalidArgs(problems);
}

/**
 * Runs `request` on each of `ids`, a few at a time, each through `QuestionClient`: recorded once, or refused with
 * the reason. One item's refusal never stops the others; a question named twice is sent once.
 *
 * @throws QuestionOperationError `INVALID_ARGS` for too many ids, or fields the action does not take; nothing is
 *   sent then.
 */
export async function runBatch(
  questions: QuestionClient,
  named: readonly string[],
  request: BatchRequest,
): Promise<BatchResult> {
  const ids = [...new Set(named.map(toWorkflowId))];
  checkRequest(ids, request);
  const results: BatchItemResult[] = [];
  let next = 0;
  const work = async (): Promise<void> => {
    while (next < ids.length) {
      const index = next++;
      const workflowId = ids[index]!;
      try {
        const outcome = await change(questions, workflowId, request);
        results[index] = {
          workflowId,
          recorded: true,
          status: outcome.status,
          ...(outcome.awaitingWorker === undefined ? {} : { awaitingWorker: true as const }),
          ...partialApproval(outcome),
        };
      } catch (error) {
        results[index] = await refused(questions, workflowId, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, ids.length) }, work));
  const recorded = results.filter((result) => result.recorded).length;
  return { results, recorded, refused: results.length - recorded };
}
