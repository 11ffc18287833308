import type { TaskBackoff } from '../../core/task-options.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { passUntil } from './maintenance-passes';
import { waitFor } from './wait-for';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import { decideCancel } from '../../lifecycle/cancel-decision';
import { nextAttempt } from '../../lifecycle/retry-policy';
import type { ContractRunner } from './contract-runner';
import { sectionCase } from './section-case';
import { finish, newRecord, type SectionSubject } from './contract-subject';

/**
 * Retries of a held task by its retry policy, and tasks deferred by runAfter.
 * Part of describeBackendContract, run on every backend.
 */
export function describeRetries(t: ContractRunner, subject: () => SectionSubject): void {
  const { describe, it, expect } = t;
  const current = sectionCase(t, subject);

  describe('retry', () => {
    const noWait: TaskBackoff = { type: 'fixed', delayMs: 0, jitter: false };
    const withRetries = (retries: number, backoff: TaskBackoff = noWait): TaskRecord => {
      const record = newRecord(current.alias);
      return { ...record, task: { ...record.task, retries, backoff } };
    };
    /** The record a worker hands to retry after a failed attempt. */
    const failedAttempt = (running: TaskRecord): TaskRecord =>
      nextAttempt(finish(running, TaskResultStatus.FAILED), null, new Date());

    it('stores the retry policy with the task and reads it back', async () => {
      const backoff: TaskBackoff = { type: 'exponential', delayMs: 50, maxDelayMs: 400 };
      const record = await current.backend.tasks.enqueue(withRetries(3, backoff));
      await expect(current.backend.tasks.getResult(record.id)).resolves.toMatchObject({
        task: { retries: 3, backoff },
      });
      expect((await current.acquireOne()).task).toMatchObject({ retries: 3, backoff });
    });

    it("stores an attempt's time limit with the task and reads it back through a retry", async () => {
      const limited = withRetries(1);
      const record = await current.backend.tasks.enqueue({
        ...limited,
        task: { ...limited.task, timeoutMs: 1500 },
      });
      await expect(current.backend.tasks.getResult(record.id)).resolves.toMatchObject({
        task: { timeoutMs: 1500 },
      });
      const running = await current.acquireOne();
      expect(running.task.timeoutMs).toBe(1500);
      await expect(current.backend.leases.retry([failedAttempt(running)])).resolves.toEqual([
        'retried',
      ]);
      expect((await current.acquireOne()).task.timeoutMs).toBe(1500);
    });

    it('defers a held task until its backoff passed, keeping its errors and attempts', async () => {
      const record = await current.backend.tasks.enqueue(
        withRetries(2, { type: 'fixed', delayMs: 300, jitter: false }),
      );
      const retried = failedAttempt(await current.acquireOne(['default'], 'host:1-0'));
      expect(retried.status).toBe(TaskResultStatus.READY);
      await expect(current.backend.leases.retry([retried])).resolves.toEqual(['retried']);
      const stored = await current.backend.tasks.getResult(record.id);
      expect(stored).toMatchObject({ status: TaskResultStatus.READY, workerIds: ['host:1-0'] });
      expect(stored.errors.map((e) => e.className)).toEqual(['Error']);
      expect(stored.task.runAfter).toEqual(retried.task.runAfter);
      expect(
        (await current.backend.reads.peek('default', 'deferred', 10)).map((r) => r.id),
      ).toEqual([record.id]);
      await expect(current.backend.reads.peek('default', 'running', 10)).resolves.toEqual([]);
      await expect(
        current.backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 }),
      ).resolves.toEqual([]);
      await expect(passUntil(current.backend, 'promoted', 1)).resolves.toBe(1);
      const again = await current.acquireOne(['default'], 'host:2-0');
      expect(again.workerIds).toEqual(['host:1-0', 'host:2-0']);
      expect(again.errors).toHaveLength(1);
    });

    it('puts a task that is due at once straight back in its ready queue and wakes a consumer', async () => {
      const record = await current.backend.tasks.enqueue(withRetries(1));
      const retried = failedAttempt(await current.acquireOne());
      const waiting = current.backend.leases.acquire(['default'], {
        workerId: 'w2',
        timeoutMs: 10_000,
      });
      await expect(current.backend.leases.retry([retried])).resolves.toEqual(['retried']);
      expect((await waiting).map((r) => r.id)).toEqual([record.id]);
    });

    it('fails the attempt after the last one', async () => {
      const record = await current.backend.tasks.enqueue(withRetries(1));
      await current.backend.leases.retry([failedAttempt(await current.acquireOne())]);
      const last = nextAttempt(
        finish(await current.acquireOne(), TaskResultStatus.FAILED),
        null,
        new Date(),
      );
      expect(last.status).toBe(TaskResultStatus.FAILED);
      await expect(current.backend.leases.acknowledge([last])).resolves.toEqual(['acknowledged']);
      const stored = await current.backend.tasks.getResult(record.id);
      expect(stored.status).toBe(TaskResultStatus.FAILED);
      expect(stored.errors).toHaveLength(2);
      expect(stored.workerIds).toHaveLength(2);
    });

    it('is stale for a task it no longer holds', async () => {
      await current.backend.tasks.enqueue(withRetries(1));
      const acquired = await current.acquireOne();
      await current.backend.leases.acknowledge([finish(acquired, TaskResultStatus.SUCCESSFUL, 1)]);
      await expect(current.backend.leases.retry([failedAttempt(acquired)])).resolves.toEqual([
        'stale',
      ]);
      await expect(current.backend.tasks.getResult(acquired.id)).resolves.toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
      });
    });

    it('retries a task whose lease expired while attempts are left, and fails it after the last', async () => {
      current.backend = await current.build({ leaseTtl: 200 });
      current.alias = current.backend.alias;
      const record = await current.backend.tasks.enqueue(withRetries(1));
      const first = await current.acquireOne();
      await waitFor(() => Date.now() > first.lastAttemptedAt!.getTime() + 250, {
        what: 'the first lease to expire',
      });
      expect((await runMaintenancePass(current.backend)).reaped).toBe(1);
      const retried = await current.backend.tasks.getResult(record.id);
      expect(retried.status).toBe(TaskResultStatus.READY);
      expect(retried.errors.map((e) => e.className)).toEqual(['AcknowledgementTimeout']);
      const second = await current.acquireOne();
      expect(second.workerIds).toHaveLength(2);
      await waitFor(() => Date.now() > second.lastAttemptedAt!.getTime() + 250, {
        what: 'the second lease to expire',
      });
      expect((await runMaintenancePass(current.backend)).reaped).toBe(1);
      const failed = await current.backend.tasks.getResult(record.id);
      expect(failed.status).toBe(TaskResultStatus.FAILED);
      expect(failed.errors.map((e) => e.className)).toEqual([
        'AcknowledgementTimeout',
        'AcknowledgementTimeout',
      ]);
    });

    it('ends CANCELLED, whatever its retries, a task whose lease expired after a cancel was asked of it', async () => {
      current.backend = await current.build({ leaseTtl: 200 });
      current.alias = current.backend.alias;
      const record = await current.backend.tasks.enqueue(withRetries(3));
      const running = await current.acquireOne();
      await expect(current.backend.control.cancel(record.id, decideCancel)).resolves.toMatchObject({
        outcome: 'requested',
      });
      await waitFor(() => Date.now() > running.lastAttemptedAt!.getTime() + 250, {
        what: 'the lease to expire',
      });
      expect((await runMaintenancePass(current.backend)).reaped).toBe(1);
      const ended = await current.backend.tasks.getResult(record.id);
      expect(ended.status).toBe(TaskResultStatus.CANCELLED);
      expect(ended.errors.map((e) => e.className)).toEqual([
        'AcknowledgementTimeout',
        'TaskCancelledError',
      ]);
    });
  });

  describe('deferred tasks', () => {
    it('keeps a task with a future runAfter out of reach until a maintenance pass moves it', async () => {
      expect(current.backend.features.defer).toBe(true);
      const runAfter = new Date(Date.now() + 300);
      const record = await current.backend.tasks.enqueue(newRecord(current.alias, { runAfter }));
      expect(
        (await current.backend.reads.peek('default', 'deferred', 10)).map((r) => r.id),
      ).toEqual([record.id]);
      await runMaintenancePass(current.backend);
      await expect(
        current.backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 }),
      ).resolves.toEqual([]);
      await expect(passUntil(current.backend, 'promoted', 1)).resolves.toBe(1);
      expect((await current.acquireOne()).id).toBe(record.id);
    });

    it('treats a runAfter in the past as ready at once', async () => {
      const record = await current.backend.tasks.enqueue(
        newRecord(current.alias, { runAfter: new Date(Date.now() - 1000) }),
      );
      expect((await current.acquireOne()).id).toBe(record.id);
    });

    it('wakes a waiting acquire when a maintenance pass promotes a task', async () => {
      const runAfter = new Date(Date.now() + 200);
      const record = await current.backend.tasks.enqueue(newRecord(current.alias, { runAfter }));
      const waiting = current.backend.leases.acquire(['default'], {
        workerId: 'w',
        timeoutMs: 10_000,
      });
      await passUntil(current.backend, 'promoted', 1);
      const started = Date.now();
      expect((await waiting).map((r) => r.id)).toEqual([record.id]);
      expect(Date.now() - started).toBeLessThan(2000);
    });
  });
}
