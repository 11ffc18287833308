import { Test, type TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { Client } from 'pg';

import {
  BackendRegistry,
  TaskResultDoesNotExist,
  TaskService,
  ThreadmillModule,
  defineTask,
} from '../../../../../lib';
import { RedisBackend } from '../../../../../lib/backends/redis/redis.backend';
import { createTestSchema, type TestSchema } from '../../../../helpers/postgres-schema';
import { removeAliasKeys } from '../../../../helpers/redis-cleanup';
import { testAlias } from '../../../../helpers/test-alias';
import { testPostgresUrl } from '../../../../helpers/test-postgres-url';
import { testRedisUrl } from '../../../../helpers/test-redis-url';
import { waitFor } from '../../../../helpers/wait-for';
import type { AppTransaction, ConnectOrm, OrmHarness } from './transaction-enqueue.scenarios';

const Welcome = defineTask<[string]>({ name: 'users.welcome' });

/**
 * The same ORM's transaction, on a Redis alias with an outbox in the app's
 * Postgres: the task is written with the app's rows and reaches Redis only
 * after the commit, moved by the alias's relay; never after a rollback.
 */
export function describeOutboxEnqueue(orm: string, connect: ConnectOrm): void {
  describe(`enqueue inside a ${orm} transaction, on RedisBackend's outbox`, () => {
    let created: TestSchema;
    let alias: string;
    let moduleRef: TestingModule;
    let tasks: TaskService;
    let backend: RedisBackend;
    let harness: OrmHarness;
    let admin: Client;
    let redis: Redis;
    const open = new Set<AppTransaction>();

    beforeEach(async () => {
      created = await createTestSchema();
      alias = testAlias();
      const url = testPostgresUrl();
      admin = new Client({ connectionString: url });
      await admin.connect();
      await admin.query(`CREATE TABLE ${created.name}.users (id text PRIMARY KEY)`);
      const config = {
        backend: RedisBackend,
        url: testRedisUrl(),
        options: { outbox: { url, schema: created.name } },
      };
      moduleRef = await Test.createTestingModule({
        imports: [ThreadmillModule.forRoot({ backends: { [alias]: config } })],
      }).compile();
      await moduleRef.init();
      tasks = moduleRef.get(TaskService);
      backend = moduleRef.get(BackendRegistry).find(alias) as RedisBackend;
      redis = new Redis(testRedisUrl());
      harness = await connect(url, created.name);
    });

    afterEach(async () => {
      await Promise.allSettled([...open].map((tx) => tx.rollback()));
      open.clear();
      await harness.close();
      await moduleRef.close();
      await admin.end();
      await removeAliasKeys(redis, alias);
      redis.disconnect();
      await created.drop();
    });

    const begin = async (): Promise<AppTransaction> => {
      const tx = await harness.begin();
      open.add(tx);
      const ended = (end: () => Promise<void>) => async (): Promise<void> => {
        open.delete(tx);
        await end();
      };
      return { ...tx, commit: ended(tx.commit), rollback: ended(tx.rollback) };
    };
    const inRedis = (id: string): Promise<boolean> =>
      backend.tasks.getResult(id).then(
        () => true,
        (error: unknown) => {
          if (error instanceof TaskResultDoesNotExist) return false;
          throw error;
        },
      );
    const outboxRows = async (): Promise<number> =>
      (
        await admin.query<{ count: number }>(
          `SELECT count(*)::int AS count FROM ${created.name}.threadmill_outbox`,
        )
      ).rows[0].count;

    it('reaches Redis only after the commit', async () => {
      const tx = await begin();
      await tx.insertUser('u1');
      const result = await tasks.enqueue(Welcome, ['u1'], { alias, transaction: tx.transaction });
      await expect(inRedis(result.id)).resolves.toBe(false);
      await tx.commit();
      await waitFor(() => inRedis(result.id), { what: 'the task in Redis' });
      await expect(backend.tasks.getResult(result.id)).resolves.toMatchObject({ args: ['u1'] });
    });

    it('never reaches Redis when the transaction rolls back', async () => {
      const tx = await begin();
      await tx.insertUser('u2');
      const result = await tasks.enqueue(Welcome, ['u2'], { alias, transaction: tx.transaction });
      await tx.rollback();
      // A later commit's move shows the relay read past where the rolled-back row would be.
      const later = await begin();
      const kept = await tasks.enqueue(Welcome, ['u3'], { alias, transaction: later.transaction });
      await later.commit();
      await waitFor(() => inRedis(kept.id), { what: 'the committed task' });
      await waitFor(async () => (await outboxRows()) === 0, { what: 'an empty outbox' });
      await expect(inRedis(result.id)).resolves.toBe(false);
    });
  });
}
