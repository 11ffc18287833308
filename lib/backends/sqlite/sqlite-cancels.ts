import type { Transaction } from 'better-sqlite3';
import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import type { CancelRequest, CancelResult, CancelRule } from '../../core/ports/control-store.port';
import { deserializeRecord, serializeRecord } from '../../core/task-serializer';
import { taskResultDoesNotExist } from '../../core/threadmill.messages';
import type { SqliteConnection } from './sqlite-connection';
import type { SqliteRows } from './sqlite-rows';

/**
 * Cancelling tasks of one SqliteBackend, each in one write transaction: a
 * waiting task leaves its queue and is stored CANCELLED, a running one is
 * marked (cancelRequestedAt) and gets a request for the pool that holds it
 * (`''` for a lease without a pool), which that pool's children poll.
 *
 * @internal
 */
export class SqliteCancels {
  private readonly cancelTx: Transaction<
    (id: string, decide: CancelRule, now: number) => CancelResult
  >;
  private readonly dropTx: Transaction<
    (poolId: string, requests: readonly CancelRequest[]) => void
  >;

  constructor(
    private readonly alias: string,
    private readonly connection: SqliteConnection,
    private readonly rows: SqliteRows,
  ) {
    const { db, sql } = connection;
    this.cancelTx = db.transaction((id: string, decide: CancelRule, now: number): CancelResult => {
      const row = sql.cancels.selectTask.get(alias, id);
      if (!row) {
        const result = sql.tasks.selectResult.get(alias, id, now);
        if (!result) throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, alias));
        return { outcome: 'already-final', record: deserializeRecord(id, result.data) };
      }
      const record = deserializeRecord(id, row.data);
      const decision = decide(record, row.state === 'running', new Date(now));
      if (decision.outcome === 'already-final') return { outcome: 'already-final', record };
      if (decision.outcome === 'requested') {
        sql.cancels.insertRequest.run(
          alias,
          row.pool ?? '',
          id,
          now,
          record.workerIds.at(-1) ?? '',
        );
        const marked = decision.record;
        // In its record too, which every later read and lease returns (see TaskRecord).
        if (marked !== record) sql.cancels.markRequested.run(serializeRecord(marked), row.seq);
        return { outcome: 'requested', record: marked, holder: row.pool };
      }
      this.rows.finish(decision.record, row, now);
      return { outcome: 'cancelled', record: decision.record };
    });
    this.dropTx = db.transaction((poolId: string, requests: readonly CancelRequest[]) => {
      for (const { id, lease } of requests) sql.cancels.deleteRequest.run(alias, poolId, id, lease);
    });
  }

  cancel(id: string, decide: CancelRule): CancelResult {
    return this.connection.guard(() => this.cancelTx.immediate(id, decide, Date.now()));
  }

  requests(poolId: string): CancelRequest[] {
    const { cancels } = this.connection.sql;
    return this.connection
      .guard(() => cancels.selectRequests.all(this.alias, poolId))
      .map((row) => ({ id: row.id, requestedAt: new Date(row.requestedAt), lease: row.lease }));
  }

  drop(poolId: string, requests: readonly CancelRequest[]): void {
    if (requests.length === 0) return;
    this.connection.guard(() => this.dropTx.immediate(poolId, requests));
  }
}
