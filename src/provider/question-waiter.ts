/**
 * `QuestionWaiter`: how one process waits for many questions at once.
 *
 * - Up to `maxLongPolls` questions each hold one long poll for their result (`handle.result()`, never cut
 *   short, so the server's own long-poll interval paces it): an answer reaches the agent at once.
 * - Beyond that, questions wait in a queue that costs the server almost nothing, however many there are:
 *   every `scanIntervalMs`, one visibility query finds the questions that closed since the previous scan (with
 *   {@link RECENT_OVERLAP_MS} of overlap for visibility lag and clock skew), and only the queued ones among them
 *   have their result fetched. A question is looked up by id (one query per `scanBatchSize` ids) once when it is
 *   queued, since it may have closed before, and every queued question again every {@link SWEEP_EVERY_SCANS}
 *   scans: the backstop for a close that the recent query missed. When a long poll ends, the oldest queued
 *   question takes its place.
 * - Outage detection belongs to the connection (`ConnectionHealth`), not to each question: when the server
 *   has been unreachable past the bound, every wait fails with `ASK_UNAVAILABLE` at once; a server that is
 *   merely slow keeps everyone waiting.
 *
 * Memory: a process may hold thousands of waits, so a queued wait is one small record (its workflow id and
 * its promise's resolve and reject) in two sets, with no timer, promise chain or listener of its own; the
 * waiter subscribes to the connection's health once for all of them, and listens to a caller's abort signal
 * only when one is given.
 */
import {
  WorkflowFailedError,
  WorkflowNotFoundError,
  type CallContext,
  type Client,
} from '@temporalio/client';
import { callScopeStorage } from '../connection/call-scope';
import { retryTransient } from '../connection/retry-transient';
import { UserInteractionError } from '../interaction/user-interaction-error';
import type { AskUserQuestionWorkflowResult } from '../types';
import { ASK_USER_QUESTION_WORKFLOW_TYPE } from '../question/definitions';
import { errorFromClosedQuestion } from '../question/question-start';
import type { ConnectionHealth } from './connection-health';
import { isTransient, reasonOf } from '../connection/grpc-failures';

/** Options of `QuestionWaiter`. */
export interface QuestionWaiterOptions {
  /** Questions waited on with their own long poll. Default 100. */
  maxLongPolls?: number;
  /** How often queued questions are looked up in visibility. Default 2 s. */
  scanIntervalMs?: number;
  /** Workflow ids per visibility query. Default 200. */
  scanBatchSize?: number;
}

/** How the scan backs up its recent-closes query; fixed for users, changed only by tests of each path. */
export interface QuestionWaiterTuning {
  /** Default {@link RECENT_OVERLAP_MS}. */
  recentOverlapMs?: number;
  /** Default {@link SWEEP_EVERY_SCANS}. */
  sweepEveryScans?: number;
}

type Result = AskUserQuestionWorkflowResult;

interface Wait {
  workflowId: string;
  resolve(result: Result): void;
  reject(error: unknown): void;
  /** Set while the wait holds a long poll; aborting it ends the poll. */
  poll?: AbortController;
  /** The caller's abort signal and the listener on it, when one was given. */
  signal?: AbortSignal;
  onAbort?: () => void;
  settled: boolean;
}

/**
 * A question's run that closed for good. A run that continued as new is not the question closing (its next run
 * holds it): releasing its wait would only move it to a long poll before its turn, past `maxLongPolls`.
 */
const CLOSED = `ExecutionStatus != 'Running' AND ExecutionStatus != 'ContinuedAsNew'`;

