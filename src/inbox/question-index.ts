/**
 * `QuestionIndex`: the one view of durable questions that the inbox's HTTP API, its page and `ask-user watch`
 * share. Lists come from Temporal's visibility store and each question's memo, so they work while no worker
 * runs; reading, answering, declining and deciding one question go through `QuestionClient` (the workflow's
 * query and updates, or its history when no worker answers). How a page is listed (queries, page tokens, rows)
 * lives in `ops/question-listing.ts`, the one listing that `ask-user list` and the ops client use too.
 *
 * Approvals of tool calls are listed, read and watched like questions: their rows carry `kind: 'approval'`,
 * the tool's name and, once decided, the decision's type; `decide` records a decision on one.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { inAudience } from '../answer/audience-rules';
import { QuestionOperationError } from '../interaction/question-operation-error';
import { QuestionClient, toWorkflowId, type QuestionSummary } from '../ops/question-client';
import {
  allPendingQuestions,
  questionSummaryOf,
  visibilityPages,
  type QuestionIndexStatus,
} from '../ops/question-listing';
import { ALL_QUESTIONS_QUERY, PENDING_QUESTIONS_QUERY } from '../question/visibility-query';
import type { AskUserQuestionAnswerItem, DecideInput, QuestionOutcome, QuestionRecord } from '../types';

export { QUESTION_INDEX_STATUSES, type QuestionIndexStatus } from '../ops/question-listing';

/** One row of a list: the visibility summary, plus who resolved it when that was asked for. */
export interface IndexedQuestion extends QuestionSummary {
  /** Who answered, declined or decided it; present in lists of resolved questions when known. */
  resolvedBy?: string;
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
  /**
   * Look up who answered or declined each resolved question on the page (one read per question). The memo
   * does not carry it, so this costs a history read each; a history view wants it, a count does not.
   */
  withResolver?: boolean;
}

/**
 * A question with its workflow id: what the detail view shows. An approval also says `kind: 'approval'`, as
 * its row in a list does; its tool call is in `approval` and, once decided, its decision in `decision`.
 */
export type IndexedRecord = QuestionRecord & { workflowId: string; kind?: 'approval' };

/** What the index's watcher reports. */
export interface QuestionEvent {
  type: 'question.pending' | 'question.resolved';
  question: QuestionSummary;
}

/** A listener's handle on the index's watcher. */
export interface QuestionSubscription {
  /**
   * Resolves once the watcher knows which questions were pending when the listener joined: from then on, every
   * question that becomes pending is reported. Rejects when that first look at visibility failed.
   */
  ready: Promise<void>;
  /** Stops reporting to this listener; the watcher stops when no listener is left. */
  close(): void;
}

/** Options of {@link QuestionIndex}. */
export interface QuestionIndexOptions {
  /** The ops client to read, answer and decline through. Default: one over the same client. */
  questions?: QuestionClient;
  /** How often the watcher polls visibility. Default 2 s. */
  pollIntervalMs?: number;
  /** Called when a poll fails; the watcher keeps polling. Default: ignored. */
  onPollError?: (error: unknown) => void;
}

/** Who answers through the inbox: the login's name and the groups it proved. */
export interface Answerer {
  name: string;
  groups?: readonly string[];
}

/** True when the question has an audience and `who` is in it: what "assigned to you" means. */
export function isAssignedTo(question: Pick<QuestionSummary, 'audience'>, who: Answerer): boolean {
  return question.audience !== undefined && inAudience(question.audience, who.name, who.groups);
}

function groupsOf(by: Answerer): { groups?: string[] } {
  return by.groups === undefined || by.groups.length === 0 ? {} : { groups: [...by.groups] };
}

const DEFAULT_ASSIGNED_PAGE_SIZE = 50;
const MAX_ASSIGNED_PAGE_SIZE = 1000;
/** Page tokens of {@link QuestionIndex.listAssigned}: an offset, marked so a listing's token is not taken for one. */
const ASSIGNED_TOKEN_PREFIX = 'assigned:';

