import type { Database, Statement } from 'better-sqlite3';

import type { TaskRow } from './sqlite-schema';

/** A pool row as the list of pools reads it. */
export interface PoolRow {
  id: string;
  deadline: number;
  beatAt: number | null;
  info: string | null;
  held: number;
}

/**
 * The statements on worker pools, prepared once per connection: a pool's
 * heartbeat deadline, the pools whose deadline lapsed, and the running tasks
 * a pool holds (so a dead pool's tasks are found through one index range),
 * each pool's last beat and info, and the roles pools claim.
 *
 * @internal
 */
export class SqlitePoolStatements {
  readonly selectPoolTasks: Statement<[alias: string, pool: string, limit: number], TaskRow>;
  readonly countPoolTasks: Statement<[alias: string, pool: string], number>;
  readonly upsertPool: Statement<[alias: string, pool: string, deadline: number]>;
  readonly beatPool: Statement<
    [{ alias: string; pool: string; deadline: number; beatAt: number; info: string | null }]
  >;
  readonly selectPools: Statement<[alias: string, limit: number], PoolRow>;
  readonly selectLapsedPools: Statement<[alias: string, now: number, limit: number], string>;
  readonly deletePool: Statement<[alias: string, pool: string]>;
  readonly claimRole: Statement<
    [{ alias: string; role: string; holder: string; expiresAt: number; now: number }]
  >;

  constructor(db: Database) {
    this.selectPoolTasks = db.prepare(`
      SELECT seq, id, queue, data, progress FROM threadmill_tasks INDEXED BY threadmill_tasks_pool
      WHERE alias = ? AND pool = ? AND state = 'running' AND pool IS NOT NULL
      ORDER BY seq LIMIT ?`);
    this.countPoolTasks = db
      .prepare<[string, string], number>(
        `SELECT COUNT(*) FROM threadmill_tasks
         WHERE alias = ? AND pool = ? AND state = 'running' AND pool IS NOT NULL`,
      )
      .pluck();
    this.upsertPool = db.prepare(`
      INSERT INTO threadmill_pools (alias, pool, deadline) VALUES (?, ?, ?)
      ON CONFLICT (alias, pool) DO UPDATE SET deadline = excluded.deadline`);
    // Info sent replaces the stored one; a beat without keeps it.
    this.beatPool = db.prepare(`
      INSERT INTO threadmill_pools (alias, pool, deadline, beat_at, info)
      VALUES (:alias, :pool, :deadline, :beatAt, :info)
      ON CONFLICT (alias, pool) DO UPDATE SET deadline = excluded.deadline,
        beat_at = excluded.beat_at, info = COALESCE(excluded.info, threadmill_pools.info)`);
    this.selectPools = db.prepare(`
      SELECT pool AS id, deadline, beat_at AS beatAt, info,
        (SELECT COUNT(*) FROM threadmill_tasks AS t
         WHERE t.alias = p.alias AND t.pool = p.pool AND t.state = 'running' AND t.pool IS NOT NULL)
        AS held
      FROM threadmill_pools AS p WHERE alias = ? ORDER BY pool LIMIT ?`);
    this.selectLapsedPools = db
      .prepare<[string, number, number], string>(
        `SELECT pool FROM threadmill_pools WHERE alias = ? AND deadline <= ?
         ORDER BY deadline LIMIT ?`,
      )
      .pluck();
    this.deletePool = db.prepare(`DELETE FROM threadmill_pools WHERE alias = ? AND pool = ?`);
    // Changes one row when the claimant holds the role now; none while another's lease runs.
    this.claimRole = db.prepare(`
      INSERT INTO threadmill_roles (alias, role, holder, expires_at)
      VALUES (:alias, :role, :holder, :expiresAt)
      ON CONFLICT (alias, role) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
      WHERE threadmill_roles.holder = excluded.holder OR threadmill_roles.expires_at <= :now`);
  }
}
