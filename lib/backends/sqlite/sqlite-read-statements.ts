import type { Database, Statement } from 'better-sqlite3';

import { STATE_INDEX, STATE_ORDER, type DataRow, type TaskState } from './sqlite-schema';

/** How many live tasks one queue has in each state. */
export interface CountRow {
  ready: number;
  running: number;
  deferred: number;
}

/** How many results one queue keeps, and how many of them finished within the telemetry window. */
export interface ResultCountRow {
  successful: number;
  failed: number;
  successfulInWindow: number;
  failedInWindow: number;
  cancelled: number;
  cancelledInWindow: number;
}

/**
 * The statements that only read, prepared once per connection: peek,
 * telemetry counts, the maintenance heartbeat and the ping. None takes the
 * write lock.
 *
 * @internal
 */
export class SqliteReadStatements {
  readonly peekTasks: Record<
    TaskState,
    Statement<[alias: string, queue: string, now: number, limit: number], DataRow>
  >;
  readonly peekResults: Statement<
    [alias: string, queue: string, status: string, since: number, now: number, limit: number],
    DataRow
  >;
  readonly countTasks: Statement<[{ alias: string; queue: string; now: number }], CountRow>;
  readonly countResults: Statement<
    [{ alias: string; queue: string; since: number; now: number; windowStart: number }],
    ResultCountRow
  >;
  /** Tasks enqueued since a time (ms): a second the window covers in part counts in proportion. */
  readonly countIngress: Statement<[{ alias: string; queue: string; since: number }], number>;
  readonly readMeta: Statement<[alias: string, key: string], string>;
  readonly ping: Statement<[], number>;

  constructor(db: Database) {
    const peekTask = (state: TaskState) =>
      db.prepare<[string, string, number, number], DataRow>(`
        SELECT id, data, progress FROM threadmill_tasks INDEXED BY ${STATE_INDEX[state]}
        WHERE alias = ? AND queue = ? AND state = '${state}' AND expires_at > ?
        ORDER BY ${STATE_ORDER[state]} LIMIT ?`);
    this.peekTasks = {
      ready: peekTask('ready'),
      running: peekTask('running'),
      deferred: peekTask('deferred'),
    };
    // Newest first: what an operator looking at history wants to see.
    this.peekResults = db.prepare(`
      SELECT id, data, progress FROM threadmill_results
      WHERE alias = ? AND queue = ? AND status = ? AND finished_at >= ? AND expires_at > ?
      ORDER BY finished_at DESC, rowid DESC LIMIT ?`);
    // One index range per number (covering indexes): telemetry stays cheap with a large backlog.
    const countState = (state: TaskState) =>
      `(SELECT COUNT(*) FROM threadmill_tasks
         WHERE alias = @alias AND queue = @queue AND state = '${state}' AND expires_at > @now)`;
    this.countTasks = db.prepare(`
      SELECT ${countState('ready')} AS ready, ${countState('running')} AS running,
             ${countState('deferred')} AS deferred`);
    const countFinished = (status: string, since: string) =>
      `(SELECT COUNT(*) FROM threadmill_results
         WHERE alias = @alias AND queue = @queue AND status = '${status}'
           AND finished_at >= ${since} AND expires_at > @now)`;
    this.countResults = db.prepare(`
      SELECT ${countFinished('SUCCESSFUL', '@since')} AS successful,
             ${countFinished('FAILED', '@since')} AS failed,
             ${countFinished('SUCCESSFUL', '@windowStart')} AS successfulInWindow,
             ${countFinished('FAILED', '@windowStart')} AS failedInWindow,
             ${countFinished('CANCELLED', '@since')} AS cancelled,
             ${countFinished('CANCELLED', '@windowStart')} AS cancelledInWindow`);
    this.countIngress = db
      .prepare<[{ alias: string; queue: string; since: number }], number>(
        `SELECT COALESCE(ROUND(SUM(count * MIN(1.0, (second * 1000 + 1000 - :since) / 1000.0))), 0)
         FROM threadmill_ingress_counts
         WHERE alias = :alias AND queue = :queue AND second >= CAST(:since / 1000 AS INTEGER)`,
      )
      .pluck();
    this.readMeta = db
      .prepare<[string, string], string>(
        `SELECT value FROM threadmill_meta WHERE alias = ? AND key = ?`,
      )
      .pluck();
    this.ping = db.prepare<[], number>(`SELECT 1`).pluck();
  }
}
