import type { Database, Statement } from 'better-sqlite3';

/**
 * The statements on a queue's own state, prepared once per connection: which
 * queues are paused, their limits, and what the limits count (running tasks,
 * starts within a rate window). Acquire reads the paused state inside its lease
 * statements (SqliteTaskStatements), not through these.
 *
 * @internal
 */
export class SqliteQueueStatements {
  readonly insertPaused: Statement<[alias: string, queue: string]>;
  readonly deletePaused: Statement<[alias: string, queue: string]>;
  readonly selectPaused: Statement<[alias: string], string>;
  readonly upsertLimits: Statement<[alias: string, queue: string, limits: string]>;
  readonly seedLimits: Statement<[alias: string, queue: string, limits: string]>;
  readonly selectLimits: Statement<[alias: string], { queue: string; limits: string }>;
  readonly selectQueueLimits: Statement<[alias: string, queue: string], string>;
  readonly countRunning: Statement<[alias: string, queue: string], number>;
  readonly trimStarts: Statement<[alias: string, queue: string, before: number]>;
  readonly selectStarts: Statement<[alias: string, queue: string], number>;
  readonly insertStart: Statement<[alias: string, queue: string, at: number]>;

  constructor(db: Database) {
    this.insertPaused = db.prepare(
      `INSERT INTO threadmill_paused_queues (alias, queue) VALUES (?, ?) ON CONFLICT DO NOTHING`,
    );
    this.deletePaused = db.prepare(
      `DELETE FROM threadmill_paused_queues WHERE alias = ? AND queue = ?`,
    );
    this.selectPaused = db
      .prepare<[string], string>(`SELECT queue FROM threadmill_paused_queues WHERE alias = ?`)
      .pluck();
    this.upsertLimits = db.prepare(
      `INSERT INTO threadmill_queue_limits (alias, queue, limits) VALUES (?, ?, ?)
       ON CONFLICT DO UPDATE SET limits = excluded.limits`,
    );
    this.seedLimits = db.prepare(
      `INSERT INTO threadmill_queue_limits (alias, queue, limits) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
    );
    this.selectLimits = db.prepare(
      `SELECT queue, limits FROM threadmill_queue_limits WHERE alias = ?`,
    );
    this.selectQueueLimits = db
      .prepare<[string, string], string>(
        `SELECT limits FROM threadmill_queue_limits WHERE alias = ? AND queue = ?`,
      )
      .pluck();
    this.countRunning = db
      .prepare<[string, string], number>(
        `SELECT COUNT(*) FROM threadmill_tasks WHERE alias = ? AND queue = ? AND state = 'running'`,
      )
      .pluck();
    this.trimStarts = db.prepare(
      `DELETE FROM threadmill_queue_starts WHERE alias = ? AND queue = ? AND at <= ?`,
    );
    this.selectStarts = db
      .prepare<[string, string], number>(
        `SELECT at FROM threadmill_queue_starts WHERE alias = ? AND queue = ? ORDER BY at`,
      )
      .pluck();
    this.insertStart = db.prepare(
      `INSERT INTO threadmill_queue_starts (alias, queue, at) VALUES (?, ?, ?)`,
    );
  }
}
