import type { BackendTelemetry } from '../backend-telemetry.interface';
import type { OutboxBacklog } from '../outbox-backlog';
import type { QueueSegment } from '../queue-segment';
import type { ActivityQuery, BackendActivity, TaskListQuery, TaskPage } from '../task-listing';
import type { TaskRecord } from '../task-record.interface';

/**
 * What the dashboard, the inspector, the metrics and health read: segments,
 * pages, counts and activity, and when the last maintenance pass ran. Never
 * changes a task.
 */
export interface ReadStore {
  /** Up to `count` tasks of one segment, best first; expired data is skipped. */
  peek(queue: string, segment: QueueSegment, count: number): Promise<TaskRecord[]>;
  /**
   * A page of a segment's tasks in `peek`'s order (planListing checks the
   * query). Its cursor is the last entry's position, never an offset: a
   * task present from first page to last is listed once, however many come
   * and go. A call examines at most ListPlan.scan entries from the cursor,
   * so a page costs the same with a million tasks waiting; with `taskName`
   * it may come back short with `next` set. Skips what `peek` skips.
   */
  listTasks(query: TaskListQuery): Promise<TaskPage>;
  /** Counts per queue and rates over the last `intervalMs`. */
  telemetry(intervalMs: number): Promise<BackendTelemetry>;
  /**
   * Per queue and bucket (ActivityBuckets, on the store's clock): tasks
   * enqueued, finished per final status, and the mean wait and run of a
   * bounded sample of those finished. Reads only what the store keeps
   * already (ingress counts, history by finish time), so it costs nothing
   * on the path every task takes, and a bounded number of reads per bucket
   * whatever the store's size. InvalidQueryError for a bucket or window out
   * of range.
   */
  activity(query: ActivityQuery): Promise<BackendActivity>;
  /** When the last maintenance pass ran, or null if none has. */
  maintenanceHeartbeat(): Promise<Date | null>;
  /**
   * What waits in the alias's outbox (in the app's Postgres) for its relay;
   * only a backend configured with an outbox has it (Redis's `outbox`).
   */
  outboxBacklog?(): Promise<OutboxBacklog>;
}
