import { tickTaskId } from '../../../../lib/schedule/schedule-ticker';
import {
  scheduleDueSince,
  storeOf,
  tasksOfSchedule,
  tickerOn,
} from '../../../helpers/schedule-race';
import { RedisFixture } from './redis-fixture';

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

  it('finds nothing due among 1,000 schedules in one cheap read', async () => {
    const backend = fixture.backend();
    const store = storeOf(backend);
    const future = (await store.scheduleClock()) + 3_600_000;
    for (let i = 0; i < 1000; i++) {
      await store.putSchedule({
        id: `s${i}`,
        definition: '{}',
        origin: 'runtime',
        paused: false,
        nextTickMs: future + i,
      });
    }
    const took: number[] = [];
    for (let i = 0; i < 50; i++) {
      const started = process.hrtime.bigint();
      expect((await store.dueSchedules(100)).due).toEqual([]);
      took.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    took.sort((a, b) => a - b);
    // The whole round trip, Redis's time and the loopback included.
    expect(took[25]).toBeLessThan(1);
  });

  it("decides what is due on Redis's clock, whatever this process's clock says", async () => {
    const backend = fixture.backend();
    const store = storeOf(backend);
    const [seconds, micros] = await fixture.admin.time();
    const redisNow = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const entry = { definition: '{}', origin: 'runtime' as const, paused: false };
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

  it('keeps schedules under the alias hash tag', async () => {
    const backend = fixture.backend();
    await scheduleDueSince(backend, 'tagged', 60_000, 0);
    const keys = fixture.keys(backend);
    await expect(fixture.admin.hexists(keys.scheduleEntries, 'tagged')).resolves.toBe(1);
    await expect(fixture.admin.zscore(keys.scheduleCursors, 'tagged')).resolves.not.toBeNull();
    expect(keys.scheduleEntries.startsWith(keys.prefix)).toBe(true);
  });
});
