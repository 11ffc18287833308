import { Test, type TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { Client } from 'pg';

import { OutboxMoveTimeoutError, TaskService, ThreadmillModule, defineTask } from '../../../../lib';
import { pgTransaction } from '../../../../lib/backends/postgres';
import { RedisKeys } from '../../../../lib/backends/redis/redis-keys';
import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { createTestSchema, type TestSchema } from '../../../helpers/postgres-schema';
import { removeAliasKeys } from '../../../helpers/redis-cleanup';
import { testAlias } from '../../../helpers/test-alias';
import { testPostgresUrl } from '../../../helpers/test-postgres-url';
import { testRedisUrl } from '../../../helpers/test-redis-url';

const Welcome = defineTask<[string]>({ name: 'users.welcome' });

describe("a unique enqueue through a Redis alias's outbox", () => {
  let schema: TestSchema;
  let alias: string;
  let moduleRef: TestingModule;
  let tasks: TaskService;
  let relay: RedisBackend;
  let app: Client;
  let other: Client;
  let redis: Redis;

  const config = (relaying: boolean) => ({
    backend: RedisBackend,
    url: testRedisUrl(),
    options: { outbox: { url: testPostgresUrl(), schema: schema.name, relay: relaying } },
  });
  const ready = () => redis.zrange(new RedisKeys(alias).queue('default'), 0, -1);
  /** Enqueues with `key` in a transaction of `client`, committed unless told. */
  const inTransaction = async (client: Client, arg: string, end = 'COMMIT') => {
    await client.query('BEGIN');
    const handle = await tasks.enqueue(Welcome, [arg], {
      alias,
      key: 'welcome:u1',
      transaction: pgTransaction(client),
    });
    await client.query(end);
    return handle;
  };

  beforeEach(async () => {
    schema = await createTestSchema();
    alias = testAlias();
    moduleRef = await Test.createTestingModule({
      imports: [ThreadmillModule.forRoot({ backends: { [alias]: config(false) } })],
    }).compile();
    await moduleRef.init();
    tasks = moduleRef.get(TaskService);
    relay = new RedisBackend(alias, config(true), storeRules);
    app = new Client({ connectionString: testPostgresUrl() });
    other = new Client({ connectionString: testPostgresUrl() });
    await Promise.all([app.connect(), other.connect()]);
    redis = new Redis(testRedisUrl());
  });

  afterEach(async () => {
    await relay.close();
    await moduleRef.close();
    await Promise.all([app.end(), other.end()]);
    await removeAliasKeys(redis, alias);
    redis.disconnect();
    await schema.drop();
  });

  it('answers a pending handle that settles to its own task when the key was free', async () => {
    const handle = await inTransaction(app, 'first');
    expect(handle).toMatchObject({ pending: true, created: false });
    const settled = await handle.settled();
    expect(settled).toMatchObject({
      id: handle.id,
      pending: false,
      created: true,
      args: ['first'],
    });
    await expect(ready()).resolves.toEqual([handle.id]);
  });

  it('settles to the task already holding the key in Redis, and makes no second', async () => {
    const holder = await tasks.enqueue(Welcome, ['direct'], { alias, key: 'welcome:u1' });
    const handle = await inTransaction(app, 'moved');
    const settled = await handle.settled();
    expect(settled).toMatchObject({ id: holder.id, created: false, args: ['direct'] });
    expect(settled.id).not.toBe(handle.id);
    await expect(ready()).resolves.toEqual([holder.id]);
  });

  it('makes one task of two transactions writing the key, and both settle to it', async () => {
    await app.query('BEGIN');
    await other.query('BEGIN');
    const first = await tasks.enqueue(Welcome, ['a'], {
      alias,
      key: 'welcome:u1',
      transaction: pgTransaction(app),
    });
    const second = await tasks.enqueue(Welcome, ['b'], {
      alias,
      key: 'welcome:u1',
      transaction: pgTransaction(other),
    });
    await Promise.all([app.query('COMMIT'), other.query('COMMIT')]);
    const [a, b] = await Promise.all([first.settled(), second.settled()]);
    expect(a.id).toBe(b.id);
    expect([a.created, b.created].sort()).toEqual([false, true]);
    await expect(ready()).resolves.toEqual([a.id]);
  });

  it('moves nothing of a rolled-back one, whose handle times out with a typed error', async () => {
    const rolledBack = await inTransaction(app, 'gone', 'ROLLBACK');
    // A later commit of the key settles to its own task: the rolled-back one never held it.
    const committed = await inTransaction(other, 'kept');
    await expect(committed.settled()).resolves.toMatchObject({ id: committed.id, created: true });
    const refusal = rolledBack.settled({ timeoutMs: 50 });
    await expect(refusal).rejects.toBeInstanceOf(OutboxMoveTimeoutError);
    await expect(refusal).rejects.toMatchObject({ id: rolledBack.id, code: 'OUTBOX_MOVE_TIMEOUT' });
    await expect(ready()).resolves.toEqual([committed.id]);
  });
});
