import type { LiveTaskEvent } from '../../core/live-task-feed';
import type { TaskRecord } from '../../core/task-record.interface';
import { MemoryFeed } from './memory-feed';

/**
 * The memory backend's carrier of live task events (an in-process MemoryFeed).
 *
 * @internal
 */
export class MemoryLiveFeed extends MemoryFeed<LiveTaskEvent> {
  /** Called by the store for every task it adds; free while nobody listens. */
  enqueued(record: TaskRecord): void {
    if (!this.listening) return;
    this.push({
      event: 'enqueued',
      id: record.id,
      queue: record.task.queue,
      name: record.task.name,
    });
  }

  /** Called by the store for every lease it takes; free while nobody listens. */
  started(record: TaskRecord): void {
    if (!this.listening) return;
    this.push({
      event: 'started',
      id: record.id,
      queue: record.task.queue,
      name: record.task.name,
    });
  }

  /** Called by the store for every progress it stores, with the text stored. */
  progressed(record: TaskRecord, stored: string): void {
    if (!this.listening) return;
    const { id, task } = record;
    this.push({ event: 'progressed', id, queue: task.queue, name: task.name, progress: stored });
  }
}
