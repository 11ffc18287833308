import type { Database, Statement } from 'better-sqlite3';

import {
  STATE_INDEX,
  STATE_ORDER,
  type DataRow,
  type TaskRow,
  type TaskState,
} from './sqlite-schema';

/**
 * The queue is not paused (bound to the alias and queue again). Part of the
 * lease's own statements, so nothing of a queue paused before them is taken;
 * it depends on no row, so SQLite evaluates it once per statement.
 */
const NOT_PAUSED = `NOT EXISTS (SELECT 1 FROM threadmill_paused_queues WHERE alias = ? AND queue = ?)`;

/**
 * The statements a task's own lifecycle runs, prepared once per connection:
 * stored (and counted as ingress), leased from its ready queue, and ended
 * (a result stored, or the row sent back ready or for its next attempt), plus
 * the look-ups by id that decide whether an id is taken or an outcome stale.
 *
 * @internal
 */
export class SqliteTaskStatements {
  readonly insertTask: Statement<
    [
      {
        alias: string;
        id: string;
        queue: string;
        state: TaskState;
        score: number;
        runAt: number | null;
        expiresAt: number;
        data: string;
      },
    ]
  >;
  /** Adds `count` tasks to a queue's ingress in one second. */
  readonly countIngress: Statement<[alias: string, queue: string, second: number, count: number]>;
  readonly hasReady: Statement<
    [alias: string, queue: string, now: number, pausedAlias: string, pausedQueue: string],
    number
  >;
  readonly selectReady: Statement<
    [
      alias: string,
      queue: string,
      now: number,
      pausedAlias: string,
      pausedQueue: string,
      limit: number,
    ],
    TaskRow
  >;
  readonly markRunning: Statement<
    [leaseUntil: number, expiresAt: number, data: string, pool: string | null, seq: number]
  >;
  readonly markRetry: Statement<
    [state: TaskState, runAt: number | null, expiresAt: number, data: string, seq: number]
  >;
  readonly selectRunning: Statement<[alias: string, id: string], TaskRow>;
  readonly deleteTask: Statement<[seq: number]>;
  readonly upsertResult: Statement<
    [
      {
        alias: string;
        id: string;
        queue: string;
        status: string;
        finishedAt: number;
        expiresAt: number;
        data: string;
        progress: string | null;
      },
    ]
  >;
  readonly markReady: Statement<[expiresAt: number, data: string, seq: number]>;
  readonly updateProgress: Statement<
    [progress: string, alias: string, id: string, attempt: number]
  >;
  readonly selectResult: Statement<[alias: string, id: string, now: number], DataRow>;
  readonly selectTask: Statement<[alias: string, id: string, now: number], DataRow>;

  constructor(db: Database) {
    this.insertTask = db.prepare(`
      INSERT INTO threadmill_tasks (alias, id, queue, state, score, run_at, lease_until, expires_at, data)
      VALUES (@alias, @id, @queue, @state, @score, @runAt, NULL, @expiresAt, @data)
      ON CONFLICT (alias, id) DO UPDATE SET
        queue = excluded.queue, state = excluded.state, score = excluded.score,
        run_at = excluded.run_at, lease_until = NULL, expires_at = excluded.expires_at, data = excluded.data`);
    this.countIngress = db.prepare(
      `INSERT INTO threadmill_ingress_counts (alias, queue, second, count) VALUES (?, ?, ?, ?)
       ON CONFLICT (alias, queue, second) DO UPDATE SET count = count + excluded.count`,
    );
    // Read without a write lock, so an idle consumer's check never blocks the producers.
    this.hasReady = db
      .prepare<[string, string, number, string, string], number>(
        `SELECT EXISTS (SELECT 1 FROM threadmill_tasks INDEXED BY ${STATE_INDEX.ready}
           WHERE alias = ? AND queue = ? AND state = 'ready' AND expires_at > ?)
           AND ${NOT_PAUSED}`,
      )
      .pluck();
    this.selectReady = db.prepare(`
      SELECT seq, id, queue, data FROM threadmill_tasks INDEXED BY ${STATE_INDEX.ready}
      WHERE alias = ? AND queue = ? AND state = 'ready' AND expires_at > ? AND ${NOT_PAUSED}
      ORDER BY ${STATE_ORDER.ready} LIMIT ?`);
    this.markRunning = db.prepare(`
      UPDATE threadmill_tasks SET state = 'running', lease_until = ?, expires_at = ?, data = ?, pool = ?
      WHERE seq = ?`);
    this.markRetry = db.prepare(`
      UPDATE threadmill_tasks SET state = ?, run_at = ?, lease_until = NULL, pool = NULL,
        expires_at = ?, data = ?
      WHERE seq = ?`);
    this.selectRunning = db.prepare(`
      SELECT seq, id, queue, data, progress FROM threadmill_tasks
      WHERE alias = ? AND id = ? AND state = 'running'`);
    this.deleteTask = db.prepare(`DELETE FROM threadmill_tasks WHERE seq = ?`);
    this.upsertResult = db.prepare(`
      INSERT INTO threadmill_results (alias, id, queue, status, finished_at, expires_at, data, progress)
      VALUES (@alias, @id, @queue, @status, @finishedAt, @expiresAt, @data, @progress)
      ON CONFLICT (alias, id) DO UPDATE SET
        queue = excluded.queue, status = excluded.status, finished_at = excluded.finished_at,
        expires_at = excluded.expires_at, data = excluded.data, progress = excluded.progress`);
    this.markReady = db.prepare(`
      UPDATE threadmill_tasks SET state = 'ready', lease_until = NULL, pool = NULL, expires_at = ?, data = ?
      WHERE seq = ?`);
    this.selectResult = db.prepare(
      `SELECT id, data, progress FROM threadmill_results WHERE alias = ? AND id = ? AND expires_at > ?`,
    );
    this.selectTask = db.prepare(
      `SELECT id, data, progress FROM threadmill_tasks WHERE alias = ? AND id = ? AND expires_at > ?`,
    );
    // Held by that very attempt: running, and its worker ids (one per lease) as many as its number.
    this.updateProgress = db.prepare(`
      UPDATE threadmill_tasks SET progress = ?
      WHERE alias = ? AND id = ? AND state = 'running' AND json_array_length(data, '$.workerIds') = ?`);
  }
}
