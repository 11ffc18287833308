import type { Logger } from '@nestjs/common';
import { listedPage, planListing, scanListing, integerTie, type ListPlan } from '../list-cursor';
import { isFinishedSegment } from '../../core/queue-segment';
import type { TaskListQuery, TaskPage } from '../../core/task-listing';
import { recordWithProgress } from '../../core/task-progress';
import type { TaskRecord } from '../../core/task-record.interface';
import { deserializeRecord } from '../../core/task-serializer';
import type { SqliteBackendSettings } from './sqlite-backend-options';
import type { SqliteConnection } from './sqlite-connection';
import { errorText } from './sqlite-errors';
import type { ListParams, ListedRow } from './sqlite-listing-statements';

/**
 * Pages of a SqliteBackend's segments (listTasks): one indexed range read
 * from the cursor per page, in peek's order, whatever the table's size.
 * Reads take no write lock (WAL), so they never wait for or block the writers.
 *
 * @internal
 */
export class SqliteListing {
  constructor(
    private readonly alias: string,
    private readonly settings: SqliteBackendSettings,
    private readonly connection: SqliteConnection,
    private readonly logger: Logger,
  ) {}

  listTasks(query: TaskListQuery): TaskPage {
    const plan = planListing(this.alias, this.settings.queues, query);
    const rows = this.rows(plan);
    const page = scanListing(
      plan,
      rows,
      (row) => ({ score: row.score, tie: row.tie }),
      (row) => this.read(row),
    );
    return listedPage(plan, page);
  }

  /**
   * The rows one page may examine, plus one that tells whether the segment
   * goes on: after a cursor, those of its own value past its tie-break,
   * then those of the next values, in one read snapshot.
   */
  private rows(plan: ListPlan): ListedRow[] {
    const { listing } = this.connection.sql;
    const now = Date.now();
    const finished = isFinishedSegment(plan.segment);
    const rows = plan.scan + 1;
    const params: ListParams = {
      alias: this.alias,
      queue: plan.queue,
      now,
      name: plan.taskName ?? null,
      rows,
      // Finished tasks within the longest retention, as peek shows them.
      ...(finished && {
        status: plan.segment.toUpperCase(),
        since: now - this.settings.retention.longestMaxAgeMs,
      }),
    };
    const ranges = isFinishedSegment(plan.segment)
      ? listing.pageResults
      : listing.pageTasks[plan.segment];
    const { after } = plan;
    return this.connection.guard(() =>
      this.connection.snapshot(() => {
        if (after === null) return ranges.first.all(params);
        const cursor = { ...params, score: after.score, tie: integerTie(after) };
        const same = ranges.sameScore.all(cursor);
        if (same.length >= rows) return same;
        return same.concat(ranges.after.all({ ...cursor, rows: rows - same.length }));
      }),
    );
  }

  /** A row's record; null when expired, of another name, or unreadable (peek skips those too). */
  private read(row: ListedRow): TaskRecord | null {
    if (!row.live || row.data === null) return null;
    try {
      return recordWithProgress(deserializeRecord(row.id, row.data), row.progress);
    } catch (error) {
      this.logger.warn(`listTasks skipped task ${row.id} of "${this.alias}": ${errorText(error)}`);
      return null;
    }
  }
}
