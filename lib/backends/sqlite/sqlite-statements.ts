import type { Database, Statement } from 'better-sqlite3';

/**
 * The only place SQL is written for the SQLite backend (as `RedisKeys` is for
 * Redis keys): the schema, its migrations and every statement, prepared once
 * per connection.
 *
 * Layout. One database file can hold several aliases, so every row carries its
 * `alias` and every index leads with it (the counterpart of the `{alias}` hash
 * tag). The Redis sorted sets become states of one `threadmill_tasks` row, each
 * with a partial index ordered the way its ZSET is scored:
 *
 * | table | holds |
 * | --- | --- |
 * | `threadmill_tasks` | unfinished tasks; `state` ready (by `score`, then `seq` = FIFO within one score), deferred (by `run_at`) or running (by `lease_until`) |
 * | `threadmill_results` | finished tasks (the result *and* the per-status history), by `finished_at`, until `expires_at` |
 * | `threadmill_ingress` | one row per enqueue (ingress rate), trimmed to `resultTtl` |
 * | `threadmill_meta` | per-alias values such as the maintenance heartbeat |
 * | `threadmill_pools` | live worker pools by heartbeat deadline; a running task's `pool` names its holder |
 *
 * @internal
 */

/** Bumped with every entry appended to MIGRATIONS; stored in `PRAGMA user_version`. */
export const SQLITE_SCHEMA_VERSION = 2;

/**
 * MIGRATIONS[n] moves a database from user_version n to n + 1. Entries are
 * append-only: a released one is never edited, so every file can be upgraded.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE threadmill_tasks (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    alias       TEXT    NOT NULL,
    id          TEXT    NOT NULL,
    queue       TEXT    NOT NULL,
    state       TEXT    NOT NULL CHECK (state IN ('ready', 'running', 'deferred')),
    score       INTEGER NOT NULL,
    run_at      INTEGER,
    lease_until INTEGER,
    expires_at  INTEGER NOT NULL,
    data        TEXT    NOT NULL,
    UNIQUE (alias, id)
  );
  CREATE INDEX threadmill_tasks_ready    ON threadmill_tasks (alias, queue, score, seq)  WHERE state = 'ready';
  CREATE INDEX threadmill_tasks_deferred ON threadmill_tasks (alias, queue, run_at, seq) WHERE state = 'deferred';
  CREATE INDEX threadmill_tasks_running  ON threadmill_tasks (alias, queue, lease_until, seq) WHERE state = 'running';
  CREATE INDEX threadmill_tasks_expiry   ON threadmill_tasks (alias, expires_at);
  CREATE INDEX threadmill_tasks_counts   ON threadmill_tasks (alias, queue, state, expires_at);

  CREATE TABLE threadmill_results (
    alias       TEXT    NOT NULL,
    id          TEXT    NOT NULL,
    queue       TEXT    NOT NULL,
    status      TEXT    NOT NULL CHECK (status IN ('SUCCESSFUL', 'FAILED')),
    finished_at INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    data        TEXT    NOT NULL,
    PRIMARY KEY (alias, id)
  );
  CREATE INDEX threadmill_results_history ON threadmill_results (alias, queue, status, finished_at, expires_at);
  CREATE INDEX threadmill_results_expiry  ON threadmill_results (alias, expires_at);

  CREATE TABLE threadmill_ingress (
    alias TEXT    NOT NULL,
    queue TEXT    NOT NULL,
    at    INTEGER NOT NULL
  );
  CREATE INDEX threadmill_ingress_window ON threadmill_ingress (alias, queue, at);
  CREATE INDEX threadmill_ingress_age    ON threadmill_ingress (alias, at);

  CREATE TABLE threadmill_meta (
    alias TEXT NOT NULL,
    key   TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (alias, key)
  );
  `,
  // 2: worker pools. A running task records the pool that holds it, and each
  // pool's heartbeat deadline lives in threadmill_pools, so any pool's maintenance pass
  // can recover a dead pool's tasks through one index range (its own tasks only).
  `
  ALTER TABLE threadmill_tasks ADD COLUMN pool TEXT;
  CREATE INDEX threadmill_tasks_pool ON threadmill_tasks (alias, pool, seq)
    WHERE state = 'running' AND pool IS NOT NULL;

  CREATE TABLE threadmill_pools (
    alias    TEXT    NOT NULL,
    pool     TEXT    NOT NULL,
    deadline INTEGER NOT NULL,
    PRIMARY KEY (alias, pool)
  );
  CREATE INDEX threadmill_pools_deadline ON threadmill_pools (alias, deadline);
  `,
];

/** Which ordered segment a peek reads; the finished ones come from the results table. */
export type TaskState = 'ready' | 'running' | 'deferred';

/** What a state row is ordered by, oldest/best first (the ZSET score of the Redis layout). */
const ORDER_BY: Record<TaskState, string> = {
  ready: 'score, seq',
  running: 'lease_until, seq',
  deferred: 'run_at, seq',
};

/**
 * The partial index that serves each state in that order. Named explicitly:
 * left to itself the planner prefers the expiry index and sorts every
 * waiting task on each acquire (O(n) instead of O(log n)).
 */
