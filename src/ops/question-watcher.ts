/**
 * `QuestionWatcher`: reports questions becoming pending and being resolved, from Temporal's visibility alone (no
 * worker needed). `ask-user watch` prints what it reports; the inbox streams it to the page.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { allPendingQuestions } from './question-listing';
import { questionSummaryOf, visibilityPages, type QuestionSummary } from './question-rows';

/** What the watcher reports. */
export interface QuestionEvent {
  type: 'question.pending' | 'question.resolved';
  question: QuestionSummary;
}

/** A listener's handle on the watcher. */
export interface QuestionSubscription {
  /**
   * Resolves once the watcher knows which questions were pending when the listener joined: from then on, every
   * question that becomes pending is reported. Rejects when that first look at visibility failed.
   */
  ready: Promise<void>;
  /** Stops reporting to this listener; the watcher stops when no listener is left. */
  close(): void;
}

/** Options of {@link QuestionWatcher}. */
export interface QuestionWatcherOptions {
  /** How often visibility is polled. Default 2 s. */
  pollIntervalMs?: number;
  /** Called when a poll fails; the watcher keeps polling. Default: ignored. */
  onPollError?: (error: unknown) => void;
}

/** One run of the watcher: what it knows to be pending, and its timer. */
interface WatchRun {
  known: Map<string, QuestionSummary>;
  stopped: boolean;
  ready: Promise<void>;
  timer?: NodeJS.Timeout | undefined;
}

/**
 * Polls the pending questions and compares each poll with the one before: a new id is a question that became
 * pending, a missing one is a question that was resolved (its status is read with `describe()`). The first poll
 * only takes stock. One watcher polls for all of its listeners, and only while at least one is subscribed; each
 * poll costs one visibility page per 1000 pending questions.
 *
 * @example
 * const watcher = new QuestionWatcher(client, { pollIntervalMs: 1000 });
 * const subscription = watcher.subscribe((event) => console.log(event.type, event.question.workflowId));
 * await subscription.ready; // new questions are reported from here on
 * subscription.close();
 */
export class QuestionWatcher {
  private readonly listeners = new Set<(event: QuestionEvent) => void>();
  /** The current run: a new one starts when the first listener joins after the last one left. */
  private run: WatchRun | undefined;
  private readonly intervalMs: number;
  private readonly onPollError: ((error: unknown) => void) | undefined;

  constructor(
    private readonly client: Client,
    options: QuestionWatcherOptions = {},
  ) {
    this.intervalMs = options.pollIntervalMs ?? 2_000;
    this.onPollError = options.onPollError;
  }

  /** Reports every question that becomes pending or is resolved to `listener`, until `close()`. */
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

  private async allPending(): Promise<QuestionSummary[]> {
    return await allPendingQuestions(visibilityPages(this.client));
  }

  /** The current summary of one question, or `undefined` when it no longer exists. */
  private async describe(workflowId: string): Promise<QuestionSummary | undefined> {
    try {
      return questionSummaryOf(await this.client.workflow.getHandle(workflowId).describe());
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  }

  private start(): WatchRun {
    const run: WatchRun = { known: new Map(), stopped: false, ready: Promise.resolve() };
    run.ready = this.allPending().then((pending) => {
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
      pending = await this.allPending();
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
      if (!(await this.reportResolved(run, workflowId, summary))) return;
    }
  }

  /**
   * Reports a question that left the pending list once `describe()` confirms it is no longer pending. False when
   * the run stopped meanwhile.
   */
  private async reportResolved(
    run: WatchRun,
    workflowId: string,
    summary: QuestionSummary,
  ): Promise<boolean> {
    let current: QuestionSummary | undefined;
    try {
      current = await this.describe(workflowId);
    } catch (error) {
      this.onPollError?.(error);
      return true; // asked again at the next poll
    }
    if (run.stopped) return false;
    // Visibility can briefly miss a row that is still running: keep it and look again next time.
    if (current?.status === 'pending') return true;
    run.known.delete(workflowId);
    this.emit({ type: 'question.resolved', question: current ?? { ...summary, status: 'cancelled' } });
    return true;
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
