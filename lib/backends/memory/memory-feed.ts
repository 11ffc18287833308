import type { TaskFeedTransport } from '../../core/task-feed-fanout';

/**
 * The memory backend's carrier of one feed: its store lives in one
 * process, so the feed is a call. The items one synchronous change makes
 * are handed over together on the next microtask, never from inside the
 * change (a listener that reads the store sees it whole).
 *
 * @internal
 */
export class MemoryFeed<T> implements TaskFeedTransport<T> {
  private deliver: ((items: readonly T[]) => void) | null = null;
  private pending: T[] = [];

  async open(deliver: (items: readonly T[]) => void): Promise<void> {
    this.deliver = deliver;
  }

  async close(): Promise<void> {
    this.deliver = null;
    this.pending = [];
  }

  /** Whether anyone listens: a store builds no item while nobody does. */
  get listening(): boolean {
    return this.deliver !== null;
  }

  protected push(item: T): void {
    if (!this.deliver) return;
    this.pending.push(item);
    if (this.pending.length > 1) return;
    queueMicrotask(() => {
      const items = this.pending;
      this.pending = [];
      this.deliver?.(items);
    });
  }
}
