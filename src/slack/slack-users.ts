/**
 * `SlackUserNames`: the name a Slack user answers under, from `users.info`, kept in memory for a while so that
 * a burst of clicks asks Slack once. Bounded in size and age: a renamed user is seen within the hour, and a
 * workspace of thousands of answerers never grows the inbox's memory past a few hundred kilobytes.
 */

/** Looks a user id up: the user's name, or `undefined` when Slack has none. Throws when the lookup fails. */
export type SlackUserLookup = (userId: string) => Promise<string | undefined>;

/** Options of {@link SlackUserNames}. */
export interface SlackUserNamesOptions {
  /** Most names kept. Default 1,000. */
  maxEntries?: number;
  /** How long a name is kept. Default one hour. */
  ttlMs?: number;
  /** Told why a lookup failed (its answer is recorded under the user id instead). */
  onLookupError?: (userId: string, error: unknown) => void;
}

/**
 * Names of Slack users, cached. A failed lookup (Slack down, the `users:read` scope missing) gives the user id,
 * so an answer is never lost to it, and is not cached: the next click asks again.
 *
 * @example
 * const names = new SlackUserNames(async (id) => (await slack.users.info({ user: id })).user?.name);
 * const answeredBy = await names.nameOf('U0123'); // 'alice'
 */
export class SlackUserNames {
  private readonly entries = new Map<string, { name: string; until: number }>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;

  constructor(
    private readonly lookup: SlackUserLookup,
    private readonly options: SlackUserNamesOptions = {},
  ) {
    this.maxEntries = Math.max(1, options.maxEntries ?? 1000);
    this.ttlMs = options.ttlMs ?? 60 * 60 * 1000;
  }

  /** How many names are kept now. */
  get size(): number {
    return this.entries.size;
  }

  /** The user's name, else the user id. */
  async nameOf(userId: string): Promise<string> {
    const now = Date.now();
    const cached = this.entries.get(userId);
    if (cached !== undefined && cached.until > now) {
      // Most recently used last: a Map iterates in insertion order, so the first key is the one to evict.
      this.entries.delete(userId);
      this.entries.set(userId, cached);
      return cached.name;
    }
    let name: string | undefined;
    try {
      name = (await this.lookup(userId))?.trim();
    } catch (error) {
      this.options.onLookupError?.(userId, error);
      return userId;
    }
    if (name === undefined || name === '') return userId;
    this.entries.delete(userId);
    this.entries.set(userId, { name, until: now + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return name;
  }
}
