import type { PoolClient } from 'pg';
import { UnsupportedStoreError } from '../../core/errors/unsupported-store.error';
import { leaseFunction } from './postgres-lease-function';
import { migrationLockKey } from './postgres-names';
import { postgresSchemaTooNew } from './postgres.messages';

/**
 * The Postgres backend's tables and their migrations. Every table lives in
 * the alias's schema (option `schema`); one schema can hold several aliases,
 * so every row carries its `alias` and every index leads with it. Times are
 * `bigint` epoch ms of the calling process's clock (as SQLite's).
 *
 * | table | holds |
 * | --- | --- |
 * | `threadmill_migrations` | the versions of MIGRATIONS applied, each once |
 * | `threadmill_tasks` | unfinished tasks; `state` ready (by `score`, then `seq`), deferred (by `run_at`) or running (by `lease_until`), each with a partial index in that order |
 * | `threadmill_results` | finished tasks (result and history), by `finished_at`, until `expires_at`: apart, so a long history never slows the hot path |
 * | `threadmill_ingress_counts` | tasks enqueued per queue and second (ingress rate) |
 * | `threadmill_meta` | per-alias values such as the maintenance heartbeat |
 * | `threadmill_pools` | worker pools by heartbeat deadline, with their last beat and info |
 * | `threadmill_schedules` | schedules: definition, origin, app, paused, the cursor `next_tick` and the last tick |
 * | `threadmill_unique_keys` | unique key -> the task that holds it, its mode and the end of its window |
 * | `threadmill_paused_queues` | the queues whose tasks are not leased until resumed |
 * | `threadmill_cancels` | cancel requests for running tasks, by the pool that holds each |
 * | `threadmill_queue_limits` | each queue's limits, stored or seeded from the configuration |
 * | `threadmill_queue_starts` | start times within a rate-limited queue's window |
 * | `threadmill_roles` | each role's holder and the end of its lease |
 * | `threadmill_feed_listeners` | one row per process listening to a feed of an alias, until it lapses: writers notify a feed only while one is live |
 *
 * @internal
 */

/**
 * MIGRATIONS[n] moves schema `s` from version n to n + 1. Entries are
 * append-only: a released one is never edited.
 */