/** A workflow id that can be quoted in a visibility query as it is (question ids are encoded to be). */
const QUOTABLE_ID = /^[^'"\\]*$/;

/**
 * How far before the previous scan's start the next one looks for closed questions. A close reaches visibility
 * some time after it happens, and `CloseTime` is the server's clock while the scan's start is this process's.
 */
export const RECENT_OVERLAP_MS = 30_000;

/** Every this many scans, every queued question is looked up by id (60 s at the default 2 s interval). */
export const SWEEP_EVERY_SCANS = 30;

/**
 * Runs `work` with each gRPC call it makes cancelled when `stop` aborts, through an abort signal of the call's
 * own. Why not `client.withAbortSignal(stop, work)`: the SDK (1.24) adds an abort listener holding the call to
 * the scope's signal for every call and never removes it, and a long poll makes one call per server long-poll
 * interval for as long as its question waits, so `stop` would keep every finished call alive and the process
 * would grow for as long as its questions wait (about 11 KB a call). Here the scope's `abortSignal` is read once
 * per call (the SDK reads it as the call starts), and each read hands out a fresh signal: only the latest call's
 * is kept.
 */
async function withAbortSignalPerCall<T>(
  client: Client,
  stop: AbortSignal,
  work: () => Promise<T>,
): Promise<T> {
  const storage = callScopeStorage(client);
  if (storage === undefined) return await client.withAbortSignal(stop, work);
  let current: AbortController | undefined;
  const abortCurrent = (): void => current?.abort();
  stop.addEventListener('abort', abortCurrent, { once: true });
  const scope: CallContext = {
    ...storage.getStore(),
    get abortSignal(): AbortSignal {
      current = new AbortController();
      if (stop.aborted) current.abort();
      return current.signal;
    },
  };
  try {
    return await storage.run(scope, work);
  } finally {
    stop.removeEventListener('abort', abortCurrent);
  }
}

/** Waits for the results of many questions over one client. */
export class QuestionWaiter {
  private readonly maxLongPolls: number;
  private readonly scanIntervalMs: number;
  private readonly scanBatchSize: number;
  private readonly recentOverlapMs: number;
  private readonly sweepEveryScans: number;
  private readonly waits = new Set<Wait>();
  /** Waits without a long poll, oldest first. */
  private readonly queued = new Set<Wait>();
  /** Queued waits not looked up by id yet: they may have closed before the recent-closes query's horizon. */
  private readonly unchecked = new Set<Wait>();
  /** When the last scan that completed began (this process's clock), the horizon of the next. */
  private lastScanAt: number | undefined;
  private scansSinceSweep = 0;
  private longPolls = 0;
  private scanTimer: NodeJS.Timeout | undefined;
  private scanning = false;
  /** Ends the subscription to the connection's health, held while any wait is pending. */
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly client: Client,
    private readonly health: ConnectionHealth,
    options: QuestionWaiterOptions = {},
    tuning: QuestionWaiterTuning = {},
  ) {
    this.recentOverlapMs = tuning.recentOverlapMs ?? RECENT_OVERLAP_MS;
    this.sweepEveryScans = tuning.sweepEveryScans ?? SWEEP_EVERY_SCANS;
    this.maxLongPolls = options.maxLongPolls ?? 100;
    this.scanIntervalMs = options.scanIntervalMs ?? 2_000;
    this.scanBatchSize = options.scanBatchSize ?? 200;
  }

  /** Questions being waited on now. */
  get size(): number {
    return this.waits.size;
  }

  /**
   * Resolves with the question's result once it completes. Rejects with `ASK_ABORTED` when `signal` aborts,
   * `ASK_UNAVAILABLE` when the server stays unreachable past the bound or the question no longer exists, and
   * the matching error when it closed without a result (cancelled, terminated, failed). `onAbort` runs in the
   * abort event itself, before the wait ends: the caller's own reaction (a cancellation request) needs no
   * listener of its own.
   */
  wait(workflowId: string, signal?: AbortSignal, onAbort?: () => void): Promise<Result> {
    if (signal?.aborted === true) {
      onAbort?.();
      return Promise.reject(UserInteractionError.aborted());
    }
    return new Promise<Result>((resolve, reject) => {
      const wait: Wait = { workflowId, resolve, reject, settled: false };
      if (signal !== undefined) {
        wait.signal = signal;
        wait.onAbort = () => {
          onAbort?.();
          this.settle(wait, { error: UserInteractionError.aborted() });
        };
        signal.addEventListener('abort', wait.onAbort, { once: true });
      }
      this.waits.add(wait);
      this.unsubscribe ??= this.health.subscribe((error) => this.closeAll(error));
      if (this.longPolls < this.maxLongPolls || !QUOTABLE_ID.test(workflowId)) this.startLongPoll(wait);
      else this.enqueue(wait);
    });
  }

  /** Ends every wait with `error` (the provider is closing, or the server has been unreachable too long). */
  closeAll(error: UserInteractionError): void {
    for (const wait of [...this.waits]) this.settle(wait, { error });
  }

  /** Ends a wait once: with `{ result }`, or with `{ error }`. */
  private settle(wait: Wait, outcome: { result: Result } | { error: unknown }): void {
    if (wait.settled) return;
    wait.settled = true;
    this.waits.delete(wait);
    this.queued.delete(wait);
    this.unchecked.delete(wait);
    wait.poll?.abort();
    if (wait.onAbort !== undefined) wait.signal?.removeEventListener('abort', wait.onAbort);
    if ('result' in outcome) wait.resolve(outcome.result);
    else wait.reject(outcome.error);
    if (this.queued.size === 0) this.stopScanning();
    if (this.waits.size === 0) {
      this.unsubscribe?.();
      this.unsubscribe = undefined;
    }
  }

  private startLongPoll(wait: Wait): void {
    this.longPolls += 1;
    wait.poll = new AbortController();
    void this.longPoll(wait, wait.poll.signal).finally(() => {
      this.longPolls -= 1;
      this.promote();
    });
  }

  /** Moves the oldest queued waits to the long polls that are free. */
  private promote(): void {
    for (const wait of this.queued) {
      if (this.longPolls >= this.maxLongPolls) return;
      this.queued.delete(wait);
      this.unchecked.delete(wait);
      if (!wait.settled) this.startLongPoll(wait);
    }
  }

  private async longPoll(wait: Wait, stop: AbortSignal): Promise<void> {
    const handle = this.client.workflow.getHandle<() => Promise<Result>>(wait.workflowId);
    let result: Result;
    try {
      result = await retryTransient(() => withAbortSignalPerCall(this.client, stop, () => handle.result()), {
        retryIf: (error) => {
          if (wait.settled || stop.aborted) return false;
          // A failure that answers the wait settles it; otherwise the SDK's own retries ran out, and the
          // connection's health decides whether to go on.
          const settling = this.failureOf(wait.workflowId, error) ?? this.health.outage();
          if (settling === undefined) return true;
          this.settleFromPoll(wait, { error: settling });
          return false;
        },
      });
    } catch {
      // Settled above, or by the caller (an abort, an outage seen elsewhere): nothing is left to do.
      return;
    }
    this.health.markHealthy();
    this.settleFromPoll(wait, { result });
  }

  /**
   * Settles a wait from its own long poll, which has ended: there is nothing to abort (an abort would build a
   * DOMException, stack and all, for every answered question).
   */
  private settleFromPoll(wait: Wait, outcome: { result: Result } | { error: unknown }): void {
    delete wait.poll;
    this.settle(wait, outcome);
  }

  /** The error that ends a wait for good, or `undefined` for a transient failure worth retrying. */
  private failureOf(workflowId: string, error: unknown): UserInteractionError | undefined {
    if (error instanceof WorkflowFailedError) return errorFromClosedQuestion(error.cause, error);
    if (error instanceof WorkflowNotFoundError) {
      return UserInteractionError.unavailable(`question ${workflowId} no longer exists`, error);
    }
    if (isTransient(error)) {
      this.health.markFailing();
      return undefined;
    }
    return UserInteractionError.unavailable(reasonOf(error), error);
  }

  private enqueue(wait: Wait): void {
    this.queued.add(wait);
    this.unchecked.add(wait);
    if (this.scanTimer !== undefined) return;
    this.scanTimer = setInterval(() => void this.scan(), this.scanIntervalMs);
  }

  private stopScanning(): void {
    if (this.scanTimer === undefined) return;
    clearInterval(this.scanTimer);
    this.scanTimer = undefined;
    this.lastScanAt = undefined;
    this.scansSinceSweep = 0;
  }

  /**
   * One scan: the questions closed since the previous scan, then by id the queued waits never looked up (or, on
   * a sweep, all of them); each closed one that is queued gets its result fetched.
   */
  private async scan(): Promise<void> {
    if (this.scanning) return;
    this.scanning = true;
    const startedAt = Date.now();
    try {
      const sweep = this.scansSinceSweep + 1 >= this.sweepEveryScans;
      const horizon = (this.lastScanAt ?? startedAt) - this.recentOverlapMs;
      // Deleting the current entry while iterating a Set is safe: the release goes over the queue itself.
      this.release(this.queued, await this.closedSince(horizon));
      // Only references to the waits: a pass over thousands of them lasts several queries, and whatever it
      // allocates per wait lives that long.
      const byId = [...(sweep ? this.queued : this.unchecked)];
      for (let index = 0; index < byId.length; index += this.scanBatchSize) {
        const batch = byId.slice(index, index + this.scanBatchSize);
        this.release(batch, await this.closedAmong(batch.map((wait) => wait.workflowId)));
        for (const wait of batch) this.unchecked.delete(wait);
      }
      this.scansSinceSweep = sweep ? 0 : this.scansSinceSweep + 1;
      this.lastScanAt = startedAt;
    } catch (error) {
      // A failed scan is retried at the next interval, from the same horizon; the connection's health decides
      // about outages.
      if (isTransient(error)) this.health.markFailing();
    } finally {
      this.scanning = false;
    }
  }

  /** Starts the long poll of each wait of `waits` still queued whose question is in `closed`. */
  private release(waits: Iterable<Wait>, closed: ReadonlySet<string>): void {
    if (closed.size === 0) return;
    for (const wait of waits) {
      // A closed question answers its result at once: the long poll returns on its first call.
      if (closed.has(wait.workflowId) && !wait.settled && this.queued.delete(wait)) {
        this.unchecked.delete(wait);
        this.startLongPoll(wait);
      }
    }
  }

  /** Questions closed at or after `since` (epoch milliseconds), whoever asked them. */
  private async closedSince(since: number): Promise<Set<string>> {
    const query =
      `WorkflowType = '${ASK_USER_QUESTION_WORKFLOW_TYPE}' AND ${CLOSED} ` +
      `AND CloseTime >= '${new Date(since).toISOString()}'`;
    return await this.listIds(query, 1_000);
  }

  private async closedAmong(workflowIds: string[]): Promise<Set<string>> {
    const quoted = workflowIds.map((id) => `'${id}'`).join(', ');
    const query =
      `WorkflowType = '${ASK_USER_QUESTION_WORKFLOW_TYPE}' AND ${CLOSED} ` + `AND WorkflowId IN (${quoted})`;
    return await this.listIds(query, workflowIds.length);
  }

  private async listIds(query: string, pageSize: number): Promise<Set<string>> {
    const ids = new Set<string>();
    for await (const info of this.client.workflow.list({ query, pageSize })) ids.add(info.workflowId);
    this.health.markHealthy();
    return ids;
  }
}
