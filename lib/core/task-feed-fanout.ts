/**
 * Ends one subscription; resolves once nothing more is delivered to it.
 *
 * @publicApi
 */
export type FeedUnsubscribe = () => Promise<void>;

/**
 * How one backend carries one kind of task news between processes (Redis
 * pub/sub, a SQLite cursor, an in-process call). Opened for the first
 * listener, closed after the last, so an alias nobody listens to costs nothing.
 */
export interface TaskFeedTransport<T> {
  /** Resolves once every item stored from now on reaches `deliver`. */
  open(deliver: (items: readonly T[]) => void): Promise<void>;
  /** Stops delivering; what it holds (a connection) may be kept for the next open. */
  close(): Promise<void>;
  /** Releases everything for good (the backend closes); `close` when absent. */
  end?(): Promise<void>;
}

/**
 * The listeners of one backend's feed, sharing one transport: the rule
 * every backend and every feed (finished tasks, live events) follows,
 * written once. Opening and closing run one at a time, so a subscribe
 * racing the last unsubscribe never leaves the transport closed under a listener.
 */
export class TaskFeedFanout<T> {
  private readonly listeners = new Set<(items: readonly T[]) => void>();
  private open = false;
  private closed = false;
  private transitions: Promise<void> = Promise.resolve();

  /**
   * @param transport the backend's carrier.
   * @param logger told when a listener throws (the backend's Nest Logger); the others still receive the batch.
   * @param what what the feed carries, for that log line (e.g. 'finished tasks').
   */
  constructor(
    private readonly transport: TaskFeedTransport<T>,
    private readonly logger: { error(message: string, stack?: string): void },
    private readonly what: string,
  ) {}

  /** Resolves once `listener` receives every item stored from then on. */
  async subscribe(listener: (items: readonly T[]) => void): Promise<FeedUnsubscribe> {
    this.listeners.add(listener);
    try {
      await this.settle();
    } catch (error) {
      this.listeners.delete(listener);
      throw error;
    }
    let subscribed = true;
    return async () => {
      if (!subscribed) return;
      subscribed = false;
      this.listeners.delete(listener);
      await this.settle();
    };
  }

  /** Hands one batch to every listener (a copy: a listener may unsubscribe while it runs). */
  deliver(items: readonly T[]): void {
    if (items.length === 0) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(items);
      } catch (error) {
        this.logger.error(
          `A listener of ${this.what} failed`,
          error instanceof Error ? error.stack : String(error),
        );
      }
    }
  }

  /** Ends the transport for good (the backend closes); its subscribe refuses afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.settle();
    await this.transport.end?.();
  }

  /** Opens or closes the transport to match whether anyone listens, after any transition under way. */
  private settle(): Promise<void> {
    const next = this.transitions.then(async () => {
      const wanted = this.listeners.size > 0 && !this.closed;
      if (wanted === this.open) return;
      if (wanted) {
        await this.transport.open((items) => this.deliver(items));
        this.open = true;
      } else {
        this.open = false;
        await this.transport.close();
      }
    });
    // A failed open must not block the transitions after it.
    this.transitions = next.catch(() => undefined);
    return next;
  }
}
