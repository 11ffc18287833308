import { POOLS_LISTED_MAX, encodePoolInfo, poolStatuses } from '../pool-status';
import type { PoolStore } from '../../core/ports/pool-store.port';
import type { PoolInfo, PoolStatus } from '../../core/task-listing';
import type { PostgresConnection } from './postgres-connection';
import type { PoolRow, PostgresPoolStatements } from './postgres-pool-statements';
import { PostgresSessions } from './postgres-sessions';

/**
 * The heartbeats of a PostgresBackend's worker pools: a live pool's deadline
 * moves on (its info stored with the beat), a stopped pool is forgotten. The
 * maintenance pass recovers the tasks of a pool whose deadline lapsed. Roles
 * are leased the same way, each claim one statement. A dead process's
 * sessions are ended on the server (PostgresSessions).
 *
 * @internal
 */
export class PostgresPools implements PoolStore {
  private readonly sessions: PostgresSessions;

  constructor(
    private readonly alias: string,
    private readonly connection: PostgresConnection,
    private readonly sql: PostgresPoolStatements,
  ) {
    this.sessions = new PostgresSessions(connection);
  }

  async beat(poolId: string, ttlMs: number, info?: PoolInfo): Promise<void> {
    const now = await this.connection.storeNow();
    await this.connection.query(this.sql.beatPool, [
      this.alias,
      poolId,
      now + ttlMs,
      now,
      info ? encodePoolInfo(info) : null,
    ]);
  }

  async retire(poolId: string): Promise<void> {
    await this.connection.transaction(async (tx) => {
      const [row] = await tx.query<{ held: number }>(this.sql.countPoolTasks, [this.alias, poolId]);
      // A pool that still holds tasks (a release that failed) lapses now, so the next pass recovers them.
      if ((row?.held ?? 0) > 0)
        await tx.query(this.sql.lapsePool, [this.alias, poolId, this.connection.clock.now()]);
      else await tx.query(this.sql.deletePool, [this.alias, poolId]);
    }, false);
  }

  async list(): Promise<PoolStatus[]> {
    const rows = await this.connection.query<PoolRow>(this.sql.selectPools, [
      this.alias,
      POOLS_LISTED_MAX,
    ]);
    const stored = rows.map((row) => ({
      id: row.id,
      deadlineMs: row.deadline,
      beatAtMs: row.beat_at,
      info: row.info,
      held: row.held,
    }));
    // Deadlines are on the server's clock; the times shown are on this process's.
    return poolStatuses(stored, await this.connection.storeNow(), Date.now());
  }

  async claimRole(role: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = await this.connection.storeNow();
    const rows = await this.connection.query(this.sql.claimRole, [
      this.alias,
      role,
      holder,
      now + ttlMs,
      now,
    ]);
    return rows.length > 0;
  }

  endSessionsOf(pid: number, waitMs: number): Promise<boolean> {
    return this.sessions.endSessionsOf(pid, waitMs);
  }
}
