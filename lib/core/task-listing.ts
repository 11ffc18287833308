import type { QueueSegment } from './queue-segment';
import type { TaskRecord } from './task-record.interface';

// What the store's reads for operators (a dashboard, a report) ask and
// answer: pages of a segment's tasks, the worker pools, and per-bucket
// activity. The rules they share live in list-cursor.ts, pool-status.ts and
// activity-buckets.ts; each backend only reads its store.

/** One page of a segment's tasks (TaskBackend.listTasks). */
export interface TaskListQuery {
  queue: string;
  segment: QueueSegment;
  /** Most records to return (1..500). */
  limit: number;
  /** Opaque cursor from a previous page's `next`; absent = from the first (best / newest) task. */
  cursor?: string;
  /**
   * Only tasks of this task name. The store examines a bounded number of
   * entries per call (20 x limit, at most 5000) so a rare name over a
   * million waiting tasks stays fast: a page may then hold fewer than
   * `limit` records with `next` set, and the caller asks again.
   */
  taskName?: string;
}

/** A page of tasks, in the order `peek` lists them. */
export interface TaskPage {
  records: TaskRecord[];
  /** The cursor of the next page; null once the segment's end was reached. */
  next: string | null;
}

/** What a worker pool's main process says of itself with its heartbeat (beatPool). */
export interface PoolInfo {
  host: string;
  pid: number;
  /** Child processes alive. */
  children: number;
  /** Task slots in all (processes x threads). */
  slots: number;
  /** The queues it consumes, in priority order. */
  queues: string[];
  startedAt: Date;
}

/**
 * A pool the store knows: alive, or lapsed and not yet recovered or
 * forgotten. A pool that beats without info (an older release) shows an
 * empty host, zeros, no queues and its last beat as `startedAt`.
 */
export interface PoolStatus extends PoolInfo {
  id: string;
  /** Its last beat; its deadline when the store does not know (a beat of an older release). */
  beatAt: Date;
  /** Its heartbeat deadline: past it, any pool's maintenance pass recovers what it holds. */
  expiresAt: Date;
  alive: boolean;
  /** Running tasks it holds. */
  held: number;
}

/** Which buckets `activity` counts: `windowMs` up to now, in buckets of `bucketMs`. */
export interface ActivityQuery {
  /** How far back, e.g. 3_600_000; rounded up to whole buckets, at most 1440 of them. */
  windowMs: number;
  /** Width of one bucket in whole seconds (ms, a multiple of 1000), e.g. 60_000. */
  bucketMs: number;
}

/** One queue's activity per bucket, oldest bucket first. */
export interface QueueActivity {
  enqueued: number[];
  successful: number[];
  failed: number[];
  cancelled: number[];
  /**
   * Mean wait (due/enqueue -> first start) and run (last start -> finish)
   * in ms of a bounded sample of the tasks finished in each bucket; null
   * for a bucket with none.
   */
  waitMs: (number | null)[];
  runMs: (number | null)[];
}

/**
 * Activity of every configured queue of one alias. Buckets are aligned to
 * multiples of `bucketMs` on the store's clock; the last one holds now.
 */
export interface BackendActivity {
  /** Start of the first (oldest) bucket. */
  start: Date;
  bucketMs: number;
  queues: Record<string, QueueActivity>;
}
