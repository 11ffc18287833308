import {
  getTransactionHostToken,
  ClsPluginTransactional,
  TransactionHost,
} from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Test, type TestingModule } from '@nestjs/testing';
import { ClsModule } from 'nestjs-cls';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';

import {
  BackendRegistry,
  TaskResultDoesNotExist,
  TaskService,
  ThreadmillModule,
  type EnqueuedTaskResult,
} from '../../../../lib';
import { RedisKeys } from '../../../../lib/backends/redis/redis-keys';
import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { createTestSchema, type TestSchema } from '../../../helpers/postgres-schema';
import { removeAliasKeys } from '../../../helpers/redis-cleanup';
import { testAlias } from '../../../helpers/test-alias';
import { testPostgresUrl } from '../../../helpers/test-postgres-url';
import { testRedisUrl } from '../../../helpers/test-redis-url';
import { waitFor } from '../../../helpers/wait-for';
import { DefaultSignups, providing } from '../postgres/transactions/cls-join.scenarios';

describe("joinTransactions through a Redis alias's outbox", () => {
  let schema: TestSchema;
  let alias: string;
  let dataSource: DataSource;
  let moduleRef: TestingModule;
  let backend: RedisBackend;
  let signups: DefaultSignups;
  let app: Client;
  let redis: Redis;

  const inRedis = async (id: string): Promise<boolean> =>
    backend.tasks.getResult(id).then(
      () => true,
      (error: unknown) => {
        if (error instanceof TaskResultDoesNotExist) return false;
        throw error;
      },
    );
  const outboxRows = async (): Promise<number> =>
    (
      await app.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM ${schema.name}.threadmill_outbox`,
      )
    ).rows[0].count;
  const users = async (): Promise<string[]> =>
    (await app.query<{ id: string }>(`SELECT id FROM ${schema.name}.users ORDER BY id`)).rows.map(
      (row) => row.id,
    );

  beforeEach(async () => {
    schema = await createTestSchema();
    alias = testAlias();
    app = new Client({ connectionString: testPostgresUrl() });
    await app.connect();
    await app.query(`CREATE TABLE ${schema.name}.users (id text PRIMARY KEY)`);
    redis = new Redis(testRedisUrl());
    dataSource = await new DataSource({
      type: 'postgres',
      url: testPostgresUrl(),
      poolSize: 2,
    }).initialize();
    const token = Symbol('DataSource');
    const insert = async (tx: unknown, id: string) => {
      await (tx as EntityManager).query(`INSERT INTO ${schema.name}.users (id) VALUES ($1)`, [id]);
    };
    moduleRef = await Test.createTestingModule({
      imports: [
        providing(token, dataSource),
        ClsModule.forRoot({
          global: true,
          plugins: [
            new ClsPluginTransactional({
              adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: token }),
            }),
          ],
        }),
        ThreadmillModule.forRoot({
          backends: {
            [alias]: {
              backend: RedisBackend,
              url: testRedisUrl(),
              options: { outbox: { url: testPostgresUrl(), schema: schema.name } },
            },
          },
          joinTransactions: true,
        }),
      ],
      providers: [
        {
          provide: DefaultSignups,
          inject: [TaskService, getTransactionHostToken()],
          useFactory: (tasks: TaskService, host: TransactionHost) =>
            new DefaultSignups(tasks, host, alias, insert),
        },
      ],
    }).compile();
    await moduleRef.init();
    backend = moduleRef.get(BackendRegistry).find(alias) as RedisBackend;
    signups = moduleRef.get(DefaultSignups);
  });

  afterEach(async () => {
    await moduleRef.close();
    await dataSource.destroy();
    await app.end();
    await removeAliasKeys(redis, alias);
    redis.disconnect();
    await schema.drop();
  });

  it('moves a task enqueued in a committed @Transactional() method into Redis once', async () => {
    const result = await signups.signUp('u1');
    await waitFor(() => inRedis(result.id), { what: 'the task in Redis' });
    await waitFor(async () => (await outboxRows()) === 0, { what: 'an empty outbox' });
    await expect(backend.tasks.getResult(result.id)).resolves.toMatchObject({ args: ['u1'] });
    await expect(redis.zrange(new RedisKeys(alias).queue('default'), 0, -1)).resolves.toEqual([
      result.id,
    ]);
    await expect(users()).resolves.toEqual(['u1']);
  });

  it('never moves a task enqueued in a @Transactional() method that threw', async () => {
    let rolledBack: EnqueuedTaskResult | undefined;
    await expect(
      signups.signUp('gone', async (result) => void (rolledBack = result), true),
    ).rejects.toThrow('the signup failed');
    // Nothing written: the outbox row went with the app's rolled-back transaction.
    await expect(outboxRows()).resolves.toBe(0);
    // A later commit's move shows the relay has read past the rolled-back one.
    const committed = await signups.signUp('kept');
    await waitFor(() => inRedis(committed.id), { what: 'the committed task' });
    await expect(inRedis(rolledBack!.id)).resolves.toBe(false);
    await expect(users()).resolves.toEqual(['kept']);
  });
});
