import { setTimeout as sleep } from 'node:timers/promises';

import { Test, type TestingModule } from '@nestjs/testing';

import { MemoryBackend, ScheduleService, ThreadmillModule } from '../../../lib';
import type { ScheduleEntry, ScheduleStore } from '../../../lib/core/ports/schedule-store.port';
import { BackendRegistry } from '../../../lib/backends/backend.registry';
import { definitionText, resolveSchedule } from '../../../lib/schedule/schedule-definition';
import type { PoolSchedules } from '../../../lib/schedule/schedule.service';
import { ReportTasks } from '../../fixtures/schedule.tasks';

// Apps that share one store, each with its own `app` name: what a pool of one
// does to the schedules of the others when it syncs and ticks. One app boots
// here; the others' schedules are stored as their pools would store them.

/** A logger that keeps what it was told. */
class KeptLogger {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];
  log(): void {}
  warn(message: string): void {
    this.warnings.push(message);
  }
  error(message: string): void {
    this.errors.push(message);
  }
}

interface Booted {
  moduleRef: TestingModule;
  schedules: ScheduleService;
  store: ScheduleStore;
  logger: KeptLogger;
  pool: PoolSchedules;
}

const booted: TestingModule[] = [];

/** ReportTasks (which declares `reports.nightly.0` and `reports.hourly`) as app `app`. */
async function boot(app?: string): Promise<Booted> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      ThreadmillModule.forRoot({
        ...(app === undefined ? {} : { app }),
        backends: { default: { backend: MemoryBackend, queues: ['default', 'reports'] } },
      }),
    ],
    providers: [ReportTasks],
  }).compile();
  booted.push(moduleRef);
  await moduleRef.init();
  const schedules = moduleRef.get(ScheduleService);
  const backend = moduleRef.get(BackendRegistry).get('default');
  const logger = new KeptLogger();
  const pool = schedules.forPool(backend, logger);
  return { moduleRef, schedules, store: backend.schedules, logger, pool };
}

/** A schedule of `task` every minute as another app's pool (or `app: null`, an earlier release) stored it. */
function entry(
  id: string,
  fields: Pick<ScheduleEntry, 'origin' | 'app'> & { task?: string; nextTickMs?: number },
): ScheduleEntry {
  const definition = resolveSchedule(id, fields.task ?? 'reports.adhoc', { every: 60_000 }, 'spec');
  return {
    id,
    definition: definitionText(definition),
    origin: fields.origin,
    app: fields.app,
    paused: false,
    nextTickMs: fields.nextTickMs ?? Date.now() + 3_600_000,
  };
}

afterEach(async () => {
  for (const moduleRef of booted.splice(0)) await moduleRef.close();
});

