import { InvalidQueryError } from '../core/errors/invalid-query.error';
import { invalidActivityBucket, invalidActivityWindow } from '../core/listing.messages';
import type { FinishedSegment } from '../core/queue-segment';
import type { ActivityQuery, QueueActivity } from '../core/task-listing';
import type { TaskRecord } from '../core/task-record.interface';

/** Most buckets one `activity` call counts (a day of minutes). */
export const ACTIVITY_MAX_BUCKETS = 1440;
/** Finished tasks read for the wait and run means, per bucket, finished segment and queue, at most... */
export const ACTIVITY_SAMPLES_PER_BUCKET = 5;
/** ...and about this many in one call over every queue and bucket (at least one per bucket and segment). */
export const ACTIVITY_SAMPLES_MAX = 3000;

/** The finished segments `activity` counts and samples, one per final status. */
export const ACTIVITY_SEGMENTS: readonly FinishedSegment[] = ['successful', 'failed', 'cancelled'];

/**
 * The buckets of one `activity` call: `count` buckets of `bucketMs`,
 * aligned to multiples of it on the store's clock, the last one holding
 * now; from `start` (inclusive) to `end` (exclusive). Every bucket is whole
 * seconds, so a store that counts per second puts each second in one bucket.
 */
export class ActivityBuckets {
  private constructor(
    readonly start: number,
    readonly bucketMs: number,
    readonly count: number,
  ) {}

  /** The buckets of `query` up to `storeNowMs`; InvalidQueryError for a bucket or window out of range. */
  static plan(query: ActivityQuery, storeNowMs: number): ActivityBuckets {
    const { windowMs, bucketMs } = query;
    if (!Number.isInteger(bucketMs) || bucketMs < 1000 || bucketMs % 1000 !== 0) {
      throw new InvalidQueryError(invalidActivityBucket(bucketMs));
    }
    const count = Number.isInteger(windowMs) ? Math.ceil(windowMs / bucketMs) : NaN;
    if (!(count >= 1 && count <= ACTIVITY_MAX_BUCKETS)) {
      throw new InvalidQueryError(invalidActivityWindow(windowMs, bucketMs, ACTIVITY_MAX_BUCKETS));
    }
    const end = (Math.floor(storeNowMs / bucketMs) + 1) * bucketMs;
    return new ActivityBuckets(end - count * bucketMs, bucketMs, count);
  }

  get end(): number {
    return this.start + this.count * this.bucketMs;
  }

  /** The bucket holding `ms`, or -1 outside the window. */
  indexOf(ms: number): number {
    if (ms < this.start || ms >= this.end) return -1;
    return Math.floor((ms - this.start) / this.bucketMs);
  }

  /** Bucket `index` from `from` (inclusive) to `to` (exclusive), ms. */
  bounds(index: number): { from: number; to: number } {
    const from = this.start + index * this.bucketMs;
    return { from, to: from + this.bucketMs };
  }

  /** How many finished tasks of one segment each bucket samples when `queueCount` queues are read. */
  samplesPerBucket(queueCount: number): number {
    const perBucket = Math.floor(
      ACTIVITY_SAMPLES_MAX / (this.count * Math.max(1, queueCount) * ACTIVITY_SEGMENTS.length),
    );
    return Math.max(1, Math.min(ACTIVITY_SAMPLES_PER_BUCKET, perBucket));
  }

  /** An empty tally of one queue over these buckets. */
  tally(): ActivityTally {
    return new ActivityTally(this.count);
  }
}

/** One queue's counts and samples over the buckets, added as a store reads them. */
export class ActivityTally {
  private readonly counts: Record<'enqueued' | FinishedSegment, number[]>;
  private readonly waits: number[][];
  private readonly runs: number[][];

  constructor(count: number) {
    const zeros = (): number[] => new Array<number>(count).fill(0);
    this.counts = { enqueued: zeros(), successful: zeros(), failed: zeros(), cancelled: zeros() };
    this.waits = Array.from({ length: count }, () => []);
    this.runs = Array.from({ length: count }, () => []);
  }

  /** `count` more tasks enqueued, or finished in `segment`, within bucket `index` (ignored outside). */
  add(what: 'enqueued' | FinishedSegment, index: number, count = 1): void {
    if (index >= 0 && index < this.waits.length) this.counts[what][index] += count;
  }

  /** A finished task sampled in bucket `index`: its times count toward the bucket's means. */
  sample(index: number, record: TaskRecord): void {
    const times = attemptTimes(record);
    if (!times || index < 0 || index >= this.waits.length) return;
    this.waits[index].push(times.waitMs);
    this.runs[index].push(times.runMs);
  }

  result(): QueueActivity {
    const mean = (values: number[]): number | null =>
      values.length === 0 ? null : Math.round(values.reduce((a, b) => a + b, 0) / values.length);
    return {
      enqueued: this.counts.enqueued,
      successful: this.counts.successful,
      failed: this.counts.failed,
      cancelled: this.counts.cancelled,
      waitMs: this.waits.map(mean),
      runMs: this.runs.map(mean),
    };
  }
}

/**
 * How long a finished task waited and ran: from when it was due (its
 * runAfter when that came before its first start, else its enqueue) to its
 * first start, and from its last attempt's start to its finish. Null for a
 * task that never started (cancelled while waiting).
 */
export function attemptTimes(record: TaskRecord): { waitMs: number; runMs: number } | null {
  const { startedAt, finishedAt, enqueuedAt, lastAttemptedAt } = record;
  if (startedAt === null || finishedAt === null) return null;
  const start = startedAt.getTime();
  const runAfter = record.task.runAfter?.getTime();
  const due =
    runAfter !== undefined && runAfter <= start
      ? Math.max(enqueuedAt.getTime(), runAfter)
      : enqueuedAt.getTime();
  return {
    waitMs: Math.max(0, start - due),
    runMs: Math.max(0, finishedAt.getTime() - (lastAttemptedAt ?? startedAt).getTime()),
  };
}
