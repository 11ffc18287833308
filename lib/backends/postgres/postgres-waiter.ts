/**
 * Where idle `acquire` calls of one PostgresBackend wait between two tries.
 * A wait ends at its timer, on `notify()` (a notification on the alias's
 * work channel, or this process's own commit), on abort, or on `close()`;
 * it never rejects. `generation` moves with every notify, so a wake-up that
 * came between a try and its wait is not missed.
 *
 * @internal
 */
export class PostgresWaiter {
  private readonly wakers = new Set<() => void>();
  private closed = false;
  private moves = 0;

  get generation(): number {
    return this.moves;
  }

  /** Wake every current waiter. */
  notify(): void {
    this.moves++;
    for (const wake of [...this.wakers]) wake();
  }

  /** Resolves after `ms`, or earlier on notify (or one since `since`), abort or close. */
  wait(ms: number, since: number, signal?: AbortSignal): Promise<void> {
    if (this.closed || signal?.aborted || this.moves !== since) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakers.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Ends every wait now and every later one at once. */
  close(): void {
    this.closed = true;
    this.notify();
  }
}