describe('schedules of apps sharing one store', () => {
  it("a pool syncs its own app's declared schedules and leaves other apps' and run-time ones", async () => {
    const { schedules, store, pool, logger } = await boot('billing');
    await store.putSchedule(entry('invoices.daily', { origin: 'declared', app: 'shop' }));
    await store.putSchedule(entry('legacy.daily', { origin: 'declared', app: null }));
    await store.putSchedule(entry('billing.gone', { origin: 'declared', app: 'billing' }));
    await store.putSchedule(entry('adhoc', { origin: 'runtime', app: 'billing' }));
    await pool.sync();
    const listed = await schedules.list();
    expect(listed.map(({ id, origin, app }) => ({ id, origin, app }))).toEqual([
      { id: 'adhoc', origin: 'runtime', app: 'billing' },
      { id: 'invoices.daily', origin: 'declared', app: 'shop' },
      // Stored before apps were recorded: the default app's, which this one is not.
      { id: 'legacy.daily', origin: 'declared', app: 'default' },
      { id: 'reports.hourly', origin: 'declared', app: 'billing' },
      { id: 'reports.nightly.0', origin: 'declared', app: 'billing' },
    ]);
    expect(logger.errors).toEqual([]);
    expect(logger.warnings).toEqual([]);
  });

  it('the default app owns the declared schedules stored before apps were recorded', async () => {
    const { schedules, store, pool } = await boot();
    await pool.sync();
    const hourly = await store.getSchedule('reports.hourly');
    // As an earlier release stored it: no app. Unchanged, it keeps its cursor and is not rewritten.
    await store.putSchedule({ ...hourly!, app: null, nextTickMs: 60_000 });
    await store.putSchedule(entry('legacy.gone', { origin: 'declared', app: null }));
    await store.putSchedule(entry('shop.daily', { origin: 'declared', app: 'shop' }));
    await pool.sync();
    expect(await store.getSchedule('reports.hourly')).toMatchObject({
      app: null,
      nextTickMs: 60_000,
    });
    await expect(schedules.get('reports.hourly')).resolves.toMatchObject({ app: 'default' });
    await expect(store.getSchedule('legacy.gone')).resolves.toBeNull();
    await expect(store.getSchedule('shop.daily')).resolves.toMatchObject({ app: 'shop' });
  });

  it('takes over an id another app declares, and warns that both declare it', async () => {
    const { store, pool, logger } = await boot('billing');
    await store.putSchedule(entry('reports.hourly', { origin: 'declared', app: 'shop' }));
    await pool.sync();
    expect(await store.getSchedule('reports.hourly')).toMatchObject({
      origin: 'declared',
      app: 'billing',
    });
    expect(logger.warnings).toEqual([
      expect.stringMatching(
        /^Declared schedule "reports.hourly" was app "shop"'s and is now app "billing"'s: .*another `id`/,
      ),
    ]);
  });

  it("ticks its own app's schedules and another app's it has the task of, leaving the rest to their apps", async () => {
    const { store, pool, logger, moduleRef } = await boot('billing');
    await pool.sync();
    // A pass that ran into the next minute would tick that one too: this test starts clear of it.
    const toNextMinute = 60_000 - (Date.now() % 60_000);
    if (toNextMinute < 10_000) await sleep(toNextMinute + 50);
    // Cursors on each schedule's own ticks, due now.
    const due = Math.floor((Date.now() - 1_000) / 60_000) * 60_000;
    const ownCursor = Math.floor(due / 3_600_000) * 3_600_000;
    const hourly = await store.getSchedule('reports.hourly');
    await store.putSchedule({ ...hourly!, nextTickMs: ownCursor });
    // The shop's task is not one of this app's: ticking it here would fail every pass.
    for (const origin of ['declared', 'runtime'] as const) {
      await store.putSchedule(
        entry(`shop.${origin}`, { origin, app: 'shop', task: 'shop.invoice', nextTickMs: due }),
      );
    }
    await store.putSchedule(entry('shared', { origin: 'declared', app: 'shop', nextTickMs: due }));
    await pool.tick();
    expect(logger.errors).toEqual([]);
    for (const id of ['shop.declared', 'shop.runtime']) {
      expect(await store.getSchedule(id)).toMatchObject({ nextTickMs: due, lastTick: null });
    }
    expect((await store.getSchedule('shared'))?.lastTick?.tickMs).toBe(due);
    expect((await store.getSchedule('reports.hourly'))?.lastTick?.tickMs).toBe(ownCursor);
    const backend = moduleRef.get(BackendRegistry).get('default');
    const ready = await backend.reads.peek('default', 'ready', 10);
    expect(ready.map((record) => record.task.schedule?.id).sort()).toEqual([
      'reports.hourly',
      'shared',
    ]);
  });

  it("reports its own app's schedule whose task it lacks, as before apps were recorded", async () => {
    const { store, pool, logger } = await boot('billing');
    const due = Math.floor((Date.now() - 1_000) / 60_000) * 60_000;
    await store.putSchedule(
      entry('gone', { origin: 'runtime', app: 'billing', task: 'billing.gone', nextTickMs: due }),
    );
    await pool.tick();
    expect(logger.errors).toEqual([
      expect.stringMatching(/^Schedule "gone": its due ticks were not enqueued this pass/),
    ]);
  });

  it('records the app that added a schedule at run time, and keeps it through pause and resume', async () => {
    const { schedules, store } = await boot('billing');
    await expect(
      schedules.add('cleanup', { task: 'reports.adhoc', every: 60_000 }),
    ).resolves.toMatchObject({ origin: 'runtime', app: 'billing' });
    await schedules.pause('cleanup');
    await schedules.resume('cleanup');
    expect(await store.getSchedule('cleanup')).toMatchObject({ app: 'billing', paused: false });
  });
});
