import { setTimeout as delay } from 'node:timers/promises';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import type { TaskBackoff } from '../../lib/core/task-options.interface';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { SAME_STOP_WINDOW_MS } from '../../lib/worker/shutdown-signals';
import {
  IN_PROCESS_APP,
  IN_PROCESS_CLI,
  untilOutput,
  type RunningCli,
} from '../helpers/cli-process';
import { cliStage, STAGE_MAINTENANCE_INTERVAL_MS } from '../helpers/cli-stage';
import { freePort } from '../helpers/free-port';
import { readyRecord } from '../helpers/ready-record';
import { storedRecords, untilStatus as untilStatusOf } from '../helpers/task-status';

// A real Nest web app (test/fixtures/worker/in-process-main.ts) that runs its
// own tasks with ThreadmillModule's inProcessWorker, on the run's Redis: tasks
// from HTTP and from the test, a kill -9 recovered by a `threadmill worker`
// pool, a SIGTERM that drains, and the app's own CLI that must not run tasks.

/** A short tolerance: a killed app is recovered this long after its last beat, not 30 s. */
const HEARTBEAT_TOLERANCE_MS = 3 * STAGE_MAINTENANCE_INTERVAL_MS;

/** The pid part of a `host:pid-slot` worker id. */
const pidOf = (workerId: string | undefined): number =>
  Number(/:(\d+)-\d+$/.exec(workerId ?? '')?.[1]);

function sleepTask(alias: string, ms: number, retries?: number): TaskRecord {
  const record = readyRecord(alias, { name: 'sample.sleep', args: [ms] });
  if (retries === undefined) return record;
  const backoff: TaskBackoff = { type: 'fixed', delayMs: 0, jitter: false };
  return { ...record, task: { ...record.task, retries, backoff } };
}

