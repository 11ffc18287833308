import { enqueueFunction } from './postgres-enqueue-function';
import { leaseFunction } from './postgres-lease-function';

/**
 * The Postgres backend's migrations, in order (the layout they build is
 * described in postgres-schema.ts).
 *
 * @internal
 */

/**
 * MIGRATIONS[n] moves schema `s` from version n to n + 1. Entries are
 * append-only: a released one is never edited.
 */
export const MIGRATIONS: readonly ((s: string) => string)[] = [
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
  `,
  // The enqueue and lease functions, one round trip each; rate windows on the server's own clock.
  (s) => `
  CREATE TABLE ${s}.threadmill_ingress_pending (
    alias  text   NOT NULL,
    queue  text   NOT NULL,
    second bigint NOT NULL,
    count  bigint NOT NULL
  );
  CREATE INDEX threadmill_ingress_pending_age ON ${s}.threadmill_ingress_pending (alias, second);
  ${enqueueFunction(s)};
  ${leaseFunction(s)};
  `,
  // The outbox of a Redis-backed alias (lib/backends/outbox): one row per task an app wrote
  // in its own transaction, deleted once the relay has moved it to Redis.
  (s) => `
  CREATE TABLE ${s}.threadmill_outbox (
    alias      text   NOT NULL,
    id         text   NOT NULL,
    seq        bigint GENERATED ALWAYS AS IDENTITY,
    written_at bigint NOT NULL,
    request    text   NOT NULL,
    PRIMARY KEY (alias, id)
  );
  CREATE INDEX threadmill_outbox_order ON ${s}.threadmill_outbox (alias, seq);
  `,
  // Why the relay set an outbox row aside (its queue is not on the alias, or its request cannot
  // be read): such a row is never moved, so it must not hold back the rows written after it.
  (s) => `
  ALTER TABLE ${s}.threadmill_outbox ADD COLUMN parked text;
  `,
];

/** The schema version this code writes and reads. */
export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;
