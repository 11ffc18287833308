/** A pool row as the list of pools reads it. */
export interface PoolRow {
  id: string;
  deadline: number;
  beat_at: number | null;
  info: string | null;
  held: number;
}

/**
 * The statements on worker pools and roles, for one schema: a pool's
 * heartbeat deadline (its info stored with a beat), the pools whose deadline
 * lapsed, the running tasks a pool holds (one index range), a pool
 * forgotten with its cancel requests, and the roles pools claim.
 *
 * @internal
 */
export class PostgresPoolStatements {
  readonly beatPool: string;
  readonly lapsePool: string;
  readonly selectPools: string;
  readonly selectLapsedPools: string;
  readonly selectPoolTasks: string;
  readonly countPoolTasks: string;
  readonly deletePool: string;
  readonly claimRole: string;

  constructor(s: string) {
    // Info sent replaces the stored one; a beat without keeps it.
    this.beatPool = `
      INSERT INTO ${s}.threadmill_pools (alias, pool, deadline, beat_at, info)
      VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (alias, pool) DO UPDATE SET deadline = excluded.deadline,
        beat_at = excluded.beat_at, info = COALESCE(excluded.info, threadmill_pools.info)`;
    this.lapsePool = `
      INSERT INTO ${s}.threadmill_pools (alias, pool, deadline) VALUES ($1, $2, $3)
      ON CONFLICT (alias, pool) DO UPDATE SET deadline = excluded.deadline`;
    this.selectPools = `
      SELECT p.pool AS id, p.deadline, p.beat_at, p.info,
        (SELECT count(*) FROM ${s}.threadmill_tasks t
         WHERE t.alias = p.alias AND t.pool = p.pool AND t.state = 'running') AS held
      FROM ${s}.threadmill_pools p WHERE p.alias = $1 ORDER BY p.pool LIMIT $2`;
    this.selectLapsedPools = `
      SELECT pool FROM ${s}.threadmill_pools WHERE alias = $1 AND deadline <= $2
      ORDER BY deadline LIMIT $3`;
    // Locked, skipping rows another step holds: the next pass takes what this one skipped.
    this.selectPoolTasks = `
      SELECT seq, id, queue, data, progress FROM ${s}.threadmill_tasks
      WHERE alias = $1 AND pool = $2 AND state = 'running'
      ORDER BY seq LIMIT $3 FOR UPDATE SKIP LOCKED`;
    this.countPoolTasks = `
      SELECT count(*) AS held FROM ${s}.threadmill_tasks
      WHERE alias = $1 AND pool = $2 AND state = 'running'`;
    this.deletePool = `
      WITH gone AS (DELETE FROM ${s}.threadmill_pools WHERE alias = $1 AND pool = $2 RETURNING pool)
      DELETE FROM ${s}.threadmill_cancels c USING gone WHERE c.alias = $1 AND c.pool = gone.pool`;
    // A row back when the claimant holds the role now; none while another's lease runs.
    this.claimRole = `
      INSERT INTO ${s}.threadmill_roles (alias, role, holder, expires_at) VALUES ($1, $2, $3, $4)
      ON CONFLICT (alias, role) DO UPDATE
        SET holder = excluded.holder, expires_at = excluded.expires_at
        WHERE threadmill_roles.holder = excluded.holder OR threadmill_roles.expires_at <= $5
      RETURNING 1`;
  }
}
