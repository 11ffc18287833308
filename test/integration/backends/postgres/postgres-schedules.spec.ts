import { PostgresBackend } from '../../../../lib/backends/postgres/postgres.backend';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { tickTaskId } from '../../../../lib/schedule/schedule-ticker';
import { createTestSchema, type TestSchema } from '../../../helpers/postgres-schema';
import {
  scheduleDueSince,
  storeOf,
  tasksOfSchedule,
  tickerOn,
} from '../../../helpers/schedule-race';
import { testAlias } from '../../../helpers/test-alias';

describe('PostgresBackend schedules', () => {
  let created: TestSchema;
  const backends: PostgresBackend[] = [];

  beforeEach(async () => {
    created = await createTestSchema();
  });

  afterEach(async () => {
    for (const backend of backends.splice(0)) await backend.close();
    await created.drop();
  });

  it('enqueues each tick exactly once when pools on connections of their own race', async () => {
    const alias = testAlias();
    // Each pool has its own backend instance, so its own connections to the schema.
    const pools = Array.from({ length: 4 }, () => {
      const backend = new PostgresBackend(
        alias,
        { backend: PostgresBackend, url: created.url, options: { schema: created.name } },
        storeRules,
      );
      backends.push(backend);
      return backend;
    });
    const [first] = pools;
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
});
