import { holdsLease } from '../../core/holds-lease';
import type {
  AcknowledgeOutcome,
  AcquireOptions,
  LeaseStore,
  RetryOutcome,
} from '../../core/ports/lease-store.port';
import type { StoreRules } from '../../core/ports/store-rules.port';
import type { TaskRecord } from '../../core/task-record.interface';
import type { MemoryStore } from './memory-store';
import type { MemoryWaiters } from './memory-waiters';

/**
 * Leases in process memory: each call one synchronous step of the store's
 * maps, an idle acquire waiting on MemoryWaiters for work added.
 */
export class MemoryLeases implements Omit<LeaseStore, 'acknowledgeAndAcquire'> {
  constructor(
    private readonly store: MemoryStore,
    private readonly waiters: MemoryWaiters,
    private readonly closed: () => boolean,
    private readonly rules: StoreRules,
  ) {}

  async acquire(queues: readonly string[], options: AcquireOptions): Promise<TaskRecord[]> {
    const max = Math.max(1, options.max ?? 1);
    const deadline = Date.now() + options.timeoutMs;
    for (;;) {
      const taken = this.store.take(queues, options.workerId, max, options.poolId);
      if (taken.length > 0) return taken;
      const remaining = deadline - Date.now();
      if (remaining <= 0 || options.signal?.aborted || this.closed()) return [];
      // A full rate window admits again at a known time, with no wake-up to announce it.
      const waitMs = this.store.limitWaitMs > 0 ? this.store.limitWaitMs : remaining;
      const woken = await this.waiters.waitForWork(Math.min(remaining, waitMs), options.signal);
      if (!woken && waitMs >= remaining) return [];
    }
  }

  async acknowledge(records: readonly TaskRecord[]): Promise<AcknowledgeOutcome[]> {
    const now = Date.now();
    const outcomes = records.map((record) => this.store.acknowledge(record, now));
    // A finished task frees its share of a concurrency limit for the waiting consumers.
    if (this.store.limits.any()) this.waiters.wake();
    return outcomes;
  }

  async retry(records: readonly TaskRecord[]): Promise<RetryOutcome[]> {
    const now = Date.now();
    const outcomes = records.map((record) => this.store.retry(record, now));
    this.waiters.wake();
    return outcomes;
  }

  async release(records: readonly TaskRecord[]): Promise<number> {
    return this.releaseOrUnlease(records, (held) => this.rules.released(held));
  }

  async unlease(records: readonly TaskRecord[]): Promise<number> {
    const leased = new Map(records.map((record) => [record.id, record]));
    return this.releaseOrUnlease(records, (held) => {
      const lease = leased.get(held.id);
      return lease && holdsLease(held, lease) ? this.rules.unleased(held) : null;
    });
  }

  async storeProgress(
    entries: readonly { record: TaskRecord; stored: string }[],
  ): Promise<boolean[]> {
    return entries.map(({ record, stored }) =>
      this.store.storeProgress(record.id, record.workerIds.length, stored),
    );
  }

  /** Leased tasks back to their ready queue as `back` makes them (null: not this lease, left alone). */
  private releaseOrUnlease(
    records: readonly TaskRecord[],
    back: (held: TaskRecord) => TaskRecord | null,
  ): number {
    const released = this.store.releaseOrUnlease(records, back);
    if (released > 0) this.waiters.wake();
    return released;
  }
}
