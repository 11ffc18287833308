import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import Redis from 'ioredis';

import {
  BackendRegistry,
  MemoryBackend,
  RedisBackend,
  TaskRunner,
  ThreadmillModule,
  type BackendConfig,
  type BackendTelemetry,
  type TaskBackend,
} from '../../lib';
import { PostgresBackend } from '../../lib/backends/postgres';
import { SqliteBackend } from '../../lib/backends/sqlite';
import { ThreadmillDashboardModule, type ThreadmillDashboardOptions } from '../../lib/dashboard';
import { DashboardAssets } from '../../lib/dashboard/dashboard-assets';
import { Greeter, GreetingTasks } from '../fixtures/greeting.tasks';
import { freePort } from './free-port';
import { createTestSchema, type TestSchema } from './postgres-schema';
import { removeAliasKeys } from './redis-cleanup';
import { testAlias } from './test-alias';
import { testRedisUrl } from './test-redis-url';
import { storeRules } from '../../lib/lifecycle/store-rules';

/** Telemetry reads per alias, counted by the backends below as the store answers them. */
const telemetryReads = new Map<string, number>();
const counted = (alias: string, read: Promise<BackendTelemetry>): Promise<BackendTelemetry> => {
  telemetryReads.set(alias, (telemetryReads.get(alias) ?? 0) + 1);
  return read;
};

/** `backend`'s telemetry reads, counted from now on. */
const countTelemetry = (backend: TaskBackend): void => {
  const reads = backend.reads as { telemetry: (intervalMs: number) => Promise<BackendTelemetry> };
  const read = reads.telemetry;
  reads.telemetry = (intervalMs) => counted(backend.alias, read(intervalMs));
};

/** The real Redis backend, counting its telemetry reads. */
class CountingRedisBackend extends RedisBackend {
  constructor(alias: string, config: BackendConfig) {
    super(alias, config, storeRules);
    countTelemetry(this);
  }
}

/** The real SQLite backend, counting its telemetry reads. */
class CountingSqliteBackend extends SqliteBackend {
  constructor(alias: string, config: BackendConfig) {
    super(alias, config, storeRules);
    countTelemetry(this);
  }
}

/** The real Postgres backend, counting its telemetry reads. */
class CountingPostgresBackend extends PostgresBackend {
  constructor(alias: string, config: BackendConfig) {
    super(alias, config, storeRules);
    countTelemetry(this);
  }
}

/** Which HTTP adapter serves the app, on which store. */
export type DashboardStack =
  'express+redis' | 'fastify+sqlite' | 'express+postgres' | 'express+memory' | 'fastify+memory';

export interface DashboardApp {
  readonly app: INestApplication;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly alias: string;
  readonly backend: TaskBackend;
  /** What the page must never see: the store's URL or file. */
  readonly secret: string;
  telemetryReads(): number;
  /** Runs every ready task of `queue` once, as a worker slot would (acquire, run, acknowledge). */
  work(queue: string): Promise<void>;
  close(): Promise<void>;
}

export const QUEUES = ['default', 'loud'];

/**
 * A real Nest app serving the dashboard on a free loopback port, with the
 * fixture's tasks, on Express or Fastify and Redis, SQLite, Postgres (a
 * schema of its own, dropped on close) or memory. The
 * page's files are read from `assetsDir` (a folder the test writes).
 */
export async function startDashboardApp(
  stack: DashboardStack,
  dashboard: ThreadmillDashboardOptions,
  assetsDir: string,
): Promise<DashboardApp> {
  const alias = testAlias();
  const folder = mkdtempSync(join(tmpdir(), 'threadmill-dashboard-'));
  const store = stack.split('+')[1];
  const schema: TestSchema | null = store === 'postgres' ? await createTestSchema() : null;
  const config: BackendConfig =
    store === 'redis'
      ? { backend: CountingRedisBackend, url: testRedisUrl(), queues: QUEUES }
      : store === 'sqlite'
        ? { backend: CountingSqliteBackend, url: join(folder, 'tasks.db'), queues: QUEUES }
        : schema
          ? {
              backend: CountingPostgresBackend,
              url: schema.url,
              queues: QUEUES,
              options: { schema: schema.name },
            }
          : { backend: MemoryBackend, queues: QUEUES };
  const moduleRef = await Test.createTestingModule({
    imports: [
      ThreadmillModule.forRoot({ isGlobal: true, backends: { [alias]: config } }),
      ThreadmillDashboardModule.forRoot(dashboard),
    ],
    providers: [Greeter, GreetingTasks],
  })
    .overrideProvider(DashboardAssets)
    .useValue(new DashboardAssets(assetsDir))
    .compile();
  const app = stack.startsWith('fastify')
    ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
    : moduleRef.createNestApplication({ logger: false });
  const port = await freePort();
  await app.listen(port, '127.0.0.1');
  const backend = app.get(BackendRegistry).get(alias);
  return {
    app,
    origin: `http://127.0.0.1:${port}`,
    alias,
    backend,
    secret:
      store === 'redis' ? testRedisUrl() : store === 'sqlite' ? folder : (schema?.url ?? '\u0000'),
    telemetryReads: () => telemetryReads.get(alias) ?? 0,
    async work(queue) {
      const runner = app.get(TaskRunner);
      const acquired = await backend.leases.acquire([queue], {
        workerId: 'e2e:1-0',
        max: 100,
        timeoutMs: 0,
      });
      await backend.leases.acknowledge(
        await Promise.all(acquired.map((record) => runner.run(record))),
      );
    },
    async close() {
      await app.close();
      if (store === 'redis') {
        const redis = new Redis(testRedisUrl());
        await removeAliasKeys(redis, alias);
        await redis.quit();
      }
      await schema?.drop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
