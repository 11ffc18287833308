import { Test, type TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { Client, Pool } from 'pg';

import {
  BackendRegistry,
  TaskResultDoesNotExist,
  TaskService,
  ThreadmillModule,
  defineTask,
} from '../../../../lib';
import { pgTransaction } from '../../../../lib/backends/postgres';
import { RedisKeys } from '../../../../lib/backends/redis/redis-keys';
import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import type { RedisOutboxOptions } from '../../../../lib/backends/outbox/outbox-options.interface';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { createTestSchema, type TestSchema } from '../../../helpers/postgres-schema';
import { removeAliasKeys } from '../../../helpers/redis-cleanup';
import { testAlias } from '../../../helpers/test-alias';
import { testPostgresUrl } from '../../../helpers/test-postgres-url';
import { testRedisUrl } from '../../../helpers/test-redis-url';
import { waitFor } from '../../../helpers/wait-for';

const Welcome = defineTask<[string]>({ name: 'users.welcome' });

describe('the outbox of a Redis alias', () => {
  let schema: TestSchema;
  let alias: string;
  let moduleRef: TestingModule;
  let tasks: TaskService;
  let backend: RedisBackend;
  let app: Client;
  let redis: Redis;
  const others: RedisBackend[] = [];

  const config = (outbox: Partial<RedisOutboxOptions> = {}) => ({
    backend: RedisBackend,
    url: testRedisUrl(),
    queues: ['default', 'emails'],
    options: { outbox: { url: testPostgresUrl(), schema: schema.name, ...outbox } },
  });
  /** Another process's backend on the same alias and outbox. */
  const another = (outbox: Partial<RedisOutboxOptions> = {}): RedisBackend => {
    const made = new RedisBackend(alias, config(outbox), storeRules);
    others.push(made);
    return made;
  };
  const outboxRows = async (): Promise<number> =>
    (
      await app.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM ${schema.name}.threadmill_outbox`,
      )
    ).rows[0].count;
  const inRedis = async (id: string): Promise<boolean> =>
    backend.tasks.getResult(id).then(
      () => true,
      (error: unknown) => {
        if (error instanceof TaskResultDoesNotExist) return false;
        throw error;
      },
    );
  /** Every row moved and deleted: the relay is done with what was committed. */
  const drained = () =>
    waitFor(async () => (await outboxRows()) === 0, { what: 'an empty outbox' });

  beforeEach(async () => {
    schema = await createTestSchema();
    alias = testAlias();
    // The app's process writes; the relay runs in other processes' backends (`another`).
    moduleRef = await Test.createTestingModule({
      imports: [ThreadmillModule.forRoot({ backends: { [alias]: config({ relay: false }) } })],
    }).compile();
    await moduleRef.init();
    tasks = moduleRef.get(TaskService);
    backend = moduleRef.get(BackendRegistry).find(alias) as RedisBackend;
    app = new Client({ connectionString: testPostgresUrl() });
    await app.connect();
    redis = new Redis(testRedisUrl());
  });

  afterEach(async () => {
    await Promise.all(others.splice(0).map((other) => other.close()));
    await moduleRef.close();
    await app.end();
    await removeAliasKeys(redis, alias);
    redis.disconnect();
    await schema.drop();
  });

  it('moves a committed task to Redis once, under its id and with every option', async () => {
    another();
    const runAfter = new Date(Date.now() + 3_600_000);
    await app.query('BEGIN');
    const handle = await tasks.enqueue(Welcome, ['u1'], {
      alias,
      transaction: pgTransaction(app),
      queue: 'emails',
      priority: 7,
      runAfter,
      retries: 3,
      timeoutMs: 5000,
    });
    // Nothing before the commit, whatever the relay does meanwhile.
    await expect(inRedis(handle.id)).resolves.toBe(false);
    await app.query('COMMIT');
    await waitFor(() => inRedis(handle.id), { what: 'the task in Redis' });
    const moved = await backend.tasks.getResult(handle.id);
    expect(moved.task).toMatchObject({
      name: 'users.welcome',
      queue: 'emails',
      priority: 7,
      runAfter,
      retries: 3,
      timeoutMs: 5000,
    });
    expect(moved.args).toEqual(['u1']);
    await drained();
    const keys = new RedisKeys(alias);
    await expect(redis.zscore(keys.deferred('emails'), handle.id)).resolves.not.toBeNull();
    await expect(redis.zcard(keys.deferred('emails'))).resolves.toBe(1);
  });

  it("relays through the app's own pg Pool, and leaves that pool open when it closes", async () => {
    const pool = new Pool({ connectionString: testPostgresUrl(), max: 2 });
    const relay = new RedisBackend(
      alias,
      { ...config(), options: { outbox: { pool, schema: schema.name, pollInterval: 100 } } },
      storeRules,
    );
    try {
      await app.query('BEGIN');
      const handle = await tasks.enqueue(Welcome, ['pooled'], {
        alias,
        transaction: pgTransaction(app),
      });
      await app.query('COMMIT');
      await waitFor(() => inRedis(handle.id), { what: 'the task the pooled relay moved' });
      await drained();
      await relay.close();
      await expect(pool.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    } finally {
      await relay.close();
      await pool.end();
    }
  });

  it('never moves a task whose transaction rolled back', async () => {
    another();
    await app.query('BEGIN');
    const rolledBack = await tasks.enqueue(Welcome, ['gone'], {
      alias,
      transaction: pgTransaction(app),
    });
    await app.query('ROLLBACK');
    // A later commit's move shows the relay has read past the rolled-back one.
    await app.query('BEGIN');
    const committed = await tasks.enqueue(Welcome, ['kept'], {
      alias,
      transaction: pgTransaction(app),
    });
    await app.query('COMMIT');
    await waitFor(() => inRedis(committed.id), { what: 'the committed task' });
    await drained();
    await expect(inRedis(rolledBack.id)).resolves.toBe(false);
  });

  it('keeps the order of the writes within a queue', async () => {
    another();
    await app.query('BEGIN');
    const bulk = await tasks.enqueueMany(
      Welcome,
      Array.from({ length: 20 }, (_, i) => [`u${i}`]),
      { alias, transaction: pgTransaction(app) },
    );
    await app.query('COMMIT');
    await drained();
    const ready = await redis.zrange(new RedisKeys(alias).queue('default'), 0, -1);
    expect(ready).toEqual(bulk.map((handle) => handle.id));
  });

  it('relays from one process at a time, and each task reaches Redis once', async () => {
    const relays = [another(), another(), another()];
    await waitFor(() => relays.filter((b) => b.relaysOutbox).length === 1, { what: 'one relay' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      await app.query('BEGIN');
      const made = await tasks.enqueueMany(Welcome, [['a'], ['b'], ['c']], {
        alias,
        transaction: pgTransaction(app),
      });
      ids.push(...made.map((handle) => handle.id));
      await app.query('COMMIT');
    }
    await drained();
    const ready = await redis.zrange(new RedisKeys(alias).queue('default'), 0, -1);
    expect([...ready].sort()).toEqual([...ids].sort());
    expect(relays.filter((b) => b.relaysOutbox)).toHaveLength(1);
  });

  it('hands the relay over when its process closes', async () => {
    const relays = [another({ pollInterval: 200 }), another({ pollInterval: 200 })];
    const holder = await waitFor(() => relays.find((b) => b.relaysOutbox), { what: 'a relay' });
    const waiting = relays.find((b) => b !== holder) as RedisBackend;
    await holder.close();
    await waitFor(() => waiting.relaysOutbox, { what: 'the takeover' });
    await app.query('BEGIN');
    const handle = await tasks.enqueue(Welcome, ['after'], {
      alias,
      transaction: pgTransaction(app),
    });
    await app.query('COMMIT');
    await waitFor(() => inRedis(handle.id), { what: 'a move by the new relay' });
  });

  it('refuses a repeated move of a task whose result is gone, and deletes its row', async () => {
    another();
    const id = `welcome-${alias}`;
    await app.query('BEGIN');
    await tasks.enqueue(Welcome, ['first'], { alias, id, transaction: pgTransaction(app) });
    await app.query('COMMIT');
    await waitFor(() => inRedis(id), { what: 'the first move' });
    await drained();
    // As if its result expired, and a relay that died before deleting the row moved it again.
    const keys = new RedisKeys(alias);
    await redis.unlink(keys.task(id));
    await redis.zrem(keys.queue('default'), id);
    await app.query('BEGIN');
    await tasks.enqueue(Welcome, ['again'], { alias, id, transaction: pgTransaction(app) });
    await app.query('COMMIT');
    await drained();
    await expect(inRedis(id)).resolves.toBe(false);
    await expect(redis.pttl(keys.moved(id))).resolves.toBeGreaterThan(23 * 3_600_000);
  });

  it('refuses an id already waiting in the outbox, and leaves the transaction usable', async () => {
    await app.query('BEGIN');
    await tasks.enqueue(Welcome, ['first'], {
      alias,
      id: 'taken',
      transaction: pgTransaction(app),
    });
    await tasks.enqueueMany(Welcome, [['x'], ['y']], { alias, transaction: pgTransaction(app) });
    const refusal: unknown = await tasks
      .enqueue(Welcome, ['again'], { alias, id: 'taken', transaction: pgTransaction(app) })
      .catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'INVALID_TASK' });
    await app.query('COMMIT');
    // No relay runs here: the three rows wait.
    await expect(outboxRows()).resolves.toBe(3);
  });
});
