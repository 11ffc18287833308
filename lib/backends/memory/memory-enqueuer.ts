import { assertDistinctIds } from '../distinct-ids';
import { TaskAlreadyExistsError } from '../../core/errors/task-already-exists.error';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResult } from '../../core/task-result';
import { taskAlreadyExists } from '../../core/threadmill.messages';
import type { MemoryImmediateRunner } from './memory-immediate-runner';
import { copyRecord } from './memory-record-copy';
import type { MemoryStore } from './memory-store';
import type { MemoryUniqueKeys } from './memory-unique-keys';
import { finishedRecordSource } from '../../core/wait-for-finished';

export interface MemoryEnqueuerDeps {
  readonly alias: string;
  /** Runs each task inside enqueue (immediate mode); null to store them. */
  readonly immediate: MemoryImmediateRunner | null;
  readonly store: MemoryStore;
  readonly uniqueKeys: MemoryUniqueKeys;
  /** Stored tasks are there to be acquired: wake waiting acquires. */
  readonly workAdded: () => void;
  /** The backend the TaskResult of a clashing task reads through. */
  readonly backend: TaskBackend;
}

/**
 * Stores new tasks of one MemoryBackend, all or none: every record checked
 * before any is stored, a batch with unique keys decided as one step, or, in
 * immediate mode, each run before the call returns.
 *
 * @internal
 */
export class MemoryEnqueuer {
  constructor(private readonly deps: MemoryEnqueuerDeps) {}

  async enqueueMany(records: readonly TaskRecord[]): Promise<TaskRecord[]> {
    // Validate all before storing any, so a bulk enqueue is all or none.
    for (const record of records) this.assertEnqueueable(record);
    assertDistinctIds(records);
    for (const record of records) this.assertNotStored(record.id);
    const { immediate } = this.deps;
    if (immediate) {
      const finished: TaskRecord[] = [];
      for (const record of records) {
        finished.push(
          record.task.unique
            ? await this.deps.uniqueKeys.enqueueImmediate(record, (made) => immediate.run(made))
            : await immediate.run(record),
        );
      }
      return finished;
    }
    const now = Date.now();
    if (records.some((record) => record.task.unique)) {
      const stored = this.deps.uniqueKeys.enqueue(records, now);
      this.deps.workAdded();
      return stored;
    }
    for (const record of records) this.deps.store.add(copyRecord(record), now);
    this.deps.workAdded();
    return records.map(copyRecord);
  }

  private assertEnqueueable(record: TaskRecord): void {
    this.deps.immediate?.assertRunnable(record);
  }

  /** Throws TaskAlreadyExistsError, with the stored task, when `id` is waiting, running or a live result. */
  private assertNotStored(id: string): void {
    const stored = this.deps.store.find(id, Date.now());
    if (stored) {
      throw new TaskAlreadyExistsError(
        taskAlreadyExists(id, this.deps.alias, stored.status),
        new TaskResult(copyRecord(stored), finishedRecordSource(this.deps.backend)),
      );
    }
  }
}
