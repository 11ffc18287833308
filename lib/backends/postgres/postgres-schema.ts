import type { ClientBase } from 'pg';
import { UnsupportedStoreError } from '../../core/errors/unsupported-store.error';
import { MIGRATIONS } from './postgres-migrations';
import { migrationLockKey } from './postgres-names';
import { postgresSchemaBehind, postgresSchemaTooNew } from './postgres.messages';

/**
 * The Postgres backend's tables (built by postgres-migrations.ts), and the
 * step that migrates a schema. Every table lives in the alias's schema
 * (option `schema`); one schema can hold several aliases, so every row
 * carries its `alias` and every index leads with it. Times are `bigint`
 * epoch ms of the calling process's clock (as SQLite's).
 *
 * | table | holds |
 * | --- | --- |
 * | `threadmill_migrations` | the versions of MIGRATIONS applied, each once |
 * | `threadmill_tasks` | unfinished tasks; `state` ready (by `score`, then `seq`), deferred (by `run_at`) or running (by `lease_until`), each with a partial index in that order |
 * | `threadmill_results` | finished tasks (result and history), by `finished_at`, until `expires_at`: apart, so a long history never slows the hot path |
 * | `threadmill_ingress_counts` | tasks enqueued per queue and second (ingress rate) |
 * | `threadmill_ingress_pending` | the same, a row per enqueue in an app's transaction (a plain insert: no row locked until the app commits); the maintenance pass folds them into the counts |
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
 * | `threadmill_outbox` | tasks a Redis alias's app wrote in its own transaction, by `seq`, until its outbox relay moved them (lib/backends/outbox) |
 * | `threadmill_lease()` | a function, not a table: the lease in one round trip (postgres-lease-function.ts) |
 * | `threadmill_enqueue()` | a function: an enqueue in one round trip (postgres-enqueue-function.ts) |
 *
 * @internal
 */

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
export async function migrate(client: ClientBase, alias: string, schema: string): Promise<number> {
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

/**
 * The version `schema` is at, without changing it: 0 when it has no
 * migrations table (or does not exist).
 */
export async function schemaVersion(client: ClientBase, schema: string): Promise<number> {
  const { rows } = await client.query<{ present: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS present',
    [`${schema}.threadmill_migrations`],
  );
  if (!rows[0]?.present) return 0;
  const found = await client.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${schema}.threadmill_migrations`,
  );
  return found.rows[0]?.version ?? 0;
}

/**
 * Checks that `schema` is at POSTGRES_SCHEMA_VERSION, for a backend told not
 * to migrate at start (option `migrate: false`): the deploy runs
 * `threadmill migrate` instead.
 *
 * @throws UnsupportedStoreError when it is behind (naming the command) or newer than this code.
 */
export async function checkSchema(
  client: ClientBase,
  alias: string,
  schema: string,
): Promise<void> {
  const found = await schemaVersion(client, schema);
  if (found > MIGRATIONS.length) {
    throw new UnsupportedStoreError(postgresSchemaTooNew(alias, schema, found, MIGRATIONS.length));
  }
  if (found < MIGRATIONS.length) {
    throw new UnsupportedStoreError(postgresSchemaBehind(alias, schema, found, MIGRATIONS.length));
  }
}
