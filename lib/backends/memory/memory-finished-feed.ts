import type { FinishedTask } from '../../core/finished-task-feed';
import type { TaskRecord } from '../../core/task-record.interface';
import { MemoryFeed } from './memory-feed';

/**
 * The memory backend's carrier of finished tasks (an in-process MemoryFeed).
 *
 * @internal
 */
export class MemoryFinishedFeed extends MemoryFeed<FinishedTask> {
  /** Called by the store for every task it stores final; free while nobody listens. */
  finished(record: TaskRecord): void {
    if (!this.listening) return;
    const { id, status } = record;
    this.push({ id, status, name: record.task.name, queue: record.task.queue });
  }
}
