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
      outbox: { waiting: 0, oldestAgeMs: 0, parked: 0 },
    });
  });

  it('sets aside a task it can never move, moves the ones behind it, and warns in health', async () => {
    const table = `${schema.name}.threadmill_outbox`;
    const { rows } = await app.query<{ id: string }>(`SELECT id FROM ${table} ORDER BY seq`);
    const [retired, kept] = rows.map((row) => row.id);
    // The first task's queue is gone from the alias's config, and a row no writer could read.
    await app.query(
      `UPDATE ${table} SET request = jsonb_set(request::jsonb, '{task,queue}', '"retired"')::text
        WHERE id = $1`,
      [retired],
    );
    await app.query(
      `INSERT INTO ${table} (alias, id, written_at, request) VALUES ($1, 'garbled', 0, 'not json')`,
      [alias],
    );
    relay = new RedisBackend(alias, config(true), storeRules);
    await waitFor(async () => (await backend.reads.outboxBacklog!()).waiting === 0, {
      what: 'the movable tasks moved',
    });
    await expect(backend.tasks.getResult(kept)).resolves.toMatchObject({ args: ['b'] });
    const parked = await app.query<{ id: string; parked: string }>(
      `SELECT id, parked FROM ${table} ORDER BY seq`,
    );
    expect(parked.rows).toEqual([
      { id: retired, parked: expect.stringMatching(/"retired"/) },
      { id: 'garbled', parked: expect.stringMatching(/not JSON/) },
    ]);
    const health = await check(60_000);
    expect(health.threadmill).toMatchObject({
      status: 'up',
      outbox: { waiting: 0, parked: 2 },
      warnings: expect.arrayContaining([
        expect.stringMatching(/set 2 task\(s\) of its outbox aside/),
      ]),
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
    expect(text).toContain(`threadmill_outbox_parked_tasks{backend="${alias}"} 0`);
    expect(text).toMatch(
      new RegExp(`threadmill_outbox_oldest_seconds\\{backend="${alias}"\\} [0-9.e-]+`),
    );
  });
});
