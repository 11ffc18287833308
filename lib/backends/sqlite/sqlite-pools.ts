import type { Transaction } from 'better-sqlite3';
import { POOLS_LISTED_MAX, encodePoolInfo, poolStatuses } from '../pool-status';
import type { PoolInfo, PoolStatus } from '../../core/task-listing';
import type { SqliteConnection } from './sqlite-connection';

/**
 * The heartbeats of a SqliteBackend's worker pools: a live pool's deadline
 * moves on (its info stored with the beat), a stopped pool is forgotten. The maintenance pass recovers the
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

  beat(poolId: string, ttlMs: number, info: PoolInfo | undefined): void {
    const { pools } = this.connection.sql;
    const now = Date.now();
    this.connection.guard(() =>
      pools.beatPool.run({
        alias: this.alias,
        pool: poolId,
        deadline: now + ttlMs,
        beatAt: now,
        info: info ? encodePoolInfo(info) : null,
      }),
    );
  }

  /** The pools of the alias (see TaskBackend.pools), read in one statement. */
  list(): PoolStatus[] {
    const { pools } = this.connection.sql;
    const rows = this.connection.guard(() => pools.selectPools.all(this.alias, POOLS_LISTED_MAX));
    const stored = rows.map((row) => ({
      id: row.id,
      deadlineMs: row.deadline,
      beatAtMs: row.beatAt,
      info: row.info,
      held: row.held,
    }));
    return poolStatuses(stored, Date.now());
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
