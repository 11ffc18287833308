import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { PostgresBackend } from '../../lib/backends/postgres/postgres.backend';
import { storeRules } from '../../lib/lifecycle/store-rules';
import {
  startPostgresServer,
  type PostgresServerHandle,
  type PostgresServerOptions,
} from '../helpers/postgres-server';
import { createTestSchema, type TestSchema } from '../helpers/postgres-schema';
import { testAlias } from '../helpers/test-alias';
import { CHAOS_QUEUES, startPool, type RunningPool } from './chaos-harness';

// The chaos scenarios of the Postgres backend: the same fixture CLI (the
// sample picks Postgres from DATABASE_URL when no Redis is named), on a
// private cluster each describe block starts for itself, since a scenario
// stops, crashes or fills it.

/** One scenario's alias and schema on its own Postgres: a backend for the test's reads, and where its pools look. */
export interface PostgresChaosStage {
  readonly alias: string;
  /** The schema the stage's tables live in (a schema of its own on the private cluster). */
  readonly schema: string;
  readonly backend: PostgresBackend;
  /** The journal file the scenario's tasks append to. */
  readonly journal: string;
  /** DATABASE_URL, THREADMILL_PG_SCHEMA and THREADMILL_ALIAS for its pools, and no Redis. */
  readonly env: Record<string, string>;
  /** A backend of the same alias at `url` (e.g. through a proxy), closed with the scenario. */
  backendAt(url: string, options?: Record<string, unknown>): PostgresBackend;
}

/** The environment that makes the fixture CLI a pool of `alias` on the Postgres of `url`. */
export function postgresPoolEnv(
  url: string,
  schema: string,
  alias: string,
): Record<string, string> {
  return {
    DATABASE_URL: url,
    THREADMILL_PG_SCHEMA: schema,
    THREADMILL_ALIAS: alias,
    // The sample's store is Postgres only when the environment names no Redis.
    REDIS_URL: '',
    REDIS_CLUSTER_NODES: '',
    REDIS_SENTINELS: '',
  };
}

/**
 * A describe block's own Postgres cluster (startPostgresServer with
 * `options`) and journal folder, started before its tests and removed
 * afterwards with every pool (killed as a group) and backend it handed out,
 * also when a test fails halfway. `server()` is that cluster, for a scenario
 * that stops, restarts or reconfigures it.
 */
export function postgresChaosScenario(options: PostgresServerOptions = {}): {
  stage(name: string, options?: Record<string, unknown>): Promise<PostgresChaosStage>;
  startPool(args: readonly string[], env: Record<string, string>): RunningPool;
  server(): PostgresServerHandle;
} {
  let server: PostgresServerHandle | undefined;
  let journalDir = '';
  const pools: RunningPool[] = [];
  const backends: PostgresBackend[] = [];
  const schemas: TestSchema[] = [];
  beforeAll(async () => {
    server = await startPostgresServer(options);
    journalDir = mkdtempSync(join(tmpdir(), 'threadmill-chaos-'));
  });
  afterAll(async () => {
    for (const pool of pools.splice(0)) await pool.killGroup();
    for (const backend of backends.splice(0)) await backend.close();
    // The cluster goes whole: its schemas with it.
    schemas.splice(0);
    await server?.remove();
    if (journalDir) rmSync(journalDir, { recursive: true, force: true });
  });
  const current = (): PostgresServerHandle => {
    if (!server) throw new Error('postgresChaosScenario: used outside a test, before beforeAll');
    return server;
  };
  return {
    async stage(name, backendOptions = {}) {
      const { url } = current();
      const schema = await createTestSchema(url);
      schemas.push(schema);
      const alias = testAlias();
      const backendAt = (at: string, extra: Record<string, unknown> = {}): PostgresBackend => {
        const backend = new PostgresBackend(
          alias,
          {
            backend: PostgresBackend,
            url: at,
            queues: CHAOS_QUEUES,
            options: { ...backendOptions, ...extra, schema: schema.name },
          },
          storeRules,
        );
        backends.push(backend);
        return backend;
      };
      return {
        alias,
        schema: schema.name,
        backend: backendAt(url),
        journal: join(journalDir, `${name}.log`),
        env: postgresPoolEnv(url, schema.name, alias),
        backendAt,
      };
    },
    startPool: (args, env) => startPool(args, env, pools),
    server: current,
  };
}
