import type { Database, Statement } from 'better-sqlite3';

/**
 * The statements on a queue's own state, prepared once per connection: which
 * queues are paused. Acquire reads the paused state inside its lease
 * statements (SqliteTaskStatements), not through these.
 *
 * @internal
 */
export class SqliteQueueStatements {
  readonly insertPaused: Statement<[alias: string, queue: string]>;
  readonly deletePaused: Statement<[alias: string, queue: string]>;
  readonly selectPaused: Statement<[alias: string], string>;

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
  }
}
