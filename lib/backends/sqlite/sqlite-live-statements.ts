import type { Database, Statement } from 'better-sqlite3';

/** Most live events a file keeps: a listener further behind than this loses the oldest. */
export const LIVE_EVENTS_KEPT = 10_000;

/** A live event row as the feed reads it. */
export interface LiveEventRow {
  seq: number;
  event: string;
  id: string;
  queue: string;
  name: string;
  progress: string | null;
}

/**
 * The statements of live task events, prepared once per connection: the
 * listener rows (the counterpart of Redis's listener mark), the check the
 * writing steps make, the append that keeps only the newest
 * LIVE_EVENTS_KEPT rows, and the cursor a listener reads by.
 *
 * @internal
 */
export class SqliteLiveStatements {
  readonly listened: Statement<[alias: string, now: number], { one: number }>;
  readonly append: Statement<
    [alias: string, event: string, id: string, queue: string, name: string, progress: string | null]
  >;
  readonly trim: Statement<[kept: number]>;
  readonly mark: Statement<[alias: string, listener: string, expiresAt: number]>;
  readonly unmark: Statement<[alias: string, listener: string]>;
  readonly forgetLapsed: Statement<[alias: string, now: number]>;
  readonly newest: Statement<[], { seq: number }>;
  readonly since: Statement<[alias: string, seq: number, limit: number], LiveEventRow>;

  constructor(db: Database) {
    this.listened = db.prepare(`
      SELECT 1 AS one FROM threadmill_live_listeners WHERE alias = ? AND expires_at > ? LIMIT 1`);
    this.append = db.prepare(`
      INSERT INTO threadmill_live_events (alias, event, id, queue, name, progress)
      VALUES (?, ?, ?, ?, ?, ?)`);
    // Whole file: rows of every alias count towards the bound, oldest first (a rowid range).
    this.trim = db.prepare(
      `DELETE FROM threadmill_live_events WHERE seq <= last_insert_rowid() - ?`,
    );
    this.mark = db.prepare(`
      INSERT INTO threadmill_live_listeners (alias, listener, expires_at) VALUES (?, ?, ?)
      ON CONFLICT (alias, listener) DO UPDATE SET expires_at = excluded.expires_at`);
    this.unmark = db.prepare(
      `DELETE FROM threadmill_live_listeners WHERE alias = ? AND listener = ?`,
    );
    this.forgetLapsed = db.prepare(
      `DELETE FROM threadmill_live_listeners WHERE alias = ? AND expires_at <= ?`,
    );
    this.newest = db.prepare(`SELECT seq FROM threadmill_live_events ORDER BY seq DESC LIMIT 1`);
    this.since = db.prepare(`
      SELECT seq, event, id, queue, name, progress FROM threadmill_live_events
      WHERE alias = ? AND seq > ? ORDER BY seq LIMIT ?`);
  }
}
