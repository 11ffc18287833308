import type { Logger } from '@nestjs/common';
import { ACTIVITY_SEGMENTS, ActivityBuckets } from '../activity-buckets';
import type { ActivityQuery, BackendActivity, QueueActivity } from '../../core/task-listing';
import { deserializeRecord } from '../../core/task-serializer';
import type { SqliteBackendSettings } from './sqlite-backend-options';
import type { SqliteConnection } from './sqlite-connection';
import { errorText } from './sqlite-errors';

/**
 * A SqliteBackend's activity per bucket: enqueues counted from the ingress
 * rows and finishes from the results, each one GROUP BY over an index range
 * of the window (as telemetry counts them), then a few results per bucket
 * read for the wait and run means. All in one read snapshot.
 *
 * @internal
 */
export class SqliteActivity {
  constructor(
    private readonly alias: string,
    private readonly settings: SqliteBackendSettings,
    private readonly connection: SqliteConnection,
    private readonly logger: Logger,
  ) {}

  read(query: ActivityQuery): BackendActivity {
    const now = Date.now();
    const buckets = ActivityBuckets.plan(query, now);
    const perBucket = buckets.samplesPerBucket(this.settings.queues.length);
    const queues = this.connection.guard(() =>
      this.connection.snapshot(() => {
        const read: Record<string, QueueActivity> = {};
        for (const queue of this.settings.queues)
          read[queue] = this.queue(queue, buckets, perBucket, now);
        return read;
      }),
    );
    return { start: new Date(buckets.start), bucketMs: buckets.bucketMs, queues };
  }

  private queue(
    queue: string,
    buckets: ActivityBuckets,
    perBucket: number,
    now: number,
  ): QueueActivity {
    const { listing } = this.connection.sql;
    const { alias } = this;
    const range = {
      alias,
      queue,
      start: buckets.start,
      end: buckets.end,
      bucketMs: buckets.bucketMs,
    };
    const tally = buckets.tally();
    for (const { bucket, count } of listing.ingressBuckets.all(range)) {
      tally.add('enqueued', bucket, count);
    }
    // Finished tasks within the longest retention, as telemetry counts them.
    const from = Math.max(buckets.start, now - this.settings.retention.longestMaxAgeMs);
    for (const segment of ACTIVITY_SEGMENTS) {
      const status = segment.toUpperCase();
      for (const { bucket, count } of listing.resultBuckets.all({ ...range, from, status, now })) {
        tally.add(segment, bucket, count);
        const bounds = buckets.bounds(bucket);
        const sample = listing.sampleResults.all({
          alias,
          queue,
          status,
          from: Math.max(bounds.from, from),
          to: bounds.to,
          now,
          limit: perBucket,
        });
        for (const row of sample) {
          try {
            tally.sample(bucket, deserializeRecord(row.id, row.data));
          } catch (error) {
            this.logger.warn(`activity skipped task ${row.id} of "${alias}": ${errorText(error)}`);
          }
        }
      }
    }
    return tally.result();
  }
}
