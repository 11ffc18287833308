import type { ScheduleEntry, ScheduleStore } from '../../core/ports/schedule-store.port';
import type { TaskBackend } from '../../core/task-backend.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { readyRecord } from './ready-record';
import type { ContractRunner } from './contract-runner';

/**
 * The contract of a backend's ScheduleStore: add or replace, remove, list,
 * the due range on the store's clock, and the compare-and-set of a cursor
 * (only from the value read, only forward). Part of describeBackendContract,
 * run on every backend.
 */
export function describeScheduleStore(
  t: ContractRunner,
  subject: () => { backend: TaskBackend },
): void {
  const { describe, it, expect, beforeEach } = t;
  describe('schedule store', () => {
    let store: ScheduleStore;
    const entry = (fields: Partial<ScheduleEntry> = {}): ScheduleEntry => ({
      id: 'nightly',
      definition: '{"task":"contract.echo"}',
      origin: 'runtime',
      app: 'contract-app',
      paused: false,
      nextTickMs: 1_000,
      ...fields,
    });

    beforeEach(async () => {
      const { backend } = subject();
      store = backend.schedules;
    });

    it('stores a schedule that get and list return, with no last tick yet', async () => {
      await store.putSchedule(entry());
      const stored = { ...entry(), lastTick: null };
      await expect(store.getSchedule('nightly')).resolves.toEqual(stored);
      await expect(store.listSchedules()).resolves.toEqual([stored]);
      await expect(store.getSchedule('other')).resolves.toBeNull();
    });

    it('keeps the app a schedule records, or none, as given by the last write', async () => {
      await store.putSchedule(entry({ id: 'billing', app: 'billing', origin: 'declared' }));
      await store.putSchedule(
        entry({ id: 'older', app: null, origin: 'declared', nextTickMs: 2_000 }),
      );
      expect(
        (await store.listSchedules()).map(({ id, origin, app }) => ({ id, origin, app })),
      ).toEqual([
        { id: 'billing', origin: 'declared', app: 'billing' },
        { id: 'older', origin: 'declared', app: null },
      ]);
      // Taken over by another app, then written as a release before apps wrote it.
      await store.putSchedule(entry({ id: 'billing', app: 'shop', origin: 'declared' }));
      await expect(store.getSchedule('billing')).resolves.toMatchObject({ app: 'shop' });
      await store.putSchedule(entry({ id: 'billing', app: null }));
      await expect(store.getSchedule('billing')).resolves.toMatchObject({ app: null });
      const { due } = await store.dueSchedules(10);
      expect(due.map(({ id, app }) => ({ id, app }))).toEqual([
        { id: 'billing', app: null },
        { id: 'older', app: null },
      ]);
    });

    it('lists schedules by id', async () => {
      for (const id of ['b', 'c', 'a']) await store.putSchedule(entry({ id }));
      expect((await store.listSchedules()).map((stored) => stored.id)).toEqual(['a', 'b', 'c']);
    });

    it('finds due schedules by the store clock, earliest first, at most `max`', async () => {
      const now = await store.scheduleClock();
      await store.putSchedule(entry({ id: 'late', nextTickMs: now - 1_000 }));
      await store.putSchedule(entry({ id: 'early', nextTickMs: now - 5_000 }));
      await store.putSchedule(entry({ id: 'future', nextTickMs: now + 3_600_000 }));
      await store.putSchedule(entry({ id: 'paused', paused: true, nextTickMs: null }));
      const { nowMs, due } = await store.dueSchedules(10);
      expect(nowMs).toBeGreaterThanOrEqual(now);
      expect(due.map((stored) => stored.id)).toEqual(['early', 'late']);
      expect((await store.dueSchedules(1)).due.map((stored) => stored.id)).toEqual(['early']);
    });

    it('moves a cursor only from the value read, and records the last tick', async () => {
      await store.putSchedule(entry({ nextTickMs: 1_000 }));
      const tick = { tickMs: 1_000, taskId: 'schedule:nightly:1000' };
      await expect(store.advanceSchedule('nightly', 1_000, 2_000, tick)).resolves.toBe(true);
      // A racing pass that read the same cursor finds it moved.
      await expect(store.advanceSchedule('nightly', 1_000, 2_000, tick)).resolves.toBe(false);
      await expect(store.getSchedule('nightly')).resolves.toEqual({
        ...entry(),
        nextTickMs: 2_000,
        lastTick: tick,
      });
    });

    it('never moves a cursor backwards, nor that of a paused or unknown schedule', async () => {
      await store.putSchedule(entry({ nextTickMs: 5_000 }));
      await expect(store.advanceSchedule('nightly', 5_000, 4_000, null)).resolves.toBe(false);
      await store.putSchedule(entry({ id: 'paused', paused: true, nextTickMs: null }));
      await expect(store.advanceSchedule('paused', 5_000, 6_000, null)).resolves.toBe(false);
      await expect(store.advanceSchedule('unknown', 5_000, 6_000, null)).resolves.toBe(false);
      expect((await store.getSchedule('nightly'))?.nextTickMs).toBe(5_000);
      expect((await store.getSchedule('paused'))?.nextTickMs).toBeNull();
    });

    it('keeps the last tick when a schedule is replaced, and a move without one keeps it', async () => {
      await store.putSchedule(entry());
      const tick = { tickMs: 1_000, taskId: 'schedule:nightly:1000' };
      await store.advanceSchedule('nightly', 1_000, 2_000, tick);
      await store.advanceSchedule('nightly', 2_000, 3_000, null);
      await store.putSchedule(entry({ definition: '{"changed":true}', nextTickMs: 9_000 }));
      await expect(store.getSchedule('nightly')).resolves.toEqual({
        ...entry({ definition: '{"changed":true}', nextTickMs: 9_000 }),
        lastTick: tick,
      });
    });

    it('pausing takes a schedule out of the due range; replacing keeps its origin as given', async () => {
      const now = await store.scheduleClock();
      await store.putSchedule(entry({ nextTickMs: now - 1 }));
      await store.putSchedule(entry({ paused: true, nextTickMs: null, origin: 'declared' }));
      expect((await store.dueSchedules(10)).due).toEqual([]);
      expect(await store.getSchedule('nightly')).toMatchObject({
        paused: true,
        origin: 'declared',
      });
    });

    it("keeps a scheduled task's tick with it, waiting, running and finished", async () => {
      const { backend } = subject();
      const plain = readyRecord(backend.alias, { name: 'contract.echo' });
      const tickAt = new Date(1_780_000_000_000);
      const scheduled = {
        ...plain,
        id: `schedule:nightly:${tickAt.getTime()}`,
        task: { ...plain.task, schedule: { id: 'nightly', tickAt } },
      };
      await backend.tasks.enqueue(scheduled);
      await expect(backend.tasks.getResult(scheduled.id)).resolves.toEqual(scheduled);
      const [running] = await backend.leases.acquire(['default'], {
        workerId: 'host:1-0',
        timeoutMs: 0,
      });
      expect(running.task.schedule).toEqual({ id: 'nightly', tickAt });
      await backend.leases.acknowledge([
        { ...running, status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date(), returnValue: 1 },
      ]);
      const finished = await backend.tasks.getResult(scheduled.id);
      expect(finished.task).toEqual(scheduled.task);
      // A task no schedule enqueued has no `schedule` key at all.
      await backend.tasks.enqueue(plain);
      expect(Object.keys((await backend.tasks.getResult(plain.id)).task)).not.toContain('schedule');
    });

    it('removes a schedule with its cursor and last tick', async () => {
      const now = await store.scheduleClock();
      await store.putSchedule(entry({ nextTickMs: now - 1 }));
      await store.advanceSchedule('nightly', now - 1, now, { tickMs: now - 1, taskId: 't' });
      await expect(store.removeSchedule('nightly')).resolves.toBe(true);
      await expect(store.removeSchedule('nightly')).resolves.toBe(false);
      await expect(store.getSchedule('nightly')).resolves.toBeNull();
      expect((await store.dueSchedules(10)).due).toEqual([]);
      await store.putSchedule(entry());
      expect((await store.getSchedule('nightly'))?.lastTick).toBeNull();
    });
  });
}
