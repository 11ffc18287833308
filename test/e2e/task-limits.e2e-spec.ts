import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { STAGE_STORES } from '../helpers/cli-stage';
import { workerStage } from '../helpers/worker-stage';

// Tasks that misbehave in a real pool (the `threadmill` CLI, real processes)
// on the run's real Redis or Postgres: each is contained, and the pool goes on.

describe.each(STAGE_STORES)(
  'threadmill worker: tasks that throw, hang, exit or outrun their timeout (e2e, %s)',
  (store) => {
    // Real processes on 2 shared cores: generous per test, though each takes seconds.
    jest.setTimeout(60_000);
    const w = workerStage(store);
    const { startWorker, taskRecord, untilStatus } = w;

    it('contains a task that throws a string, one that never settles and one that exits its process', async () => {
      const cli = startWorker(['--processes', '1', '--threads', '3'], {
        THREADMILL_LEASE_TTL_MS: '1500',
        THREADMILL_MAINTENANCE_INTERVAL_MS: '250',
      });
      const throwsString = taskRecord('fixture.throwString', ['plain words']);
      const hangs = taskRecord('fixture.hang', []);
      await w.backend.tasks.enqueueMany([throwsString, hangs]);

      const [thrown] = await untilStatus([throwsString], TaskResultStatus.FAILED);
      expect(thrown.errors[0].traceback).toContain('plain words');
      const [hung] = await untilStatus([hangs], TaskResultStatus.FAILED, 15_000);
      expect(hung.errors.map((e) => e.className)).toEqual(['AcknowledgementTimeout']);

      const exits = taskRecord('fixture.exit', [3]);
      await w.backend.tasks.enqueueMany([exits]);
      const [exited] = await untilStatus([exits], TaskResultStatus.FAILED);
      expect(exited.errors.map((e) => e.className)).toEqual(['WorkerCrashed']);
      expect(exited.errors[0].traceback).toContain('exit code 3');

      const after = taskRecord('sample.echo', ['still running']);
      await w.backend.tasks.enqueueMany([after]);
      const [done] = await untilStatus([after], TaskResultStatus.SUCCESSFUL);
      expect(done.returnValue).toEqual(['still running']);
      expect(cli.process.exitCode).toBeNull();
    });

    it('fails an attempt at its timeout through its signal, retries it, and frees its slot', async () => {
      const cli = startWorker(['--processes', '1', '--threads', '1'], {
        THREADMILL_MAINTENANCE_INTERVAL_MS: '100',
      });
      const plain = taskRecord('fixture.untilAborted', []);
      const limited: TaskRecord = {
        ...plain,
        task: { ...plain.task, timeoutMs: 200, retries: 1, backoff: { type: 'fixed', delayMs: 0 } },
      };
      const after = taskRecord('sample.echo', ['after the timeout']);
      await w.backend.tasks.enqueueMany([limited, after]);
      const [timedOut] = await untilStatus([limited], TaskResultStatus.FAILED);
      expect(timedOut.errors.map((e) => e.className)).toEqual([
        'TaskTimeoutError',
        'TaskTimeoutError',
      ]);
      expect(timedOut.errors[0].traceback).toContain('ran past its timeoutMs (200 ms)');
      // One slot: the echo runs only because a timed-out attempt gave its slot back.
      const [done] = await untilStatus([after], TaskResultStatus.SUCCESSFUL);
      expect(done.returnValue).toEqual(['after the timeout']);
      expect(cli.process.exitCode).toBeNull();
    });

    it('a task with timeoutMs: 3000 that awaits forever and ignores its signal: fails TaskTimeoutError at its limit, its slot given back', async () => {
      const cli = startWorker(['--processes', '1', '--threads', '1']);
      const plain = taskRecord('fixture.hang', []);
      const limited: TaskRecord = { ...plain, task: { ...plain.task, timeoutMs: 3000 } };
      const after = taskRecord('sample.echo', ['after the time limit']);
      await w.backend.tasks.enqueueMany([limited, after]);
      const [timedOut] = await untilStatus([limited], TaskResultStatus.FAILED, 15_000);
      expect(timedOut.errors.map((e) => e.className)).toEqual(['TaskTimeoutError']);
      expect(timedOut.errors[0].traceback).toContain('ran past its timeoutMs (3000 ms)');
      // Recorded within max(1 s, 5% of timeoutMs) after the limit; slack for a loaded machine.
      const overMs = timedOut.finishedAt!.getTime() - timedOut.startedAt!.getTime() - 3000;
      expect(overMs).toBeLessThan(1000 + 1000);
      // One slot: the echo runs only because the child holding the hung attempt was replaced.
      const [done] = await untilStatus([after], TaskResultStatus.SUCCESSFUL);
      expect(done.returnValue).toEqual(['after the time limit']);
      expect(cli.output()).toContain('past its timeoutMs, ignoring its signal');
      expect(cli.process.exitCode).toBeNull();
    });
  },
);
