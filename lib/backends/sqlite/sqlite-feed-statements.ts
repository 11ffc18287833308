import type { Database, Statement } from 'better-sqlite3';

/** A result row as the feed of finished tasks reads it. */
export interface FinishedRow {
  at: number;
  id: string;
  queue: string;
  status: string;
  name: string | null;
}

/**
 * The statements of the feed of finished tasks, prepared when the first
 * listener subscribes: results are inserted in commit order (one writer at a
 * time), so their rowid is a cursor over every process's finishes.
 *
 * @internal
 */
export class SqliteFeedStatements {
  readonly newest: Statement<[], { at: number; id: string }>;
  readonly since: Statement<[at: number, alias: string, limit: number], FinishedRow>;

  constructor(db: Database) {
    this.newest = db.prepare(
      `SELECT rowid AS at, id FROM threadmill_results ORDER BY rowid DESC LIMIT 1`,
    );
    // From the cursor's own row on: a removed newest result lets the next insert reuse its rowid.
    this.since = db.prepare(`
      SELECT rowid AS at, id, queue, status, json_extract(data, '$.task.name') AS name
      FROM threadmill_results WHERE rowid >= ? AND alias = ? ORDER BY rowid LIMIT ?`);
  }
}
