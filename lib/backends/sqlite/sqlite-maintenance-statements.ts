import type { Database, Statement } from 'better-sqlite3';

import { STATE_INDEX, STATE_ORDER, type TaskRow } from './sqlite-schema';

/** Most rows one trim statement deletes, so a large backlog never holds the write lock for long. */
export const TRIM_BATCH = 10_000;

/**
 * The statements only the maintenance pass runs, prepared once per
 * connection: due deferred tasks promoted, expired leases found, old ingress
 * events and results trimmed, and the pass's heartbeat written.
 *
 * @internal
 */
export class SqliteMaintenanceStatements {
  readonly selectDue: Statement<
    [alias: string, queue: string, now: number, limit: number],
    TaskRow
  >;
  readonly promote: Statement<[expiresAt: number, seq: number]>;
  readonly selectExpiredLeases: Statement<
    [alias: string, queue: string, now: number, limit: number],
    TaskRow
  >;
  readonly trimIngress: Statement<[alias: string, cutoff: number, limit: number]>;
  readonly trimResults: Statement<[alias: string, now: number, limit: number]>;
  /** The results of one queue and status older than `cutoff`, or beyond the newest `keep` (-1: all kept). */
  readonly trimFinished: Statement<
    [{ alias: string; queue: string; status: string; cutoff: number; keep: number; limit: number }]
  >;
  readonly writeMeta: Statement<[alias: string, key: string, value: string]>;

  constructor(db: Database) {
    this.selectDue = db.prepare(`
      SELECT seq, id, queue, data FROM threadmill_tasks INDEXED BY ${STATE_INDEX.deferred}
      WHERE alias = ? AND queue = ? AND state = 'deferred' AND run_at <= ?
      ORDER BY ${STATE_ORDER.deferred} LIMIT ?`);
    this.promote = db.prepare(`
      UPDATE threadmill_tasks SET state = 'ready', run_at = NULL, expires_at = ? WHERE seq = ?`);
    this.selectExpiredLeases = db.prepare(`
      SELECT seq, id, queue, data, progress FROM threadmill_tasks INDEXED BY ${STATE_INDEX.running}
      WHERE alias = ? AND queue = ? AND state = 'running' AND lease_until <= ?
      ORDER BY ${STATE_ORDER.running} LIMIT ?`);
    this.trimIngress = db.prepare(`
      DELETE FROM threadmill_ingress_counts WHERE (alias, queue, second) IN (
        SELECT alias, queue, second FROM threadmill_ingress_counts
        WHERE alias = ? AND second < CAST(? / 1000 AS INTEGER) LIMIT ?)`);
    this.trimResults = db.prepare(`
      DELETE FROM threadmill_results WHERE rowid IN (
        SELECT rowid FROM threadmill_results WHERE alias = ? AND expires_at <= ? LIMIT ?)`);
    this.trimFinished = db.prepare(`
      DELETE FROM threadmill_results WHERE rowid IN (
        SELECT rowid FROM threadmill_results
        WHERE alias = @alias AND queue = @queue AND status = @status
          AND (finished_at < @cutoff OR rowid NOT IN (
            SELECT rowid FROM threadmill_results
            WHERE alias = @alias AND queue = @queue AND status = @status
            ORDER BY finished_at DESC LIMIT @keep))
        LIMIT @limit)`);
    this.writeMeta = db.prepare(`
      INSERT INTO threadmill_meta (alias, key, value) VALUES (?, ?, ?)
      ON CONFLICT (alias, key) DO UPDATE SET value = excluded.value`);
  }
}
