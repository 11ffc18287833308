import { InvalidTaskError } from '../../core/errors/invalid-task.error';
import { TaskAlreadyExistsError } from '../../core/errors/task-already-exists.error';
import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import type { TaskBackend } from '../../core/task-backend.interface';
import { nextAttempt } from '../../lifecycle/retry-policy';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { readyRecord } from './ready-record';
import type { ContractRunner } from './contract-runner';

/**
 * The contract for calls made again: an enqueue of an id that is stored
 * (a caller retrying after a lost reply, with its own id) is refused with
 * the stored task and stores nothing, and a store of a finished attempt made
 * again after a lost reply says it was already stored, not that its lease
 * was gone. Part of describeBackendContract, run on every backend.
 */
export function describeRepeats(
  t: ContractRunner,
  subject: () => { backend: TaskBackend; alias: string },
): void {
  const { describe, it, expect } = t;
  describe('repeated calls', () => {
    const record = (fields: Parameters<typeof readyRecord>[1] = {}): TaskRecord =>
      readyRecord(subject().alias, { name: 'contract.echo', ...fields });
    const acquireOne = async (): Promise<TaskRecord> => {
      const [acquired] = await subject().backend.leases.acquire(['default'], {
        workerId: 'host:1-0',
        timeoutMs: 0,
      });
      return acquired;
    };
    const succeeded = (running: TaskRecord, value: unknown): TaskRecord => ({
      ...running,
      status: TaskResultStatus.SUCCESSFUL,
      finishedAt: new Date(),
      returnValue: value,
    });

    it('refuses an id that is waiting, with the stored task, and stores nothing', async () => {
      const { backend } = subject();
      const first = await backend.tasks.enqueue(record({ id: 'order-42', args: ['first'] }));
      const error = await backend.tasks
        .enqueue(record({ id: 'order-42', args: ['second'] }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaskAlreadyExistsError);
      expect(error).toMatchObject({ code: 'TASK_ALREADY_EXISTS' });
      expect((error as Error).message).toMatch(/"order-42" is already stored/);
      const { existing } = error as TaskAlreadyExistsError;
      expect(existing.id).toBe(first.id);
      expect(existing.status).toBe(TaskResultStatus.READY);
      expect(existing.args).toEqual(['first']);
      await expect(existing.refresh()).resolves.toBe(existing);
      const telemetry = await backend.reads.telemetry(60_000);
      expect(telemetry.queues.default.counts.ready).toBe(1);
      expect(telemetry.queues.default.rates.ingress).toBe(1);
    });

    it('refuses an id whose result is still kept, with that result', async () => {
      const { backend } = subject();
      await backend.tasks.enqueue(record({ id: 'once' }));
      await backend.leases.acknowledge([succeeded(await acquireOne(), 'done')]);
      const error = await backend.tasks.enqueue(record({ id: 'once' })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaskAlreadyExistsError);
      const { existing } = error as TaskAlreadyExistsError;
      expect(existing.status).toBe(TaskResultStatus.SUCCESSFUL);
      expect(existing.returnValue).toBe('done');
    });

    it('refuses a bulk with a stored id, or with one id twice, storing none of it', async () => {
      const { backend } = subject();
      const stored = await backend.tasks.enqueue(record());
      const fresh = record();
      await expect(backend.tasks.enqueueMany([fresh, record({ id: stored.id })])).rejects.toThrow(
        TaskAlreadyExistsError,
      );
      await expect(backend.tasks.enqueueMany([fresh, record({ id: fresh.id })])).rejects.toThrow(
        InvalidTaskError,
      );
      await expect(backend.tasks.getResult(fresh.id)).rejects.toThrow(TaskResultDoesNotExist);
    });

    it('reports an acknowledge made again as already stored, and changes nothing', async () => {
      const { backend } = subject();
      await backend.tasks.enqueueMany([record(), record()]);
      const done = succeeded(await acquireOne(), 'a');
      await expect(backend.leases.acknowledge([done])).resolves.toEqual(['acknowledged']);
      await expect(backend.leases.acknowledge([done])).resolves.toEqual(['already-stored']);
      // The same through the worker's path: store and lease in one call.
      const result = await backend.leases.acknowledgeAndAcquire([done], ['default'], {
        workerId: 'host:1-0',
        timeoutMs: 0,
      });
      expect(result.acknowledged).toEqual(['already-stored']);
      expect(result.acquired).toHaveLength(1);
      await expect(backend.tasks.getResult(done.id)).resolves.toEqual(done);
    });

    it('reports a retry made again as already stored', async () => {
      const { backend } = subject();
      const retried = record();
      await backend.tasks.enqueue({ ...retried, task: { ...retried.task, retries: 1 } });
      const running = await acquireOne();
      const next = nextAttempt(
        { ...running, status: TaskResultStatus.FAILED, finishedAt: new Date() },
        { className: 'Error', traceback: 'Error: boom' },
        new Date(),
      );
      await expect(backend.leases.retry([next])).resolves.toEqual(['retried']);
      await expect(backend.leases.retry([next])).resolves.toEqual(['already-stored']);
    });
  });
}
