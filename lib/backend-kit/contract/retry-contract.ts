import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskBackoff } from '../../core/task-options.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { passUntil } from './maintenance-passes';
import { waitFor } from './wait-for';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import { decideCancel } from '../../lifecycle/cancel-decision';
import { nextAttempt } from '../../lifecycle/retry-policy';
import type { ContractRunner } from './contract-runner';
import { finish, newRecord, type ContractSettings, type SectionSubject } from './contract-subject';

/**
 * Retries of a held task by its retry policy, and tasks deferred by runAfter.
 * Part of describeBackendContract, run on every backend.
 */
export function describeRetries(t: ContractRunner, subject: () => SectionSubject): void {
  const { describe, it, expect, beforeEach } = t;
  let backend: TaskBackend;
  let alias: string;
  const build = (overrides?: Partial<ContractSettings>) => subject().build(overrides);

  beforeEach(async () => {
    ({ backend, alias } = subject());
  });

  const acquireOne = async (queues = ['default'], workerId = 'host:1-0') => {
    const acquired = await backend.leases.acquire(queues, { workerId, timeoutMs: 0 });
    expect(acquired).toHaveLength(1);
    return acquired[0];
  };

  describe('retry', () => {
    const noWait: TaskBackoff = { type: 'fixed', delayMs: 0, jitter: false };
    const withRetries = (retries: number, backoff: TaskBackoff = noWait): TaskRecord => {
      const record = newRecord(alias);
      return { ...record, task: { ...record.task, retries, backoff } };
    };
    /** The record a worker hands to retry after a failed attempt. */
    const failedAttempt = (running: TaskRecord): TaskRecord =>
      nextAttempt(finish(running, TaskResultStatus.FAILED), null, new Date());

    it('stores the retry policy with the task and reads it back', async () => {
      const backoff: TaskBackoff = { type: 'exponential', delayMs: 50, maxDelayMs: 400 };
      const record = await backend.tasks.enqueue(withRetries(3, backoff));
      await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
        task: { retries: 3, backoff },
      });
      expect((await acquireOne()).task).toMatchObject({ retries: 3, backoff });
    });

    it("stores an attempt's time limit with the task and reads it back through a retry", async () => {
      const limited = withRetries(1);
      const record = await backend.tasks.enqueue({
        ...limited,
        task: { ...limited.task, timeoutMs: 1500 },
      });
      await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
        task: { timeoutMs: 1500 },
      });
      const running = await acquireOne();
      expect(running.task.timeoutMs).toBe(1500);
      await expect(backend.leases.retry([failedAttempt(running)])).resolves.toEqual(['retried']);
      expect((await acquireOne()).task.timeoutMs).toBe(1500);
    });

    it('defers a held task until its backoff passed, keeping its errors and attempts', async () => {
      const record = await backend.tasks.enqueue(
        withRetries(2, { type: 'fixed', delayMs: 300, jitter: false }),
      );
      const retried = failedAttempt(await acquireOne(['default'], 'host:1-0'));
      expect(retried.status).toBe(TaskResultStatus.READY);
      await expect(backend.leases.retry([retried])).resolves.toEqual(['retried']);
      const stored = await backend.tasks.getResult(record.id);
      expect(stored).toMatchObject({ status: TaskResultStatus.READY, workerIds: ['host:1-0'] });
      expect(stored.errors.map((e) => e.className)).toEqual(['Error']);
      expect(stored.task.runAfter).toEqual(retried.task.runAfter);
      expect((await backend.reads.peek('default', 'deferred', 10)).map((r) => r.id)).toEqual([
        record.id,
      ]);
      await expect(backend.reads.peek('default', 'running', 10)).resolves.toEqual([]);
      await expect(
        backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 }),
      ).resolves.toEqual([]);
      await expect(passUntil(backend, 'promoted', 1)).resolves.toBe(1);
      const again = await acquireOne(['default'], 'host:2-0');
      expect(again.workerIds).toEqual(['host:1-0', 'host:2-0']);
      expect(again.errors).toHaveLength(1);
    });

    it('puts a task that is due at once straight back in its ready queue and wakes a consumer', async () => {
      const record = await backend.tasks.enqueue(withRetries(1));
      const retried = failedAttempt(await acquireOne());
      const waiting = backend.leases.acquire(['default'], { workerId: 'w2', timeoutMs: 10_000 });
      await expect(backend.leases.retry([retried])).resolves.toEqual(['retried']);
      expect((await waiting).map((r) => r.id)).toEqual([record.id]);
    });

    it('fails the attempt after the last one', async () => {
      const record = await backend.tasks.enqueue(withRetries(1));
      await backend.leases.retry([failedAttempt(await acquireOne())]);
      const last = nextAttempt(
        finish(await acquireOne(), TaskResultStatus.FAILED),
        null,
        new Date(),
      );
      expect(last.status).toBe(TaskResultStatus.FAILED);
      await expect(backend.leases.acknowledge([last])).resolves.toEqual(['acknowledged']);
      const stored = await backend.tasks.getResult(record.id);
      expect(stored.status).toBe(TaskResultStatus.FAILED);
      expect(stored.errors).toHaveLength(2);
      expect(stored.workerIds).toHaveLength(2);
    });

    it('is stale for a task it no longer holds', async () => {
      await backend.tasks.enqueue(withRetries(1));
      const acquired = await acquireOne();
      await backend.leases.acknowledge([finish(acquired, TaskResultStatus.SUCCESSFUL, 1)]);
      await expect(backend.leases.retry([failedAttempt(acquired)])).resolves.toEqual(['stale']);
      await expect(backend.tasks.getResult(acquired.id)).resolves.toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
      });
    });

    it('retries a task whose lease expired while attempts are left, and fails it after the last', async () => {
      backend = await build({ leaseTtl: 200 });
      alias = backend.alias;
      const record = await backend.tasks.enqueue(withRetries(1));
      const first = await acquireOne();
      await waitFor(() => Date.now() > first.lastAttemptedAt!.getTime() + 250, {
        what: 'the first lease to expire',
      });
      expect((await runMaintenancePass(backend)).reaped).toBe(1);
      const retried = await backend.tasks.getResult(record.id);
      expect(retried.status).toBe(TaskResultStatus.READY);
      expect(retried.errors.map((e) => e.className)).toEqual(['AcknowledgementTimeout']);
      const second = await acquireOne();
      expect(second.workerIds).toHaveLength(2);
      await waitFor(() => Date.now() > second.lastAttemptedAt!.getTime() + 250, {
        what: 'the second lease to expire',
      });
      expect((await runMaintenancePass(backend)).reaped).toBe(1);
      const failed = await backend.tasks.getResult(record.id);
      expect(failed.status).toBe(TaskResultStatus.FAILED);
      expect(failed.errors.map((e) => e.className)).toEqual([
        'AcknowledgementTimeout',
        'AcknowledgementTimeout',
      ]);
    });

    it('ends CANCELLED, whatever its retries, a task whose lease expired after a cancel was asked of it', async () => {
      backend = await build({ leaseTtl: 200 });
      alias = backend.alias;
      const record = await backend.tasks.enqueue(withRetries(3));
      const running = await acquireOne();
      await expect(backend.control.cancel(record.id, decideCancel)).resolves.toMatchObject({
        outcome: 'requested',
      });
      await waitFor(() => Date.now() > running.lastAttemptedAt!.getTime() + 250, {
        what: 'the lease to expire',
      });
      expect((await runMaintenancePass(backend)).reaped).toBe(1);
      const ended = await backend.tasks.getResult(record.id);
      expect(ended.status).toBe(TaskResultStatus.CANCELLED);
      expect(ended.errors.map((e) => e.className)).toEqual([
        'AcknowledgementTimeout',
        'TaskCancelledError',
      ]);
    });
  });

  describe('deferred tasks', () => {
    it('keeps a task with a future runAfter out of reach until a maintenance pass moves it', async () => {
      expect(backend.features.defer).toBe(true);
      const runAfter = new Date(Date.now() + 300);
      const record = await backend.tasks.enqueue(newRecord(alias, { runAfter }));
      expect((await backend.reads.peek('default', 'deferred', 10)).map((r) => r.id)).toEqual([
        record.id,
      ]);
      await runMaintenancePass(backend);
      await expect(
        backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 }),
      ).resolves.toEqual([]);
      await expect(passUntil(backend, 'promoted', 1)).resolves.toBe(1);
      expect((await acquireOne()).id).toBe(record.id);
    });

    it('treats a runAfter in the past as ready at once', async () => {
      const record = await backend.tasks.enqueue(
        newRecord(alias, { runAfter: new Date(Date.now() - 1000) }),
      );
      expect((await acquireOne()).id).toBe(record.id);
    });

    it('wakes a waiting acquire when a maintenance pass promotes a task', async () => {
      const runAfter = new Date(Date.now() + 200);
      const record = await backend.tasks.enqueue(newRecord(alias, { runAfter }));
      const waiting = backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 10_000 });
      await passUntil(backend, 'promoted', 1);
      const started = Date.now();
      expect((await waiting).map((r) => r.id)).toEqual([record.id]);
      expect(Date.now() - started).toBeLessThan(2000);
    });
  });
}
