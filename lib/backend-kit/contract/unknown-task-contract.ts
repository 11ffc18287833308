import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { readyRecord } from './ready-record';
import { decideCancel } from '../../lifecycle/cancel-decision';
import { unknownTaskUnleased } from '../../lifecycle/unknown-task';
import type { ContractRunner } from './contract-runner';

const GRACE_MS = 60_000;

/**
 * The contract of a task given back because its worker registers no task of
 * its name (unknownTaskUnleased, stored through `retry`): READY and deferred,
 * no attempt counted, when it was first given back read as it was written,
 * and only by the lease that holds it, once. Part of describeBackendContract,
 * run on every backend.
 */
export function describeUnknownTaskPutBacks(
  t: ContractRunner,
  subject: () => { backend: TaskBackend; alias: string },
): void {
  const { describe, it, expect } = t;
  describe('tasks given back for a name the worker does not register', () => {
    const leased = async (): Promise<TaskRecord> => {
      const { backend, alias } = subject();
      await backend.tasks.enqueue(readyRecord(alias, { name: 'contract.later' }));
      const [running] = await backend.leases.acquire(['default'], {
        workerId: 'host:1-0',
        timeoutMs: 0,
      });
      return running;
    };

    it('goes back READY and deferred, no attempt counted, its first put-back kept', async () => {
      const { backend } = subject();
      const running = await leased();
      const back = unknownTaskUnleased(running, new Date(), GRACE_MS)!;
      await expect(backend.leases.retry([back])).resolves.toEqual(['retried']);
      const stored = await backend.tasks.getResult(running.id);
      expect(stored.status).toBe(TaskResultStatus.READY);
      expect(stored.workerIds).toEqual([]);
      expect(stored.errors).toEqual([]);
      expect(stored.task.unknownSince).toEqual(back.task.unknownSince);
      expect((await backend.reads.peek('default', 'deferred', 10)).map((r) => r.id)).toEqual([
        running.id,
      ]);
      await expect(
        backend.leases.acquire(['default'], { workerId: 'host:2-0', timeoutMs: 0 }),
      ).resolves.toEqual([]);
    });

    it('is given back once when two callers give back the same lease at once', async () => {
      const { backend } = subject();
      const running = await leased();
      const back = unknownTaskUnleased(running, new Date(), GRACE_MS)!;
      const outcomes = await Promise.all([
        backend.leases.retry([back]),
        backend.leases.retry([back]),
      ]);
      expect(outcomes.flat().filter((outcome) => outcome === 'retried')).toHaveLength(1);
      expect((await backend.tasks.getResult(running.id)).workerIds).toEqual([]);
    });

    it('keeps a cancel asked while it was leased: the next lease carries it, and is not given back', async () => {
      const { backend } = subject();
      const running = await leased();
      // The holder has not heard of the cancel when it decides the give-back.
      await expect(backend.control.cancel(running.id, decideCancel)).resolves.toMatchObject({
        outcome: 'requested',
      });
      const back = unknownTaskUnleased(running, new Date(), GRACE_MS)!;
      await expect(backend.leases.retry([back])).resolves.toEqual(['retried']);
      const stored = await backend.tasks.getResult(running.id);
      expect(stored.status).toBe(TaskResultStatus.READY);
      expect(stored.cancelRequestedAt).toBeInstanceOf(Date);
      // Every later lease returns the mark with it: the next worker ends it instead of giving it back.
      expect(unknownTaskUnleased(stored, new Date(), GRACE_MS)).toBeNull();
    });

    it('changes nothing once the lease it was decided for is gone', async () => {
      const { backend } = subject();
      const running = await leased();
      await expect(backend.leases.unlease([running])).resolves.toBe(1);
      const back = unknownTaskUnleased(running, new Date(), GRACE_MS)!;
      await expect(backend.leases.retry([back])).resolves.toEqual(['stale']);
      const stored = await backend.tasks.getResult(running.id);
      expect(stored.task.unknownSince).toBeUndefined();
      expect((await backend.reads.peek('default', 'ready', 10)).map((r) => r.id)).toEqual([
        running.id,
      ]);
    });
  });
}