const MIGRATIONS: readonly ((s: string) => string)[] = [
  (s) => `
  CREATE TABLE ${s}.threadmill_tasks (
    alias       text    NOT NULL,
    id          text    NOT NULL,
    seq         bigint  GENERATED ALWAYS AS IDENTITY,
    queue       text    NOT NULL,
    name        text    NOT NULL,
    state       text    NOT NULL CHECK (state IN ('ready', 'running', 'deferred')),
    score       bigint  NOT NULL,
    run_at      bigint,
    lease_until bigint,
    pool        text,
    attempts    integer NOT NULL,
    progress    text,
    data        text    NOT NULL,
    PRIMARY KEY (alias, id)
  );
  CREATE INDEX threadmill_tasks_ready ON ${s}.threadmill_tasks (alias, queue, score, seq)
    WHERE state = 'ready';
  CREATE INDEX threadmill_tasks_deferred ON ${s}.threadmill_tasks (alias, queue, run_at, seq)
    WHERE state = 'deferred';
  CREATE INDEX threadmill_tasks_running ON ${s}.threadmill_tasks (alias, queue, lease_until, seq)
    WHERE state = 'running';
  CREATE INDEX threadmill_tasks_pool ON ${s}.threadmill_tasks (alias, pool, seq)
    WHERE state = 'running' AND pool IS NOT NULL;

  CREATE TABLE ${s}.threadmill_results (
    alias       text   NOT NULL,
    id          text   NOT NULL,
    seq         bigint GENERATED ALWAYS AS IDENTITY,
    queue       text   NOT NULL,
    name        text   NOT NULL,
    status      text   NOT NULL CHECK (status IN ('SUCCESSFUL', 'FAILED', 'CANCELLED')),
    finished_at bigint NOT NULL,
    expires_at  bigint NOT NULL,
    progress    text,
    data        text   NOT NULL,
    PRIMARY KEY (alias, id)
  );
  CREATE INDEX threadmill_results_history
    ON ${s}.threadmill_results (alias, queue, status, finished_at, seq);
  CREATE INDEX threadmill_results_expiry ON ${s}.threadmill_results (alias, expires_at);

  CREATE TABLE ${s}.threadmill_ingress_counts (
    alias  text   NOT NULL,
    queue  text   NOT NULL,
    second bigint NOT NULL,
    count  bigint NOT NULL,
    PRIMARY KEY (alias, queue, second)
  );
  CREATE INDEX threadmill_ingress_counts_age ON ${s}.threadmill_ingress_counts (alias, second);

  CREATE TABLE ${s}.threadmill_meta (
    alias text NOT NULL,
    key   text NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (alias, key)
  );

  CREATE TABLE ${s}.threadmill_pools (
    alias    text   NOT NULL,
    pool     text   NOT NULL,
    deadline bigint NOT NULL,
    beat_at  bigint,
    info     text,
    PRIMARY KEY (alias, pool)
  );
  CREATE INDEX threadmill_pools_deadline ON ${s}.threadmill_pools (alias, deadline);

  CREATE TABLE ${s}.threadmill_schedules (
    alias        text    NOT NULL,
    id           text    NOT NULL,
    definition   text    NOT NULL,
    origin       text    NOT NULL CHECK (origin IN ('declared', 'runtime')),
    app          text,
    paused       boolean NOT NULL,
    next_tick    bigint,
    last_tick    bigint,
    last_task_id text,
    PRIMARY KEY (alias, id)
  );
  CREATE INDEX threadmill_schedules_due ON ${s}.threadmill_schedules (alias, next_tick)
    WHERE next_tick IS NOT NULL;

  CREATE TABLE ${s}.threadmill_unique_keys (
    alias      text NOT NULL,
    key        text NOT NULL,
    holder     text NOT NULL,
    mode       text NOT NULL,
    window_end bigint,
    PRIMARY KEY (alias, key)
  );

  CREATE TABLE ${s}.threadmill_paused_queues (
    alias text NOT NULL,
    queue text NOT NULL,
    PRIMARY KEY (alias, queue)
  );

  CREATE TABLE ${s}.threadmill_cancels (
    alias        text   NOT NULL,
    pool         text   NOT NULL,
    id           text   NOT NULL,
    requested_at bigint NOT NULL,
    lease        text   NOT NULL,
    PRIMARY KEY (alias, pool, id)
  );

  CREATE TABLE ${s}.threadmill_queue_limits (
    alias  text NOT NULL,
    queue  text NOT NULL,
    limits text NOT NULL,
    PRIMARY KEY (alias, queue)
  );
  CREATE TABLE ${s}.threadmill_queue_starts (
    alias text   NOT NULL,
    queue text   NOT NULL,
    at    bigint NOT NULL
  );
  CREATE INDEX threadmill_queue_starts_window ON ${s}.threadmill_queue_starts (alias, queue, at);

  CREATE TABLE ${s}.threadmill_roles (
    alias      text   NOT NULL,
    role       text   NOT NULL,
    holder     text   NOT NULL,
    expires_at bigint NOT NULL,
    PRIMARY KEY (alias, role)
  );

  CREATE TABLE ${s}.threadmill_feed_listeners (
    alias      text   NOT NULL,
    feed       text   NOT NULL CHECK (feed IN ('finished', 'live')),
    listener   text   NOT NULL,
    expires_at bigint NOT NULL,
    PRIMARY KEY (alias, feed, listener)
  );
  ${leaseFunction(s)};
  `,
];

/** The schema version this code writes and reads. */
export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

/** Which ordered segment a peek reads; the finished ones come from the results table. */
export type TaskState = 'ready' | 'running' | 'deferred';

/** What a state's rows are ordered by, best first (each has a partial index in this order). */
export const STATE_COLUMN: Record<TaskState, string> = {
  ready: 'score',
  running: 'lease_until',
  deferred: 'run_at',
};

/** Meta keys, written once here so the maintenance pass and readers agree. */
export const META_MAINTENANCE_HEARTBEAT = 'maintenance_heartbeat';

/**
 * Brings `schema` to POSTGRES_SCHEMA_VERSION in one transaction under an
 * advisory lock derived from the schema name, so instances starting at once
 * migrate it once. Returns the version found.
 *
 * @throws UnsupportedStoreError when the schema is newer than this code.
 */
export async function migrate(client: PoolClient, alias: string, schema: string): Promise<number> {
  // A failure leaves the transaction open: the caller closes the connection, which rolls it back.
  await client.query('BEGIN');
  await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [migrationLockKey(schema)]);
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await client.query(`
    CREATE TABLE IF NOT EXISTS ${schema}.threadmill_migrations (
      version    integer PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  const { rows } = await client.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${schema}.threadmill_migrations`,
  );
  const found = rows[0]?.version ?? 0;
  if (found > MIGRATIONS.length) {
    throw new UnsupportedStoreError(postgresSchemaTooNew(alias, schema, found, MIGRATIONS.length));
  }
  for (let version = found; version < MIGRATIONS.length; version++) {
    await client.query(MIGRATIONS[version](schema));
    await client.query(`INSERT INTO ${schema}.threadmill_migrations (version) VALUES ($1)`, [
      version + 1,
    ]);
  }
  await client.query('COMMIT');
  return found;
}
