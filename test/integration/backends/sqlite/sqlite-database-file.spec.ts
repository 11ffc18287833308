import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';

import { SqliteBackend } from '../../../../lib/backends/sqlite/sqlite.backend';
import { SQLITE_SCHEMA_VERSION } from '../../../../lib/backends/sqlite/sqlite-migrations';
import { BackendUnavailableError } from '../../../../lib/core/errors/backend-unavailable.error';
import { storedProgress } from '../../../../lib/core/task-progress';
import { newRecord } from '../../../../lib/backend-kit';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { testAlias } from '../../../helpers/test-alias';
import { sqliteFileEachTest, succeed } from './sqlite-backend.setup';

describe('SqliteBackend (SQLite specifics)', () => {
  const sqlite = sqliteFileEachTest();

  describe('the database file', () => {
    it('is in WAL mode at the current schema version', async () => {
      await sqlite.open().tasks.enqueue(newRecord(sqlite.alias));
      const db = sqlite.openRaw();
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    });

    it('upgrades a file of schema 7 to one with a progress column, a roles table, the live event tables, pool info, ingress per second, cancel requests that name their lease and schedules that record their app, keeping its tasks, their ingress and its schedules', async () => {
      const first = sqlite.open();
      const schedule = {
        id: 'nightly',
        definition: '{}',
        origin: 'declared' as const,
        app: null,
        paused: false,
        nextTickMs: 5_000,
      };
      await first.schedules.putSchedule(schedule);
      const done = await first.tasks.enqueue(newRecord(sqlite.alias));
      await first.tasks.enqueue(newRecord(sqlite.alias));
      const [finished] = await first.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      await first.leases.acknowledge([succeed(finished, 'kept')]);
      await first.close();
      // What schema 7 was: no progress column on either table, no roles table, no live events,
      // no pool beat or info, a row per enqueue for ingress, cancel requests without a lease.
      const old = sqlite.openRaw();
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
      ingress.run(sqlite.alias, 'default', enqueuedAt);
      ingress.run(sqlite.alias, 'default', enqueuedAt + 1);
      old.pragma('user_version = 7');
      old.close();

      const upgraded = sqlite.open();
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
      expect(sqlite.openRaw().pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    });

    it('is created with its missing parent folders, from each url form', async () => {
      const nested = join(sqlite.dir, 'a', 'b', 'c.db');
      const forms = [
        `sqlite://${nested}`,
        `file://${join(sqlite.dir, 'f', 'g.db')}`,
        `file:${relative(process.cwd(), join(sqlite.dir, 'h', 'i.db'))}`,
        join(sqlite.dir, 'plain', 'j.db'),
        `sqlite:${relative(process.cwd(), join(sqlite.dir, 'k', 'l.db'))}`,
      ];
      for (const url of forms) {
        const backend = sqlite.open({}, url);
        await backend.tasks.enqueue(newRecord(sqlite.alias));
      }
      for (const path of ['a/b/c.db', 'f/g.db', 'h/i.db', 'plain/j.db', 'k/l.db']) {
        expect(existsSync(join(sqlite.dir, path))).toBe(true);
      }
    });

    it('keeps two aliases in one file apart', async () => {
      const mine = sqlite.open();
      const otherAlias = testAlias();
      const other = sqlite.track(
        new SqliteBackend(otherAlias, { backend: SqliteBackend, url: sqlite.filename }, storeRules),
      );
      const record = await mine.tasks.enqueue(newRecord(sqlite.alias));
      await expect(other.reads.peek('default', 'ready', 100)).resolves.toEqual([]);
      await expect(
        other.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 }),
      ).resolves.toEqual([]);
      await expect(other.tasks.getResult(record.id)).rejects.toThrow(/No task result/);
      expect((await mine.reads.telemetry(60_000)).queues.default.counts.ready).toBe(1);
      expect((await other.reads.telemetry(60_000)).queues.default.counts.ready).toBe(0);
    });

    it('fails with BackendUnavailableError naming the alias when the file cannot be opened', () => {
      // A directory where the database file should be.
      expect(() => sqlite.open({}, `sqlite://${sqlite.dir}`)).toThrow(BackendUnavailableError);
      expect(() => sqlite.open({}, `sqlite://${sqlite.dir}`)).toThrow(sqlite.alias);
    });
  });
});
