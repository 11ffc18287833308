import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import Database from 'better-sqlite3';

import { SqliteBackend } from '../../../../lib/backends/sqlite/sqlite.backend';
import { SQLITE_SCHEMA_VERSION } from '../../../../lib/backends/sqlite/sqlite-migrations';
import { BackendUnavailableError } from '../../../../lib/core/errors/backend-unavailable.error';
import { storedProgress } from '../../../../lib/core/task-progress';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { newRecord } from '../../../../lib/backend-kit';
import { testAlias } from '../../../helpers/test-alias';
import { waitFor } from '../../../helpers/wait-for';
import { runMaintenancePass } from '../../../../lib/lifecycle/maintenance-pass';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

/** Leases, runAfter and TTLs are about time itself: wait until the clock has passed `ms` from now. */
const clockPassed = (ms: number, what: string) => {
  const until = Date.now() + ms;
  return waitFor(() => Date.now() > until, { what });
};

const succeed = (record: TaskRecord, returnValue: unknown): TaskRecord => ({
  ...record,
  status: TaskResultStatus.SUCCESSFUL,
  finishedAt: new Date(),
  returnValue,
});

describe('SqliteBackend (SQLite specifics)', () => {
  let dir: string;
  let filename: string;
  let alias: string;
  const backends: SqliteBackend[] = [];
  const raw: Database.Database[] = [];

  const open = (options: Record<string, unknown> = {}, url = `sqlite://${filename}`) => {
    const backend = new SqliteBackend(alias, { backend: SqliteBackend, url, options }, storeRules);
    backends.push(backend);
    return backend;
  };
  /** A second, plain connection to the file: what an operator's sqlite3 shell would see. */
  const openRaw = (path = filename): Database.Database => {
    const db = new Database(path);
    raw.push(db);
    return db;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-sqlite-'));
    filename = join(dir, 'threadmill.db');
    alias = testAlias();
  });

  afterEach(async () => {
    for (const db of raw.splice(0)) db.close();
    for (const backend of backends.splice(0)) await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('durability', () => {
    it('keeps ready, deferred, running and finished tasks across close and reopen', async () => {
      const first = open();
      const done = newRecord(alias, { args: ['done'] });
      const running = newRecord(alias, { args: ['running'] });
      const ready = newRecord(alias, { args: ['ready'] });
      const deferred = newRecord(alias, { runAfter: new Date(Date.now() + 60_000) });
      await first.tasks.enqueueMany([done, running, ready, deferred]);
      const [acquiredDone] = await first.leases.acquire(['default'], {
        workerId: 'w',
        timeoutMs: 0,
      });
      await first.leases.acknowledge([succeed(acquiredDone, 'kept')]);
      await first.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      await first.close();

      const second = open();
      await expect(second.tasks.getResult(done.id)).resolves.toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
        returnValue: 'kept',
      });
      await expect(second.tasks.getResult(running.id)).resolves.toMatchObject({
        status: TaskResultStatus.RUNNING,
      });
      expect((await second.reads.peek('default', 'ready', 0)).map((r) => r.id)).toEqual([ready.id]);
      expect((await second.reads.peek('default', 'deferred', 0)).map((r) => r.id)).toEqual([
        deferred.id,
      ]);
      const [next] = await second.leases.acquire(['default'], { workerId: 'w2', timeoutMs: 0 });
      expect(next.id).toBe(ready.id);
    });
  });

  describe('the database file', () => {
    it('is in WAL mode at the current schema version', async () => {
      await open().tasks.enqueue(newRecord(alias));
      const db = openRaw();
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    });

    it('upgrades a file of schema 7 to one with a progress column, a roles table, the live event tables, pool info, ingress per second, cancel requests that name their lease and schedules that record their app, keeping its tasks, their ingress and its schedules', async () => {
      const first = open();
      const schedule = {
        id: 'nightly',
        definition: '{}',
        origin: 'declared' as const,
        app: null,
        paused: false,
        nextTickMs: 5_000,
      };
      await first.schedules.putSchedule(schedule);
      const done = await first.tasks.enqueue(newRecord(alias));
      await first.tasks.enqueue(newRecord(alias));
      const [finished] = await first.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      await first.leases.acknowledge([succeed(finished, 'kept')]);
      await first.close();
      // What schema 7 was: no progress column on either table, no roles table, no live events,
      // no pool beat or info, a row per enqueue for ingress, cancel requests without a lease.
      const old = openRaw();
      const enqueuedAt = Date.now();
      old.exec(`ALTER TABLE threadmill_tasks DROP COLUMN progress;
        ALTER TABLE threadmill_results DROP COLUMN progress;
        ALTER TABLE threadmill_pools DROP COLUMN beat_at;
        ALTER TABLE threadmill_pools DROP COLUMN info;
        DROP TABLE threadmill_roles;
        DROP TABLE threadmill_live_listeners;
        DROP TABLE threadmill_live_events;
        DROP TABLE threadmill_ingress_counts;
        ALTER TABLE threadmill_cancels DROP COLUMN lease;
        ALTER TABLE threadmill_schedules DROP COLUMN app;
        CREATE TABLE threadmill_ingress (alias TEXT NOT NULL, queue TEXT NOT NULL, at INTEGER NOT NULL);
        CREATE INDEX threadmill_ingress_window ON threadmill_ingress (alias, queue, at);
        CREATE INDEX threadmill_ingress_age    ON threadmill_ingress (alias, at);`);
      const ingress = old.prepare(
        'INSERT INTO threadmill_ingress (alias, queue, at) VALUES (?, ?, ?)',
      );
      ingress.run(alias, 'default', enqueuedAt);
      ingress.run(alias, 'default', enqueuedAt + 1);
      old.pragma('user_version = 7');
      old.close();

      const upgraded = open();
      await expect(upgraded.tasks.getResult(done.id)).resolves.toMatchObject({
        returnValue: 'kept',
      });
      const { rates } = (await upgraded.reads.telemetry(60_000)).queues.default;
      expect(rates.ingress).toBe(2);
      const [running] = await upgraded.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      expect((await upgraded.tasks.getResult(running.id)).progress).toBeUndefined();
      await expect(
        upgraded.leases.storeProgress([{ record: running, stored: storedProgress(1, '0.5') }]),
      ).resolves.toEqual([true]);
      expect((await upgraded.tasks.getResult(running.id)).progress).toBe(0.5);
      await expect(upgraded.pools.claimRole('store-gauges', 'pool-a', 1000)).resolves.toBe(true);
      const off = await upgraded.feeds.subscribeLive(() => undefined);
      await off();
      await upgraded.pools.beat('pool-a', 60_000, {
        host: 'h',
        pid: 1,
        children: 2,
        slots: 4,
        queues: ['default'],
        startedAt: new Date(0),
      });
      await expect(upgraded.pools.list()).resolves.toMatchObject([
        { id: 'pool-a', host: 'h', slots: 4 },
      ]);
      // Stored before apps were recorded: no app, which lib/schedule reads as the default app.
      await expect(upgraded.schedules.getSchedule('nightly')).resolves.toEqual({
        ...schedule,
        lastTick: null,
      });
      await upgraded.schedules.putSchedule({ ...schedule, app: 'billing' });
      await expect(upgraded.schedules.getSchedule('nightly')).resolves.toMatchObject({
        app: 'billing',
      });
      expect(openRaw().pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    });

    it('is created with its missing parent folders, from each url form', async () => {
      const nested = join(dir, 'a', 'b', 'c.db');
      const forms = [
        `sqlite://${nested}`,
        `file://${join(dir, 'f', 'g.db')}`,
        `file:${relative(process.cwd(), join(dir, 'h', 'i.db'))}`,
        join(dir, 'plain', 'j.db'),
        `sqlite:${relative(process.cwd(), join(dir, 'k', 'l.db'))}`,
      ];
      for (const url of forms) {
        const backend = open({}, url);
        await backend.tasks.enqueue(newRecord(alias));
      }
      for (const path of ['a/b/c.db', 'f/g.db', 'h/i.db', 'plain/j.db', 'k/l.db']) {
        expect(existsSync(join(dir, path))).toBe(true);
      }
    });

    it('keeps two aliases in one file apart', async () => {
      const mine = open();
      const otherAlias = testAlias();
      const other = new SqliteBackend(
        otherAlias,
        { backend: SqliteBackend, url: filename },
        storeRules,
      );
      backends.push(other);
      const record = await mine.tasks.enqueue(newRecord(alias));
      await expect(other.reads.peek('default', 'ready', 0)).resolves.toEqual([]);
      await expect(
        other.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 }),
      ).resolves.toEqual([]);
      await expect(other.tasks.getResult(record.id)).rejects.toThrow(/No task result/);
      expect((await mine.reads.telemetry(60_000)).queues.default.counts.ready).toBe(1);
      expect((await other.reads.telemetry(60_000)).queues.default.counts.ready).toBe(0);
    });

    it('fails with BackendUnavailableError naming the alias when the file cannot be opened', () => {
      // A directory where the database file should be.
      expect(() => open({}, `sqlite://${dir}`)).toThrow(BackendUnavailableError);
      expect(() => open({}, `sqlite://${dir}`)).toThrow(alias);
    });
  });

  describe('enqueue', () => {
    it('refuses a task for a queue the alias does not serve, storing nothing', async () => {
      const backend = open();
      const stray = newRecord(alias, { queue: 'nowhere' });
      await expect(backend.tasks.enqueueMany([newRecord(alias), stray])).rejects.toThrow(
        /queue "nowhere" is not configured/,
      );
      await expect(backend.reads.peek('default', 'ready', 0)).resolves.toEqual([]);
    });
  });

  describe('corrupt stored data', () => {
    it('fails the unreadable task with CorruptTaskDataError and hands out the next one', async () => {
      const backend = open();
      const base = Date.now();
      const broken = newRecord(alias, { args: ['broken'], enqueuedAt: new Date(base) });
      const good = newRecord(alias, { args: ['good'], enqueuedAt: new Date(base + 1) });
      await backend.tasks.enqueueMany([broken, good]);
      openRaw()
        .prepare('UPDATE threadmill_tasks SET data = ? WHERE id = ?')
        .run('{not json', broken.id);

      const acquired = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      expect(acquired.map((r) => r.id)).toEqual([good.id]);
      const failed = await backend.tasks.getResult(broken.id);
      expect(failed.status).toBe(TaskResultStatus.FAILED);
      expect(failed.errors.map((e) => e.className)).toEqual(['CorruptTaskDataError']);
      expect((await backend.reads.peek('default', 'failed', 0)).map((r) => r.id)).toEqual([
        broken.id,
      ]);
    });

    it('fails a running task whose data became unreadable when its lease ends', async () => {
      const backend = open({ leaseTtl: 50 });
      const record = await backend.tasks.enqueue(newRecord(alias));
      await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      openRaw().prepare('UPDATE threadmill_tasks SET data = ? WHERE id = ?').run('[]', record.id);
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
      const backend = open();
      const keyed = (key: string, mode: 'unfinished' | 'window'): TaskRecord => {
        const record = newRecord(alias);
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
      const keys = openRaw()
        .prepare('SELECT key FROM threadmill_unique_keys ORDER BY key')
        .pluck()
        .all();
      expect(keys).toEqual(['waiting', 'window']);
    });

    it('promotes and reaps at most batchSize tasks per pass', async () => {
      const backend = open({ batchSize: 2, leaseTtl: 50 });
      await backend.tasks.enqueueMany([1, 2, 3].map(() => newRecord(alias)));
      await backend.leases.acquire(['default'], { workerId: 'w', max: 3, timeoutMs: 0 });
      await backend.tasks.enqueueMany(
        [1, 2, 3].map(() => newRecord(alias, { runAfter: new Date(Date.now() + 30) })),
      );
      await clockPassed(60, 'runAfter and the leases to pass');
      expect(await runMaintenancePass(backend)).toMatchObject({ promoted: 2, reaped: 2 });
      expect(await runMaintenancePass(backend)).toMatchObject({ promoted: 1, reaped: 1 });
      expect(await runMaintenancePass(backend)).toMatchObject({ promoted: 0, reaped: 0 });
    });

    it('runs the other steps when one fails, and reports the failed one', async () => {
      const backend = open({ leaseTtl: 50 });
      const record = await backend.tasks.enqueue(newRecord(alias));
      await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      // The trim step needs this table; promote, reap and heartbeat do not.
      openRaw().exec('DROP TABLE threadmill_ingress_counts');
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
      const backend = open({ resultTtl: 100 });
      await backend.tasks.enqueue(newRecord(alias));
      const [acquired] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      await backend.leases.acknowledge([succeed(acquired, 1)]);
      // Ingress is counted per second: its row goes once the whole second is older than resultTtl.
      await clockPassed(1_110, 'resultTtl to pass the end of the enqueue second');
      const report = await runMaintenancePass(backend);
      expect(report.trimmed).toBe(2);
      const rows = openRaw();
      expect(rows.prepare('SELECT COUNT(*) AS n FROM threadmill_ingress_counts').get()).toEqual({
        n: 0,
      });
      expect(rows.prepare('SELECT COUNT(*) AS n FROM threadmill_results').get()).toEqual({ n: 0 });
    });
  });

  describe('waiting for work', () => {
    it('wakes a consumer on another connection to the file without an in-process signal', async () => {
      const consumer = open({ maxPollInterval: 50 });
      const producer = open();
      const waiting = consumer.leases.acquire(['default'], { workerId: 'w', timeoutMs: 10_000 });
      await clockPassed(200, 'the consumer to back off to its longest wait');
      const record = await producer.tasks.enqueue(newRecord(alias));
      const enqueued = Date.now();
      expect((await waiting).map((r) => r.id)).toEqual([record.id]);
      expect(Date.now() - enqueued).toBeLessThan(1000);
    });

    it('checks for work a bounded number of times while idle, backing off to maxPollInterval', async () => {
      const backend = open({ maxPollInterval: 100 });
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
      const backend = open();
      const waiting = backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 60_000 });
      await new Promise((resolve) => setImmediate(resolve));
      const started = Date.now();
      await backend.close();
      await expect(waiting).resolves.toEqual([]);
      expect(Date.now() - started).toBeLessThan(1000);
      await expect(backend.ping()).rejects.toThrow(BackendUnavailableError);
      await expect(backend.tasks.enqueue(newRecord(alias))).rejects.toThrow(
        BackendUnavailableError,
      );
      await expect(backend.close()).resolves.toBeUndefined();
    });

    it('returns at once when the signal has already aborted', async () => {
      const backend = open();
      await backend.tasks.enqueue(newRecord(alias));
      const controller = new AbortController();
      controller.abort();
      await expect(
        backend.leases.acquire(['default'], {
          workerId: 'w',
          timeoutMs: 10_000,
          signal: controller.signal,
        }),
      ).resolves.toEqual([]);
      await expect(backend.reads.peek('default', 'ready', 0)).resolves.toHaveLength(1);
    });
  });
});
