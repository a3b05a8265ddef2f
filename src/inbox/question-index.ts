/**
 * `QuestionIndex`: the view of durable questions that the inbox's HTTP API and its page share. Lists come from
 * Temporal's visibility store and each question's memo, so they work while no worker runs; reading, answering,
 * declining and deciding one question go through `QuestionClient` (the workflow's query and updates, or its
 * history when no worker answers). How a page is listed (queries, page tokens, rows, the assigned list) lives in
 * `ops/question-listing.ts`, and the events of the live page come from `ops/question-watcher.ts`.
 *
 * Approvals of tool calls are listed, read and watched like questions: their rows carry `kind: 'approval'`,
 * the tool's name and, once decided, the decision's type; `decide` records a decision on one.
 */
import type { Client } from '@temporalio/client';
import { decisionEffect, type DecisionEffect } from '../answer/decision-effect';
import { definedFields } from '../common';
import { QuestionClient, toWorkflowId, type QuestionSummary } from '../ops/question-client';
import type { Answerer, QuestionIndexStatus } from '../ops/question-listing';
import { QuestionWatcher, type QuestionEvent, type QuestionSubscription } from '../ops/question-watcher';
import { ALL_QUESTIONS_QUERY, PENDING_QUESTIONS_QUERY } from '../question/visibility-query';
import type { AskUserQuestionAnswerItem, DecideInput, QuestionOutcome, QuestionRecord } from '../types';

/** One row of a list: the visibility summary, plus who resolved it when that was asked for. */
export interface IndexedQuestion extends QuestionSummary {
  /** Who answered, declined or decided it; present in lists of resolved questions when known. */
  resolvedBy?: string;
  /** What the agent received for a decided approval; present with `resolvedBy`. */
  effect?: DecisionEffect;
}

/** How many questions there are, from visibility counts. */
export interface QuestionCounts {
  pending: number;
  /** Answered, declined, expired or cancelled. */
  resolved: number;
  total: number;
}

/** One page of a list. */
export interface QuestionPage {
  questions: IndexedQuestion[];
  /** Opaque; pass it back to get the next page. Absent on the last page. */
  nextPageToken?: string;
}

/** Options of {@link QuestionIndex.list}. */
export interface QuestionListOptions {
  status?: QuestionIndexStatus;
  /** 1–1000; default 50. */
  pageSize?: number;
  pageToken?: string;
  /** Only the pending questions assigned to this answerer: their audience names them or one of their groups. */
  assignedTo?: Answerer;
  /**
   * Look up who answered or declined each resolved question on the page (one read per question). The memo
   * does not carry it, so this costs a history read each; a history view wants it, a count does not.
   */
  withResolver?: boolean;
}

/**
 * What the agent receives for a decided approval's decision (see `decisionEffect`); `undefined` for a question
 * and for an approval not yet decided.
 */
export function effectOf(record: Pick<QuestionOutcome, 'approval' | 'decision'>): DecisionEffect | undefined {
  const { approval, decision } = record;
  return approval && decision ? decisionEffect(approval, decision) : undefined;
}

/**
 * A question with its workflow id: what the detail view shows. An approval also says `kind: 'approval'`, as
 * its row in a list does; its tool call is in `approval` and, once decided, its decision in `decision`.
 */
export type IndexedRecord = QuestionRecord & { workflowId: string; kind?: 'approval' };

/** Options of {@link QuestionIndex}. */
export interface QuestionIndexOptions {
  /** The ops client to read, answer and decline through. Default: one over the same client. */
  questions?: QuestionClient;
  /** How often the watcher polls visibility. Default 2 s. */
  pollIntervalMs?: number;
  /** Called when a poll fails; the watcher keeps polling. Default: ignored. */
  onPollError?: (error: unknown) => void;
}

/** The groups an answer, decline or decision carries: none when the login proved none. */
function groupsOf(by: Answerer): { groups?: string[] } {
  return by.groups === undefined || by.groups.length === 0 ? {} : { groups: [...by.groups] };
}

/** How many history reads `withResolver` runs at once. */
const RESOLVER_CONCURRENCY = 8;

/**
 * Lists, counts, reads, answers, declines and watches durable questions.
 *
 * @example
 * const index = new QuestionIndex(client);
 * const { questions, nextPageToken } = await index.list({ status: 'pending', pageSize: 20 });
 * const subscription = index.subscribe((event) => console.log(event.type, event.question.workflowId));
 * await subscription.ready; // new questions are reported from here on
 */
