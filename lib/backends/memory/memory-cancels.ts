import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import type { CancelRequest, CancelResult, CancelRule } from '../../core/ports/control-store.port';
import { taskResultDoesNotExist } from '../../core/threadmill.messages';
import { copyRecord } from './memory-record-copy';
import type { MemoryStore } from './memory-store';

/**
 * Cancelling tasks of one MemoryBackend, each in one synchronous change, as
 * the rule passed in decides: a waiting task leaves its queue and is stored
 * as decided, a running one is stored marked and gets a request for the pool
 * that holds it (a lease without a pool: under `''`).
 *
 * @internal
 */
export class MemoryCancels {
  constructor(
    private readonly alias: string,
    private readonly store: MemoryStore,
  ) {}

  private get requests(): Map<string, Map<string, { at: number; lease: string }>> {
    return this.store.cancelRequests;
  }

  cancel(id: string, decide: CancelRule, now: number): CancelResult {
    const { store } = this;
    const record = store.find(id, now);
    if (!record) throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, this.alias));
    const held = store.leases.get(id);
    const decision = decide(record, held !== undefined, new Date(now));
    if (decision.outcome === 'already-final') {
      return { outcome: 'already-final', record: copyRecord(record) };
    }
    if (held) {
      const pool = held.poolId ?? '';
      let ofPool = this.requests.get(pool);
      if (!ofPool)
        this.requests.set(pool, (ofPool = new Map<string, { at: number; lease: string }>()));
      const lease = record.workerIds.at(-1) ?? '';
      // The first request for a lease keeps its time; a later lease's replaces it.
      if (ofPool.get(id)?.lease !== lease) ofPool.set(id, { at: now, lease });
      const marked = decision.record;
      store.tasks.set(id, marked);
      return { outcome: 'requested', record: copyRecord(marked), holder: held.poolId ?? null };
    }
    const state = store.queue(record.task.queue);
    state.ready.remove(id);
    state.deferred.delete(id);
    const cancelled = decision.record;
    store.finish(record.task.queue, cancelled, now);
    return { outcome: 'cancelled', record: copyRecord(cancelled) };
  }

  requestsOf(poolId: string): CancelRequest[] {
    const ofPool = this.requests.get(poolId);
    if (!ofPool) return [];
    return [...ofPool.entries()]
      .sort((a, b) => a[1].at - b[1].at)
      .map(([id, { at, lease }]) => ({ id, requestedAt: new Date(at), lease }));
  }

  drop(poolId: string, requests: readonly CancelRequest[]): void {
    const ofPool = this.requests.get(poolId);
    if (!ofPool) return;
    for (const { id, lease } of requests) if (ofPool.get(id)?.lease === lease) ofPool.delete(id);
    if (ofPool.size === 0) this.requests.delete(poolId);
  }
}
