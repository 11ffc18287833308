import { randomUUID } from 'node:crypto';

import type { TaskBackoff } from '../../lib/core/task-options.interface';
import type { TaskBackend } from '../../lib/core/task-backend.interface';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { type RunningCli } from '../helpers/cli-process';
import { cliStage, STAGE_MAINTENANCE_INTERVAL_MS, STAGE_STORES } from '../helpers/cli-stage';
import { waitFor } from '../helpers/wait-for';

// A whole pool (main process and children, one process group) is killed with
// SIGKILL mid-run: nothing of it is left to recover its tasks. A second pool
// started afterwards must find them through the dead pool's lapsed heartbeat,
// not wait for the lease (1 h by default), and settle every one of them.

/** The target: a killed and replaced pool settles within 5 s of the new pool's start. */
const SETTLE_WITHIN_MS = 5000;

function sleepTask(alias: string, ms: number, retries?: number): TaskRecord {
  const backoff: TaskBackoff = { type: 'fixed', delayMs: 0, jitter: false };
  return {
    id: randomUUID(),
    task: {
      name: 'sample.sleep',
      queue: 'default',
      priority: 0,
      runAfter: null,
      backend: alias,
      ...(retries === undefined ? {} : { retries, backoff }),
    },
    status: TaskResultStatus.READY,
    enqueuedAt: new Date(),
    startedAt: null,
    finishedAt: null,
    lastAttemptedAt: null,
    args: [ms],
    errors: [],
    workerIds: [],
  };
}

/** The pid part of a `host:pid-slot` worker id. */
const pidOf = (workerId: string): number => Number(/:(\d+)-\d+$/.exec(workerId)?.[1]);

describe.each(STAGE_STORES)(
  'dead-pool recovery (e2e on %s: kill -9 a whole pool, start another)',
  (store) => {
    jest.setTimeout(60_000);
    const stage = cliStage(['default'], store);
    let alias: string;
    let backend: TaskBackend;

    beforeEach(() => {
      ({ alias, backend } = stage);
    });

    /** A pool leading its own process group, so one kill takes its children with it. */
    function startPool(): RunningCli {
      return stage.start(
        // A short tolerance: this is about what recovery does, not how long it waits.
        [
          'worker',
          ...['--alias', alias, '--processes', '2', '--threads', '4'],
          ...['--heartbeat-tolerance', String(3 * STAGE_MAINTENANCE_INTERVAL_MS)],
        ],
        { THREADMILL_LOG_LEVEL: 'warn' },
      );
    }

    const results = (records: readonly TaskRecord[]): Promise<TaskRecord[]> =>
      Promise.all(records.map((r) => backend.tasks.getResult(r.id)));

    it('fails (WorkerLost) or retries every task the dead pool held within 5 s of a new pool, and leaves none RUNNING', async () => {
      // Held until the kill: no retries, so each must end FAILED with WorkerLost.
      const doomed = Array.from({ length: 4 }, () => sleepTask(alias, 60_000));
      // One retry each, and long enough to be mid-run at the kill: recovered back
      // to the queue, then run to the end by the new pool.
      const retried = Array.from({ length: 4 }, () => sleepTask(alias, 3000, 1));
      const all = [...doomed, ...retried];
      await backend.tasks.enqueueMany(all);

      const first = startPool();
      const held = await waitFor(
        async () => {
          const now = await results(all);
          return now.every((r) => r.status === TaskResultStatus.RUNNING) ? now : null;
        },
        { timeoutMs: 30_000, intervalMs: 50, what: 'all 8 tasks RUNNING in the first pool' },
      );
      const deadPids = new Set(held.map((r) => pidOf(r.workerIds[0])));
      await first.killGroup();

      const secondStartedAt = Date.now();
      startPool();
      const settled = await waitFor(
        async () => {
          const now = await results(all);
          const done = now.every(
            (r) =>
              r.errors.some((e) => e.className === 'WorkerLost') &&
              !(r.status === TaskResultStatus.RUNNING && deadPids.has(pidOf(r.workerIds.at(-1)!))),
          );
          return done ? now : null;
        },
        { timeoutMs: 20_000, intervalMs: 50, what: 'every task of the dead pool recovered' },
      );
      const settledInMs = Date.now() - secondStartedAt;
      expect(settledInMs).toBeLessThan(SETTLE_WITHIN_MS);

      const [lost, again] = [settled.slice(0, 4), settled.slice(4)];
      for (const record of lost) {
        expect(record.status).toBe(TaskResultStatus.FAILED);
        expect(record.errors.map((e) => e.className)).toEqual(['WorkerLost']);
      }
      for (const record of again) {
        expect(record.status).not.toBe(TaskResultStatus.FAILED);
        expect(record.errors.map((e) => e.className)).toEqual(['WorkerLost']);
      }
      expect(lost[0].errors[0].traceback).toMatch(/worker pool ".+", whose heartbeat lapsed/);

      // The retried ones then run to the end in the new pool: a second attempt, nothing lost.
      const finished = await waitFor(
        async () => {
          const now = await results(retried);
          return now.every((r) => r.status === TaskResultStatus.SUCCESSFUL) ? now : null;
        },
        { timeoutMs: 20_000, intervalMs: 100, what: 'the retried tasks SUCCESSFUL' },
      );
      for (const record of finished) {
        expect(record.workerIds).toHaveLength(2);
        expect(deadPids.has(pidOf(record.workerIds[1]))).toBe(false);
      }
    });
  },
);
