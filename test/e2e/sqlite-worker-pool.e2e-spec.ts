import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SqliteBackend } from '../../lib/backends/sqlite/sqlite.backend';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { newRecord } from '../../lib/backend-kit';
import { startNodeProcess, type RunningCli } from '../helpers/cli-process';
import { storeRules } from '../../lib/lifecycle/store-rules';

// The real worker pool on the SQLite backend: a main process running the
// maintenance pass and forked children acquiring from one database file, each with its
// own connection. The CLI runs from the TypeScript sources (transpile only).

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'test', 'fixtures', 'sqlite', 'sqlite-worker.main.ts');
const REGISTER = join(ROOT, 'test', 'helpers', 'transpile-register.js');

describe('threadmill worker on SQLite (e2e: real CLI and processes)', () => {
  // Each child boots Nest from transpiled sources: slow on 2 busy cores.
  jest.setTimeout(240_000);
  let dir: string;
  let url: string;
  let backend: SqliteBackend;
  const runs: RunningCli[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-sqlite-e2e-'));
    url = `sqlite://${join(dir, 'threadmill.db')}`;
    backend = new SqliteBackend('default', { backend: SqliteBackend, url }, storeRules);
  });

  afterEach(async () => {
    // The pool leads its own process group: one kill takes its children too.
    for (const run of runs.splice(0)) await run.killGroup();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const worker = (args: string[]): RunningCli =>
    startNodeProcess(CLI, ['worker', ...args], runs, {
      execArgv: ['-r', REGISTER],
      env: { THREADMILL_SQLITE_URL: url },
    });

  it('drains 300 tasks with 3 processes, running each exactly once', async () => {
    const records = Array.from({ length: 300 }, (_, i) =>
      newRecord('default', { name: 'sqlite.double', args: [i] }),
    );
    await backend.tasks.enqueueMany(records);

    const run = worker(['--processes', '3', '--threads', '2', '--exit-empty']);
    const { code } = await run.exited;
    expect({ code, output: code === 0 ? '' : run.output() }).toEqual({ code: 0, output: '' });

    for (const [i, record] of records.entries()) {
      const result = await backend.tasks.getResult(record.id);
      expect(result).toMatchObject({ status: TaskResultStatus.SUCCESSFUL, returnValue: 2 * i });
      expect(result.workerIds).toHaveLength(1);
    }
    const { counts } = (await backend.reads.telemetry(600_000)).queues.default;
    expect(counts).toEqual({
      ready: 0,
      running: 0,
      deferred: 0,
      successful: 300,
      failed: 0,
      cancelled: 0,
    });
  });

  it('fails the task of a child that died with WorkerCrashed and runs the rest', async () => {
    const crash = newRecord('default', { name: 'sqlite.exit', args: [3], priority: 10 });
    const others = [1, 2, 3].map((n) => newRecord('default', { name: 'sqlite.double', args: [n] }));
    await backend.tasks.enqueueMany([crash, ...others]);

    const run = worker(['--processes', '1', '--exit-empty']);
    const { code } = await run.exited;
    expect({ code, output: code === 0 ? '' : run.output() }).toEqual({ code: 0, output: '' });

    const crashed = await backend.tasks.getResult(crash.id);
    expect(crashed.status).toBe(TaskResultStatus.FAILED);
    expect(crashed.errors.map((error) => error.className)).toEqual(['WorkerCrashed']);
    for (const record of others) {
      await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
      });
    }
  });

  it('with --prefetch, gives back unfailed what a child that died had leased and never started', async () => {
    const crash = newRecord('default', { name: 'sqlite.exit', args: [3], priority: 10 });
    const others = [1, 2, 3].map((n) => newRecord('default', { name: 'sqlite.double', args: [n] }));
    await backend.tasks.enqueueMany([crash, ...others]);

    // One slot and two places: the crashing task runs while two others wait in its child.
    const run = worker(['--processes', '1', '--threads', '1', '--prefetch', '2', '--exit-empty']);
    const { code } = await run.exited;
    expect({ code, output: code === 0 ? '' : run.output() }).toEqual({ code: 0, output: '' });

    const crashed = await backend.tasks.getResult(crash.id);
    expect(crashed.errors.map((error) => error.className)).toEqual(['WorkerCrashed']);
    for (const record of others) {
      const result = await backend.tasks.getResult(record.id);
      expect(result).toMatchObject({ status: TaskResultStatus.SUCCESSFUL, errors: [] });
      // One attempt: the lease the dead child held was given back uncounted.
      expect(result.workerIds).toHaveLength(1);
    }
  });
});
