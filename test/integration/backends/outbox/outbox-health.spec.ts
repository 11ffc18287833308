import { Logger } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { Registry } from 'prom-client';

import { BackendRegistry, TaskService, ThreadmillModule, defineTask } from '../../../../lib';
import { pgTransaction } from '../../../../lib/backends/postgres';
import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { ThreadmillHealthIndicator } from '../../../../lib/health';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { loadPromClient } from '../../../../lib/metrics/prom-client.loader';
import { StoreGauges } from '../../../../lib/metrics/store-gauges';
import { createTestSchema, type TestSchema } from '../../../helpers/postgres-schema';
import { removeAliasKeys } from '../../../helpers/redis-cleanup';
import { testAlias } from '../../../helpers/test-alias';
import { testPostgresUrl } from '../../../helpers/test-postgres-url';
import { testRedisUrl } from '../../../helpers/test-redis-url';
import { waitFor } from '../../../helpers/wait-for';

const Welcome = defineTask<[string]>({ name: 'users.welcome' });

describe("the outbox's backlog, in health and metrics", () => {
  let schema: TestSchema;
  let alias: string;
  let moduleRef: TestingModule;
  let tasks: TaskService;
  let backend: RedisBackend;
  let indicator: ThreadmillHealthIndicator;
  let app: Client;
  let redis: Redis;
  let relay: RedisBackend | null = null;

  const config = (relaying: boolean) => ({
    backend: RedisBackend,
    url: testRedisUrl(),
    options: { outbox: { url: testPostgresUrl(), schema: schema.name, relay: relaying } },
  });

  beforeEach(async () => {
    schema = await createTestSchema();
    alias = testAlias();
    // No relay in this process: the rows wait until a test starts one.
    moduleRef = await Test.createTestingModule({
      imports: [ThreadmillModule.forRoot({ backends: { [alias]: config(false) } })],
      providers: [ThreadmillHealthIndicator],
    }).compile();
    await moduleRef.init();
    tasks = moduleRef.get(TaskService);
    backend = moduleRef.get(BackendRegistry).find(alias) as RedisBackend;
    indicator = moduleRef.get(ThreadmillHealthIndicator);
    app = new Client({ connectionString: testPostgresUrl() });
    await app.connect();
    redis = new Redis(testRedisUrl());
    await app.query('BEGIN');
    await tasks.enqueueMany(Welcome, [['a'], ['b']], { alias, transaction: pgTransaction(app) });
    await app.query('COMMIT');
  });

  afterEach(async () => {
    await relay?.close();
    relay = null;
    await moduleRef.close();
    await app.end();
    await removeAliasKeys(redis, alias);
    redis.disconnect();
    await schema.drop();
  });

  const check = (maxOutboxAgeMs: number) =>
    indicator.isHealthy('threadmill', { alias, requireMaintenance: false, maxOutboxAgeMs });

  it('reports the waiting tasks and their age, and a stalled relay as down', async () => {
    const waiting = await check(60_000);
    expect(waiting.threadmill).toMatchObject({
      status: 'up',
      outbox: { waiting: 2, oldestAgeMs: expect.any(Number) },
    });
    const oldest = await waitFor(async () => {
      const age = (await backend.reads.outboxBacklog!()).oldestAgeMs ?? 0;
      return age >= 1 ? age : null;
    });
    const stalled = await check(oldest - 1);
    expect(stalled.threadmill.status).toBe('down');
    expect(stalled.threadmill.message).toMatch(/oldest task in its outbox has waited \d+ ms/);
  });

  it('is up again, with nothing waiting, once a relay moved the tasks', async () => {
    relay = new RedisBackend(alias, config(true), storeRules);
    await waitFor(async () => (await backend.reads.outboxBacklog!()).waiting === 0, {
      what: 'an empty outbox',
    });
    const moved = await check(0);
    expect(moved.threadmill).toMatchObject({
      status: 'up',
      outbox: { waiting: 0, oldestAgeMs: 0 },
    });
  });

  it('shows the backlog as gauges, from the holder of the store gauges role', async () => {
    const registry = new Registry();
    new StoreGauges(loadPromClient()!, [registry], () => [backend], {
      holder: 'test-process',
      scrapeIntervalMs: 1000,
      logger: new Logger('test'),
    });
    const text = await registry.metrics();
    expect(text).toContain(`threadmill_outbox_tasks{backend="${alias}"} 2`);
    expect(text).toMatch(
      new RegExp(`threadmill_outbox_oldest_seconds\\{backend="${alias}"\\} [0-9.e-]+`),
    );
  });
});
