import type { Database } from 'better-sqlite3';

import { MIGRATIONS } from './sqlite-migrations';

/**
 * The SQLite backend's schema (as `RedisKeys` is the Redis key layout), built
 * by the migrations of sqlite-migrations.ts; the statements that read and write it are prepared in the
 * sqlite-*-statements.ts files.
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
 * | `threadmill_ingress_counts` | tasks enqueued per queue and second (ingress rate), trimmed to `resultTtl` |
 * | `threadmill_meta` | per-alias values such as the maintenance heartbeat |
 * | `threadmill_pools` | live worker pools by heartbeat deadline, with their last beat and info; a running task's `pool` names its holder |
 * | `threadmill_schedules` | schedules: definition, origin, app, paused, the cursor `next_tick` (null while paused) and the last tick |
 * | `threadmill_unique_keys` | unique key -> the task that holds it, its mode and the end of its window |
 * | `threadmill_paused_queues` | the queues whose tasks are not leased until resumed |
 * | `threadmill_cancels` | cancel requests for running tasks, by the pool that holds each, until handled |
 * | `threadmill_queue_limits` | each queue's limits, stored or seeded from the configuration |
 * | `threadmill_queue_starts` | start times within a rate-limited queue's window |
 * | `threadmill_roles` | each role's holder and the end of its lease (e.g. which pool exposes the store gauges) |
 * | `threadmill_live_listeners` | one row per process listening to an alias's live task events, until it lapses |
 * | `threadmill_live_events` | the last LIVE_EVENTS_KEPT live task events (started, progressed), written only while a listener row is live |
 *
 * @internal
 */

/** Which ordered segment a peek reads; the finished ones come from the results table. */
export type TaskState = 'ready' | 'running' | 'deferred';

/** What a state row is ordered by, oldest/best first (the ZSET score of the Redis layout). */
export const STATE_ORDER: Record<TaskState, string> = {
  ready: 'score, seq',
  running: 'lease_until, seq',
  deferred: 'run_at, seq',
};

/**
 * The partial index that serves each state in that order. Named explicitly:
 * left to itself the planner prefers the expiry index and sorts every
 * waiting task on each acquire (O(n) instead of O(log n)).
 */
export const STATE_INDEX: Record<TaskState, string> = {
  ready: 'threadmill_tasks_ready',
  running: 'threadmill_tasks_running',
  deferred: 'threadmill_tasks_deferred',
};

/** A task row as the statements that lease, end or move it select it. */
export interface TaskRow {
  seq: number;
  id: string;
  queue: string;
  data: string;
  /** Selected by the statements whose row may end as a result, which keeps it. */
  progress?: string | null;
}

/** A task or result row as a read returns it. */
export interface DataRow {
  id: string;
  data: string;
  /** Selected by the reads that return a task to callers (recordWithProgress). */
  progress?: string | null;
}

/** Meta keys; written once here so the maintenance pass and readers agree (stored names, kept as first released). */
export const META_MAINTENANCE_HEARTBEAT = 'broker_heartbeat';

/**
 * Brings the schema to SQLITE_SCHEMA_VERSION inside BEGIN IMMEDIATE, so the
 * pool's processes opening one new file at once migrate it exactly once.
 * Returns the version the file was at (0: this call made the schema).
 */
export function migrate(db: Database): number {
  return db
    .transaction(() => {
      const current = db.pragma('user_version', { simple: true }) as number;
      for (let version = current; version < MIGRATIONS.length; version++) {
        db.exec(MIGRATIONS[version]);
      }
      if (current < MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
      return current;
    })
    .immediate();
}

/** The schema version a file is at (tests and diagnostics). */
export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}
