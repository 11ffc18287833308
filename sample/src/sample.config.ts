import { join } from 'node:path';

import type { LogLevel } from '@nestjs/common';

/**
 * The sample's settings, all from the environment so the same build serves a
 * developer's Redis and the e2e tests' private aliases:
 *
 * - `REDIS_URL` (a single Redis), `REDIS_CLUSTER_NODES` (comma-separated `host:port`
 *   seeds of a Redis Cluster) or `REDIS_SENTINELS` (comma-separated `host:port` sentinels,
 *   with `REDIS_SENTINEL_NAME`, default `mymaster`); else `DATABASE_URL` (a Postgres the tasks
 *   are kept in, in the schema `THREADMILL_PG_SCHEMA`, default `threadmill`); with none, the sample
 *   needs no server and keeps its tasks in a SQLite file, `THREADMILL_SQLITE_FILE` (default
 *   `.threadmill-data/sample.db`). With both a Redis and `DATABASE_URL` set, Redis stores the tasks.
 * - `THREADMILL_PG_MIGRATE=false`: the Postgres backend does not migrate at start (`threadmill migrate` does)
 * - `THREADMILL_WAIT_FOR_REPLICAS`: `count:timeoutMs` (e.g. `1:1000`), the Redis backend's
 *   waitForReplicas (default: off)
 * - `THREADMILL_ALIAS`: the backend alias (and so the Redis hash tag) to use; default `default`
 * - `THREADMILL_REDIS_PREFIX`: the first part of every Redis key (the backend's `prefix`); default `threadmill`
 * - `THREADMILL_APP`: the app name (ThreadmillModule's `app`) its declared schedules are recorded under; default `default`
 * - `THREADMILL_LEASE_TTL_MS`, `THREADMILL_MAINTENANCE_INTERVAL_MS`: backend options (defaults: the backend's)
 * - `THREADMILL_ALLOW_EVICTION=true`: use a Redis that evicts keys (unsafe; see allowEviction)
 * - `PORT`: the web app's port (default 3000)
 * - `THREADMILL_HEALTH_MAX_READY`, `THREADMILL_HEALTH_MAX_FAILED`: `GET /health` thresholds (default: none)
 * - `THREADMILL_LOG_LEVEL`: `error`, `warn`, `log` (default), `debug` or `verbose` (a line per task)
 * - `THREADMILL_TRACE_FILE`: traces every process with OpenTelemetry and appends the spans to
 *   this file as JSON lines (read by sample/src/tracing/tracing.ts, before this file loads)
 */
export const sampleConfig = {
  store: sampleStore(),
  databaseUrl: process.env.DATABASE_URL || undefined,
  postgresSchema: process.env.THREADMILL_PG_SCHEMA || undefined,
  postgresMigrate: process.env.THREADMILL_PG_MIGRATE !== 'false',
  sqliteFile:
    process.env.THREADMILL_SQLITE_FILE || join(process.cwd(), '.threadmill-data', 'sample.db'),
  alias: process.env.THREADMILL_ALIAS || 'default',
  redisPrefix: process.env.THREADMILL_REDIS_PREFIX || undefined,
  app: process.env.THREADMILL_APP || undefined,
  queues: ['default', 'emails'],
  leaseTtl: optionalNumber(process.env.THREADMILL_LEASE_TTL_MS),
  maintenanceInterval: optionalNumber(process.env.THREADMILL_MAINTENANCE_INTERVAL_MS),
  allowEviction: process.env.THREADMILL_ALLOW_EVICTION === 'true',
  waitForReplicas: countAndTimeout(process.env.THREADMILL_WAIT_FOR_REPLICAS),
  port: optionalNumber(process.env.PORT) ?? 3000,
  healthThresholds: {
    maxReady: optionalNumber(process.env.THREADMILL_HEALTH_MAX_READY),
    maxFailedInWindow: optionalNumber(process.env.THREADMILL_HEALTH_MAX_FAILED),
  },
  logLevels: logLevelsUpTo(process.env.THREADMILL_LOG_LEVEL || 'log'),
} as const;

/** Where the tasks are kept: a Redis the environment names, else its Postgres, else a SQLite file. */
function sampleStore(): 'redis' | 'postgres' | 'sqlite' {
  if (process.env.REDIS_URL || process.env.REDIS_CLUSTER_NODES || process.env.REDIS_SENTINELS) {
    return 'redis';
  }
  return process.env.DATABASE_URL ? 'postgres' : 'sqlite';
}

function optionalNumber(value: string | undefined): number | undefined {
  return value === undefined || value === '' ? undefined : Number(value);
}

/** `count:timeoutMs` as `{ count, timeoutMs }`; undefined when not set. */
function countAndTimeout(
  value: string | undefined,
): { count: number; timeoutMs: number } | undefined {
  if (!value) return undefined;
  const [count, timeoutMs] = value.split(':').map(Number);
  return { count, timeoutMs };
}

/** Nest's levels from the most to the least severe; a level enables itself and those above it. */
function logLevelsUpTo(level: string): LogLevel[] {
  const order: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];
  const index = order.indexOf(level as LogLevel);
  return order.slice(0, index === -1 ? order.indexOf('log') + 1 : index + 1);
}
