import { Test, type TestingModule } from '@nestjs/testing';

import {
  InvalidTaskError,
  MemoryBackend,
  ScheduleService,
  TaskResultStatus,
  TaskRunner,
  ThreadmillModule,
  UnknownScheduleError,
  type TaskBackend,
} from '../../../lib';
import type { ScheduleStore } from '../../../lib/core/ports/schedule-store.port';
import { BackendRegistry } from '../../../lib/backends/backend.registry';
import type { PoolSchedules } from '../../../lib/schedule/schedule.service';
import { derivedScheduleId } from '../../../lib/schedule/declared-schedules';
import { BrokenScheduleTasks, ReportTasks, TwinScheduleTasks } from '../../fixtures/schedule.tasks';

/** A logger that keeps what it was told, so a test can show nothing went wrong. */
class KeptLogger {
  readonly errors: string[] = [];
  log(): void {}
  warn(): void {}
  error(message: string): void {
    this.errors.push(message);
  }
}

async function bootWith(...providers: (new (...args: never[]) => object)[]) {
  return Test.createTestingModule({
    imports: [
      ThreadmillModule.forRoot({
        backends: { default: { backend: MemoryBackend, queues: ['default', 'reports'] } },
      }),
    ],
    providers,
  }).compile();
}

describe('ScheduleService', () => {
  let moduleRef: TestingModule;
  let schedules: ScheduleService;
  let backend: TaskBackend;
  let store: ScheduleStore;
  let logger: KeptLogger;
  let pool: PoolSchedules;

  beforeEach(async () => {
    moduleRef = await bootWith(ReportTasks);
    await moduleRef.init();
    schedules = moduleRef.get(ScheduleService);
    backend = moduleRef.get(BackendRegistry).get('default');
    store = backend.schedules;
    logger = new KeptLogger();
    pool = schedules.forPool(backend, logger);
  });

  afterEach(async () => {
    await moduleRef.close();
  });

  /**
   * Sets a schedule's cursor to its tick (a multiple of `everyMs`) at or
   * before `agoMs` before the store's now, as if that tick were due.
   */
  async function dueSince(id: string, agoMs: number, everyMs = 60_000): Promise<number> {
    const stored = await store.getSchedule(id);
    const cursor = Math.floor(((await store.scheduleClock()) - agoMs) / everyMs) * everyMs;
    await store.putSchedule({ ...stored!, nextTickMs: cursor });
    return cursor;
  }

  describe('add', () => {
    it('stores a run-time schedule whose first tick is the next after now', async () => {
      const before = Date.now();
      const info = await schedules.add('cleanup', {
        task: 'reports.adhoc',
        every: 60_000,
        args: ['x'],
      });
      expect(info).toMatchObject({
        id: 'cleanup',
        backend: 'default',
        task: 'reports.adhoc',
        every: 60_000,
        args: ['x'],
        origin: 'runtime',
        app: 'default',
        paused: false,
        lastTick: null,
        overlap: 'allow',
        catchUp: { windowMs: 60_000, missed: 'latest', limit: 10 },
      });
      expect(info.nextTickAt!.getTime()).toBeGreaterThan(before);
      expect(info.nextTickAt!.getTime() % 60_000).toBe(0);
    });

    it('keeps the next tick when the same definition is added again', async () => {
      await schedules.add('cleanup', { task: 'reports.adhoc', every: 60_000 });
      const cursor = await dueSince('cleanup', 5);
      const again = await schedules.add('cleanup', { task: 'reports.adhoc', every: 60_000 });
      expect(again.nextTickAt?.getTime()).toBe(cursor);
    });

    it.each([
      ['an unknown task', { task: 'nope', every: 60_000 }, /no @Task named "nope"/],
      [
        'an invalid cron',
        { task: 'reports.adhoc', cron: '61 * * * *' },
        /cron "61 \* \* \* \*" is invalid/,
      ],
      ['a 7-field cron', { task: 'reports.adhoc', cron: '0 0 0 * * * *' }, /is invalid/],
      [
        'an unknown time zone',
        { task: 'reports.adhoc', cron: '0 3 * * *', timezone: 'Mars/Olympus' },
        /time zone "Mars\/Olympus" is unknown/,
      ],
      ['cron and every', { task: 'reports.adhoc', cron: '0 3 * * *', every: 1000 }, /exactly one/],
      ['neither cron nor every', { task: 'reports.adhoc' }, /exactly one/],
      ['a short interval', { task: 'reports.adhoc', every: 10 }, /every 10 is invalid/],
      [
        'arguments that are not JSON',
        { task: 'reports.adhoc', every: 60_000, args: [new Date(0)] },
        /would not survive a JSON round trip/,
      ],
      [
        'a queue the backend lacks',
        { task: 'reports.adhoc', every: 60_000, queue: 'other' },
        /queue "other" is not configured/,
      ],
      [
        'a bad catch-up',
        { task: 'reports.adhoc', every: 60_000, catchUp: { missed: 'some' } },
        /catchUp.missed must be "latest" or "all"/,
      ],
    ])(
      'refuses %s with an InvalidTaskError that says what to change',
      async (_what, options, message) => {
        const added = schedules.add('s1', options as never);
        await expect(added).rejects.toThrow(InvalidTaskError);
        await expect(added).rejects.toThrow(message);
        await expect(store.getSchedule('s1')).resolves.toBeNull();
      },
    );

    it('refuses an invalid id', async () => {
      await expect(
        schedules.add('has space', { task: 'reports.adhoc', every: 60_000 }),
      ).rejects.toThrow(/Schedule "has space" .*the id is invalid/);
    });
  });

  describe('ticks', () => {
    it('enqueues a due tick once, under its derived id, with the tick in the task context', async () => {
      await schedules.add('cleanup', { task: 'reports.nightly', every: 60_000, args: ['x'] });
      const cursor = await dueSince('cleanup', 10);
      await pool.tick();
      await pool.tick();
      const taskId = `schedule:cleanup:${cursor}`;
      const stored = await backend.tasks.getResult(taskId);
      expect(stored.task.schedule).toEqual({ id: 'cleanup', tickAt: new Date(cursor) });
      expect((await backend.reads.peek('default', 'ready', 10)).map((r) => r.id)).toEqual([taskId]);
      const info = await schedules.get('cleanup');
      expect(info.lastTick).toEqual({
        at: new Date(cursor),
        taskId,
        status: TaskResultStatus.READY,
      });
      expect(info.nextTickAt!.getTime()).toBe(cursor + 60_000);
      const [running] = await backend.leases.acquire(['default'], {
        workerId: 'h:1-0',
        timeoutMs: 0,
      });
      const finished = await moduleRef.get(TaskRunner).run(running);
      expect(finished.returnValue).toEqual({ kind: 'x', schedule: 'cleanup', tickAt: cursor });
      expect(logger.errors).toEqual([]);
    });

    it('of racing passes enqueues each tick exactly once', async () => {
      await schedules.add('fast', { task: 'reports.adhoc', every: 1000, args: ['f'] });
      const cursor = await dueSince('fast', 4_000, 1000);
      const racers = [pool, ...[1, 2, 3].map(() => schedules.forPool(backend, logger))];
      await Promise.all(racers.map((racer) => racer.tick()));
      await Promise.all(racers.map((racer) => racer.tick()));
      const ticks = (await backend.reads.peek('default', 'ready', 100))
        .map((record) => record.task.schedule!.tickAt.getTime())
        .sort((a, b) => a - b);
      // Every tick from the cursor on, one task each, none left out.
      expect(ticks.length).toBeGreaterThanOrEqual(5);
      expect(ticks).toEqual(ticks.map((_, n) => cursor + n * 1000));
      const next = (await schedules.get('fast')).nextTickAt!.getTime();
      expect(next).toBe(ticks[ticks.length - 1] + 1000);
      expect(logger.errors).toEqual([]);
    });

    it("with overlap 'skip' skips a tick while the previous tick's task still waits", async () => {
      await schedules.add('solo', {
        task: 'reports.adhoc',
        every: 1000,
        overlap: 'skip',
        args: ['s'],
      });
      await dueSince('solo', 2_000, 1000);
      await pool.tick();
      expect(await backend.reads.peek('default', 'ready', 10)).toHaveLength(1);
    });

    it('enqueues nothing for a paused schedule, and resumes from now', async () => {
      await schedules.add('cleanup', { task: 'reports.adhoc', every: 1000, args: ['p'] });
      await dueSince('cleanup', 10_000, 1000);
      const paused = await schedules.pause('cleanup');
      expect(paused).toMatchObject({ paused: true, nextTickAt: null });
      await pool.tick();
      expect(await backend.reads.peek('default', 'ready', 10)).toEqual([]);
      const before = await store.scheduleClock();
      const resumed = await schedules.resume('cleanup');
      expect(resumed.paused).toBe(false);
      expect(resumed.nextTickAt!.getTime()).toBeGreaterThan(before);
      await pool.tick();
      expect(await backend.reads.peek('default', 'ready', 10)).toEqual([]);
    });
  });

  describe('trigger', () => {
    it('enqueues one run now, outside the ticks', async () => {
      const info = await schedules.add('cleanup', {
        task: 'reports.adhoc',
        every: 60_000,
        args: ['t'],
      });
      const result = await schedules.trigger('cleanup');
      expect(result.id).toMatch(/^schedule:cleanup:run:/);
      expect(result.args).toEqual(['t']);
      expect(result.task.schedule?.id).toBe('cleanup');
      const after = await schedules.get('cleanup');
      expect(after.nextTickAt).toEqual(info.nextTickAt);
      expect(after.lastTick).toBeNull();
    });

    it('throws UnknownScheduleError for an id not stored', async () => {
      await expect(schedules.trigger('nope')).rejects.toThrow(UnknownScheduleError);
      await expect(schedules.pause('nope')).rejects.toThrow(/No schedule "nope" is stored/);
    });
  });

  describe('declared schedules', () => {
    it('are stored by the pool sync with derived or given ids; run-time ones are kept', async () => {
      await schedules.add('runtime', { task: 'reports.adhoc', every: 60_000 });
      await store.putSchedule({
        id: 'gone-from-code',
        definition: '{}',
        origin: 'declared',
        app: null,
        paused: false,
        nextTickMs: 1,
      });
      await pool.sync();
      const listed = await schedules.list();
      expect(listed.map(({ id, origin }) => ({ id, origin }))).toEqual([
        { id: 'reports.hourly', origin: 'declared' },
        { id: 'reports.nightly.0', origin: 'declared' },
        { id: 'runtime', origin: 'runtime' },
      ]);
      expect(listed[1]).toMatchObject({
        cron: '30 2 * * *',
        timezone: 'Europe/Berlin',
        args: ['nightly'],
      });
      expect(logger.errors).toEqual([]);
    });

    it('keep their next tick across a sync when unchanged', async () => {
      await pool.sync();
      const cursor = await dueSince('reports.hourly', 1);
      await pool.sync();
      expect((await schedules.get('reports.hourly')).nextTickAt?.getTime()).toBe(cursor);
    });

    it('stop the application at bootstrap when one is invalid', async () => {
      const broken = await bootWith(BrokenScheduleTasks);
      const init = broken.init();
      await expect(init).rejects.toThrow(InvalidTaskError);
      await expect(init).rejects.toThrow(/Schedule "reports.broken.0": cron "61 \* \* \* \*"/);
      // Not closed: Nest's close would run the failing bootstrap again, and a
      // memory backend holds no connection or timer to release.
    });
  });

  it('removes a schedule', async () => {
    await schedules.add('cleanup', { task: 'reports.adhoc', every: 60_000 });
    await expect(schedules.remove('cleanup')).resolves.toBe(true);
    await expect(schedules.remove('cleanup')).resolves.toBe(false);
    await expect(schedules.list()).resolves.toEqual([]);
  });
});

describe('declared schedule ids', () => {
  it('are derived from the task name and index, characters a task id lacks made _', () => {
    expect(derivedScheduleId('reports.nightly', 0)).toBe('reports.nightly.0');
    expect(derivedScheduleId('Mail/Tasks@send', 2)).toBe('Mail_Tasks_send.2');
  });

  it('stop the application at bootstrap when two share one', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [ThreadmillModule.forRoot({ backends: { default: { backend: MemoryBackend } } })],
      providers: [ReportTasks, TwinScheduleTasks],
    }).compile();
    // Not closed: Nest's close would run the failing bootstrap again (no connection is open).
    await expect(moduleRef.init()).rejects.toThrow(
      /Two declared schedules have the id "reports.hourly" \(on ReportTasks.nightly .* and on TwinScheduleTasks.twin/,
    );
  });
});
