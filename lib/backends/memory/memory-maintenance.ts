import { finishedSegment } from '../../core/queue-segment';
import { isRetry } from '../../core/retry-policy';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import type {
  EndAttempt,
  MaintenanceLimits,
  MaintenanceStore,
} from '../../core/ports/maintenance-store.port';
import type { ResolvedLimit } from '../../core/retention';
import { readyScore } from './memory-ready-queue';
import type { MemoryLease, MemoryStore } from './memory-store';
import type { MemoryUniqueKeys } from './memory-unique-keys';

export interface MemoryMaintenanceDeps {
  readonly store: MemoryStore;
  readonly uniqueKeys: MemoryUniqueKeys;
  readonly limits: MaintenanceLimits;
  /** The longest any result is kept, in ms: enqueue counts older than it go. */
  readonly longestMaxAgeMs: number;
  /** Tasks became ready: waiting acquires look again. */
  readonly workAdded: () => void;
}

/**
 * What a memory alias stores for the maintenance pass (the lifecycle's
 * runMaintenancePass decides; this applies), each step one synchronous
 * change of the maps, so no lease changes between a decision and its write.
 */
export class MemoryMaintenance implements MaintenanceStore {
  private lastPass: Date | null = null;

  readonly limits: MaintenanceLimits;

  constructor(private readonly deps: MemoryMaintenanceDeps) {
    this.limits = deps.limits;
  }

  /** When a pass last completed, or null before the first. */
  get heartbeat(): Date | null {
    return this.lastPass;
  }

  async promoteDue(max: number): Promise<number> {
    const { store } = this.deps;
    const now = Date.now();
    const due = [...store.queueStates.entries()]
      .flatMap(([queue, state]) =>
        [...state.deferred.entries()].map(([id, runAfter]) => ({ queue, id, runAfter })),
      )
      .filter((entry) => entry.runAfter <= now)
      .sort((a, b) => a.runAfter - b.runAfter)
      .slice(0, max);
    for (const { queue, id } of due) {
      const state = store.queue(queue);
      state.deferred.delete(id);
      const record = store.tasks.get(id);
      if (record) {
        state.ready.add(id, readyScore(record.task.priority, record.enqueuedAt.getTime()));
      }
    }
    if (due.length > 0) this.deps.workAdded();
    return due.length;
  }

  async endExpiredLeases(max: number, end: EndAttempt): Promise<number> {
    const now = Date.now();
    const expired = [...this.deps.store.leases.entries()]
      .filter(([, lease]) => lease.deadline <= now)
      .sort((a, b) => a[1].deadline - b[1].deadline)
      .slice(0, max);
    for (const [id, lease] of expired) this.endLease(id, lease, end, now);
    if (expired.length > 0) this.deps.workAdded();
    return expired.length;
  }

  async lapsedPools(max: number, ownPoolId: string | undefined): Promise<string[]> {
    const now = Date.now();
    return [...this.deps.store.pools.deadlines]
      .filter(([poolId, deadline]) => deadline <= now && poolId !== ownPoolId)
      .sort(([, a], [, b]) => a - b)
      .map(([poolId]) => poolId)
      .slice(0, max);
  }

  /** The tasks a lapsed pool still holds, ended as decided; the pool forgotten once it holds none. */
  async endPoolAttempts(
    poolId: string,
    max: number,
    end: EndAttempt,
  ): Promise<{ ended: number; forgotten: boolean }> {
    const { store } = this.deps;
    const now = Date.now();
    const ids = store.pools.held(poolId, max);
    for (const id of ids) {
      const lease = store.leases.get(id);
      if (lease) this.endLease(id, lease, end, now);
      else store.dropLease(id);
    }
    const forgotten = !store.pools.holds(poolId);
    if (forgotten) store.forgetPool(poolId);
    if (ids.length > 0) this.deps.workAdded();
    return { ended: ids.length, forgotten };
  }

  /** The finished tasks of one queue and status past `limit`: older than its age, the oldest beyond its count. */
  async trimFinished(
    queue: string,
    status: TaskResultStatus,
    limit: ResolvedLimit,
  ): Promise<number> {
    const { store } = this.deps;
    const state = store.queueStates.get(queue);
    if (!state) return 0;
    const history = state.history[finishedSegment(status)];
    const horizon = Date.now() - limit.maxAgeMs;
    const newestFirst = [...history].sort((a, b) => b[1] - a[1]);
    let trimmed = 0;
    newestFirst.forEach(([id, finishedAt], index) => {
      const beyondCount = limit.maxCount !== null && index >= limit.maxCount;
      if (finishedAt >= horizon && !beyondCount && store.results.has(id)) return;
      history.delete(id);
      if (store.dropResult(id)) trimmed++;
    });
    return trimmed;
  }

  /** Results past their expiry, and enqueue counts older than the longest retention. */
  async trimCounts(): Promise<number> {
    const { store } = this.deps;
    const now = Date.now();
    const horizon = now - this.deps.longestMaxAgeMs;
    let trimmed = 0;
    for (const [id, result] of store.results) {
      if (result.expiresAt <= now) {
        store.dropResult(id);
        trimmed++;
      }
    }
    for (const state of store.queueStates.values()) {
      const firstKept = state.ingress.findIndex((t) => t > horizon);
      state.ingress.splice(0, firstKept < 0 ? state.ingress.length : firstKept);
    }
    return trimmed;
  }

  async forgetFreeKeys(max: number): Promise<number> {
    return this.deps.uniqueKeys.forgetFree(max, Date.now());
  }

  async markPass(): Promise<void> {
    this.lastPass = new Date();
  }

  /** One held task's attempt ended as decided: back for its next attempt, or stored final. */
  private endLease(id: string, lease: MemoryLease, end: EndAttempt, now: number): void {
    const { store } = this.deps;
    const running = store.tasks.get(id);
    if (!running) {
      store.dropLease(id);
      return;
    }
    const decided = end({ id, queue: lease.queue, record: running });
    // The decision read the clock after `now`: its wait is counted from the decision.
    if (isRetry(decided)) store.storeRetry(lease.queue, decided, Date.now());
    else store.finish(lease.queue, decided, now);
  }
}
