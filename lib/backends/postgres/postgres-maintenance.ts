import type {
  EndAttempt,
  MaintenanceLimits,
  MaintenanceStore,
} from '../../core/ports/maintenance-store.port';
import type { ResolvedLimit, RetentionEntry } from '../../core/retention';
import { isRetry } from '../../core/retry-policy';
import type { TaskResultStatus } from '../../core/task-result-status.enum';
import type { PostgresBackendSettings } from './postgres-backend-options';
import type { PostgresConnection, PostgresTx } from './postgres-connection';
import type { PostgresNotices } from './postgres-notices';
import type { PostgresPoolStatements } from './postgres-pool-statements';
import type { PostgresRows } from './postgres-rows';
import { META_MAINTENANCE_HEARTBEAT } from './postgres-schema';
import type { TaskRow } from './postgres-task-statements';

/** Most rows one trim statement deletes, so a large backlog never holds its locks for long. */
const TRIM_BATCH = 10_000;

/** What the maintenance part is built from. */
export interface PostgresMaintenanceDeps {
  readonly alias: string;
  readonly settings: PostgresBackendSettings;
  readonly connection: PostgresConnection;
  readonly rows: PostgresRows;
  readonly pools: PostgresPoolStatements;
  readonly notices: PostgresNotices;
  readonly writeMeta: string;
  readonly forgetFreeKeys: (max: number) => Promise<number>;
}

/**
 * What a Postgres alias stores for the maintenance pass (the lifecycle's
 * runMaintenancePass decides; this applies). Each step reads, decides and
 * writes in one transaction, its rows locked FOR UPDATE SKIP LOCKED: a row
 * a worker is acknowledging at that moment is left to it, so no lease
 * changes between the decision and its write. Every time compared is the
 * server's (PostgresClock), so a pool on a host whose clock is off ends no
 * lease early and runs no deferred task early.
 *
 * @internal
 */
export class PostgresMaintenance implements MaintenanceStore {
  readonly limits: MaintenanceLimits;
  private readonly sql: Record<'promote' | 'expired' | 'trimFinished' | 'trimAll', string>;

  constructor(private readonly deps: PostgresMaintenanceDeps) {
    this.limits = deps.settings;
    const s = deps.settings.schema;
    this.sql = {
      promote: `
        UPDATE ${s}.threadmill_tasks t SET state = 'ready', run_at = NULL
        FROM (SELECT id FROM ${s}.threadmill_tasks
              WHERE alias = $1 AND queue = $2 AND state = 'deferred' AND run_at <= $3
              ORDER BY run_at, seq LIMIT $4 FOR UPDATE SKIP LOCKED) due
        WHERE t.alias = $1 AND t.id = due.id RETURNING t.queue`,
      expired: `
        SELECT seq, id, queue, data, progress FROM ${s}.threadmill_tasks
        WHERE alias = $1 AND queue = $2 AND state = 'running' AND lease_until <= $3
        ORDER BY lease_until, seq LIMIT $4 FOR UPDATE SKIP LOCKED`,
      // Older than the cutoff, or beyond the newest `keep` (null: all kept).
      trimFinished: `
        DELETE FROM ${s}.threadmill_results WHERE alias = $1 AND id IN (
          SELECT id FROM ${s}.threadmill_results
          WHERE alias = $1 AND queue = $2 AND status = $3
            AND (finished_at < $4 OR id NOT IN (
              SELECT id FROM ${s}.threadmill_results
              WHERE alias = $1 AND queue = $2 AND status = $3
              ORDER BY finished_at DESC, seq DESC LIMIT $5))
          LIMIT $6)
        RETURNING 1`,
      // Ingress counts older than $2 and expired results, and trimFinished of every queue and
      // status ($5..$8, parallel arrays; none for trimCounts) at once: the results of each are
      // bounded apart and gathered into one delete. The ingress counted apart (an app's
      // transaction) of whole seconds past is folded into the shared rows.
      trimAll: `
        WITH folded AS (
          DELETE FROM ${s}.threadmill_ingress_pending
          WHERE alias = $1 AND second < floor($3::bigint / 1000.0)
          RETURNING queue, second, count),
        merged AS (
          INSERT INTO ${s}.threadmill_ingress_counts AS c (alias, queue, second, count)
          SELECT $1, queue, second, sum(count) FROM folded
          WHERE second >= floor($2::bigint / 1000.0)
          GROUP BY queue, second
          ON CONFLICT (alias, queue, second) DO UPDATE SET count = c.count + excluded.count),
        ingress AS (
          DELETE FROM ${s}.threadmill_ingress_counts WHERE (alias, queue, second) IN (
            SELECT alias, queue, second FROM ${s}.threadmill_ingress_counts
            WHERE alias = $1 AND second < floor($2::bigint / 1000.0) LIMIT $4)
          RETURNING 1),
        results AS (
          DELETE FROM ${s}.threadmill_results WHERE alias = $1 AND id IN (
            (SELECT id FROM ${s}.threadmill_results WHERE alias = $1 AND expires_at <= $3 LIMIT $4)
            UNION ALL
            SELECT x.id FROM unnest($5::text[], $6::text[], $7::bigint[], $8::integer[])
              AS l(queue, status, cutoff, keep)
            CROSS JOIN LATERAL (
              SELECT id FROM ${s}.threadmill_results
              WHERE alias = $1 AND queue = l.queue AND status = l.status
                AND (finished_at < l.cutoff OR id NOT IN (
                  SELECT id FROM ${s}.threadmill_results
                  WHERE alias = $1 AND queue = l.queue AND status = l.status
                  ORDER BY finished_at DESC, seq DESC LIMIT l.keep))
              LIMIT $4) x)
          RETURNING 1)
        SELECT (SELECT count(*) FROM ingress) + (SELECT count(*) FROM results) AS trimmed`,
    };
  }