const INDEX: Record<TaskState, string> = {
  ready: 'threadmill_tasks_ready',
  running: 'threadmill_tasks_running',
  deferred: 'threadmill_tasks_deferred',
};

export interface TaskRow {
  seq: number;
  id: string;
  queue: string;
  data: string;
}

export interface DataRow {
  id: string;
  data: string;
}

/** Meta keys; written once here so the maintenance pass and readers agree (stored names, kept as first released). */
export const META_MAINTENANCE_HEARTBEAT = 'broker_heartbeat';

/** Most rows one trim statement deletes, so a large backlog never holds the write lock for long. */
export const TRIM_BATCH = 10_000;

/**
 * Connection-level settings. WAL lets readers (the idle check, peek,
 * telemetry) run beside the one writer; the busy timeout makes a writer wait
 * for another process's short transaction instead of failing with SQLITE_BUSY.
 */
export function configureConnection(
  db: Database,
  busyTimeoutMs: number,
  synchronous: 'NORMAL' | 'FULL',
): void {
  db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  // Switching to WAL needs a moment of exclusive access; the busy timeout above covers a racing process.
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('foreign_keys = OFF');
}

/**
 * Brings the schema to SQLITE_SCHEMA_VERSION inside BEGIN IMMEDIATE, so the
 * pool's processes opening one new file at once migrate it exactly once.
 */
export function migrate(db: Database): void {
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    for (let version = current; version < MIGRATIONS.length; version++) {
      db.exec(MIGRATIONS[version]);
    }
    if (current < MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
  }).immediate();
}

