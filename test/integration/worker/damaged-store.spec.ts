import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Logger } from '@nestjs/common';

import { SqliteBackend } from '../../../lib/backends/sqlite/sqlite.backend';
import { StoreCorruptError } from '../../../lib/core/errors/store-corrupt.error';
import { EventStream } from '../../../lib/core/event-stream';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { WorkerChild } from '../../../lib/worker/child/worker-child';
import { MaintenanceSchedule } from '../../../lib/worker/pool/maintenance-schedule';
import { StoreDamage } from '../../../lib/worker/store-damage';
import type { ChildMessage } from '../../../lib/worker/worker-ipc';
import { newRecord } from '../../../lib/backend-kit';
import { damageRootPage } from '../../helpers/damaged-sqlite';
import { TempJournal } from '../../helpers/temp-journal';
import { testAlias } from '../../helpers/test-alias';
import { workerOptions } from '../../helpers/worker-options';
import { storeRules } from '../../../lib/lifecycle/store-rules';

// The worker's parts on a real SQLite file whose pages were damaged after it
// was written: a damaged store is reported once and stops the work, where a
// refused one is tried again for as long as it takes.

function quietLogger(): Logger {
  const logger = new Logger('test');
  for (const level of ['log', 'warn', 'error'] as const) {
    jest.spyOn(logger, level).mockImplementation(() => undefined);
  }
  return logger;
}

describe('the worker on a damaged SQLite store', () => {
  let dir: string;
  let filename: string;
  let alias: string;
  const backends: SqliteBackend[] = [];
  const journals: TempJournal[] = [];

  const open = (): SqliteBackend => {
    const backend = new SqliteBackend(alias, { backend: SqliteBackend, url: filename }, storeRules);
    backends.push(backend);
    return backend;
  };

  /** A file holding `records`, then `table`'s root page overwritten; the backend reopened on it. */
  async function damagedAfter(records: TaskRecord[], table: string): Promise<SqliteBackend> {
    const before = open();
    await before.tasks.enqueueMany(records);
    await before.close();
    damageRootPage(filename, table, table);
    return open();
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-damaged-store-'));
    filename = join(dir, 'threadmill.db');
    alias = testAlias();
  });

  afterEach(async () => {
    for (const backend of backends.splice(0)) await backend.close();
    for (const journal of journals.splice(0)) journal.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a child whose outcome meets a damaged page stops instead of trying it again', async () => {
    const record = newRecord(alias, { name: 'test.task' });
    // Leasing reads the tasks; storing an outcome writes the results, whose page is damaged.
    const backend = await damagedAfter([record], 'threadmill_results');
    const acknowledge = jest.spyOn(backend.leases, 'acknowledge');
    const logger = quietLogger();
    const journal = new TempJournal();
    journals.push(journal);
    let finishTask: () => void = () => undefined;
    let taskStarted: (running: TaskRecord) => void = () => undefined;
    const started = new Promise<TaskRecord>((resolve) => (taskStarted = resolve));
    const runTask = (running: TaskRecord): Promise<TaskRecord> => {
      taskStarted(running);
      return new Promise((resolve) => {
        finishTask = () =>
          resolve({ ...running, status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date() });
      });
    };
    const damage = new StoreDamage(logger, 'the store is damaged', () => child.stop(true));
    const messages: ChildMessage[] = [];
    const child: WorkerChild = new WorkerChild(workerOptions(alias), {
      backend,
      runTask,
      channel: { send: async (message) => void messages.push(message) },
      journal: journal.journal,
      logger,
      identity: 'host:42',
      idleWaitMs: 60_000,
      retryDelayMs: 10,
      storeCorrupt: (error) => damage.report(error),
    });
    const running = child.run();
    expect((await started).id).toBe(record.id);

    // A graceful stop waits for the outcome: with a refused store, for as long as it takes.
    child.stop(false);
    finishTask();
    await expect(running).resolves.toBe('stopped');

    expect(damage.reported).toBe(true);
    expect(() => damage.rethrow()).toThrow(StoreCorruptError);
    expect(() => damage.rethrow()).toThrow(`the SQLite database ${filename} is damaged`);
    expect(acknowledge).toHaveBeenCalledTimes(1);
    expect(jest.mocked(logger.error).mock.calls.map(([line]) => line)).toEqual([
      'the store is damaged',
    ]);
  });

  it('a maintenance pass that meets a damaged page reports it instead of logging a failed step', async () => {
    // The pass records itself in the meta table, whose page is damaged.
    const backend = await damagedAfter([newRecord(alias)], 'threadmill_meta');
    const logger = quietLogger();
    const stream = new EventStream(logger);
    const failedSteps: string[] = [];
    stream.on('maintenanceStepFailed', ({ step }) => failedSteps.push(step));
    const reported: unknown[] = [];
    const schedule = new MaintenanceSchedule({
      backend,
      logger,
      stream,
      poolId: 'pool-1',
      heartbeatToleranceMs: 30_000,
      storeCorrupt: (error) => reported.push(error),
    });

    await schedule.passNow();
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(StoreCorruptError);
    expect(failedSteps).toEqual([]);
    expect(logger.error).not.toHaveBeenCalled();
    await schedule.stop();
  });
});
