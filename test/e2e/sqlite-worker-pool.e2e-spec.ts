import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SqliteBackend } from '../../lib/backends/sqlite/sqlite.backend';
import { TaskResultStatus } from '../../lib/core';
import { newRecord } from '../contract/backend-contract';

// The real worker pool on the SQLite backend: a main process running the
// maintenance pass and forked children acquiring from one database file, each with its
// own connection. The CLI runs from the TypeScript sources (transpile only).

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'test', 'fixtures', 'sqlite', 'sqlite-worker.main.ts');
const REGISTER = join(ROOT, 'test', 'helpers', 'transpile-register.js');

interface Run {
  readonly process: ChildProcess;
  readonly exited: Promise<number | null>;
  output(): string;
}

describe('threadmill worker on SQLite (e2e: real CLI and processes)', () => {
  // Each child boots Nest from transpiled sources: slow on 2 busy cores.
  jest.setTimeout(240_000);
  let dir: string;
  let url: string;
  let backend: SqliteBackend;
  const runs: Run[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-sqlite-e2e-'));
    url = `sqlite://${join(dir, 'threadmill.db')}`;
    backend = new SqliteBackend('default', { backend: SqliteBackend, url });
  });

  afterEach(async () => {
    // The pool leads its own process group: one kill takes its children too.
    for (const run of runs.splice(0)) {
      if (run.process.exitCode === null && run.process.signalCode === null) {
        try {
          process.kill(-(run.process.pid ?? 0), 'SIGKILL');
        } catch {
          // It exited between the check and the kill: nothing left to stop.
        }
        await run.exited;
      }
    }
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function worker(args: string[]): Run {
    const child = spawn(process.execPath, ['-r', REGISTER, CLI, 'worker', ...args], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, THREADMILL_SQLITE_URL: url, NO_COLOR: '1' },
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const run = { process: child, exited, output: () => output };
    runs.push(run);
    return run;
  }

  it('drains 300 tasks with 3 processes, running each exactly once', async () => {
    const records = Array.from({ length: 300 }, (_, i) =>
      newRecord('default', { name: 'sqlite.double', args: [i] }),
    );
    await backend.enqueueMany(records);

    const run = worker(['--processes', '3', '--threads', '2', '--exit-empty']);
    const code = await run.exited;
    expect({ code, output: code === 0 ? '' : run.output() }).toEqual({ code: 0, output: '' });

    for (const [i, record] of records.entries()) {
      const result = await backend.getResult(record.id);
      expect(result).toMatchObject({ status: TaskResultStatus.SUCCESSFUL, returnValue: 2 * i });
      expect(result.workerIds).toHaveLength(1);
    }
    const { counts } = (await backend.telemetry(600_000)).queues.default;
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
    await backend.enqueueMany([crash, ...others]);

    const run = worker(['--processes', '1', '--exit-empty']);
    const code = await run.exited;
    expect({ code, output: code === 0 ? '' : run.output() }).toEqual({ code: 0, output: '' });

    const crashed = await backend.getResult(crash.id);
    expect(crashed.status).toBe(TaskResultStatus.FAILED);
    expect(crashed.errors.map((error) => error.className)).toEqual(['WorkerCrashed']);
    for (const record of others) {
      await expect(backend.getResult(record.id)).resolves.toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
      });
    }
  });

  it('with --prefetch, gives back unfailed what a child that died had leased and never started', async () => {
    const crash = newRecord('default', { name: 'sqlite.exit', args: [3], priority: 10 });
    const others = [1, 2, 3].map((n) => newRecord('default', { name: 'sqlite.double', args: [n] }));
    await backend.enqueueMany([crash, ...others]);

    // One slot and two places: the crashing task runs while two others wait in its child.
    const run = worker(['--processes', '1', '--threads', '1', '--prefetch', '2', '--exit-empty']);
    const code = await run.exited;
    expect({ code, output: code === 0 ? '' : run.output() }).toEqual({ code: 0, output: '' });

    const crashed = await backend.getResult(crash.id);
    expect(crashed.errors.map((error) => error.className)).toEqual(['WorkerCrashed']);
    for (const record of others) {
      const result = await backend.getResult(record.id);
      expect(result).toMatchObject({ status: TaskResultStatus.SUCCESSFUL, errors: [] });
      // One attempt: the lease the dead child held was given back uncounted.
      expect(result.workerIds).toHaveLength(1);
    }
  });
});
