/** One idle acquire's wait: the queues it leases from, and how to end it. */
interface Waiting {
  readonly queues: ReadonlySet<string>;
  readonly wake: () => void;
}

/**
 * Where idle `acquire` calls of one PostgresBackend wait between two tries.
 * A wait ends at its timer, when one of its queues gets work (a notification
 * on the alias's work channel, or this process's own commit), on `notify()`
 * of every queue, on abort, or on `close()`; it never rejects. A queue's
 * `generation` moves with every wake-up of it, so a wake-up that came
 * between a try and its wait is not missed; an acquire of other queues is
 * not woken.
 *
 * @internal
 */
export class PostgresWaiter {
  private readonly waiting = new Set<Waiting>();
  private closed = false;
  /** Wake-ups of every queue at once (a connection made again, a close). */
  private everyQueue = 0;
  private readonly byQueue = new Map<string, number>();

  /** How often `queues` were woken so far. */
  generation(queues: readonly string[]): number {
    let moves = this.everyQueue;
    for (const queue of queues) moves += this.byQueue.get(queue) ?? 0;
    return moves;
  }

  /** Wakes the waits of `queues`, or of every queue when none are named. */
  notify(queues?: readonly string[]): void {
    if (queues === undefined) this.everyQueue++;
    else for (const queue of queues) this.byQueue.set(queue, (this.byQueue.get(queue) ?? 0) + 1);
    for (const entry of [...this.waiting]) {
      if (queues === undefined || queues.some((queue) => entry.queues.has(queue))) entry.wake();
    }
  }

  /** Resolves after `ms`, or earlier when `queues` are woken (or were since `since`), on abort or close. */
  wait(ms: number, queues: readonly string[], since: number, signal?: AbortSignal): Promise<void> {
    if (this.closed || signal?.aborted || this.generation(queues) !== since) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const entry: Waiting = {
        queues: new Set(queues),
        wake: () => {
          clearTimeout(timer);
          this.waiting.delete(entry);
          signal?.removeEventListener('abort', entry.wake);
          resolve();
        },
      };
      const timer = setTimeout(entry.wake, ms);
      this.waiting.add(entry);
      signal?.addEventListener('abort', entry.wake, { once: true });
    });
  }

  /** Ends every wait now and every later one at once. */
  close(): void {
    this.closed = true;
    this.notify();
  }
}
