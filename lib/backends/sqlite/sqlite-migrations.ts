/**
 * The SQLite backend's migrations, in order (the layout they build is
 * described in sqlite-schema.ts).
 *
 * @internal
 */

/** Bumped with every entry appended to MIGRATIONS; stored in `PRAGMA user_version`. */
export const SQLITE_SCHEMA_VERSION = 14;

/**
 * MIGRATIONS[n] moves a database from user_version n to n + 1. Entries are
 * append-only: a released one is never edited, so every file can be upgraded.
 */
export const MIGRATIONS: readonly string[] = [
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
  // 3: schedules. A pass finds the due ones through one range of the
  // next-tick index; a paused schedule has no next tick, so it is not in it.
  `
  CREATE TABLE threadmill_schedules (
    alias          TEXT    NOT NULL,
    id             TEXT    NOT NULL,
    definition     TEXT    NOT NULL,
    origin         TEXT    NOT NULL CHECK (origin IN ('declared', 'runtime')),
    paused         INTEGER NOT NULL,
    next_tick      INTEGER,
    last_tick      INTEGER,
    last_task_id   TEXT,
    PRIMARY KEY (alias, id)
  );
  CREATE INDEX threadmill_schedules_due ON threadmill_schedules (alias, next_tick)
    WHERE next_tick IS NOT NULL;
  `,
  // 4: unique keys. A key's row names its holder; whether it still holds is
  // read from the holder's own row in the transaction that enqueues, so a
  // row whose holder ended needs no write to stop holding.
  `
  CREATE TABLE threadmill_unique_keys (
    alias      TEXT    NOT NULL,
    key        TEXT    NOT NULL,
    holder     TEXT    NOT NULL,
    mode       TEXT    NOT NULL,
    window_end INTEGER,
    PRIMARY KEY (alias, key)
  );
  `,
  // 5: paused queues. Stored, so every pool of the file (and one started
  // later) stops leasing a queue's tasks; acquire reads it in the lease's own statement.
  `
  CREATE TABLE threadmill_paused_queues (
    alias TEXT NOT NULL,
    queue TEXT NOT NULL,
    PRIMARY KEY (alias, queue)
  );
  `,
  // 6: cancelling. CANCELLED is a final status (a CHECK cannot be altered, so
  // the results table is rebuilt), and a running task's cancel request waits
  // in threadmill_cancels for the pool that holds it; a forgotten pool's go with it.
  `
  CREATE TABLE threadmill_results_v6 (
    alias       TEXT    NOT NULL,
    id          TEXT    NOT NULL,
    queue       TEXT    NOT NULL,
    status      TEXT    NOT NULL CHECK (status IN ('SUCCESSFUL', 'FAILED', 'CANCELLED')),
    finished_at INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    data        TEXT    NOT NULL,
    PRIMARY KEY (alias, id)
  );
  INSERT INTO threadmill_results_v6 SELECT alias, id, queue, status, finished_at, expires_at, data
    FROM threadmill_results;
  DROP TABLE threadmill_results;
  ALTER TABLE threadmill_results_v6 RENAME TO threadmill_results;
  CREATE INDEX threadmill_results_history ON threadmill_results (alias, queue, status, finished_at, expires_at);
  CREATE INDEX threadmill_results_expiry  ON threadmill_results (alias, expires_at);

  CREATE TABLE threadmill_cancels (
    alias        TEXT    NOT NULL,
    pool         TEXT    NOT NULL,
    id           TEXT    NOT NULL,
    requested_at INTEGER NOT NULL,
    PRIMARY KEY (alias, pool, id)
  );
  CREATE TRIGGER threadmill_pools_forgotten AFTER DELETE ON threadmill_pools BEGIN
    DELETE FROM threadmill_cancels WHERE alias = OLD.alias AND pool = OLD.pool;
  END;
  `,
  // 7: queue limits, as encodeLimits writes them ("0 0 0" for cleared), and
  // the start times a rate-limited queue's sliding window counts. Both are
  // read and written in the lease's own transaction.
  `
  CREATE TABLE threadmill_queue_limits (
    alias  TEXT NOT NULL,
    queue  TEXT NOT NULL,
    limits TEXT NOT NULL,
    PRIMARY KEY (alias, queue)
  );
  CREATE TABLE threadmill_queue_starts (
    alias TEXT    NOT NULL,
    queue TEXT    NOT NULL,
    at    INTEGER NOT NULL
  );
  CREATE INDEX threadmill_queue_starts_window ON threadmill_queue_starts (alias, queue, at);
  `,
  // 8: task progress, as storedProgress writes it ([attempt, value] JSON):
  // written on a running task's row, carried to its result when it finishes.
  `
  ALTER TABLE threadmill_tasks ADD COLUMN progress TEXT;
  ALTER TABLE threadmill_results ADD COLUMN progress TEXT;
  `,
  // 9: roles. One row per role names its holder until `expires_at`; a
  // claim takes the row when it is free, lapsed or already the claimant's.
  `
  CREATE TABLE threadmill_roles (
    alias      TEXT    NOT NULL,
    role       TEXT    NOT NULL,
    holder     TEXT    NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (alias, role)
  );
  `,
  // 10: live task events. A listener's row says it listens until
  // `expires_at` (renewed while it does); the steps that lease a task or
  // store its progress append an event only while one is live, and keep
  // the newest rows only, so nobody listening costs one indexed read.
  `
  CREATE TABLE threadmill_live_listeners (
    alias      TEXT    NOT NULL,
    listener   TEXT    NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (alias, listener)
  );
  CREATE TABLE threadmill_live_events (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    alias    TEXT NOT NULL,
    event    TEXT NOT NULL,
    id       TEXT NOT NULL,
    queue    TEXT NOT NULL,
    name     TEXT NOT NULL,
    progress TEXT
  );
  CREATE INDEX threadmill_live_events_alias ON threadmill_live_events (alias, seq);
  `,
  // 11: a pool's last beat and what it says of itself (PoolInfo JSON), for the list of pools.
  `
  ALTER TABLE threadmill_pools ADD COLUMN beat_at INTEGER;
  ALTER TABLE threadmill_pools ADD COLUMN info TEXT;
  `,
  // 12: ingress counted per queue and second, as on Redis: one upsert per queue per enqueue
  // step instead of a row and two index entries per task, so a small batch's commit writes a
  // page of it. The rows kept so far are counted into it.
  `
  CREATE TABLE threadmill_ingress_counts (
    alias  TEXT    NOT NULL,
    queue  TEXT    NOT NULL,
    second INTEGER NOT NULL,
    count  INTEGER NOT NULL,
    PRIMARY KEY (alias, queue, second)
  ) WITHOUT ROWID;
  CREATE INDEX threadmill_ingress_counts_age ON threadmill_ingress_counts (alias, second);
  INSERT INTO threadmill_ingress_counts (alias, queue, second, count)
    SELECT alias, queue, at / 1000, COUNT(*) FROM threadmill_ingress GROUP BY alias, queue, at / 1000;
  DROP TABLE threadmill_ingress;
  `,
  // 13: a cancel request names the lease it was made for (the worker id that lease recorded):
  // only that lease's holder acts on it. Earlier requests name none ('').
  `
  ALTER TABLE threadmill_cancels ADD COLUMN lease TEXT NOT NULL DEFAULT '';
  `,
  // 14: a schedule records the app that declared or added it, so apps sharing a file each sync
  // only their own declared schedules. Rows stored before have none (NULL: the default app's).
  `
  ALTER TABLE threadmill_schedules ADD COLUMN app TEXT;
  `,
];