describe('the in-process worker (e2e: a web app that runs its own tasks)', () => {
  jest.setTimeout(60_000);
  const stage = cliStage(['default', 'emails']);
  let alias: string;
  let backend: RedisBackend;

  beforeEach(() => {
    ({ alias, backend } = stage);
  });

  /** The app, listening: its URL. */
  async function startApp(): Promise<{ app: RunningCli; url: string }> {
    const port = await freePort();
    const app = stage.start(
      [],
      {
        PORT: String(port),
        THREADMILL_LOG_LEVEL: 'log',
        THREADMILL_HEARTBEAT_TOLERANCE_MS: String(HEARTBEAT_TOLERANCE_MS),
      },
      IN_PROCESS_APP,
    );
    await untilOutput(app, /Listening on http/);
    return { app, url: `http://127.0.0.1:${port}` };
  }

  const results = (records: readonly TaskRecord[]): Promise<TaskRecord[]> =>
    storedRecords(backend, records);
  const untilStatus = (
    records: readonly TaskRecord[],
    status: TaskResultStatus,
    timeoutMs?: number,
  ): Promise<TaskRecord[]> => untilStatusOf(backend, records, status, timeoutMs);

  async function postTask(url: string, name: string, args: unknown[]): Promise<TaskRecord> {
    const response = await fetch(`${url}/tasks/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ args }),
    });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    return backend.tasks.getResult(id);
  }

  it('runs the tasks enqueued over HTTP and from outside in its own process', async () => {
    const { app, url } = await startApp();
    const overHttp = [
      await postTask(url, 'sample.echo', ['over', 'http']),
      await postTask(url, 'sample.sleep', [200]),
    ];
    const fromTest = Array.from({ length: 6 }, () => sleepTask(alias, 100));
    await backend.tasks.enqueueMany(fromTest);

    const done = await untilStatus([...overHttp, ...fromTest], TaskResultStatus.SUCCESSFUL);
    expect(done[0].returnValue).toEqual(['over', 'http']);
    expect(new Set(done.map((r) => pidOf(r.workerIds.at(-1))))).toEqual(new Set([app.pid]));
    const pools = await backend.pools.list();
    expect(pools).toHaveLength(1);
    expect(pools[0]).toMatchObject({ pid: app.pid, alive: true, slots: 2 });
  });

  it('after a kill -9 its tasks are recovered by a worker pool once its heartbeat lapses', async () => {
    const { app } = await startApp();
    // No retries: it must end FAILED (WorkerLost). One retry: back in the queue, then run by the pool.
    const doomed = sleepTask(alias, 60_000);
    const retried = sleepTask(alias, 1000, 1);
    await backend.tasks.enqueueMany([doomed, retried]);
    const held = await untilStatus([doomed, retried], TaskResultStatus.RUNNING);
    expect(held.map((r) => pidOf(r.workerIds[0]))).toEqual([app.pid, app.pid]);
    await app.killGroup();

    stage.start(
      [
        'worker',
        ...['--alias', alias, '--processes', '1', '--threads', '2'],
        ...['--heartbeat-tolerance', String(HEARTBEAT_TOLERANCE_MS)],
      ],
      { THREADMILL_LOG_LEVEL: 'warn' },
    );
    const [lost] = await untilStatus([doomed], TaskResultStatus.FAILED);
    expect(lost.errors.map((e) => e.className)).toEqual(['WorkerLost']);
    expect(lost.errors[0].traceback).toMatch(/worker pool ".+", whose heartbeat lapsed/);
    const [again] = await untilStatus([retried], TaskResultStatus.SUCCESSFUL);
    expect(again.errors.map((e) => e.className)).toEqual(['WorkerLost']);
    expect(again.workerIds).toHaveLength(2);
    expect(pidOf(again.workerIds[0])).toBe(app.pid);
    expect(pidOf(again.workerIds[1])).not.toBe(app.pid);
  });

  it('on SIGTERM finishes the running task, retires its heartbeat and exits 0', async () => {
    const { app } = await startApp();
    const slow = sleepTask(alias, 1500);
    await backend.tasks.enqueueMany([slow]);
    await untilStatus([slow], TaskResultStatus.RUNNING);
    expect((await backend.pools.list()).map((p) => p.pid)).toEqual([app.pid]);

    app.process.kill('SIGTERM');
    const { code, signal } = await app.exited;

    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const [finished] = await results([slow]);
    expect(finished.status).toBe(TaskResultStatus.SUCCESSFUL);
    expect(finished.workerIds.map(pidOf)).toEqual([app.pid]);
    expect(await backend.pools.list()).toEqual([]);
    expect(app.output()).toContain('In-process worker stopped: 1 task(s) done, 0 failed.');
  });

  it('on a second signal releases the task still running and exits 0', async () => {
    const { app } = await startApp();
    const slow = sleepTask(alias, 60_000);
    await backend.tasks.enqueueMany([slow]);
    await untilStatus([slow], TaskResultStatus.RUNNING);
    app.process.kill('SIGTERM');
    await untilOutput(app, /In-process worker: graceful stop/);
    // Sooner, a signal would count as the same graceful stop.
    await delay(SAME_STOP_WINDOW_MS);
    app.process.kill('SIGINT');
    const { code } = await app.exited;

    expect(code).toBe(0);
    expect(app.output()).toContain('In-process worker: urgent stop');
    const [released] = await results([slow]);
    expect(released.status).toBe(TaskResultStatus.READY);
    expect(await backend.pools.list()).toEqual([]);
  });

  it('does not run tasks in a command of the same app, nor in the children of its worker pool', async () => {
    const waiting = sleepTask(alias, 10);
    await backend.tasks.enqueueMany([waiting]);

    // --verbose: the boot's lines are what tell whether the worker started.
    const listed = await stage.command(
      ['queues', 'list', '--verbose'],
      { THREADMILL_LOG_LEVEL: 'debug' },
      IN_PROCESS_CLI,
    );
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain(
      'In-process worker not started: this process runs a threadmill command.',
    );
    expect(await backend.pools.list()).toEqual([]);
    expect((await results([waiting]))[0].status).toBe(TaskResultStatus.READY);

    // The pool's main process and its child boot the same module: only the child's slots run it.
    const drained = await stage.command(
      ['worker', '--alias', alias, '--processes', '1', '--exit-empty', '--verbose'],
      { THREADMILL_LOG_LEVEL: 'debug' },
      IN_PROCESS_CLI,
    );
    expect(drained.code).toBe(0);
    expect(drained.stderr).toContain('In-process worker not started');
    expect(drained.stderr).not.toContain('In-process worker started');
    const [done] = await results([waiting]);
    expect(done.status).toBe(TaskResultStatus.SUCCESSFUL);
  });
});
