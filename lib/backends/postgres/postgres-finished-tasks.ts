import { isSameFinished } from '../../core/manual-retry';
import type { TaskRecord } from '../../core/task-record.interface';
import { deserializeRecord, serializeRecord } from '../../core/task-serializer';
import type { PostgresConnection, PostgresTx } from './postgres-connection';
import type { PostgresControlStatements } from './postgres-control-statements';
import type { PostgresNotices } from './postgres-notices';
import { readyScore } from './postgres-rows';
import type { PostgresUniqueKeys } from './postgres-unique-keys';

/**
 * Final tasks of one PostgresBackend retried or removed by hand, each in
 * one transaction, and only while the stored result (locked) is still the
 * one the caller read, so two retries of one task make one new attempt.
 *
 * @internal
 */
export class PostgresFinishedTasks {
  constructor(
    private readonly alias: string,
    private readonly connection: PostgresConnection,
    private readonly sql: PostgresControlStatements,
    private readonly uniqueKeys: PostgresUniqueKeys,
    private readonly notices: PostgresNotices,
  ) {}

  async retry(finished: TaskRecord, retried: TaskRecord): Promise<boolean> {
    return this.connection.transaction(async (tx) => {
      const now = this.connection.clock.now();
      if (!(await this.takeOut(tx, finished, now))) return false;
      await tx.query(this.sql.insertReady, [
        this.alias,
        retried.id,
        retried.task.queue,
        retried.task.name,
        readyScore(retried),
        retried.workerIds.length,
        serializeRecord(retried),
      ]);
      await this.uniqueKeys.takeBack(tx, retried, now);
      this.notices.work(tx, [retried.task.queue]);
      return true;
    });
  }

  async remove(finished: TaskRecord): Promise<boolean> {
    return this.connection.transaction(async (tx) => {
      if (!(await this.takeOut(tx, finished, this.connection.clock.now()))) return false;
      const key = finished.task.unique?.key;
      if (key !== undefined) await this.uniqueKeys.release(tx, key, finished.id);
      return true;
    });
  }

  /** The result row (record and history entry) deleted, if it still holds `finished`. */
  private async takeOut(tx: PostgresTx, finished: TaskRecord, now: number): Promise<boolean> {
    const [row] = await tx.query<{ id: string; data: string }>(this.sql.selectResultLocked, [
      this.alias,
      finished.id,
      now,
    ]);
    if (!row || !isSameFinished(deserializeRecord(row.id, row.data), finished)) return false;
    await tx.query(this.sql.deleteResult, [this.alias, finished.id]);
    return true;
  }
}
