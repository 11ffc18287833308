import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Pool } from 'pg';

import { pgTransaction } from '../../../../lib/backends/postgres';
import { outboxRelayLockKey } from '../../../../lib/backends/postgres/postgres-names';
import { RedisKeys } from '../../../../lib/backends/redis/redis-keys';
import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { BlackholeProxy } from '../../../helpers/blackhole-proxy';
import { createTestSchema, type TestSchema } from '../../../helpers/postgres-schema';
import { readyRecord } from '../../../helpers/ready-record';
import { removeAliasKeys } from '../../../helpers/redis-cleanup';
import { testAlias } from '../../../helpers/test-alias';
import { testPostgresUrl } from '../../../helpers/test-postgres-url';
import { testRedisUrl } from '../../../helpers/test-redis-url';
import { waitFor } from '../../../helpers/wait-for';

// A relay that stalls between reading its rows and moving them, for longer
// than the marks last, while a newer relay takes the lock, moves those rows
// and deletes them: the stale relay's Redis path is blackholed (its move is
// sent, and held, then delivered late and whole), its lock connection is
// ended with pg_terminate_backend, and the task the newer relay stored is
// taken out of Redis as if it had run and its result expired. The move the
// stale relay sent arrives then, carrying its older generation: refused
// whole, so the task is not stored a second time, and the newer relay's
// marks stay.

/** Large enough that the held bytes show the move itself was sent. */
const PAYLOAD = 'x'.repeat(4096);

describe("the outbox relay's fencing token", () => {
  jest.setTimeout(60_000);
  let schema: TestSchema;
  let alias: string;
  let keys: RedisKeys;
  let app: RedisBackend;
  let pool: Pool;
  let redis: Redis;
  let proxy: BlackholeProxy;
  const relays: RedisBackend[] = [];

  const relay = (url: string): RedisBackend => {
    const made = new RedisBackend(
      alias,
      {
        backend: RedisBackend,
        url,
        queues: ['default'],
        options: {
          // Long enough that the stale relay's held move waits for its reply instead of giving up.
          commandTimeout: 30_000,
          outbox: { url: testPostgresUrl(), schema: schema.name, pollInterval: 100 },
        },
      },
      storeRules,
    );
    relays.push(made);
    return made;
  };
  const outboxRows = async (): Promise<number> =>
    (
      await pool.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM ${schema.name}.threadmill_outbox`,
      )
    ).rows[0].count;
  /** The Postgres backend process that holds the relay's advisory lock. */
  const lockHolder = async (): Promise<number | undefined> =>
    (
      await pool.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
          AND ((classid::bigint << 32) | objid::bigint) = $1::bigint`,
        [outboxRelayLockKey(schema.name, alias)],
      )
    ).rows[0]?.pid;

  beforeEach(async () => {
    schema = await createTestSchema();
    alias = testAlias();
    keys = new RedisKeys(alias);
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
    pool = new Pool({ connectionString: testPostgresUrl(), max: 2 });
    redis = new Redis(testRedisUrl());
    proxy = await BlackholeProxy.start(Number(new URL(testRedisUrl()).port));
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    proxy.restore();
    await Promise.all(relays.splice(0).map((made) => made.close()));
    await proxy.close();
    await app.close();
    await pool.end();
    await removeAliasKeys(redis, alias);
    redis.disconnect();
    await schema.drop();
  });

  it.each([
    ['without a unique key, its mark expired', false, true],
    ['with a unique key, its mark still there', true, false],
  ])(
    'refuses the whole move of a relay replaced between its read and its move (%s)',
    async (_, keyed, markExpired) => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const { pathname } = new URL(testRedisUrl());
      const stale = relay(`${proxy.url}${pathname}`);
      await waitFor(async () => stale.relaysOutbox && (await redis.get(keys.outboxGeneration)), {
        what: "the stale relay's lock and generation",
      });
      const held = await lockHolder();
      expect(held).toBeDefined();
      // From here the stale relay's Redis calls are held: it reads, and its move waits.
      proxy.blackhole();
      const record = readyRecord(alias, { args: [PAYLOAD] });
      const task: TaskRecord = keyed
        ? { ...record, task: { ...record.task, unique: { key: 'k', mode: 'unfinished' } } }
        : record;
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await app.tasks.enqueueInTransaction!(pgTransaction(client), [task]);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      // The held bytes carry the task's payload: it has read the row and sent its move.
      await waitFor(() => proxy.held().toTarget > PAYLOAD.length, {
        what: "the stale relay's move, held",
      });
      // Its lock connection ends; it does not notice while its move waits.
      await pool.query('SELECT pg_terminate_backend($1)', [held]);

      const newer = relay(testRedisUrl());
      await waitFor(async () => (await outboxRows()) === 0, { what: 'the newer relay deleting' });
      await expect(redis.zrange(keys.queue('default'), 0, -1)).resolves.toEqual([task.id]);
      await expect(redis.get(keys.outboxGeneration)).resolves.toBe('2');
      await newer.close();
      // As if the task ran and its result expired, and (first case) the mark window passed.
      await redis.unlink(keys.task(task.id));
      await redis.zrem(keys.queue('default'), task.id);
      if (markExpired) await redis.unlink(keys.moved(task.id));

      proxy.restore();
      // It takes the lock again, with a new generation, only once its move was answered.
      await waitFor(
        async () => stale.relaysOutbox && (await redis.get(keys.outboxGeneration)) === '3',
        { what: 'the stale relay back on the lock, with a new generation' },
      );
      await expect(redis.exists(keys.task(task.id))).resolves.toBe(0);
      await expect(redis.zcard(keys.queue('default'))).resolves.toBe(0);
      // Stored once, by the newer relay: the enqueue sequence counts every task a move stored.
      await expect(redis.get(keys.sequence)).resolves.toBe('1');
      // The refused move made no mark, and left the newer relay's as it was.
      await expect(redis.exists(keys.moved(task.id))).resolves.toBe(markExpired ? 0 : 1);
      expect(warn.mock.calls.map(([message]) => String(message))).toContainEqual(
        expect.stringContaining('was replaced by a newer one: its move carried generation 1'),
      );
    },
  );
});
