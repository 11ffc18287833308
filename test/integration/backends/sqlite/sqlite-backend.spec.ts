import Database from 'better-sqlite3';

import { BackendUnavailableError } from '../../../../lib/core/errors/backend-unavailable.error';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { newRecord } from '../../../../lib/backend-kit';
import { runMaintenancePass } from '../../../../lib/lifecycle/maintenance-pass';
import { clockPassed, sqliteFileEachTest, succeed } from './sqlite-backend.setup';

describe('SqliteBackend (SQLite specifics)', () => {
  const sqlite = sqliteFileEachTest();

  describe('durability', () => {
    it('keeps ready, deferred, running and finished tasks across close and reopen', async () => {
      const first = sqlite.open();
      const done = newRecord(sqlite.alias, { args: ['done'] });
      const running = newRecord(sqlite.alias, { args: ['running'] });
      const ready = newRecord(sqlite.alias, { args: ['ready'] });
      const deferred = newRecord(sqlite.alias, { runAfter: new Date(Date.now() + 60_000) });
      await first.tasks.enqueueMany([done, running, ready, deferred]);
      const [acquiredDone] = await first.leases.acquire(['default'], {
        workerId: 'w',
        timeoutMs: 0,
      });
      await first.leases.acknowledge([succeed(acquiredDone, 'kept')]);
      await first.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      await first.close();

      const second = sqlite.open();
      await expect(second.tasks.getResult(done.id)).resolves.toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
        returnValue: 'kept',
      });
      await expect(second.tasks.getResult(running.id)).resolves.toMatchObject({
        status: TaskResultStatus.RUNNING,
      });
      expect((await second.reads.peek('default', 'ready', 100)).map((r) => r.id)).toEqual([
        ready.id,
      ]);
      expect((await second.reads.peek('default', 'deferred', 100)).map((r) => r.id)).toEqual([
        deferred.id,
      ]);
      const [next] = await second.leases.acquire(['default'], { workerId: 'w2', timeoutMs: 0 });
      expect(next.id).toBe(ready.id);
    });
  });

  describe('enqueue', () => {
    it('refuses a task for a queue the alias does not serve, storing nothing', async () => {
      const backend = sqlite.open();
      const stray = newRecord(sqlite.alias, { queue: 'nowhere' });
      await expect(backend.tasks.enqueueMany([newRecord(sqlite.alias), stray])).rejects.toThrow(
        /queue "nowhere" is not configured/,
      );
      await expect(backend.reads.peek('default', 'ready', 100)).resolves.toEqual([]);
    });
  });

  describe('corrupt stored data', () => {
    it('fails the unreadable task with CorruptTaskDataError and hands out the next one', async () => {
      const backend = sqlite.open();
      const base = Date.now();
      const broken = newRecord(sqlite.alias, { args: ['broken'], enqueuedAt: new Date(base) });
      const good = newRecord(sqlite.alias, { args: ['good'], enqueuedAt: new Date(base + 1) });
      await backend.tasks.enqueueMany([broken, good]);
      sqlite
        .openRaw()
        .prepare('UPDATE threadmill_tasks SET data = ? WHERE id = ?')
        .run('{not json', broken.id);

      const acquired = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      expect(acquired.map((r) => r.id)).toEqual([good.id]);
      const failed = await backend.tasks.getResult(broken.id);
      expect(failed.status).toBe(TaskResultStatus.FAILED);
      expect(failed.errors.map((e) => e.className)).toEqual(['CorruptTaskDataError']);
      expect((await backend.reads.peek('default', 'failed', 100)).map((r) => r.id)).toEqual([
        broken.id,
      ]);
    });

    it('fails a running task whose data became unreadable when its lease ends', async () => {
      const backend = sqlite.open({ leaseTtl: 50 });
      const record = await backend.tasks.enqueue(newRecord(sqlite.alias));
      await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      sqlite
        .openRaw()
        .prepare('UPDATE threadmill_tasks SET data = ? WHERE id = ?')
        .run('[]', record.id);
      await clockPassed(60, 'the lease to end');
      const report = await runMaintenancePass(backend);
      expect(report.reaped).toBe(1);
      await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
        status: TaskResultStatus.FAILED,
        // The attempt ended with its lease; it cannot run again because its data is unreadable.
        errors: [
          expect.objectContaining({ className: 'AcknowledgementTimeout' }),
          expect.objectContaining({ className: 'CorruptTaskDataError' }),
        ],
      });
    });
  });

  describe('maintenance pass', () => {
    it('forgets the unique keys of ended tasks, and keeps a live window and an unfinished holder', async () => {
      const backend = sqlite.open();
      const keyed = (key: string, mode: 'unfinished' | 'window'): TaskRecord => {
        const record = newRecord(sqlite.alias);
        const unique = mode === 'window' ? { key, mode, ttlMs: 60_000 } : { key, mode };
        return { ...record, task: { ...record.task, unique } };
      };
      await backend.tasks.enqueueMany([
        keyed('ended', 'unfinished'),
        keyed('window', 'window'),
        keyed('waiting', 'unfinished'),
      ]);
      const leased = await backend.leases.acquire(['default'], {
        workerId: 'w',
        max: 2,
        timeoutMs: 0,
      });
      await backend.leases.acknowledge(leased.map((record) => succeed(record, null)));
      await runMaintenancePass(backend);
      const keys = sqlite
        .openRaw()
        .prepare('SELECT key FROM threadmill_unique_keys ORDER BY key')
        .pluck()
        .all();
      expect(keys).toEqual(['waiting', 'window']);
    });

    it('promotes and reaps at most batchSize tasks per pass', async () => {
      const backend = sqlite.open({ batchSize: 2, leaseTtl: 50 });
      await backend.tasks.enqueueMany([1, 2, 3].map(() => newRecord(sqlite.alias)));
      await backend.leases.acquire(['default'], { workerId: 'w', max: 3, timeoutMs: 0 });
      await backend.tasks.enqueueMany(
        [1, 2, 3].map(() => newRecord(sqlite.alias, { runAfter: new Date(Date.now() + 30) })),
      );
      await clockPassed(60, 'runAfter and the leases to pass');
      expect(await runMaintenancePass(backend)).toMatchObject({ promoted: 2, reaped: 2 });
      expect(await runMaintenancePass(backend)).toMatchObject({ promoted: 1, reaped: 1 });
      expect(await runMaintenancePass(backend)).toMatchObject({ promoted: 0, reaped: 0 });
    });

    it('runs the other steps when one fails, and reports the failed one', async () => {
      const backend = sqlite.open({ leaseTtl: 50 });
      const record = await backend.tasks.enqueue(newRecord(sqlite.alias));
      await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      // The trim step needs this table; promote, reap and heartbeat do not.
      sqlite.openRaw().exec('DROP TABLE threadmill_ingress_counts');
      await clockPassed(60, 'the lease to end');
      const report = await runMaintenancePass(backend);
      expect(report.failedSteps.map((failed) => failed.step)).toEqual(['trim']);
      expect(report.failedSteps[0].error).toBeInstanceOf(BackendUnavailableError);
      expect(report.reaped).toBe(1);
      await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
        status: TaskResultStatus.FAILED,
      });
      await expect(backend.reads.maintenanceHeartbeat()).resolves.toBeInstanceOf(Date);
    });

    it('trims ingress counts and results older than resultTtl', async () => {
      const backend = sqlite.open({ resultTtl: 100 });
      await backend.tasks.enqueue(newRecord(sqlite.alias));
      const [acquired] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      await backend.leases.acknowledge([succeed(acquired, 1)]);
      // Ingress is counted per second: its row goes once the whole second is older than resultTtl.
      await clockPassed(1_110, 'resultTtl to pass the end of the enqueue second');
      const report = await runMaintenancePass(backend);
      expect(report.trimmed).toBe(2);
      const rows = sqlite.openRaw();
      expect(rows.prepare('SELECT COUNT(*) AS n FROM threadmill_ingress_counts').get()).toEqual({
        n: 0,
      });
      expect(rows.prepare('SELECT COUNT(*) AS n FROM threadmill_results').get()).toEqual({ n: 0 });
    });
  });

  describe('waiting for work', () => {
    it('wakes a consumer on another connection to the file without an in-process signal', async () => {
      const consumer = sqlite.open({ maxPollInterval: 50 });
      const producer = sqlite.open();
      const waiting = consumer.leases.acquire(['default'], { workerId: 'w', timeoutMs: 10_000 });
      await clockPassed(200, 'the consumer to back off to its longest wait');
      const record = await producer.tasks.enqueue(newRecord(sqlite.alias));
      const enqueued = Date.now();
      expect((await waiting).map((r) => r.id)).toEqual([record.id]);
      expect(Date.now() - enqueued).toBeLessThan(1000);
    });

    it('checks for work a bounded number of times while idle, backing off to maxPollInterval', async () => {
      const backend = sqlite.open({ maxPollInterval: 100 });
      const pragma = jest.spyOn(Database.prototype, 'pragma');
      try {
        await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 1000 });
        const checks = pragma.mock.calls.filter(([source]) => source === 'data_version').length;
        // 2, 4, ... 64 ms, then every 100 ms: about 16 checks in a second, never a tight loop.
        expect(checks).toBeGreaterThanOrEqual(2);
        expect(checks).toBeLessThanOrEqual(20);
      } finally {
        pragma.mockRestore();
      }
    });

    it('ends a waiting acquire with nothing when the backend closes, and refuses later calls', async () => {
      const backend = sqlite.open();
      const waiting = backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 60_000 });
      await new Promise((resolve) => setImmediate(resolve));
      const started = Date.now();
      await backend.close();
      await expect(waiting).resolves.toEqual([]);
      expect(Date.now() - started).toBeLessThan(1000);
      await expect(backend.ping()).rejects.toThrow(BackendUnavailableError);
      await expect(backend.tasks.enqueue(newRecord(sqlite.alias))).rejects.toThrow(
        BackendUnavailableError,
      );
      await expect(backend.close()).resolves.toBeUndefined();
    });

    it('returns at once when the signal has already aborted', async () => {
      const backend = sqlite.open();
      await backend.tasks.enqueue(newRecord(sqlite.alias));
      const controller = new AbortController();
      controller.abort();
      await expect(
        backend.leases.acquire(['default'], {
          workerId: 'w',
          timeoutMs: 10_000,
          signal: controller.signal,
        }),
      ).resolves.toEqual([]);
      await expect(backend.reads.peek('default', 'ready', 100)).resolves.toHaveLength(1);
    });
  });
});
