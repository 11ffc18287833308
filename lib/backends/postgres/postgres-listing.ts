import type { Logger } from '@nestjs/common';
import { ACTIVITY_SEGMENTS, ActivityBuckets } from '../activity-buckets';
import { integerTie, listedPage, planListing, scanListing } from '../list-cursor';
import { isFinishedSegment } from '../../core/queue-segment';
import type {
  ActivityQuery,
  BackendActivity,
  QueueActivity,
  TaskListQuery,
  TaskPage,
} from '../../core/task-listing';
import { recordWithProgress } from '../../core/task-progress';
import type { TaskRecord } from '../../core/task-record.interface';
import { deserializeRecord } from '../../core/task-serializer';
import type { PostgresBackendSettings } from './postgres-backend-options';
import type { PostgresConnection } from './postgres-connection';
import type { BucketRow, ListedRow, PostgresReadStatements } from './postgres-read-statements';

/**
 * The operators' reads of a PostgresBackend beside peek: pages of a
 * segment (listTasks, one index range from the cursor per page, in peek's
 * order) and activity per bucket (a GROUP BY over an index range of the
 * window, then a bounded sample of results for the wait and run means).
 *
 * @internal
 */
export class PostgresListing {
  constructor(
    private readonly alias: string,
    private readonly settings: PostgresBackendSettings,
    private readonly connection: PostgresConnection,
    private readonly sql: PostgresReadStatements,
    private readonly logger: Logger,
  ) {}

  async listTasks(query: TaskListQuery): Promise<TaskPage> {
    const plan = planListing(this.alias, this.settings.queues, query);
    const now = await this.connection.storeNow();
    const base = [this.alias, plan.queue, plan.taskName ?? null, plan.scan + 1];
    const after = plan.after ? [plan.after.score, integerTie(plan.after)] : [];
    const range = plan.after ? 'after' : 'first';
    const rows = isFinishedSegment(plan.segment)
      ? await this.connection.query<ListedRow>(this.sql.pageResults[range], [
          ...base,
          plan.segment.toUpperCase(),
          now - this.settings.retention.longestMaxAgeMs,
          now,
          ...after,
        ])
      : await this.connection.query<ListedRow>(this.sql.pageTasks[plan.segment][range], [
          ...base,
          ...after,
        ]);
    const page = scanListing(
      plan,
      rows,
      (row) => ({ score: row.score, tie: row.tie }),
      (row) => this.read(row),
    );
    return listedPage(plan, page);
  }

  async activity(query: ActivityQuery): Promise<BackendActivity> {
    const now = await this.connection.storeNow();
    const buckets = ActivityBuckets.plan(query, now);
    const perBucket = buckets.samplesPerBucket(this.settings.queues.length);
    const queues: Record<string, QueueActivity> = {};
    for (const queue of this.settings.queues) {
      queues[queue] = await this.queueActivity(queue, buckets, perBucket, now);
    }
    return { start: new Date(buckets.start), bucketMs: buckets.bucketMs, queues };
  }

  private async queueActivity(
    queue: string,
    buckets: ActivityBuckets,
    perBucket: number,
    now: number,
  ): Promise<QueueActivity> {
    const { alias } = this;
    const tally = buckets.tally();
    const ingress = await this.connection.query<BucketRow>(this.sql.ingressBuckets, [
      alias,
      queue,
      buckets.start,
      buckets.end,
      buckets.bucketMs,
    ]);
    for (const { bucket, count } of ingress) tally.add('enqueued', bucket, count);
    // Finished tasks within the longest retention, as telemetry counts them.
    const from = Math.max(buckets.start, now - this.settings.retention.longestMaxAgeMs);
    for (const segment of ACTIVITY_SEGMENTS) {
      const status = segment.toUpperCase();
      const counts = await this.connection.query<BucketRow>(this.sql.resultBuckets, [
        alias,
        queue,
        buckets.start,
        from,
        buckets.end,
        buckets.bucketMs,
        status,
        now,
      ]);
      for (const { bucket, count } of counts) {
        tally.add(segment, bucket, count);
        const bounds = buckets.bounds(bucket);
        const sample = await this.connection.query<{ id: string; data: string }>(
          this.sql.sampleResults,
          [alias, queue, status, Math.max(bounds.from, from), bounds.to, now, perBucket],
        );
        for (const row of sample) {
          try {
            tally.sample(bucket, deserializeRecord(row.id, row.data));
          } catch (error) {
            this.logger.warn(`activity skipped task ${row.id} of "${alias}": ${String(error)}`);
          }
        }
      }
    }
    return tally.result();
  }

  /** A row's record; null when expired, of another name, or unreadable (peek skips those too). */
  private read(row: ListedRow): TaskRecord | null {
    if (row.data === null) return null;
    try {
      return recordWithProgress(deserializeRecord(row.id, row.data), row.progress);
    } catch (error) {
      this.logger.warn(`listTasks skipped task ${row.id} of "${this.alias}": ${String(error)}`);
      return null;
    }
  }
}
