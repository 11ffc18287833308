import { isSameFinished } from '../../core/manual-retry';
import { finishedSegment } from '../../core/queue-segment';
import type { TaskRecord } from '../../core/task-record.interface';
import { copyRecord } from './memory-record-copy';
import type { MemoryStore } from './memory-store';
import type { MemoryUniqueKeys } from './memory-unique-keys';

/**
 * Final tasks of one MemoryBackend retried or removed by hand, each in one
 * synchronous change, and only while the stored result is still the one
 * the caller read (so two retries of one task make one new attempt).
 *
 * @internal
 */
export class MemoryFinishedTasks {
  constructor(
    private readonly store: MemoryStore,
    private readonly uniqueKeys: MemoryUniqueKeys,
  ) {}

  retry(finished: TaskRecord, retried: TaskRecord, now: number): boolean {
    if (!this.takeOut(finished, now)) return false;
    this.store.storeRetry(finished.task.queue, copyRecord(retried), now);
    this.uniqueKeys.takeBack(retried, now);
    return true;
  }

  remove(finished: TaskRecord, now: number): boolean {
    if (!this.takeOut(finished, now)) return false;
    if (finished.task.unique) this.uniqueKeys.release(finished.task.unique.key, finished.id);
    return true;
  }

  /** The result and its history entry gone, if the stored result is still `finished`. */
  private takeOut(finished: TaskRecord, now: number): boolean {
    const stored = this.store.liveResult(finished.id, now);
    if (!stored || this.store.tasks.has(finished.id) || !isSameFinished(stored, finished)) {
      return false;
    }
    this.store.dropResult(finished.id);
    this.store.queue(stored.task.queue).history[finishedSegment(stored.status)].delete(stored.id);
    return true;
  }
}
