/**
 * Where idle `acquire` calls of one MemoryBackend wait for work. Every change
 * that makes a task ready calls `wake`, and each waiter then looks again.
 *
 * @internal
 */
export class MemoryWaiters {
  private readonly waiters = new Set<() => void>();

  /** @param isClosed whether the backend closed: a wait woken then reports no work. */
  constructor(private readonly isClosed: () => boolean) {}

  /** Lets every waiting acquire look again; called whenever a task becomes ready. */
  wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Resolves true when woken, false on timeout or abort; leaves no timer or listener behind. */
  waitForWork(timeoutMs: number, signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (woken: boolean): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters.delete(onWake);
        resolve(woken);
      };
      const onWake = (): void => done(!this.isClosed());
      const onAbort = (): void => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.waiters.add(onWake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
