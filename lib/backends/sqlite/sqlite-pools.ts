import type { Transaction } from 'better-sqlite3';

import type { SqliteConnection } from './sqlite-connection';

/**
 * The heartbeats of a SqliteBackend's worker pools: a live pool's deadline
 * moves on, a stopped pool is forgotten. The maintenance pass recovers the
 * tasks of a pool whose deadline lapsed. Roles are leased the same way.
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

  /** Whether `holder` holds `role` now, its lease renewed until `ttlMs` from now. */
  claimRole(role: string, holder: string, ttlMs: number): boolean {
    const { pools } = this.connection.sql;
    const now = Date.now();
    const { changes } = this.connection.guard(() =>
      pools.claimRole.run({ alias: this.alias, role, holder, expiresAt: now + ttlMs, now }),
    );
    return changes > 0;
  }

  retire(poolId: string): void {
    this.connection.guard(() => this.retirePoolTx.immediate(poolId, Date.now()));
  }
}