export class QuestionIndex {
  /** The ops client used for single questions. */
  readonly questions: QuestionClient;
  private readonly watcher: QuestionWatcher;

  constructor(
    private readonly client: Client,
    options: QuestionIndexOptions = {},
  ) {
    this.questions = options.questions ?? new QuestionClient(client);
    this.watcher = new QuestionWatcher(
      client,
      definedFields({ pollIntervalMs: options.pollIntervalMs, onPollError: options.onPollError }),
    );
  }

  /**
   * One page of questions, newest first; with `all`, every pending question comes before the resolved ones;
   * with `assignedTo`, the pending questions assigned to that answerer.
   *
   * @throws QuestionOperationError `BAD_REQUEST` for a page size out of range, `assignedTo` with another status
   *   than pending, or a page token this list did not issue.
   */
  async list(options: QuestionListOptions = {}): Promise<QuestionPage> {
    const { withResolver: _withResolver, ...pageOptions } = options;
    const page = await this.questions.listPage(pageOptions);
    const questions = await this.withResolvers(page.questions, options.withResolver === true);
    return definedFields({ questions, nextPageToken: page.nextPageToken });
  }

  /** How many questions are pending, resolved and in all, from visibility counts. */
  async counts(): Promise<QuestionCounts> {
    const [pending, total] = await Promise.all([
      this.client.workflow.count(PENDING_QUESTIONS_QUERY),
      this.client.workflow.count(ALL_QUESTIONS_QUERY),
    ]);
    return { pending: pending.count, resolved: Math.max(total.count - pending.count, 0), total: total.count };
  }

  /** The full record of one question (see `QuestionClient.get`), with its workflow id. */
  async get(id: string): Promise<IndexedRecord> {
    const record = await this.questions.get(id);
    return record.approval === undefined
      ? { workflowId: toWorkflowId(id), ...record }
      : { workflowId: toWorkflowId(id), kind: 'approval', ...record };
  }

  /** Records an answer through the workflow's `submitAnswer` update, as `by` (its name is `answeredBy`). */
  async answer(id: string, answers: AskUserQuestionAnswerItem[], by: Answerer): Promise<QuestionOutcome> {
    return await this.questions.answer(id, { answers, answeredBy: by.name, ...groupsOf(by) });
  }

  /** Declines a question through the workflow's `decline` update, as `by` (its name is `declinedBy`). */
  async decline(id: string, by: Answerer, reason?: string): Promise<QuestionOutcome> {
    return await this.questions.decline(id, definedFields({ declinedBy: by.name, ...groupsOf(by), reason }));
  }

  /**
   * Decides a pending approval through the workflow's `decide` update, as `by` (see `QuestionClient.decide`:
   * an edit is checked against the tool's input schema before anything is sent).
   */
  async decide(id: string, decision: Omit<DecideInput, 'decidedBy'>, by: Answerer): Promise<QuestionOutcome> {
    return await this.questions.decide(id, { ...decision, decidedBy: by.name, ...groupsOf(by) });
  }

  /**
   * Reports questions becoming pending and being resolved. One watcher polls visibility for every listener of
   * this index; it runs while at least one listener is subscribed.
   */
  subscribe(listener: (event: QuestionEvent) => void): QuestionSubscription {
    return this.watcher.subscribe(listener);
  }

  private async withResolvers(summaries: IndexedQuestion[], wanted: boolean): Promise<IndexedQuestion[]> {
    if (!wanted) return summaries;
    const resolved = summaries.filter(
      (summary) => summary.status === 'answered' || summary.status === 'declined',
    );
    let next = 0;
    const work = async (): Promise<void> => {
      while (next < resolved.length) {
        const summary = resolved[next++]!;
        try {
          const record = await this.questions.get(summary.workflowId);
          const by = record.answeredBy ?? record.declinedBy ?? record.decision?.decidedBy;
          if (by !== undefined) summary.resolvedBy = by;
          const effect = effectOf(record);
          if (effect !== undefined) summary.effect = effect;
        } catch {
          // A question deleted meanwhile, or a read that failed: the row is still shown, without a name.
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(RESOLVER_CONCURRENCY, resolved.length) }, work));
    return summaries;
  }
}
