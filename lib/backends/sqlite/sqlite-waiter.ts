/**
 * Where idle `acquire` calls of one SqliteBackend wait between two checks for
 * work. A wait ends at its timer, on `notify()` (an enqueue, release or
 * promotion by this same backend, which needs no file check to be seen), on
 * abort, or on `close()`, whichever comes first; it never rejects.
 *
 * @internal
 */
export class SqliteWaiter {
  private readonly wakers = new Set<() => void>();
  private closed = false;

  /** Wake every current waiter. */
  notify(): void {
    for (const wake of [...this.wakers]) wake();
  }

  /** Resolves after `ms`, or earlier on notify, abort or close. */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.closed || signal?.aborted) return Promise.resolve();
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

  /** Ends every wait now and every later one at once, so close() leaves no timer behind. */
  close(): void {
    this.closed = true;
    this.notify();
  }

  /** How many waits are pending (tests check that close leaves none). */
  get pending(): number {
    return this.wakers.size;
  }
}
