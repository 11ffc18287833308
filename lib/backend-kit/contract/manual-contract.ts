import { cancelledRecord } from '../../lifecycle/cancelled-record';
import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import { manualRetryRecord } from '../../lifecycle/manual-retry';
import { failedAttempt } from '../../lifecycle/retry-policy';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { BackendRegistry } from '../../backends/backend.registry';
import { TaskControlService } from '../../task/task-control.service';
import { readyRecord } from './ready-record';
import { decideCancel } from '../../lifecycle/cancel-decision';
import type { ContractRunner } from './contract-runner';

/**
 * The contract of retrying and removing final tasks by hand: a FAILED or
 * CANCELLED task goes back READY and acquirable with its history kept, a
 * removed one leaves no record, history entry or key hold, and both act
 * only while the stored task is still the final one read (two retries of
 * one task make one attempt). Part of describeBackendContract, run on every
 * backend.
 */
export function describeManualControl(
  t: ContractRunner,
  subject: () => { backend: TaskBackend; alias: string },
): void {
  const { describe, it, expect } = t;
  describe('retry and remove by hand', () => {
    const record = (fields: Parameters<typeof readyRecord>[1] = {}): TaskRecord =>
      readyRecord(subject().alias, { name: 'contract.echo', ...fields });
    const acquireAll = (): Promise<TaskRecord[]> =>
      subject().backend.leases.acquire(['default'], {
        workerId: 'host:1-0',
        max: 10,
        timeoutMs: 0,
      });

    /** A task that ran once and failed, as stored. */
    const failedTask = async (fields: Parameters<typeof readyRecord>[1] = {}) => {
      const { backend } = subject();
      await backend.tasks.enqueue(record(fields));
      const [running] = await acquireAll();
      const failed = failedAttempt(running, new Error('boom'));
      await expect(backend.leases.acknowledge([failed])).resolves.toEqual(['acknowledged']);
      return backend.tasks.getResult(failed.id);
    };

    it('sends a FAILED task back READY and acquirable, its errors and worker ids kept', async () => {
      const { backend } = subject();
      const failed = await failedTask();
      const retried = manualRetryRecord(failed);
      await expect(backend.control.retryFinished(failed, retried)).resolves.toBe(true);
      const stored = await backend.tasks.getResult(failed.id);
      expect(stored).toMatchObject({ status: TaskResultStatus.READY, finishedAt: null });
      expect(stored.errors).toEqual(failed.errors);
      expect(stored.workerIds).toEqual(failed.workerIds);
      await expect(backend.reads.peek('default', 'failed', 10)).resolves.toEqual([]);
      expect((await backend.reads.peek('default', 'ready', 10)).map((r) => r.id)).toEqual([
        failed.id,
      ]);
      const { counts } = (await backend.reads.telemetry(60_000)).queues.default;
      expect(counts).toMatchObject({ ready: 1, failed: 0 });
      const [again] = await acquireAll();
      expect(again.id).toBe(failed.id);
      expect(again.workerIds).toHaveLength(2);
      expect(again.errors).toEqual(failed.errors);
    });

    it('sends a CANCELLED task back READY, out of the cancelled history', async () => {
      const { backend } = subject();
      const waiting = await backend.tasks.enqueue(record());
      const { record: cancelled } = await backend.control.cancel(waiting.id, decideCancel);
      await expect(
        backend.control.retryFinished(cancelled, manualRetryRecord(cancelled)),
      ).resolves.toBe(true);
      await expect(backend.reads.peek('default', 'cancelled', 10)).resolves.toEqual([]);
      const [again] = await acquireAll();
      expect(again.id).toBe(waiting.id);
      expect(again.errors.at(-1)?.className).toBe('TaskCancelledError');
    });

    it('retries a task twice at once into one new attempt', async () => {
      const { backend } = subject();
      const failed = await failedTask();
      const both = await Promise.all([
        backend.control.retryFinished(failed, manualRetryRecord(failed)),
        backend.control.retryFinished(failed, manualRetryRecord(failed)),
      ]);
      expect(both.filter(Boolean)).toHaveLength(1);
      await expect(acquireAll()).resolves.toHaveLength(1);
      await expect(acquireAll()).resolves.toEqual([]);
    });

    /**
     * Runs `call` with `meanwhile` slipped in between its first read of a
     * task and what it stores: the race of two processes at that edge.
     */
    const withChangeAfterRead = async <T>(
      meanwhile: () => Promise<unknown>,
      call: () => Promise<T>,
    ): Promise<T> => {
      const { tasks } = subject().backend;
      const getResult = tasks.getResult;
      const read = (id: string) => getResult.call(tasks, id);
      // The first read only; every later one is the store's own.
      tasks.getResult = async (id) => {
        tasks.getResult = getResult;
        const record = await read(id);
        await meanwhile();
        return record;
      };
      try {
        return await call();
      } finally {
        tasks.getResult = getResult;
      }
    };
    /** Another caller retries the task and its new attempt fails again. */
    const retriedAndFailedAgain = async (control: TaskControlService, id: string) => {
      const { backend } = subject();
      await expect(control.retry(id)).resolves.toMatchObject({ outcome: 'retried' });
      const [running] = await acquireAll();
      await backend.leases.acknowledge([failedAttempt(running, new Error('again'))]);
    };

    it('two processes call retry(id) on the same FAILED task at once: one new attempt, the other answers already-retried', async () => {
      const { backend } = subject();
      const control = new TaskControlService(new BackendRegistry([backend]));
      const failed = await failedTask();
      const late = await withChangeAfterRead(
        () =>
          retriedAndFailedAgain(new TaskControlService(new BackendRegistry([backend])), failed.id),
        () => control.retry(failed.id),
      );
      // The attempt it read was already retried; the one after it is not retried again.
      expect(late.outcome).toBe('already-retried');
      expect(late.result).toMatchObject({ status: TaskResultStatus.FAILED });
      expect(late.result.errors).toHaveLength(2);
      await expect(acquireAll()).resolves.toEqual([]);
    });

    it('removes only the attempt it read: already-retried after a retry meanwhile, already-removed after a removal', async () => {
      const { backend } = subject();
      const control = new TaskControlService(new BackendRegistry([backend]));
      const other = new TaskControlService(new BackendRegistry([backend]));
      const failed = await failedTask();
      await expect(
        withChangeAfterRead(
          () => retriedAndFailedAgain(other, failed.id),
          () => control.remove(failed.id),
        ),
      ).resolves.toBe('already-retried');
      expect((await backend.tasks.getResult(failed.id)).errors).toHaveLength(2);
      await expect(
        withChangeAfterRead(
          () => other.remove(failed.id),
          () => control.remove(failed.id),
        ),
      ).resolves.toBe('already-removed');
      await expect(backend.tasks.getResult(failed.id)).rejects.toThrow(TaskResultDoesNotExist);
    });

    it('changes nothing when the task is not the final one read', async () => {
      const { backend } = subject();
      const waiting = await backend.tasks.enqueue(record());
      const pretend = cancelledRecord(waiting, new Date());
      await expect(
        backend.control.retryFinished(pretend, manualRetryRecord(pretend)),
      ).resolves.toBe(false);
      await expect(backend.control.removeFinished(pretend)).resolves.toBe(false);
      await expect(backend.tasks.getResult(waiting.id)).resolves.toEqual(waiting);
      const gone = cancelledRecord(record(), new Date());
      await expect(backend.control.retryFinished(gone, manualRetryRecord(gone))).resolves.toBe(
        false,
      );
      await expect(backend.control.removeFinished(gone)).resolves.toBe(false);
    });

    it('removes a final task: its record and its history entry, so peek and telemetry drop it', async () => {
      const { backend } = subject();
      const failed = await failedTask();
      await expect(backend.control.removeFinished(failed)).resolves.toBe(true);
      await expect(backend.tasks.getResult(failed.id)).rejects.toThrow(TaskResultDoesNotExist);
      await expect(backend.reads.peek('default', 'failed', 10)).resolves.toEqual([]);
      const { counts } = (await backend.reads.telemetry(60_000)).queues.default;
      expect(counts).toMatchObject({ ready: 0, running: 0, failed: 0 });
      await expect(backend.control.removeFinished(failed)).resolves.toBe(false);
    });

    it('removes a successful keyed task, after which its key makes a new task', async () => {
      const { backend } = subject();
      const unique = { key: 'report:1', mode: 'unfinished' as const };
      const keyed = (): TaskRecord => {
        const plain = record();
        return { ...plain, task: { ...plain.task, unique } };
      };
      await backend.tasks.enqueue(keyed());
      const [running] = await acquireAll();
      const done: TaskRecord = {
        ...running,
        status: TaskResultStatus.SUCCESSFUL,
        finishedAt: new Date(),
        returnValue: 1,
      };
      await backend.leases.acknowledge([done]);
      const stored = await backend.tasks.getResult(done.id);
      await expect(backend.control.removeFinished(stored)).resolves.toBe(true);
      await expect(backend.reads.peek('default', 'successful', 10)).resolves.toEqual([]);
      const next = keyed();
      await expect(backend.tasks.enqueue(next)).resolves.toMatchObject({ id: next.id });
    });

    it('retries and removes in bulk, batch by batch, and counts what it did', async () => {
      const { backend } = subject();
      const control = new TaskControlService(new BackendRegistry([backend]));
      for (let i = 0; i < 5; i++) await failedTask({ name: i < 3 ? 'a.task' : 'b.task' });
      const { reads } = backend;
      const peek = reads.peek;
      const peeked: number[] = [];
      reads.peek = (queue, segment, count) => {
        peeked.push(count);
        return peek.call(reads, queue, segment, count);
      };
      const filter = { queue: 'default', status: 'FAILED' as const };
      await expect(control.retryAll({ ...filter, task: 'a.task' }, { batchSize: 2 })).resolves.toBe(
        3,
      );
      reads.peek = peek;
      // Never more than a batch beyond the two other-name tasks passed over.
      for (const count of peeked) expect(count).toBeLessThanOrEqual(4);
      await expect(backend.reads.peek('default', 'ready', 10)).resolves.toHaveLength(3);
      await expect(control.removeAll(filter, { batchSize: 1 })).resolves.toBe(2);
      const { counts } = (await backend.reads.telemetry(60_000)).queues.default;
      expect(counts).toMatchObject({ ready: 3, failed: 0 });
    });
  });
}
