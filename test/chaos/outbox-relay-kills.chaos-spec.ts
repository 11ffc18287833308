import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import { Redis } from 'ioredis';
import { Pool } from 'pg';

import { pgTransaction } from '../../lib/backends/postgres';
import { RedisKeys } from '../../lib/backends/redis/redis-keys';
import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { storeRules } from '../../lib/lifecycle/store-rules';
import { createTestSchema, type TestSchema } from '../helpers/postgres-schema';
import { readyRecord } from '../helpers/ready-record';
import { removeAliasKeys } from '../helpers/redis-cleanup';
import { testAlias } from '../helpers/test-alias';
import { testPostgresUrl } from '../helpers/test-postgres-url';
import { testRedisUrl } from '../helpers/test-redis-url';
import { forkTs, killChild, nextMessage } from '../helpers/ts-child';
import { waitFor } from '../helpers/wait-for';

// kill -9 of the outbox relay's process, again and again, while the app
// commits 100 transactions a second (one in five rolled back instead): every
// committed task reaches Redis exactly once, none of a rolled-back one. A
// kill between a move and the delete of its rows leaves them for the next
// relay, whose move the moved-id marks refuse.

const KILLS = 8;
const EVERY_MS = 10;
const CHILD = join(__dirname, 'outbox-relay-child.ts');

describe('chaos: kill -9 of the outbox relay', () => {
  jest.setTimeout(120_000);
  let schema: TestSchema;
  let alias: string;
  let app: RedisBackend;
  let pool: Pool;
  let redis: Redis;
  let child: ChildProcess | null = null;

  beforeEach(async () => {
    schema = await createTestSchema();
    alias = testAlias();
    // The app's process: it writes, and leaves the relaying to the child.
    app = new RedisBackend(
      alias,
      {
        backend: RedisBackend,
        url: testRedisUrl(),
        queues: ['default'],
        options: { outbox: { url: testPostgresUrl(), schema: schema.name, relay: false } },
      },
      storeRules,
    );
    pool = new Pool({ connectionString: testPostgresUrl(), max: 8 });
    redis = new Redis(testRedisUrl());
  });

  afterEach(async () => {
    if (child) await killChild(child);
    await app.close();
    await pool.end();
    await removeAliasKeys(redis, alias);
    redis.disconnect();
    await schema.drop();
  });

  const startRelay = async (): Promise<ChildProcess> => {
    const started = forkTs(CHILD, [alias, testRedisUrl(), testPostgresUrl(), schema.name]);
    child = started;
    await nextMessage(started, (m): m is 'relaying' => m === 'relaying', {
      what: 'the relay lock',
    });
    return started;
  };

  it('moves every committed task once and no rolled-back one', async () => {
    const committed: string[] = [];
    const rolledBack: string[] = [];
    const pending = new Set<Promise<void>>();
    let n = 0;
    const transaction = async (rollback: boolean): Promise<void> => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const record = readyRecord(alias);
        await app.tasks.enqueueInTransaction!(pgTransaction(client), [record]);
        await client.query(rollback ? 'ROLLBACK' : 'COMMIT');
        (rollback ? rolledBack : committed).push(record.id);
      } finally {
        client.release();
      }
    };
    const producer = setInterval(() => {
      const call = transaction(++n % 5 === 0);
      pending.add(call);
      void call.finally(() => pending.delete(call));
    }, EVERY_MS);
    try {
      for (let kill = 0; kill < KILLS; kill++) {
        const relay = await startRelay();
        // A while of moving, at a different point each time.
        const movedBefore = await redis.get(new RedisKeys(alias).sequence);
        await waitFor(
          async () => (await redis.get(new RedisKeys(alias).sequence)) !== movedBefore,
          { what: 'a move by this relay' },
        );
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 300)));
        await killChild(relay);
      }
    } finally {
      clearInterval(producer);
      await Promise.all([...pending]);
    }
    await startRelay();
    const rows = async (): Promise<number> =>
      (
        await pool.query<{ count: number }>(
          `SELECT count(*)::int AS count FROM ${schema.name}.threadmill_outbox`,
        )
      ).rows[0].count;
    await waitFor(async () => (await rows()) === 0, { what: 'an empty outbox', timeoutMs: 30_000 });
    const keys = new RedisKeys(alias);
    const ready = await redis.zrange(keys.queue('default'), 0, -1);
    expect(committed.length).toBeGreaterThan(KILLS * 10);
    expect(rolledBack.length).toBeGreaterThan(0);
    expect([...ready].sort()).toEqual([...committed].sort());
    // Stored once each: the enqueue sequence counts every task a move stored.
    await expect(redis.get(keys.sequence)).resolves.toBe(String(committed.length));
  });
});
