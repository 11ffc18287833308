import type {
  FinishedTask,
  FinishedTaskTransport,
  FinishedTasksListener,
  TaskRecord,
} from '../../core';

/**
 * The memory backend's carrier of finished tasks: its store lives in one
 * process, so the feed is a call. The tasks one synchronous change finishes
 * are handed over together on the next microtask, never from inside the
 * change (a listener that reads the store sees it whole).
 *
 * @internal
 */
export class MemoryFinishedFeed implements FinishedTaskTransport {
  private deliver: FinishedTasksListener | null = null;
  private pending: FinishedTask[] = [];

  async open(deliver: FinishedTasksListener): Promise<void> {
    this.deliver = deliver;
  }

  async close(): Promise<void> {
    this.deliver = null;
    this.pending = [];
  }

  /** Called by the store for every task it stores final; free while nobody listens. */
  finished(record: TaskRecord): void {
    if (!this.deliver) return;
    const { id, status } = record;
    this.pending.push({ id, status, name: record.task.name, queue: record.task.queue });
    if (this.pending.length > 1) return;
    queueMicrotask(() => {
      const tasks = this.pending;
      this.pending = [];
      this.deliver?.(tasks);
    });
  }
}
