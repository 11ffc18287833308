import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import type { CancelRequest, CancelResult, CancelRule } from '../../core/ports/control-store.port';
import { deserializeRecord, serializeRecord } from '../../core/task-serializer';
import { taskResultDoesNotExist } from '../../core/threadmill.messages';
import type { PostgresConnection } from './postgres-connection';
import type { CancelRequestRow, PostgresControlStatements } from './postgres-control-statements';
import type { PostgresRows } from './postgres-rows';
import type { DataRow, PostgresTaskStatements, StateRow } from './postgres-task-statements';

/**
 * Cancelling tasks of one PostgresBackend, each in one transaction with the
 * task's row locked: a waiting task leaves its queue and is stored
 * CANCELLED, a running one is marked (cancelRequestedAt) and gets a request
 * for the pool that holds it (`''` for a lease without a pool).
 *
 * @internal
 */
export class PostgresCancels {
  constructor(
    private readonly alias: string,
    private readonly connection: PostgresConnection,
    private readonly sql: PostgresControlStatements,
    private readonly tasks: PostgresTaskStatements,
    private readonly rows: PostgresRows,
  ) {}

  async cancel(id: string, decide: CancelRule): Promise<CancelResult> {
    const { alias } = this;
    return this.connection.transaction(async (tx): Promise<CancelResult> => {
      const now = this.connection.clock.now();
      const [row] = await tx.query<StateRow>(this.sql.selectTask, [alias, id]);
      if (!row) {
        const [result] = await tx.query<DataRow>(this.tasks.selectResult, [alias, id, now]);
        if (!result) throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, alias));
        return { outcome: 'already-final', record: deserializeRecord(id, result.data) };
      }
      const record = deserializeRecord(id, row.data);
      const decision = decide(record, row.state === 'running', new Date(now));
      if (decision.outcome === 'already-final') return { outcome: 'already-final', record };
      if (decision.outcome === 'requested') {
        await tx.query(this.sql.insertRequest, [
          alias,
          row.pool ?? '',
          id,
          now,
          record.workerIds.at(-1) ?? '',
        ]);
        const marked = decision.record;
        // In its record too, which every later read and lease returns (see TaskRecord).
        if (marked !== record) {
          await tx.query(this.sql.markRequested, [alias, id, serializeRecord(marked)]);
        }
        return { outcome: 'requested', record: marked, holder: row.pool };
      }
      await this.rows.finish(tx, decision.record, row, now);
      return { outcome: 'cancelled', record: decision.record };
    });
  }

  async requests(poolId: string): Promise<CancelRequest[]> {
    const rows = await this.connection.query<CancelRequestRow>(this.sql.selectRequests, [
      this.alias,
      poolId,
    ]);
    return rows.map((row) => ({
      id: row.id,
      requestedAt: new Date(row.requested_at),
      lease: row.lease,
    }));
  }

  async drop(poolId: string, requests: readonly CancelRequest[]): Promise<void> {
    if (requests.length === 0) return;
    await this.connection.query(this.sql.deleteRequests, [
      this.alias,
      poolId,
      requests.map((request) => request.id),
      requests.map((request) => request.lease),
    ]);
  }
}