  async promoteDue(max: number): Promise<number> {
    const { alias, settings, connection, notices } = this.deps;
    return connection.transaction(async (tx) => {
      const now = connection.clock.now();
      let budget = max;
      for (const queue of settings.queues) {
        if (budget <= 0) break;
        const moved = await tx.query<{ queue: string }>(this.sql.promote, [
          alias,
          queue,
          now,
          budget,
        ]);
        budget -= moved.length;
        if (moved.length > 0) notices.work(tx, [queue]);
      }
      return max - budget;
    });
  }

  async endExpiredLeases(max: number, end: EndAttempt): Promise<number> {
    const { alias, settings, connection } = this.deps;
    return connection.transaction(async (tx) => {
      const now = connection.clock.now();
      let budget = max;
      for (const queue of settings.queues) {
        if (budget <= 0) break;
        const rows = await tx.query<TaskRow>(this.sql.expired, [alias, queue, now, budget]);
        for (const row of rows) await this.apply(tx, row, now, end);
        budget -= rows.length;
      }
      return max - budget;
    });
  }

  async lapsedPools(max: number, ownPoolId: string | undefined): Promise<string[]> {
    const { alias, connection, pools } = this.deps;
    const rows = await connection.query<{ pool: string }>(pools.selectLapsedPools, [
      alias,
      await connection.storeNow(),
      max,
    ]);
    return rows.map((row) => row.pool).filter((poolId) => poolId !== ownPoolId);
  }

  async endPoolAttempts(
    poolId: string,
    max: number,
    end: EndAttempt,
  ): Promise<{ ended: number; forgotten: boolean }> {
    const { alias, connection, pools } = this.deps;
    return connection.transaction(async (tx) => {
      const now = connection.clock.now();
      const rows = await tx.query<TaskRow>(pools.selectPoolTasks, [alias, poolId, max]);
      for (const row of rows) await this.apply(tx, row, now, end);
      const [left] = await tx.query<{ held: number }>(pools.countPoolTasks, [alias, poolId]);
      const forgotten = (left?.held ?? 0) === 0;
      if (forgotten) await tx.query(pools.deletePool, [alias, poolId]);
      return { ended: rows.length, forgotten };
    });
  }

  async trimFinished(
    queue: string,
    status: TaskResultStatus,
    limit: ResolvedLimit,
  ): Promise<number> {
    const { alias, connection } = this.deps;
    const rows = await connection.query(this.sql.trimFinished, [
      alias,
      queue,
      status,
      (await connection.storeNow()) - limit.maxAgeMs,
      limit.maxCount ?? null,
      TRIM_BATCH,
    ]);
    return rows.length;
  }

  trimCounts(): Promise<number> {
    return this.trimAll([]);
  }

  /** trimCounts and every trimFinished in one statement (each bounded by TRIM_BATCH). */
  async trimAll(entries: readonly RetentionEntry[]): Promise<number> {
    const { alias, connection, settings } = this.deps;
    const now = await connection.storeNow();
    const [row] = await connection.query<{ trimmed: number }>(this.sql.trimAll, [
      alias,
      now - settings.retention.longestMaxAgeMs,
      now,
      TRIM_BATCH,
      entries.map((entry) => entry.queue),
      entries.map((entry) => entry.status),
      entries.map((entry) => now - entry.limit.maxAgeMs),
      entries.map((entry) => entry.limit.maxCount),
    ]);
    return row?.trimmed ?? 0;
  }

  forgetFreeKeys(max: number): Promise<number> {
    return this.deps.forgetFreeKeys(max);
  }

  async markPass(): Promise<void> {
    const { alias, connection, writeMeta } = this.deps;
    const now = await connection.storeNow();
    await connection.query(writeMeta, [alias, META_MAINTENANCE_HEARTBEAT, String(now)]);
  }

  /** One held task's attempt ended as decided: back for its next attempt, or stored final. */
  private async apply(tx: PostgresTx, row: TaskRow, now: number, end: EndAttempt): Promise<void> {
    const { rows } = this.deps;
    const decided = end({ id: row.id, queue: row.queue, record: rows.decode(row) });
    // The decision's runAfter is on this process's clock: storeRetry reads its wait left on it.
    if (isRetry(decided)) await rows.storeRetry(tx, decided, row, this.deps.connection.clock.now());
    else await rows.finish(tx, decided, row, now);
  }
}
