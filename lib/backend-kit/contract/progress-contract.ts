import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import { recordWith } from '../../core/record-with';
import type { TaskBackend } from '../../core/task-backend.interface';
import { nextAttempt } from '../../lifecycle/retry-policy';
import { storedProgress } from '../../core/task-progress';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { readyRecord } from './ready-record';
import type { ContractRunner } from './contract-runner';

/**
 * The contract of task progress: a running attempt's progress is stored
 * while that attempt holds its task, many tasks' in one call, read back by
 * getResult and peek, kept with the attempt's outcome or stored with it when
 * the finished record carries it, and a late write of an attempt that
 * finished, was removed or lost its task to a later attempt changes nothing.
 * A new attempt starts without progress. Part of describeBackendContract,
 * run on every backend.
 */
export function describeProgress(
  t: ContractRunner,
  subject: () => { backend: TaskBackend; alias: string },
): void {
  const { describe, it, expect } = t;
  describe('progress', () => {
    const enqueueAndAcquire = async (retries = 0): Promise<TaskRecord> => {
      const { backend, alias } = subject();
      const record = readyRecord(alias, { name: 'contract.echo' });
      await backend.tasks.enqueue({
        ...record,
        task: { ...record.task, retries, backoff: { type: 'fixed', delayMs: 0, jitter: false } },
      });
      return acquireOne();
    };
    const acquireOne = async (): Promise<TaskRecord> => {
      const acquired = await subject().backend.leases.acquire(['default'], {
        workerId: 'host:1-0',
        timeoutMs: 0,
      });
      expect(acquired).toHaveLength(1);
      return acquired[0];
    };
    const entry = (running: TaskRecord, value: unknown) => ({
      record: running,
      stored: storedProgress(running.workerIds.length, JSON.stringify(value)),
    });
    const report = async (running: TaskRecord, value: unknown): Promise<boolean> => {
      const stored = await subject().backend.leases.storeProgress([entry(running, value)]);
      expect(stored).toHaveLength(1);
      return stored[0];
    };
    const finished = (running: TaskRecord): TaskRecord =>
      recordWith(running, {
        status: TaskResultStatus.SUCCESSFUL,
        finishedAt: new Date(),
        returnValue: 'done',
      });

    it('is absent until reported, then read back by getResult and peek, the latest value winning', async () => {
      const { backend } = subject();
      const running = await enqueueAndAcquire();
      const before = await backend.tasks.getResult(running.id);
      expect(before.progress).toBeUndefined();
      expect('progress' in before).toBe(false);
      await expect(report(running, 0.25)).resolves.toBe(true);
      await expect(report(running, { phase: 'copy', done: 3, of: 8 })).resolves.toBe(true);
      await expect(backend.tasks.getResult(running.id)).resolves.toMatchObject({
        status: TaskResultStatus.RUNNING,
        progress: { phase: 'copy', done: 3, of: 8 },
      });
      const [peeked] = await backend.reads.peek('default', 'running', 10);
      expect(peeked.progress).toEqual({ phase: 'copy', done: 3, of: 8 });
    });

    it("is kept with the attempt's outcome, and a late write changes nothing", async () => {
      const { backend } = subject();
      const running = await enqueueAndAcquire();
      await report(running, 0.9);
      await expect(backend.leases.acknowledge([finished(running)])).resolves.toEqual([
        'acknowledged',
      ]);
      await expect(report(running, 0.1)).resolves.toBe(false);
      const result = await backend.tasks.getResult(running.id);
      expect(result).toMatchObject({ status: TaskResultStatus.SUCCESSFUL, progress: 0.9 });
      const [peeked] = await backend.reads.peek('default', 'successful', 10);
      expect(peeked.progress).toBe(0.9);
    });

    it('is never written for a task removed or unknown, and never brings one back', async () => {
      const { backend } = subject();
      const running = await enqueueAndAcquire();
      await backend.leases.acknowledge([finished(running)]);
      await expect(
        backend.control.removeFinished(await backend.tasks.getResult(running.id)),
      ).resolves.toBe(true);
      await expect(report(running, 1)).resolves.toBe(false);
      await expect(backend.tasks.getResult(running.id)).rejects.toThrow(TaskResultDoesNotExist);
      await expect(report({ ...running, id: 'no-such-id' }, 1)).resolves.toBe(false);
    });

    it('stores many entries in one call, each only while its attempt holds its task', async () => {
      const { backend } = subject();
      const first = await enqueueAndAcquire();
      const done = await enqueueAndAcquire();
      const last = await enqueueAndAcquire();
      await backend.leases.acknowledge([finished(done)]);
      await expect(
        backend.leases.storeProgress([
          entry(first, { step: 1 }),
          entry(done, 0.5),
          entry(last, 0.75),
          entry({ ...first, id: 'no-such-id' }, 1),
        ]),
      ).resolves.toEqual([true, false, true, false]);
      await expect(backend.leases.storeProgress([])).resolves.toEqual([]);
      expect((await backend.tasks.getResult(first.id)).progress).toEqual({ step: 1 });
      expect((await backend.tasks.getResult(last.id)).progress).toBe(0.75);
      expect((await backend.tasks.getResult(done.id)).progress).toBeUndefined();
    });

    it('is stored with the outcome a finished record carries, by acknowledge and acknowledgeAndAcquire', async () => {
      const { backend } = subject();
      const plain = await enqueueAndAcquire();
      const written = await enqueueAndAcquire();
      await report(written, 0.5);
      const riding = await enqueueAndAcquire();
      const ridden = { ...finished(riding), progress: { done: 8, of: 8 } };
      await expect(
        backend.leases.acknowledge([
          finished(plain),
          { ...finished(written), progress: 0.9 },
          ridden,
        ]),
      ).resolves.toEqual(['acknowledged', 'acknowledged', 'acknowledged']);
      // A repeat of the very record is recognized, progress and all.
      await expect(backend.leases.acknowledge([ridden])).resolves.toEqual(['already-stored']);
      expect('progress' in (await backend.tasks.getResult(plain.id))).toBe(false);
      expect((await backend.tasks.getResult(written.id)).progress).toBe(0.9);
      await expect(backend.tasks.getResult(riding.id)).resolves.toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
        progress: { done: 8, of: 8 },
      });
      const peeked = await backend.reads.peek('default', 'successful', 10);
      expect(peeked.find((task) => task.id === riding.id)?.progress).toEqual({ done: 8, of: 8 });

      const next = await enqueueAndAcquire();
      const failed = recordWith(next, {
        status: TaskResultStatus.FAILED,
        finishedAt: new Date(),
        errors: [{ className: 'Error', traceback: 'Error: boom' }],
      });
      const { acknowledged } = await backend.leases.acknowledgeAndAcquire(
        [{ ...failed, progress: 'halfway' }],
        ['default'],
        { workerId: 'host:1-0', timeoutMs: 0 },
      );
      expect(acknowledged).toEqual(['acknowledged']);
      await expect(backend.tasks.getResult(next.id)).resolves.toMatchObject({
        status: TaskResultStatus.FAILED,
        progress: 'halfway',
      });
    });

    it("shows the failed attempt's progress while its retry waits; the next attempt starts without, and the old one cannot write", async () => {
      const { backend } = subject();
      const first = await enqueueAndAcquire(1);
      await report(first, 0.5);
      const failed = recordWith(first, {
        status: TaskResultStatus.FAILED,
        finishedAt: new Date(),
        errors: [{ className: 'Error', traceback: 'Error: boom' }],
      });
      await expect(backend.leases.retry([nextAttempt(failed, null, new Date())])).resolves.toEqual([
        'retried',
      ]);
      await expect(backend.tasks.getResult(first.id)).resolves.toMatchObject({
        status: TaskResultStatus.READY,
        progress: 0.5,
      });
      const second = await acquireOne();
      expect(second.workerIds).toHaveLength(2);
      expect((await backend.tasks.getResult(first.id)).progress).toBeUndefined();
      await expect(report(first, 0.75)).resolves.toBe(false);
      expect((await backend.tasks.getResult(first.id)).progress).toBeUndefined();
      await expect(report(second, 0.1)).resolves.toBe(true);
      expect((await backend.tasks.getResult(first.id)).progress).toBe(0.1);
    });
  });
}