function assignedOffset(token: string): number {
  const offset = token.startsWith(ASSIGNED_TOKEN_PREFIX)
    ? Number(token.slice(ASSIGNED_TOKEN_PREFIX.length))
    : NaN;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new QuestionOperationError(
      'BAD_REQUEST',
      'pageToken: not a token of this list (start again without it)',
    );
  }
  return offset;
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
    this.watcher = new QuestionWatcher(this, options.pollIntervalMs ?? 2_000, options.onPollError);
  }

  /**
   * One page of questions, newest first; with `all`, every pending question comes before the resolved ones.
   *
   * @throws QuestionOperationError `BAD_REQUEST` for a page size out of range or a page token this index did
   *   not issue.
   */
  async list(options: QuestionListOptions = {}): Promise<QuestionPage> {
    const { withResolver: _withResolver, ...pageOptions } = options;
    const page = await this.questions.listPage(pageOptions);
    const questions = await this.withResolvers(page.questions, options.withResolver === true);
    return page.nextPageToken === undefined
      ? { questions }
      : { questions, nextPageToken: page.nextPageToken };
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
    return await this.questions.decline(id, {
      declinedBy: by.name,
      ...groupsOf(by),
      ...(reason === undefined ? {} : { reason }),
    });
  }

  /**
   * Decides a pending approval through the workflow's `decide` update, as `by` (see `QuestionClient.decide`:
   * an edit is checked against the tool's input schema before anything is sent).
   */
  async decide(id: string, decision: Omit<DecideInput, 'decidedBy'>, by: Answerer): Promise<QuestionOutcome> {
    return await this.questions.decide(id, { ...decision, decidedBy: by.name, ...groupsOf(by) });
  }

  /**
   * One page of the pending questions assigned to `to`: those with an audience that names them or one of
   * their groups, newest first. The audience is in each question's memo, not in a search attribute, so this
   * reads every pending question (one visibility page per 1000) and pages through the matches; the page
   * token is the offset into them.
   *
   * @throws QuestionOperationError `BAD_REQUEST` for a page size out of range or a page token this index did
   *   not issue.
   */
  async listAssigned(
    to: Answerer,
    options: Pick<QuestionListOptions, 'pageSize' | 'pageToken'> = {},
  ): Promise<QuestionPage> {
    const pageSize = options.pageSize ?? DEFAULT_ASSIGNED_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_ASSIGNED_PAGE_SIZE) {
      throw new QuestionOperationError(
        'BAD_REQUEST',
        `pageSize: must be an integer from 1 to ${MAX_ASSIGNED_PAGE_SIZE}`,
      );
    }
    const offset = options.pageToken === undefined ? 0 : assignedOffset(options.pageToken);
    const assigned = (await this.allPending())
      .filter((question) => isAssignedTo(question, to))
      .sort((a, b) => b.askedAt.localeCompare(a.askedAt));
    const questions = assigned.slice(offset, offset + pageSize);
    const next = offset + questions.length;
    return next < assigned.length
      ? { questions, nextPageToken: `${ASSIGNED_TOKEN_PREFIX}${next}` }
      : { questions };
  }

  /**
   * Reports questions becoming pending and being resolved. One watcher polls visibility for every listener of
   * this index; it runs while at least one listener is subscribed.
   */
  subscribe(listener: (event: QuestionEvent) => void): QuestionSubscription {
    return this.watcher.subscribe(listener);
  }

  /** Every pending question, in pages of 1000: what the watcher compares from one poll to the next. */
  async allPending(): Promise<QuestionSummary[]> {
    return await allPendingQuestions(visibilityPages(this.client));
  }

  /** The current summary of one question from `describe()`, or `undefined` when it no longer exists. */
  async describe(workflowId: string): Promise<QuestionSummary | undefined> {
    try {
      const description = await this.client.workflow.getHandle(workflowId).describe();
      return questionSummaryOf(description);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
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
        } catch {
          // A question deleted meanwhile, or a read that failed: the row is still shown, without a name.
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(RESOLVER_CONCURRENCY, resolved.length) }, work));
    return summaries;
  }
}

/**
 * Polls the pending questions and compares each poll with the one before: a new id is a question that became
 * pending, a missing one is a question that was resolved (its status is read with `describe()`). The first poll
 * only takes stock. Costs one visibility page per 1000 pending questions per poll.
 */
class QuestionWatcher {
  private readonly listeners = new Set<(event: QuestionEvent) => void>();
  /** The current run: a new one starts when the first listener joins after the last one left. */
  private run: WatchRun | undefined;

  constructor(
    private readonly index: QuestionIndex,
    private readonly intervalMs: number,
    private readonly onPollError: ((error: unknown) => void) | undefined,
  ) {}

  subscribe(listener: (event: QuestionEvent) => void): QuestionSubscription {
    this.listeners.add(listener);
    this.run ??= this.start();
    const ready = this.run.ready;
    // A listener that never awaits `ready` must not see an unhandled rejection.
    ready.catch(() => undefined);
    return {
      ready,
      close: () => {
        this.listeners.delete(listener);
        if (this.listeners.size === 0) this.stop();
      },
    };
  }

  private start(): WatchRun {
    const run: WatchRun = { known: new Map(), stopped: false, ready: Promise.resolve() };
    run.ready = this.index.allPending().then((pending) => {
      for (const summary of pending) run.known.set(summary.workflowId, summary);
      this.schedule(run);
    });
    run.ready.catch(() => {
      // Nobody can be told about new questions without a first look: end this run, so the next subscriber
      // starts over. The subscribers learn why from `ready`.
      if (this.run === run) this.run = undefined;
      run.stopped = true;
    });
    return run;
  }

  private stop(): void {
    const run = this.run;
    if (run === undefined) return;
    this.run = undefined;
    run.stopped = true;
    if (run.timer !== undefined) clearTimeout(run.timer);
  }

  private schedule(run: WatchRun): void {
    if (run.stopped) return;
    run.timer = setTimeout(() => {
      run.timer = undefined;
      void this.poll(run).finally(() => this.schedule(run));
    }, this.intervalMs);
  }

  private async poll(run: WatchRun): Promise<void> {
    let pending: QuestionSummary[];
    try {
      pending = await this.index.allPending();
    } catch (error) {
      this.onPollError?.(error);
      return;
    }
    if (run.stopped) return;
    const seen = new Set<string>();
    for (const summary of pending) {
      seen.add(summary.workflowId);
      if (!run.known.has(summary.workflowId)) {
        run.known.set(summary.workflowId, summary);
        this.emit({ type: 'question.pending', question: summary });
      }
    }
    for (const [workflowId, summary] of [...run.known]) {
      if (seen.has(workflowId)) continue;
      let current: QuestionSummary | undefined;
      try {
        current = await this.index.describe(workflowId);
      } catch (error) {
        this.onPollError?.(error);
        continue; // asked again at the next poll
      }
      if (run.stopped) return;
      // Visibility can briefly miss a row that is still running: keep it and look again next time.
      if (current?.status === 'pending') continue;
      run.known.delete(workflowId);
      this.emit({
        type: 'question.resolved',
        question: current ?? { ...summary, status: 'cancelled' },
      });
    }
  }

  private emit(event: QuestionEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.onPollError?.(error);
      }
    }
  }
}

/** One run of the watcher: what it knows to be pending, and its timer. */
interface WatchRun {
  known: Map<string, QuestionSummary>;
  stopped: boolean;
  ready: Promise<void>;
  timer?: NodeJS.Timeout | undefined;
}
