import type { Transaction } from 'better-sqlite3';

import type { SqliteConnection } from './sqlite-connection';

/**
 * The heartbeats of a SqliteBackend's worker pools: a live pool's deadline
 * moves on, a stopped pool is forgotten. The maintenance pass recovers the
 * tasks of a pool whose deadline lapsed.
 *
 * @internal
 */
export class SqlitePools {
  private readonly retirePoolTx: Transaction<(poolId: string, now: number) => void>;

  constructor(
    private readonly alias: string,
    private readonly connection: SqliteConnection,
  ) {
    const { pools } = connection.sql;
    this.retirePoolTx = connection.db.transaction((poolId: string, now: number) => {
      // A pool that still holds tasks (a release that failed) lapses now, so the next pass recovers them.
      if ((pools.countPoolTasks.get(this.alias, poolId) ?? 0) > 0) {
        pools.upsertPool.run(this.alias, poolId, now);
      } else {
        pools.deletePool.run(this.alias, poolId);
      }
    });
  }

  beat(poolId: string, ttlMs: number): void {
    const { pools } = this.connection.sql;
    this.connection.guard(() => pools.upsertPool.run(this.alias, poolId, Date.now() + ttlMs));
  }

  retire(poolId: string): void {
    this.connection.guard(() => this.retirePoolTx.immediate(poolId, Date.now()));
  }
}
