import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';

import { RedisKeys } from '../../../../lib/backends/redis/redis-keys';
import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { StoreFullError } from '../../../../lib/core/errors/store-full.error';
import { UnsupportedStoreError } from '../../../../lib/core/errors/unsupported-store.error';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { failedAttempt, nextAttempt } from '../../../../lib/lifecycle/retry-policy';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { startRedisServer, type RedisServerHandle } from '../../../helpers/redis-server';
import { testAlias } from '../../../helpers/test-alias';
import { readyRecord, succeeded } from './redis-fixture';
import { runMaintenancePass } from '../../../../lib/lifecycle/maintenance-pass';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

// A full Redis (maxmemory reached, noeviction) refuses writes; Threadmill must
// report that as StoreFullError and never act on half of a refused call, while
// what drains the store (leases, outcomes, retries, releases, beats) goes on. A
// Redis that evicts keys instead is refused at connect. Each on a private
// redis-server, whose maxmemory and policy the tests set at will.

describe('RedisBackend under memory pressure', () => {
  let server: RedisServerHandle;
  let admin: Redis;
  const backends: RedisBackend[] = [];

  beforeAll(async () => {
    server = await startRedisServer(['--maxmemory-policy', 'noeviction']);
    admin = new Redis(server.url);
  });
  afterEach(async () => {
    await admin.config('SET', 'maxmemory', '0');
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    for (const backend of backends.splice(0)) await backend.close();
  });
  afterAll(async () => {
    await admin.quit();
    await server.stop();
  });

  const backendOn = (options: Record<string, unknown> = {}): RedisBackend => {
    const backend = new RedisBackend(
      testAlias(),
      {
        backend: RedisBackend,
        url: server.url,
        queues: ['default'],
        options,
      },
      storeRules,
    );
    backends.push(backend);
    return backend;
  };
  // Any maxmemory below what is used makes every write a refused one.
  const fill = () => admin.config('SET', 'maxmemory', '1');
  const free = () => admin.config('SET', 'maxmemory', '0');

  describe('maxmemory reached, noeviction', () => {
    it('refuses an enqueue with StoreFullError, retryable, and stores nothing', async () => {
      const backend = backendOn();
      await backend.ping();
      const record = readyRecord(backend.alias);
      await fill();
      const error = await backend.tasks.enqueue(record).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreFullError);
      expect(error).toMatchObject({ code: 'STORE_FULL', retryable: true });
      expect((error as Error).message).toMatch(/is full and refused enqueue\.lua/);
      await expect(backend.tasks.enqueueMany([readyRecord(backend.alias)])).rejects.toThrow(
        StoreFullError,
      );
      const keys = new RedisKeys(backend.alias);
      expect(await admin.exists(keys.task(record.id))).toBe(0);
      expect(await admin.zcard(keys.queue('default'))).toBe(0);
      await free();
      // The same record again: stored now, and no "already stored" from the refused try.
      await expect(backend.tasks.enqueue(record)).resolves.toEqual(record);
    });

    it('still stores outcomes, retries, releases and beats while full, so it drains, and refuses enqueues', async () => {
      const backend = backendOn();
      const records = [0, 1, 2, 3, 4].map((i) =>
        readyRecord(backend.alias, { args: [`payload ${i}`] }),
      );
      await backend.tasks.enqueueMany(records.map((r, i) => (i === 3 ? withRetries(r) : r)));
      const leased = await backend.leases.acquire(['default'], {
        workerId: 'w',
        max: 4,
        timeoutMs: 0,
      });
      expect(leased).toHaveLength(4);
      const [a, b, c, d] = leased;
      await fill();
      await expect(backend.tasks.enqueue(readyRecord(backend.alias))).rejects.toThrow(
        StoreFullError,
      );
      // A pool's beat and lease go on: the last waiting task is leased with c's outcome stored.
      await backend.pools.beat('pool-on-a-full-redis', 60_000);
      await expect(
        backend.leases.acknowledge([succeeded(a, 'a'), succeeded(b, 'b')]),
      ).resolves.toEqual(['acknowledged', 'acknowledged']);
      const next = await backend.leases.acknowledgeAndAcquire([succeeded(c, 'c')], ['default'], {
        workerId: 'w',
        timeoutMs: 0,
        poolId: 'pool-on-a-full-redis',
      });
      expect(next.acknowledged).toEqual(['acknowledged']);
      expect(next.acquired.map((record) => record.id)).toEqual([records[4].id]);
      await expect(
        backend.leases.retry([nextAttempt(failedAttempt(d, new Error('boom')), null, new Date())]),
      ).resolves.toEqual(['retried']);
      await expect(backend.leases.release(next.acquired)).resolves.toBe(1);
      for (const [record, value] of [
        [a, 'a'],
        [b, 'b'],
        [c, 'c'],
      ] as const) {
        await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
          status: TaskResultStatus.SUCCESSFUL,
          returnValue: value,
          args: record.args,
        });
      }
      const keys = new RedisKeys(backend.alias);
      expect(await admin.zcard(keys.running('default'))).toBe(0);
      // The released task waits again, and the retried one until its backoff ends.
      expect(await admin.zcard(keys.queue('default'))).toBe(1);
      expect(await admin.zcard(keys.deferred('default'))).toBe(1);
      // Still full: what adds new work stays refused.
      await expect(backend.tasks.enqueue(readyRecord(backend.alias))).rejects.toThrow(
        StoreFullError,
      );
    });

    it('refuses a keyed enqueue whole, and still forgets the keys of ended tasks while full', async () => {
      const backend = backendOn();
      const keyed = (key: string): TaskRecord => {
        const record = readyRecord(backend.alias);
        return { ...record, task: { ...record.task, unique: { key, mode: 'unfinished' } } };
      };
      const ended = await backend.tasks.enqueue(keyed('ended'));
      const [leased] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      await backend.leases.acknowledge([succeeded(leased)]);
      const keys = new RedisKeys(backend.alias);
      await fill();
      await expect(backend.tasks.enqueue(keyed('new'))).rejects.toThrow(
        /is full and refused enqueueUnique\.lua/,
      );
      const report = await runMaintenancePass(backend);
      expect(report.failedSteps.map((failed) => failed.step)).not.toContain('trim');
      expect(await admin.hkeys(keys.uniqueKeys)).toEqual([]);
      await free();
      await expect(backend.tasks.getResult(ended.id)).resolves.toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
      });
    });

    it('still serves reads while full: a worker can see what it holds', async () => {
      const backend = backendOn();
      const record = await backend.tasks.enqueue(readyRecord(backend.alias));
      await fill();
      await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({ id: record.id });
      await expect(backend.reads.peek('default', 'ready', 10)).resolves.toHaveLength(1);
      await expect(backend.reads.telemetry(1000)).resolves.toBeDefined();
      await expect(backend.ping()).resolves.toBeUndefined();
    });
  });

  describe('a Redis that evicts keys', () => {
    it('is refused at the first call, naming the policy, and nothing is written', async () => {
      await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
      const backend = backendOn();
      const before = await admin.dbsize();
      const error = await backend.tasks
        .enqueue(readyRecord(backend.alias))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnsupportedStoreError);
      expect((error as Error).message).toMatch(/maxmemory-policy is allkeys-lru/);
      expect((error as Error).message).toMatch(/allowEviction: true/);
      await expect(backend.ping()).rejects.toThrow(UnsupportedStoreError);
      expect(await admin.dbsize()).toBe(before);
      // Checked again until it passes: once the policy is fixed the same backend works.
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await expect(backend.tasks.enqueue(readyRecord(backend.alias))).resolves.toBeDefined();
    });

    it('is used with allowEviction: true, with a warning', async () => {
      await admin.config('SET', 'maxmemory-policy', 'volatile-lru');
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      try {
        const backend = backendOn({ allowEviction: true });
        const record = await backend.tasks.enqueue(readyRecord(backend.alias));
        await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({ id: record.id });
        const warnings = warn.mock.calls.map(([message]) => String(message));
        expect(warnings.filter((m) => m.includes('maxmemory-policy volatile-lru'))).toHaveLength(1);
      } finally {
        warn.mockRestore();
      }
    });
  });
});

/** A record whose failed attempt goes back for another one. */
function withRetries(record: TaskRecord): TaskRecord {
  return { ...record, task: { ...record.task, retries: 1 } };
}
