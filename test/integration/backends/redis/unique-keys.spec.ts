import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import type { TaskUniqueness } from '../../../../lib/core/unique-key';
import type { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { aliasKeys } from '../../../helpers/redis-cleanup';
import { RedisFixture, readyRecord, succeeded } from './redis-fixture';
import { runMaintenancePass } from '../../../../lib/lifecycle/maintenance-pass';

describe('RedisBackend unique keys', () => {
  const fixture = new RedisFixture();
  afterEach(() => fixture.cleanup());
  afterAll(() => fixture.close());

  const keyed = (alias: string, unique: TaskUniqueness, args: unknown[] = []): TaskRecord => {
    const runAfter = unique.mode === 'debounce' ? new Date(Date.now() + (unique.ttlMs ?? 0)) : null;
    const record = readyRecord(alias, { args, runAfter });
    return { ...record, task: { ...record.task, unique } };
  };

  it.each([
    { key: 'burst', mode: 'unfinished' },
    { key: 'burst', mode: 'window', ttlMs: 60_000 },
    { key: 'burst', mode: 'debounce', ttlMs: 60_000 },
  ] satisfies TaskUniqueness[])(
    'makes one task of 100 enqueues of one key sent at once over 4 connections ($mode)',
    async (unique) => {
      const first = fixture.backend();
      const backends: RedisBackend[] = [first];
      for (let i = 1; i < 4; i++) backends.push(fixture.backend({}, undefined, first.alias));
      const stored = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          backends[i % 4].tasks.enqueue(keyed(first.alias, unique, [i])),
        ),
      );
      expect(new Set(stored.map((record) => record.id)).size).toBe(1);
      const counts = (await first.reads.telemetry(60_000)).queues.default.counts;
      expect(counts.ready + counts.deferred).toBe(1);
    },
  );

  it('stores nothing beside a task without a key, and its enqueue leaves the key index alone', async () => {
    const backend = fixture.backend();
    await backend.tasks.enqueue(readyRecord(backend.alias));
    const keys = await aliasKeys(fixture.admin, backend.alias);
    expect(keys.some((key) => key.includes('unique'))).toBe(false);
  });

  it('keeps a window in a string that expires with it, beside the index entry', async () => {
    const backend = fixture.backend();
    const keys = fixture.keys(backend);
    const held = await backend.tasks.enqueue(
      keyed(backend.alias, { key: 'report', mode: 'window', ttlMs: 5000 }),
    );
    expect(await fixture.admin.get(keys.uniqueWindow('report'))).toBe(held.id);
    const ttl = await fixture.admin.pttl(keys.uniqueWindow('report'));
    expect(ttl).toBeGreaterThan(4000);
    expect(ttl).toBeLessThanOrEqual(5000);
    expect(await fixture.admin.hget(keys.uniqueKeys, 'report')).toBe(held.id);
  });

  it('forgets the index entries of finished tasks in a maintenance pass, and keeps the others', async () => {
    const backend = fixture.backend();
    const keys = fixture.keys(backend);
    await backend.tasks.enqueueMany(
      ['a', 'b', 'c'].map((key) => keyed(backend.alias, { key, mode: 'unfinished' })),
    );
    const leased = await backend.leases.acquire(['default'], {
      workerId: 'w',
      timeoutMs: 0,
      max: 2,
    });
    await backend.leases.acknowledge(leased.map(succeeded));
    expect(await fixture.admin.hlen(keys.uniqueKeys)).toBe(3);
    const report = await runMaintenancePass(backend);
    expect(report.failedSteps).toEqual([]);
    const left = await fixture.admin.hgetall(keys.uniqueKeys);
    expect(Object.keys(left)).toHaveLength(1);
    const [holder] = Object.values(left);
    await expect(backend.tasks.getResult(holder)).resolves.toMatchObject({
      status: TaskResultStatus.READY,
    });
  });
});