/** The schema version a file is at (tests and diagnostics). */
export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Every statement the backend runs, prepared once per connection. */
export class SqliteStatements {
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
  readonly insertIngress: Statement<[alias: string, queue: string, at: number]>;
  readonly hasReady: Statement<[alias: string, queue: string, now: number], number>;
  readonly selectReady: Statement<
    [alias: string, queue: string, now: number, limit: number],
    TaskRow
  >;
  readonly markRunning: Statement<
    [leaseUntil: number, expiresAt: number, data: string, pool: string | null, seq: number]
  >;
  readonly markRetry: Statement<
    [state: TaskState, runAt: number | null, expiresAt: number, data: string, seq: number]
  >;
  readonly selectPoolTasks: Statement<[alias: string, pool: string, limit: number], TaskRow>;
  readonly countPoolTasks: Statement<[alias: string, pool: string], number>;
  readonly upsertPool: Statement<[alias: string, pool: string, deadline: number]>;
  readonly selectLapsedPools: Statement<[alias: string, now: number, limit: number], string>;
  readonly deletePool: Statement<[alias: string, pool: string]>;
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
      },
    ]
  >;
  readonly markReady: Statement<[expiresAt: number, data: string, seq: number]>;
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
  readonly countIngress: Statement<[alias: string, queue: string, since: number], number>;
  readonly selectResult: Statement<[alias: string, id: string, now: number], DataRow>;
  readonly selectTask: Statement<[alias: string, id: string, now: number], DataRow>;
  readonly writeMeta: Statement<[alias: string, key: string, value: string]>;
  readonly readMeta: Statement<[alias: string, key: string], string>;
  readonly ping: Statement<[], number>;

  constructor(db: Database) {
    this.insertTask = db.prepare(`
      INSERT INTO threadmill_tasks (alias, id, queue, state, score, run_at, lease_until, expires_at, data)
      VALUES (@alias, @id, @queue, @state, @score, @runAt, NULL, @expiresAt, @data)
      ON CONFLICT (alias, id) DO UPDATE SET
        queue = excluded.queue, state = excluded.state, score = excluded.score,
        run_at = excluded.run_at, lease_until = NULL, expires_at = excluded.expires_at, data = excluded.data`);
    this.insertIngress = db.prepare(
      `INSERT INTO threadmill_ingress (alias, queue, at) VALUES (?, ?, ?)`,
    );
    // Read without a write lock, so an idle consumer's check never blocks the producers.
    this.hasReady = db
      .prepare<[string, string, number], number>(
        `SELECT EXISTS (SELECT 1 FROM threadmill_tasks INDEXED BY ${INDEX.ready}
           WHERE alias = ? AND queue = ? AND state = 'ready' AND expires_at > ?)`,
      )
      .pluck();
    this.selectReady = db.prepare(`
      SELECT seq, id, queue, data FROM threadmill_tasks INDEXED BY ${INDEX.ready}
      WHERE alias = ? AND queue = ? AND state = 'ready' AND expires_at > ?
      ORDER BY ${ORDER_BY.ready} LIMIT ?`);
    this.markRunning = db.prepare(`
      UPDATE threadmill_tasks SET state = 'running', lease_until = ?, expires_at = ?, data = ?, pool = ?
      WHERE seq = ?`);
    this.markRetry = db.prepare(`
      UPDATE threadmill_tasks SET state = ?, run_at = ?, lease_until = NULL, pool = NULL,
        expires_at = ?, data = ?
      WHERE seq = ?`);
    this.selectPoolTasks = db.prepare(`
      SELECT seq, id, queue, data FROM threadmill_tasks INDEXED BY threadmill_tasks_pool
      WHERE alias = ? AND pool = ? AND state = 'running' AND pool IS NOT NULL
      ORDER BY seq LIMIT ?`);
    this.countPoolTasks = db
      .prepare<[string, string], number>(
        `SELECT COUNT(*) FROM threadmill_tasks
         WHERE alias = ? AND pool = ? AND state = 'running' AND pool IS NOT NULL`,
      )
      .pluck();
    this.upsertPool = db.prepare(`
      INSERT INTO threadmill_pools (alias, pool, deadline) VALUES (?, ?, ?)
      ON CONFLICT (alias, pool) DO UPDATE SET deadline = excluded.deadline`);
    this.selectLapsedPools = db
      .prepare<[string, number, number], string>(
        `SELECT pool FROM threadmill_pools WHERE alias = ? AND deadline <= ?
         ORDER BY deadline LIMIT ?`,
      )
      .pluck();
    this.deletePool = db.prepare(`DELETE FROM threadmill_pools WHERE alias = ? AND pool = ?`);
    this.selectRunning = db.prepare(`
      SELECT seq, id, queue, data FROM threadmill_tasks
      WHERE alias = ? AND id = ? AND state = 'running'`);
    this.deleteTask = db.prepare(`DELETE FROM threadmill_tasks WHERE seq = ?`);
    this.upsertResult = db.prepare(`
      INSERT INTO threadmill_results (alias, id, queue, status, finished_at, expires_at, data)
      VALUES (@alias, @id, @queue, @status, @finishedAt, @expiresAt, @data)
      ON CONFLICT (alias, id) DO UPDATE SET
        queue = excluded.queue, status = excluded.status, finished_at = excluded.finished_at,
        expires_at = excluded.expires_at, data = excluded.data`);
    this.markReady = db.prepare(`
      UPDATE threadmill_tasks SET state = 'ready', lease_until = NULL, pool = NULL, expires_at = ?, data = ?
      WHERE seq = ?`);
    this.selectDue = db.prepare(`
      SELECT seq, id, queue, data FROM threadmill_tasks INDEXED BY ${INDEX.deferred}
      WHERE alias = ? AND queue = ? AND state = 'deferred' AND run_at <= ?
      ORDER BY ${ORDER_BY.deferred} LIMIT ?`);
    this.promote = db.prepare(`
      UPDATE threadmill_tasks SET state = 'ready', run_at = NULL, expires_at = ? WHERE seq = ?`);
    this.selectExpiredLeases = db.prepare(`
      SELECT seq, id, queue, data FROM threadmill_tasks INDEXED BY ${INDEX.running}
      WHERE alias = ? AND queue = ? AND state = 'running' AND lease_until <= ?
      ORDER BY ${ORDER_BY.running} LIMIT ?`);
    this.trimIngress = db.prepare(`
      DELETE FROM threadmill_ingress WHERE rowid IN (
        SELECT rowid FROM threadmill_ingress WHERE alias = ? AND at < ? LIMIT ?)`);
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
    const peekTask = (state: TaskState) =>
      db.prepare<[string, string, number, number], DataRow>(`
        SELECT id, data FROM threadmill_tasks INDEXED BY ${INDEX[state]}
        WHERE alias = ? AND queue = ? AND state = '${state}' AND expires_at > ?
        ORDER BY ${ORDER_BY[state]} LIMIT ?`);
    this.peekTasks = {
      ready: peekTask('ready'),
      running: peekTask('running'),
      deferred: peekTask('deferred'),
    };
    // Newest first: what an operator looking at history wants to see.
    this.peekResults = db.prepare(`
      SELECT id, data FROM threadmill_results
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
             ${countFinished('FAILED', '@windowStart')} AS failedInWindow`);
    this.countIngress = db
      .prepare<[string, string, number], number>(
        `SELECT COUNT(*) FROM threadmill_ingress WHERE alias = ? AND queue = ? AND at >= ?`,
      )
      .pluck();
    this.selectResult = db.prepare(
      `SELECT id, data FROM threadmill_results WHERE alias = ? AND id = ? AND expires_at > ?`,
    );
    this.selectTask = db.prepare(
      `SELECT id, data FROM threadmill_tasks WHERE alias = ? AND id = ? AND expires_at > ?`,
    );
    this.writeMeta = db.prepare(`
      INSERT INTO threadmill_meta (alias, key, value) VALUES (?, ?, ?)
      ON CONFLICT (alias, key) DO UPDATE SET value = excluded.value`);
    this.readMeta = db
      .prepare<[string, string], string>(
        `SELECT value FROM threadmill_meta WHERE alias = ? AND key = ?`,
      )
      .pluck();
    this.ping = db.prepare<[], number>(`SELECT 1`).pluck();
  }
}

export interface CountRow {
  ready: number;
  running: number;
  deferred: number;
}

export interface ResultCountRow {
  successful: number;
  failed: number;
  successfulInWindow: number;
  failedInWindow: number;
}
