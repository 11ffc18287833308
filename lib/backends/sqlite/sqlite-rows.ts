import type { Logger } from '@nestjs/common';
import { CorruptTaskDataError } from '../../core/errors/corrupt-task-data.error';
import { assertFinished } from '../../core/finished-record';
import { recordWith } from '../../core/record-with';
import { finishedProgress } from '../../core/task-progress';
import type { TaskRecord } from '../../core/task-record.interface';
import { deserializeRecord, serializeRecord } from '../../core/task-serializer';
import { delayUntil } from '../run-after';
import { unreadableRecord } from '../../core/unreadable-record';
import type { SqliteBackendSettings } from './sqlite-backend-options';
import type { TaskRow } from './sqlite-schema';
import type { SqliteTaskStatements } from './sqlite-task-statements';

/**
 * The `expires_at` of a task that has not finished: never. A waiting or
 * running task keeps its data however long it waits; only a result expires.
 */
export const LIVE_TASK_EXPIRES_AT = Number.MAX_SAFE_INTEGER;

/**
 * The row-level writes the backend's calls and its maintenance pass share,
 * each inside the caller's write transaction: a task row read (or an
 * unreadable one failed), a held task sent back for its next attempt, a
 * finished one stored as a result.
 *
 * @internal
 */
export class SqliteRows {
  constructor(
    private readonly alias: string,
    private readonly settings: SqliteBackendSettings,
    private readonly sql: SqliteTaskStatements,
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
  read(row: TaskRow, now: number): TaskRecord | null {
    try {
      return deserializeRecord(row.id, row.data);
    } catch (error) {
      if (!(error instanceof CorruptTaskDataError)) throw error;
      this.logger.error(`task ${row.id} of "${this.alias}" failed: ${error.message}`);
      this.sql.deleteTask.run(row.seq);
      this.storeResult(
        unreadableRecord(row.id, { queue: row.queue, alias: this.alias }, new Date(now), [
          { className: error.name, traceback: error.stack ?? error.message },
        ]),
        row.queue,
        now,
      );
      return null;
    }
  }

  /**
   * A held task back to deferred (or ready when due) as `retry` stores it;
   * `runAfter` is on the clock of the process that decided the retry, whose
   * time is `now`.
   */
  storeRetry(record: TaskRecord, row: TaskRow, now: number): void {
    const wait = delayUntil(record.task.runAfter, now);
    const deferred = wait > 0;
    this.sql.markRetry.run(
      deferred ? 'deferred' : 'ready',
      deferred ? now + wait : null,
      LIVE_TASK_EXPIRES_AT,
      serializeRecord(withCancelOf(record, row)),
      row.seq,
    );
  }

  /**
   * A finished task out of the task table and into the results, kept as its
   * retention says, with the last progress its record carries, or else what
   * the task row held.
   */
  finish(record: TaskRecord, row: TaskRow, now: number): void {
    this.sql.deleteTask.run(row.seq);
    this.storeResult(record, row.queue, now, finishedProgress(record) ?? row.progress ?? null);
  }

  /** `progress`: what the task row held (storeProgress), kept with the result. */
  storeResult(
    record: TaskRecord,
    queue: string,
    now: number,
    progress: string | null = null,
  ): void {
    // Only final statuses are stored as results (the table checks it too).
    assertFinished(record);
    this.sql.upsertResult.run({
      alias: this.alias,
      id: record.id,
      queue,
      status: record.status,
      finishedAt: record.finishedAt?.getTime() ?? now,
      // The longest any result is kept; the trimming step applies each queue and status's own limit.
      expiresAt: now + this.settings.retention.longestMaxAgeMs,
      data: serializeRecord(record),
      progress,
    });
  }
}

/**
 * `record` with the cancel its stored row holds: one asked while the attempt
 * ran, which the holder had not heard of, outlives the attempt (the next
 * lease ends the task CANCELLED). A substring test first: almost no row holds one.
 */
function withCancelOf(record: TaskRecord, row: TaskRow): TaskRecord {
  if (record.cancelRequestedAt || !row.data.includes('"cancelRequestedAt"')) return record;
  const stored = deserializeRecord(row.id, row.data);
  return recordWith(record, { cancelRequestedAt: stored.cancelRequestedAt ?? null });
}
