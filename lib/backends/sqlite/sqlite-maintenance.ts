import type { Database, Transaction } from 'better-sqlite3';

import { isRetry } from '../../core/retry-policy';
import type { TaskResultStatus } from '../../core/task-result-status.enum';
import type { ResolvedLimit } from '../../core/retention';
import type {
  EndAttempt,
  MaintenanceLimits,
  MaintenanceStore,
} from '../../core/ports/maintenance-store.port';
import type { SqliteBackendSettings } from './sqlite-backend-options';
import { TRIM_BATCH, type SqliteMaintenanceStatements } from './sqlite-maintenance-statements';
import type { SqlitePoolStatements } from './sqlite-pool-statements';
import { LIVE_TASK_EXPIRES_AT, type SqliteRows } from './sqlite-rows';
import { META_MAINTENANCE_HEARTBEAT, type TaskRow } from './sqlite-schema';

export interface SqliteMaintenanceDeps {
  readonly alias: string;
  readonly settings: SqliteBackendSettings;
  readonly db: Database;
  readonly sql: SqliteMaintenanceStatements;
  readonly pools: SqlitePoolStatements;
  readonly rows: SqliteRows;
  /** Runs a database call: a closed backend or a SQLite failure is a typed error (SqliteConnection.guard). */
  readonly guard: <T>(run: () => T) => T;
  /** Tasks became ready: waiting consumers of this process look again. */
  readonly workAdded: () => void;
  /** Rows of unique keys that no longer hold dropped, at most `max`; how many went. */
  readonly forgetFreeKeys: (max: number) => number;
}

/**
 * What a SQLite alias stores for the maintenance pass (the lifecycle's
 * runMaintenancePass decides; this applies). Each step reads, decides and
 * writes in one `BEGIN IMMEDIATE` transaction, so no lease changes between
 * the decision and its write. The store's clock is this machine's, which
 * every process of the file shares.
 */
export class SqliteMaintenance implements MaintenanceStore {
  private readonly promoteTx: Transaction<(now: number, max: number) => number>;
  private readonly endExpiredTx: Transaction<(now: number, max: number, end: EndAttempt) => number>;
  private readonly endPoolTx: Transaction<
    (
      poolId: string,
      now: number,
      max: number,
      end: EndAttempt,
    ) => { ended: number; forgotten: boolean }
  >;
  private readonly trimTx: Transaction<(now: number) => number>;

  readonly limits: MaintenanceLimits;

  constructor(private readonly deps: SqliteMaintenanceDeps) {
    this.limits = deps.settings;
    const { db } = deps;
    this.promoteTx = db.transaction((now: number, max: number) => this.promote(now, max));
    this.endExpiredTx = db.transaction((now: number, max: number, end: EndAttempt) =>
      this.endExpired(now, max, end),
    );
    this.endPoolTx = db.transaction((poolId: string, now: number, max: number, end: EndAttempt) =>
      this.endPool(poolId, now, max, end),
    );
    this.trimTx = db.transaction((now: number) => this.trimOld(now));
  }

  async promoteDue(max: number): Promise<number> {
    return this.withWork(this.deps.guard(() => this.promoteTx.immediate(Date.now(), max)));
  }

  async endExpiredLeases(max: number, end: EndAttempt): Promise<number> {
    return this.withWork(this.deps.guard(() => this.endExpiredTx.immediate(Date.now(), max, end)));
  }

  async lapsedPools(max: number, ownPoolId: string | undefined): Promise<string[]> {
    const { pools, alias } = this.deps;
    const lapsed = this.deps.guard(() => pools.selectLapsedPools.all(alias, Date.now(), max));
    return lapsed.filter((poolId) => poolId !== ownPoolId);
  }

  async endPoolAttempts(
    poolId: string,
    max: number,
    end: EndAttempt,
  ): Promise<{ ended: number; forgotten: boolean }> {
    const outcome = this.deps.guard(() => this.endPoolTx.immediate(poolId, Date.now(), max, end));
    this.withWork(outcome.ended);
    return outcome;
  }

  async forgetFreeKeys(max: number): Promise<number> {
    return this.deps.forgetFreeKeys(max);
  }

  async trimFinished(
    queue: string,
    status: TaskResultStatus,
    limit: ResolvedLimit,
  ): Promise<number> {
    const { sql, alias } = this.deps;
    return this.deps.guard(
      () =>
        sql.trimFinished.run({
          alias,
          queue,
          status,
          cutoff: Date.now() - limit.maxAgeMs,
          keep: limit.maxCount ?? -1,
          limit: TRIM_BATCH,
        }).changes,
    );
  }

  async trimCounts(): Promise<number> {
    return this.deps.guard(() => this.trimTx.immediate(Date.now()));
  }

  async markPass(): Promise<void> {
    const { sql, alias } = this.deps;
    this.deps.guard(() => sql.writeMeta.run(alias, META_MAINTENANCE_HEARTBEAT, String(Date.now())));
  }

  private withWork(count: number): number {
    if (count > 0) this.deps.workAdded();
    return count;
  }

  private promote(now: number, max: number): number {
    const { sql, alias, settings } = this.deps;
    let budget = max;
    for (const queue of settings.queues) {
      if (budget <= 0) break;
      for (const row of sql.selectDue.all(alias, queue, now, budget)) {
        sql.promote.run(LIVE_TASK_EXPIRES_AT, row.seq);
        budget--;
      }
    }
    return max - budget;
  }

  private endExpired(now: number, max: number, end: EndAttempt): number {
    const { sql, alias, settings } = this.deps;
    let budget = max;
    for (const queue of settings.queues) {
      if (budget <= 0) break;
      for (const row of sql.selectExpiredLeases.all(alias, queue, now, budget)) {
        budget--;
        this.apply(row, now, end);
      }
    }
    return max - budget;
  }

  private endPool(
    poolId: string,
    now: number,
    max: number,
    end: EndAttempt,
  ): { ended: number; forgotten: boolean } {
    const { pools, alias } = this.deps;
    const rows = pools.selectPoolTasks.all(alias, poolId, max);
    for (const row of rows) this.apply(row, now, end);
    const forgotten = (pools.countPoolTasks.get(alias, poolId) ?? 0) === 0;
    if (forgotten) pools.deletePool.run(alias, poolId);
    return { ended: rows.length, forgotten };
  }

  /** One held task's attempt ended as decided: back for its next attempt, or stored final. */
  private apply(row: TaskRow, now: number, end: EndAttempt): void {
    const { rows } = this.deps;
    const decided = end({ id: row.id, queue: row.queue, record: rows.decode(row) });
    // The decision read this process's clock after `now`: its wait is counted from the decision.
    if (isRetry(decided)) rows.storeRetry(decided, row, Date.now());
    else rows.finish(decided, row, now);
  }

  /** Ingress events older than the longest retention, and results past their expiry. */
  private trimOld(now: number): number {
    const { sql, alias, settings } = this.deps;
    return (
      sql.trimIngress.run(alias, now - settings.retention.longestMaxAgeMs, TRIM_BATCH).changes +
      sql.trimResults.run(alias, now, TRIM_BATCH).changes
    );
  }
}
