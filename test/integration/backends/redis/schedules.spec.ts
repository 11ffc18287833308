import { TaskResultDoesNotExist } from '../../../../lib/core/errors/task-result-does-not-exist.error';
import { tickTaskId } from '../../../../lib/schedule/schedule-ticker';
import { aliasKeys } from '../../../helpers/redis-cleanup';
import {
  scheduleDueSince,
  storeOf,
  tasksOfSchedule,
  tickerOn,
} from '../../../helpers/schedule-race';
import { startRedisServer, type RedisServerHandle } from '../../../helpers/redis-server';
import { RedisFixture, commandStats, readyRecord, statsDelta } from './redis-fixture';

describe('RedisBackend schedules', () => {
  const fixture = new RedisFixture();
  afterEach(() => fixture.cleanup());
  afterAll(() => fixture.close());

  it('enqueues each tick exactly once when pools on separate connections race', async () => {
    const first = fixture.backend();
    // Each pool has its own backend instance, so its own connection to the alias.
    const pools = [first, ...[1, 2, 3].map(() => fixture.backend({}, undefined, first.alias))];
    const cursor = await scheduleDueSince(first, 'race', 1000, 5_000);
    for (let round = 0; round < 3; round++) {
      await Promise.all(pools.map((pool) => tickerOn(pool).pass()));
    }
    const ticks = (await tasksOfSchedule(first, 'race')).map((record) => ({
      id: record.id,
      tickAt: record.task.schedule!.tickAt.getTime(),
    }));
    expect(ticks.length).toBeGreaterThanOrEqual(6);
    expect(ticks).toEqual(
      ticks.map((_, n) => ({
        id: tickTaskId('race', cursor + n * 1000),
        tickAt: cursor + n * 1000,
      })),
    );
    const stored = await storeOf(first).getSchedule('race');
    expect(stored?.nextTickMs).toBe(ticks[ticks.length - 1].tickAt + 1000);
    expect(stored?.lastTick?.taskId).toBe(ticks[ticks.length - 1].id);
  });

  it("decides what is due on Redis's clock, whatever this process's clock says", async () => {
    const backend = fixture.backend();
    const store = storeOf(backend);
    const [seconds, micros] = await fixture.admin.time();
    const redisNow = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const entry = { definition: '{}', origin: 'runtime' as const, app: null, paused: false };
    await store.putSchedule({ ...entry, id: 'due', nextTickMs: redisNow - 1 });
    await store.putSchedule({ ...entry, id: 'later', nextTickMs: redisNow + 600_000 });
    // A host clock ten minutes ahead would take "later" for due; the store's does not.
    const spy = jest.spyOn(Date, 'now').mockReturnValue(redisNow + 3_600_000);
    try {
      const { nowMs, due } = await store.dueSchedules(10);
      expect(due.map((entry) => entry.id)).toEqual(['due']);
      expect(nowMs).toBeGreaterThanOrEqual(redisNow);
      expect(nowMs).toBeLessThan(redisNow + 60_000);
    } finally {
      spy.mockRestore();
    }
  });

  it('reads a schedule stored before apps were recorded as one with no app', async () => {
    const backend = fixture.backend();
    const keys = fixture.keys(backend);
    // The entry exactly as an earlier release wrote it: definition, origin, paused.
    await fixture.admin.hset(
      keys.scheduleEntries,
      'older',
      JSON.stringify({ d: '{}', o: 'declared', p: false }),
    );
    await fixture.admin.zadd(keys.scheduleCursors, 5_000, 'older');
    await expect(storeOf(backend).getSchedule('older')).resolves.toEqual({
      id: 'older',
      definition: '{}',
      origin: 'declared',
      app: null,
      paused: false,
      nextTickMs: 5_000,
      lastTick: null,
    });
  });

  it('keeps one alias under two prefixes apart: tasks and schedules of neither are seen by the other', async () => {
    const billing = fixture.backend({ prefix: 'billing' });
    const shop = fixture.backend({ prefix: 'shop' }, undefined, billing.alias);
    await scheduleDueSince(billing, 'nightly', 60_000, 0);
    const record = readyRecord(billing.alias);
    await billing.tasks.enqueue(record);
    await expect(storeOf(shop).listSchedules()).resolves.toEqual([]);
    await expect(shop.tasks.getResult(record.id)).rejects.toThrow(TaskResultDoesNotExist);
    await expect(
      shop.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 }),
    ).resolves.toEqual([]);
    const keys = await aliasKeys(fixture.admin, billing.alias, 'billing');
    expect(keys.length).toBeGreaterThan(3);
    expect(keys.every((key) => key.startsWith(`billing:{${billing.alias}}:`))).toBe(true);
    await expect(aliasKeys(fixture.admin, billing.alias)).resolves.toEqual([]);
  });

  it('keeps schedules under the alias hash tag', async () => {
    const backend = fixture.backend();
    await scheduleDueSince(backend, 'tagged', 60_000, 0);
    const keys = fixture.keys(backend);
    await expect(fixture.admin.hexists(keys.scheduleEntries, 'tagged')).resolves.toBe(1);
    await expect(fixture.admin.zscore(keys.scheduleCursors, 'tagged')).resolves.not.toBeNull();
    expect(keys.scheduleEntries.startsWith(keys.prefix)).toBe(true);
  });
});

// A private redis-server: INFO commandstats must see this test's commands only.
describe('RedisBackend schedules: a pass with nothing due', () => {
  let server: RedisServerHandle;
  let fixture: RedisFixture;

  beforeAll(async () => {
    server = await startRedisServer();
    fixture = new RedisFixture(server.url);
  });
  afterEach(() => fixture.cleanup());
  afterAll(async () => {
    await fixture.close();
    await server.stop();
  });

  // How long the read takes is the benchmark's to say (`npm run bench`, its maintenance pass
  // row); here, what it runs: the same few commands however many schedules are stored.
  it('finds nothing due among 1,000 schedules in one script reading only the cursors', async () => {
    const backend = fixture.backend();
    const store = storeOf(backend);
    const future = (await store.scheduleClock()) + 3_600_000;
    for (let i = 0; i < 1000; i++) {
      await store.putSchedule({
        id: `s${i}`,
        definition: '{}',
        origin: 'runtime',
        app: null,
        paused: false,
        nextTickMs: future + i,
      });
    }
    // Loads the script on the connection, so the reads below are sent as they always are.
    await store.dueSchedules(100);
    const before = await commandStats(fixture.admin);
    const reads = 50;
    for (let i = 0; i < reads; i++) {
      expect((await store.dueSchedules(100)).due).toEqual([]);
    }
    // INFO is ours.
    const { info: _ourInfo, ...delta } = statsDelta(before, await commandStats(fixture.admin));
    // Per read: one script call, which reads Redis's clock and one range of the cursors
    // (empty), and touches none of the 1,000 entries or last ticks.
    expect(delta).toEqual({ evalsha: reads, time: reads, zrangebyscore: reads });
  });
});
