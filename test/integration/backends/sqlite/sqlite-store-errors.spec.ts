import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Logger } from '@nestjs/common';

import { SqliteBackend } from '../../../../lib/backends/sqlite/sqlite.backend';
import { StoreCorruptError } from '../../../../lib/core/errors/store-corrupt.error';
import { StoreFullError } from '../../../../lib/core/errors/store-full.error';
import { TaskResultDoesNotExist } from '../../../../lib/core/errors/task-result-does-not-exist.error';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { newRecord } from '../../../../lib/backend-kit';
import { damageRootPage, overwrite } from '../../../helpers/damaged-sqlite';
import { SmallDisk } from '../../../helpers/small-disk';
import { testAlias } from '../../../helpers/test-alias';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

const succeed = (record: TaskRecord): TaskRecord => ({
  ...record,
  status: TaskResultStatus.SUCCESSFUL,
  finishedAt: new Date(),
  returnValue: null,
});

const lease = (backend: SqliteBackend, max = 1): Promise<TaskRecord[]> =>
  backend.leases.acquire(['default'], { workerId: 'host:1-1', max, timeoutMs: 0 });

/** The error `call` rejects with (the test fails if it resolves). */
async function refusal(call: Promise<unknown>): Promise<Error> {
  const error = await call.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe('SqliteBackend: errors that say what happened to its file', () => {
  let dir: string;
  let filename: string;
  let alias: string;
  const backends: SqliteBackend[] = [];

  const open = (file = filename): SqliteBackend => {
    const backend = new SqliteBackend(alias, { backend: SqliteBackend, url: file }, storeRules);
    backends.push(backend);
    return backend;
  };
  const closeAll = async (): Promise<void> => {
    for (const backend of backends.splice(0)) await backend.close();
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-sqlite-errors-'));
    filename = join(dir, 'threadmill.db');
    alias = testAlias();
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('a full disk', () => {
    let disk: SmallDisk | null = null;

    afterEach(async () => {
      // Every connection to the file goes before the file system does.
      await closeAll();
      disk?.remove();
      disk = null;
    });

    it('SQLite on a full disk refuses with StoreFullError and loses nothing', async () => {
      disk = new SmallDisk(2 * 1024 * 1024);
      const file = join(disk.dir, 'threadmill.db');
      const backend = open(file);
      const [running] = await (async () => {
        await backend.tasks.enqueue(newRecord(alias, { args: ['leased before the disk filled'] }));
        return lease(backend);
      })();

      // All but 64 KiB taken by another file, then enqueues until the disk refuses one.
      const fillers = [disk.fill(64 * 1024)];
      const stored: TaskRecord[] = [];
      let refused: TaskRecord | null = null;
      let enqueueError: unknown = null;
      while (refused === null && stored.length < 10_000) {
        const record = newRecord(alias, { args: ['x'.repeat(500)] });
        try {
          stored.push(await backend.tasks.enqueue(record));
        } catch (error) {
          refused = record;
          enqueueError = error;
        }
      }
      expect(stored.length).toBeGreaterThan(0);
      expect(enqueueError).toBeInstanceOf(StoreFullError);
      expect((enqueueError as StoreFullError).retryable).toBe(true);
      expect((enqueueError as Error).message).toContain(`the SQLite database ${file} is full`);

      // The last bytes taken too: the outcome of the leased task is refused, and kept by its caller.
      fillers.push(disk.fill());
      const outcome = succeed(running);
      expect(await refusal(backend.leases.acknowledge([outcome]))).toBeInstanceOf(StoreFullError);

      // Nothing lost: every stored task is there, the refused one is not, the leased one still runs.
      const ready = await backend.reads.peek('default', 'ready', stored.length + 1);
      expect(ready.map((record) => record.id).sort()).toEqual(stored.map((r) => r.id).sort());
      await expect(backend.tasks.getResult(refused!.id)).rejects.toThrow(TaskResultDoesNotExist);
      await expect(backend.tasks.getResult(running.id)).resolves.toMatchObject({
        status: TaskResultStatus.RUNNING,
        args: ['leased before the disk filled'],
      });

      // Space freed: the same calls, unchanged, succeed, and survive a reopen.
      for (const filler of fillers) rmSync(filler);
      await expect(backend.leases.acknowledge([outcome])).resolves.toEqual(['acknowledged']);
      await expect(backend.tasks.enqueue(refused!)).resolves.toMatchObject({ id: refused!.id });
      await closeAll();
      const reopened = open(file);
      const { counts } = (await reopened.reads.telemetry(60_000)).queues.default;
      expect(counts).toMatchObject({ ready: stored.length + 1, running: 0, successful: 1 });
    });
  });

  describe('a damaged file', () => {
    it('refuses every call that reads a damaged page with StoreCorruptError, which is not retryable', async () => {
      const before = open();
      await before.tasks.enqueueMany([1, 2, 3].map((n) => newRecord(alias, { args: [n] })));
      await closeAll();
      damageRootPage(filename, 'threadmill_tasks', 'tasks root page');

      // The schema is intact, so the file opens; the first statement that reads the page says so.
      const backend = open();
      const error = await refusal(lease(backend));
      expect(error).toBeInstanceOf(StoreCorruptError);
      expect((error as StoreCorruptError).retryable).toBe(false);
      expect(error.message).toContain(`the SQLite database ${filename} is damaged`);
      expect(error.message).toContain('database disk image is malformed');
      expect(await refusal(backend.tasks.enqueue(newRecord(alias)))).toBeInstanceOf(
        StoreCorruptError,
      );
    });

    it('refuses an existing file that is not a database, naming it', () => {
      writeFileSync(filename, 'retention: 7d\nqueues: [default]\n'.repeat(100));
      expect(() => open()).toThrow(StoreCorruptError);
      expect(() => open()).toThrow(`${filename} is not a SQLite database`);
    });

    it('refuses a database whose first page is damaged, naming the file', async () => {
      open();
      await closeAll();
      overwrite(filename, 0, 100, 'header');
      expect(() => open()).toThrow(StoreCorruptError);
      expect(() => open()).toThrow(`${filename} is not a SQLite database`);
    });
  });

  describe('an empty file', () => {
    it('initialises a file cut to 0 bytes, with a warning naming it', async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const before = open();
      await before.tasks.enqueue(newRecord(alias));
      await closeAll();
      expect(warn).not.toHaveBeenCalled();
      truncateSync(filename, 0);

      const backend = open();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toContain(
        `the SQLite database ${filename} was an empty file (0 bytes), so a new, empty database was made in it`,
      );
      const record = await backend.tasks.enqueue(newRecord(alias));
      await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
        status: TaskResultStatus.READY,
      });
      // Initialised now: opening it again is quiet.
      open();
      expect(warn).toHaveBeenCalledTimes(1);
    });
  });
});
