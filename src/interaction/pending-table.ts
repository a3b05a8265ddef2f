/**
 * What the in-memory provider keeps for questions and approvals alike: items that wait for a result, each
 * announced to listeners when it arrives and withdrawn when its caller's signal aborts or a listener fails.
 */
import { errorText } from '../common';
import { QuestionOperationError } from './question-operation-error';
import { UserInteractionError } from './user-interaction-error';

interface Entry<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: UserInteractionError) => void;
  detach: () => void;
}

/** Pending items of one kind (`kind` names them in errors: `question`, `approval`), oldest first. */
export class PendingTable<Item extends { id: string }, Result> {
  private readonly entries = new Map<string, Entry<Item, Result>>();
  private readonly listeners = new Set<(item: Item) => void>();

  constructor(private readonly kind: string) {}

  /**
   * Keeps `item` until it is settled; `aborted` is the error its caller gets when `signal` aborts. Listeners
   * hear of it at once; one that throws withdraws it, and the wait fails with that `UserInteractionError`, or
   * with `ASK_UNAVAILABLE` for any other error (a provider that cannot put the question to anyone).
   */
  wait(item: Item, signal: AbortSignal | undefined, aborted: () => UserInteractionError): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const onAbort = (): void => {
        this.entries.delete(item.id);
        reject(aborted());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const detach = (): void => signal?.removeEventListener('abort', onAbort);
      this.entries.set(item.id, { item, resolve, reject, detach });
      try {
        for (const listener of this.listeners) listener(item);
      } catch (error) {
        this.take(item.id);
        reject(
          UserInteractionError.isInstance(error)
            ? error
            : UserInteractionError.unavailable(errorText(error), error),
        );
      }
    });
  }

  /** The items still waiting, oldest first. */
  items(): Item[] {
    return [...this.entries.values()].map((entry) => entry.item);
  }

  /** Calls `listener` for every item from now on. Returns a function that unsubscribes. */
  listen(listener: (item: Item) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The waiting item `id`, still waiting. @throws QuestionOperationError `NOT_FOUND`. */
  get(id: string): Item {
    return this.entry(id).item;
  }

  /** Ends the wait for `id` with `result`. @throws QuestionOperationError `NOT_FOUND`. */
  resolve(id: string, result: Result): void {
    this.take(id).resolve(result);
  }

  /** Ends the wait for `id` with `error`. @throws QuestionOperationError `NOT_FOUND`. */
  reject(id: string, error: UserInteractionError): void {
    this.take(id).reject(error);
  }

  private entry(id: string): Entry<Item, Result> {
    const entry = this.entries.get(id);
    if (entry === undefined) {
      throw new QuestionOperationError('NOT_FOUND', `no pending ${this.kind} with id ${JSON.stringify(id)}`);
    }
    return entry;
  }

  private take(id: string): Entry<Item, Result> {
    const entry = this.entry(id);
    this.entries.delete(id);
    entry.detach();
    return entry;
  }
}
