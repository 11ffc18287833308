import type { Transaction } from 'better-sqlite3';
import { isSameFinished } from '../../core/manual-retry';
import type { TaskRecord } from '../../core/task-record.interface';
import { deserializeRecord, serializeRecord } from '../../core/task-serializer';
import type { SqliteConnection } from './sqlite-connection';
import { readyScore } from './sqlite-enqueuer';
import { LIVE_TASK_EXPIRES_AT } from './sqlite-rows';
import type { SqliteUniqueKeys } from './sqlite-unique-keys';

/**
 * Final tasks of one SqliteBackend retried or removed by hand, each in one
 * write transaction, and only while the stored result is still the one the
 * caller read (so two retries of one task make one new attempt).
 *
 * @internal
 */
export class SqliteFinishedTasks {
  private readonly retryTx: Transaction<
    (finished: TaskRecord, retried: TaskRecord, now: number) => boolean
  >;
  private readonly removeTx: Transaction<(finished: TaskRecord, now: number) => boolean>;

  /** @param workAdded tells this process's idle consumers that a task became ready. */
  constructor(
    private readonly alias: string,
    private readonly connection: SqliteConnection,
    private readonly workAdded: () => void,
    private readonly uniqueKeys: SqliteUniqueKeys,
  ) {
    const { db, sql } = connection;
    this.retryTx = db.transaction((finished: TaskRecord, retried: TaskRecord, now: number) => {
      if (!this.takeOut(finished, now)) return false;
      sql.tasks.insertTask.run({
        alias,
        id: retried.id,
        queue: retried.task.queue,
        state: 'ready',
        score: readyScore(retried),
        runAt: null,
        expiresAt: LIVE_TASK_EXPIRES_AT,
        data: serializeRecord(retried),
      });
      this.uniqueKeys.takeBack(retried, now);
      return true;
    });
    this.removeTx = db.transaction((finished: TaskRecord, now: number) => {
      if (!this.takeOut(finished, now)) return false;
      const key = finished.task.unique?.key;
      if (key !== undefined) sql.finished.releaseKey.run(alias, key, finished.id);
      return true;
    });
  }

  retry(finished: TaskRecord, retried: TaskRecord): boolean {
    const done = this.connection.guard(() => this.retryTx.immediate(finished, retried, Date.now()));
    if (done) this.workAdded();
    return done;
  }

  remove(finished: TaskRecord): boolean {
    return this.connection.guard(() => this.removeTx.immediate(finished, Date.now()));
  }

  /** The result row (record and history entry) deleted, if it still holds `finished`. */
  private takeOut(finished: TaskRecord, now: number): boolean {
    const { sql } = this.connection;
    const row = sql.tasks.selectResult.get(this.alias, finished.id, now);
    if (!row || !isSameFinished(deserializeRecord(row.id, row.data), finished)) return false;
    sql.finished.deleteResult.run(this.alias, finished.id);
    return true;
  }
}
