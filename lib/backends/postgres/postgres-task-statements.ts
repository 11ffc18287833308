import type { TaskState } from './postgres-schema';

/** A task row as the statements that lease, end or move it select it. */
export interface TaskRow {
  seq: number;
  id: string;
  queue: string;
  data: string;
  progress: string | null;
}

/** A task row with where it is and which pool holds it (cancel). */
export interface StateRow extends TaskRow {
  state: TaskState;
  pool: string | null;
}

/** A task or result row as a read returns it. */
export interface DataRow {
  id: string;
  data: string;
  progress: string | null;
}

/**
 * The statements of a task's own lifecycle for one schema (threadmill_enqueue
 * stores it): leased from its ready queue, and ended (a result stored, or
 * the row sent back ready or for its next attempt), plus the look-ups by id
 * that decide whether an id is taken or an outcome stale.
 * Every one is bound to an alias (`$1`).
 *
 * @internal
 */
export class PostgresTaskStatements {
  /** The best ready rows of a queue not paused, locked, skipping those another lease holds. */
  readonly selectReady: string;
  readonly markRunning: string;
  readonly markRetry: string;
  readonly markReady: string;
  /** A running row, locked (the lease decision is made for it). */
  readonly selectRunning: string;
  readonly selectTask: string;
  readonly deleteTask: string;
  readonly upsertResult: string;
  readonly selectResult: string;
  readonly updateProgress: string;

  constructor(s: string) {
    this.selectReady = `
      SELECT seq, id, queue, data, progress FROM ${s}.threadmill_tasks
      WHERE alias = $1 AND queue = $2 AND state = 'ready'
        AND NOT EXISTS (SELECT 1 FROM ${s}.threadmill_paused_queues p
          WHERE p.alias = $1 AND p.queue = $2)
      ORDER BY score, seq LIMIT $3
      FOR UPDATE SKIP LOCKED`;
    this.markRunning = `
      UPDATE ${s}.threadmill_tasks AS t
      SET state = 'running', lease_until = $2, pool = $3, attempts = u.attempts, data = u.data
      FROM unnest($4::text[], $5::integer[], $6::text[]) AS u(id, attempts, data)
      WHERE t.alias = $1 AND t.id = u.id`;
    this.markRetry = `
      UPDATE ${s}.threadmill_tasks
      SET state = $3, run_at = $4, lease_until = NULL, pool = NULL, attempts = $5, data = $6
      WHERE alias = $1 AND id = $2`;
    this.markReady = `
      UPDATE ${s}.threadmill_tasks
      SET state = 'ready', run_at = NULL, lease_until = NULL, pool = NULL, attempts = $3, data = $4
      WHERE alias = $1 AND id = $2`;
    this.selectRunning = `
      SELECT seq, id, queue, data, progress FROM ${s}.threadmill_tasks
      WHERE alias = $1 AND id = $2 AND state = 'running' FOR UPDATE`;
    this.selectTask = `
      SELECT id, data, progress FROM ${s}.threadmill_tasks WHERE alias = $1 AND id = $2`;
    this.deleteTask = `DELETE FROM ${s}.threadmill_tasks WHERE alias = $1 AND id = $2`;
    this.upsertResult = `
      INSERT INTO ${s}.threadmill_results
        (alias, id, queue, name, status, finished_at, expires_at, progress, data)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
      ON CONFLICT (alias, id) DO UPDATE SET
        queue = excluded.queue, name = excluded.name, status = excluded.status,
        finished_at = excluded.finished_at, expires_at = excluded.expires_at,
        progress = excluded.progress, data = excluded.data`;
    this.selectResult = `
      SELECT id, data, progress FROM ${s}.threadmill_results
      WHERE alias = $1 AND id = $2 AND expires_at > $3`;
    // Held by that very attempt: running, with as many worker ids (one per lease) as its number.
    this.updateProgress = `
      UPDATE ${s}.threadmill_tasks SET progress = $3
      WHERE alias = $1 AND id = $2 AND state = 'running' AND attempts = $4`;
  }
}
