import type { Logger } from '@nestjs/common';
import { CorruptTaskDataError } from '../../core/errors/corrupt-task-data.error';
import { assertFinished } from '../../core/finished-record';
import { recordWith } from '../../core/record-with';
import { finishedProgress } from '../../core/task-progress';
import type { TaskRecord } from '../../core/task-record.interface';
import { deserializeRecord, serializeRecord } from '../../core/task-serializer';
import { unreadableRecord } from '../../core/unreadable-record';
import { delayUntil } from '../run-after';
import type { PostgresBackendSettings } from './postgres-backend-options';
import type { PostgresTx } from './postgres-connection';
import type { PostgresNotices } from './postgres-notices';
import type { PostgresTaskStatements, TaskRow } from './postgres-task-statements';

/** Ready-queue score: priority first, then FIFO by enqueue time, as on every backend. */
export const readyScore = (record: TaskRecord): number =>
  -record.task.priority * 1e13 + record.enqueuedAt.getTime();

/**
 * The row-level writes the parts and the maintenance pass share, each inside
 * the caller's transaction: a task row read (or an unreadable one failed), a
 * held task sent back for its next attempt, a finished one stored as a
 * result and announced.
 *
 * @internal
 */
export class PostgresRows {
  constructor(
    private readonly alias: string,
    private readonly settings: PostgresBackendSettings,
    private readonly sql: PostgresTaskStatements,
    private readonly notices: PostgresNotices,
    private readonly logger: Logger,
  ) {}

  /** The stored record, or null when it cannot be read. */
  decode(row: TaskRow): TaskRecord | null {
    try {
      return deserializeRecord(row.id, row.data);
    } catch (error) {
      if (error instanceof CorruptTaskDataError) return null;
      throw error;
    }
  }

  /**
   * The stored record, or null after recording an unreadable one as FAILED
   * (CorruptTaskDataError), so it never stalls a consumer.
   */
  async read(tx: PostgresTx, row: TaskRow, now: number): Promise<TaskRecord | null> {
    try {
      return deserializeRecord(row.id, row.data);
    } catch (error) {
      if (!(error instanceof CorruptTaskDataError)) throw error;
      this.logger.error(`task ${row.id} of "${this.alias}" failed: ${error.message}`);
      const failed = unreadableRecord(
        row.id,
        { queue: row.queue, alias: this.alias },
        new Date(now),
        [{ className: error.name, traceback: error.stack ?? error.message }],
      );
      await this.finish(tx, failed, row, now);
      return null;
    }
  }

  /**
   * A held task back to deferred (or ready when due) as `retry` stores it.
   * Its runAfter was set on this process's clock (the worker's backoff, or
   * the decision of this process's maintenance pass): the wait left is read
   * on that clock now, and added to the server's `now`.
   */
  async storeRetry(tx: PostgresTx, record: TaskRecord, row: TaskRow, now: number): Promise<void> {
    const wait = delayUntil(record.task.runAfter, Date.now());
    const deferred = wait > 0;
    const stored = withCancelOf(record, row);
    await tx.query(this.sql.markRetry, [
      this.alias,
      row.id,
      deferred ? 'deferred' : 'ready',
      deferred ? now + wait : null,
      stored.workerIds.length,
      serializeRecord(stored),
    ]);
    if (deferred) this.notices.freed(tx, row.queue);
    else this.notices.work(tx, [row.queue]);
  }

  /**
   * A finished task out of the task table and into the results, with the
   * last progress its record carries, or else what the task row held.
   */
  async finish(tx: PostgresTx, record: TaskRecord, row: TaskRow, now: number): Promise<void> {
    await tx.query(this.sql.deleteTask, [this.alias, row.id]);
    this.notices.freed(tx, row.queue);
    await this.storeResult(tx, record, row.queue, now, finishedProgress(record) ?? row.progress);
  }

  /**
   * A final record stored as a result, kept as long as the longest
   * retention, and announced. Dated (finished_at, what retention and the
   * windows read) by the server's `now`, not by the record's finishedAt,
   * which the worker read on its own clock.
   */
  async storeResult(
    tx: PostgresTx,
    record: TaskRecord,
    queue: string,
    now: number,
    progress: string | null = null,
  ): Promise<void> {
    assertFinished(record);
    await tx.query(this.sql.upsertResult, [
      this.alias,
      record.id,
      queue,
      record.task.name,
      record.status,
      now,
      now + this.settings.retention.longestMaxAgeMs,
      progress,
      serializeRecord(record),
    ]);
    this.notices.finished(tx, [record]);
  }
}

/**
 * `record` with the cancel its stored row holds: one asked while the attempt
 * ran, which the holder had not heard of, outlives the attempt.
 */
function withCancelOf(record: TaskRecord, row: TaskRow): TaskRecord {
  if (record.cancelRequestedAt || !row.data.includes('"cancelRequestedAt"')) return record;
  const stored = deserializeRecord(row.id, row.data);
  return recordWith(record, { cancelRequestedAt: stored.cancelRequestedAt ?? null });
}
