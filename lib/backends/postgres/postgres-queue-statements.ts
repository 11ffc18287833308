/**
 * The statements on a queue's own state for one schema: which queues are
 * paused, their limits, and what the limits count (running tasks, starts
 * within a rate window). Acquire reads the paused state inside its lease
 * statement (PostgresTaskStatements.selectReady).
 *
 * @internal
 */
export class PostgresQueueStatements {
  /** The queue's pause lock (shared by a lease, exclusive for a pause) and its stored limits. */
  readonly enterQueue: string;
  readonly lockExclusive = `SELECT pg_advisory_xact_lock($1::bigint)`;
  /** The queue's limit lock, and then the server's clock (ms), which every pool's rate window is on. */
  readonly lockLimit = `SELECT pg_advisory_xact_lock($1::bigint) AS locked,
    floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms`;
  readonly insertPaused: string;
  readonly deletePaused: string;
  readonly selectPaused: string;
  readonly upsertLimits: string;
  readonly seedLimits: string;
  readonly selectLimits: string;
  readonly countRunning: string;
  readonly trimStarts: string;
  readonly selectStarts: string;
  readonly insertStarts: string;

  constructor(s: string) {
    this.enterQueue = `
      SELECT pg_advisory_xact_lock_shared($3::bigint) AS locked,
        (SELECT limits FROM ${s}.threadmill_queue_limits WHERE alias = $1 AND queue = $2) AS limits`;
    this.insertPaused = `
      INSERT INTO ${s}.threadmill_paused_queues (alias, queue) VALUES ($1, $2)
      ON CONFLICT DO NOTHING`;
    this.deletePaused = `
      DELETE FROM ${s}.threadmill_paused_queues WHERE alias = $1 AND queue = $2 RETURNING queue`;
    this.selectPaused = `SELECT queue FROM ${s}.threadmill_paused_queues WHERE alias = $1`;
    this.upsertLimits = `
      INSERT INTO ${s}.threadmill_queue_limits (alias, queue, limits) VALUES ($1, $2, $3)
      ON CONFLICT (alias, queue) DO UPDATE SET limits = excluded.limits`;
    this.seedLimits = `
      INSERT INTO ${s}.threadmill_queue_limits (alias, queue, limits)
      SELECT $1, q, l FROM unnest($2::text[], $3::text[]) AS u(q, l)
      ON CONFLICT DO NOTHING`;
    this.selectLimits = `SELECT queue, limits FROM ${s}.threadmill_queue_limits WHERE alias = $1`;
    this.countRunning = `
      SELECT count(*) AS running FROM ${s}.threadmill_tasks
      WHERE alias = $1 AND queue = $2 AND state = 'running'`;
    this.trimStarts = `
      DELETE FROM ${s}.threadmill_queue_starts WHERE alias = $1 AND queue = $2 AND at <= $3`;
    this.selectStarts = `
      SELECT at FROM ${s}.threadmill_queue_starts WHERE alias = $1 AND queue = $2 ORDER BY at`;
    this.insertStarts = `
      INSERT INTO ${s}.threadmill_queue_starts (alias, queue, at)
      SELECT $1, $2, $3 FROM generate_series(1, $4::integer)`;
  }
}
