import type { Database, Statement } from 'better-sqlite3';

import type { TaskRow, TaskState } from './sqlite-schema';

/** A task row as a cancel reads it: where it is, and the pool that holds it when running. */
export interface CancelRow extends TaskRow {
  state: TaskState;
  pool: string | null;
}

/** A cancel request as a pool's poll reads it. */
export interface CancelRequestRow {
  id: string;
  requestedAt: number;
  lease: string;
}

/**
 * The statements of cancelling, prepared once per connection: the task
 * looked up in whatever state it is, a running one's record marked with its
 * cancel, and the cancel requests addressed to the pools (a forgotten pool's go with it, by a trigger of the schema).
 *
 * @internal
 */
export class SqliteCancelStatements {
  readonly selectTask: Statement<[alias: string, id: string], CancelRow>;
  readonly insertRequest: Statement<
    [alias: string, pool: string, id: string, requestedAt: number, lease: string]
  >;
  readonly selectRequests: Statement<[alias: string, pool: string], CancelRequestRow>;
  readonly deleteRequest: Statement<[alias: string, pool: string, id: string, lease: string]>;
  readonly markRequested: Statement<[data: string, seq: number]>;

  constructor(db: Database) {
    this.selectTask = db.prepare(`
      SELECT seq, id, queue, data, progress, state, pool FROM threadmill_tasks WHERE alias = ? AND id = ?`);
    // The first request for a lease keeps its time (its age bounds how long it waits to be
    // handled); a request for a later lease of the task replaces it.
    this.insertRequest = db.prepare(`
      INSERT INTO threadmill_cancels (alias, pool, id, requested_at, lease) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (alias, pool, id) DO UPDATE
        SET requested_at = excluded.requested_at, lease = excluded.lease
        WHERE lease <> excluded.lease`);
    this.selectRequests = db.prepare(`
      SELECT id, requested_at AS requestedAt, lease FROM threadmill_cancels
      WHERE alias = ? AND pool = ? ORDER BY requested_at LIMIT 1000`);
    this.deleteRequest = db.prepare(
      `DELETE FROM threadmill_cancels WHERE alias = ? AND pool = ? AND id = ? AND lease = ?`,
    );
    this.markRequested = db.prepare(`UPDATE threadmill_tasks SET data = ? WHERE seq = ?`);
  }
}
