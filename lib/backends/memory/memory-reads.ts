import {
  TaskResultDoesNotExist,
  recordWithProgress,
  taskResultDoesNotExist,
  type BackendTelemetry,
  type FinishedSegment,
  type QueueSegment,
  type TaskRecord,
} from '../../core';
import { copyRecord } from './memory-record-copy';
import type { MemoryStore } from './memory-store';

/**
 * What callers and operators read of a MemoryBackend: a segment's tasks,
 * counts and rates, and one task's result. A read changes nothing, except
 * that a result found expired is dropped.
 *
 * @internal
 */
export class MemoryReads {
  constructor(
    private readonly alias: string,
    private readonly store: MemoryStore,
  ) {}

  peek(queue: string, segment: QueueSegment, count: number): TaskRecord[] {
    const { store } = this;
    const state = store.queueStates.get(queue);
    if (!state || count <= 0) return [];
    let ids: string[];
    switch (segment) {
      case 'ready':
        ids = state.ready.peek(count);
        break;
      case 'deferred':
        ids = [...state.deferred.entries()].sort((a, b) => a[1] - b[1]).map(([id]) => id);
        break;
      case 'running':
        ids = [...store.leases.entries()]
          .filter(([, lease]) => lease.queue === queue)
          .sort((a, b) => a[1].deadline - b[1].deadline)
          .map(([id]) => id);
        break;
      case 'successful':
      case 'failed':
      case 'cancelled':
        // Newest first: what an operator looking at history wants to see.
        ids = [...state.history[segment].entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
        break;
    }
    const now = Date.now();
    const found: TaskRecord[] = [];
    for (const id of ids) {
      const record = store.find(id, now);
      if (record) found.push(this.copy(record));
      if (found.length >= count) break;
    }
    return found;
  }

  telemetry(intervalMs: number): BackendTelemetry {
    const { store } = this;
    const now = Date.now();
    const since = now - intervalMs;
    const telemetry: BackendTelemetry = { queues: {} };
    for (const [queue, state] of store.queueStates) {
      const running = [...store.leases.values()].filter((lease) => lease.queue === queue).length;
      const live = (segment: FinishedSegment): number[] =>
        [...state.history[segment].entries()]
          .filter(([id]) => store.liveResult(id, now))
          .map(([, finishedAt]) => finishedAt);
      const successful = live('successful');
      const failed = live('failed');
      const cancelled = live('cancelled');
      const failedInWindow = failed.filter((t) => t >= since).length;
      telemetry.queues[queue] = {
        counts: {
          ready: state.ready.size,
          running,
          deferred: state.deferred.size,
          successful: successful.length,
          failed: failed.length,
          cancelled: cancelled.length,
        },
        rates: {
          intervalMs,
          ingress: state.ingress.filter((t) => t >= since).length,
          egress:
            successful.filter((t) => t >= since).length +
            failedInWindow +
            cancelled.filter((t) => t >= since).length,
          failed: failedInWindow,
        },
      };
    }
    return telemetry;
  }

  /** A copy of what is held for `id`; throws TaskResultDoesNotExist when nothing is. */
  getResult(id: string): TaskRecord {
    const record = this.store.find(id, Date.now());
    if (!record) throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, this.alias));
    return this.copy(record);
  }

  /** A copy the caller may change, with its stored progress. */
  private copy(record: TaskRecord): TaskRecord {
    return recordWithProgress(copyRecord(record), this.store.progress.get(record.id));
  }
}
