import { cancelledRecord } from '../../lifecycle/cancelled-record';
import { TaskCancelledError } from '../../core/errors/task-cancelled.error';
import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import type { CancelRule } from '../../core/ports/control-store.port';
import { manualRetryRecord } from '../../lifecycle/manual-retry';
import type { TaskBackend } from '../../core/task-backend.interface';
import { nextAttempt } from '../../lifecycle/retry-policy';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { readyRecord } from './ready-record';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import { decideCancel } from '../../lifecycle/cancel-decision';
import type { ContractRunner } from './contract-runner';

/**
 * The contract of cancelling: a waiting or deferred task is stored CANCELLED
 * at once and can never be leased afterwards, a running one's request is
 * seen by the pool that holds it only, a CANCELLED attempt is stored in its
 * own history, and a finished task or an unknown id change nothing. Part of
 * describeBackendContract, run on every backend.
 */
export function describeCancels(
  t: ContractRunner,
  subject: () => { backend: TaskBackend; alias: string },
): void {
  const { describe, it, expect } = t;
  describe('cancel', () => {
    const record = (fields: Parameters<typeof readyRecord>[1] = {}): TaskRecord =>
      readyRecord(subject().alias, { name: 'contract.echo', ...fields });
    const acquireAll = async (poolId?: string): Promise<TaskRecord[]> => {
      const { backend } = subject();
      if (poolId !== undefined) await backend.pools.beat(poolId, 60_000);
      return backend.leases.acquire(['default'], {
        workerId: 'host:1-0',
        max: 10,
        timeoutMs: 0,
        ...(poolId === undefined ? {} : { poolId }),
      });
    };

    it('stores a waiting task CANCELLED at once, and it is never acquired', async () => {
      const { backend } = subject();
      const waiting = await backend.tasks.enqueue(record());
      const { outcome, record: cancelled } = await backend.control.cancel(waiting.id, decideCancel);
      expect(outcome).toBe('cancelled');
      expect(cancelled.status).toBe(TaskResultStatus.CANCELLED);
      expect(cancelled.finishedAt).toBeInstanceOf(Date);
      expect(cancelled.errors.at(-1)?.className).toBe(TaskCancelledError.name);
      await expect(backend.tasks.getResult(waiting.id)).resolves.toEqual(cancelled);
      await expect(acquireAll()).resolves.toEqual([]);
      await expect(backend.reads.peek('default', 'ready', 10)).resolves.toEqual([]);
      expect((await backend.reads.peek('default', 'cancelled', 10)).map((r) => r.id)).toEqual([
        waiting.id,
      ]);
      const { counts } = (await backend.reads.telemetry(60_000)).queues.default;
      expect(counts).toMatchObject({ ready: 0, cancelled: 1, failed: 0 });
    });

    it('stores what the rule it is given decides, and asks it whether a lease holds the task', async () => {
      const { backend } = subject();
      await backend.tasks.enqueue(record());
      const [running] = await acquireAll();
      const waiting = await backend.tasks.enqueue(record());
      const asked: boolean[] = [];
      const rule: CancelRule = (task, leased, now) => {
        asked.push(leased);
        const why = new TaskCancelledError(`by the rule, leased ${String(leased)}`);
        return leased
          ? decideCancel(task, leased, now)
          : { outcome: 'cancelled', record: cancelledRecord(task, now, why) };
      };
      // The leased one: the rule hears so, and the task is marked as it decides.
      await expect(backend.control.cancel(running.id, rule)).resolves.toMatchObject({
        outcome: 'requested',
      });
      expect(asked).toContain(true);
      asked.length = 0;
      // The waiting one: stored as the rule built it, its own error and all (Redis asks both
      // ways before its script learns which holds).
      const { record: stored } = await backend.control.cancel(waiting.id, rule);
      expect(asked).toContain(false);
      expect(stored.errors.at(-1)?.traceback).toContain('by the rule, leased false');
      await expect(backend.tasks.getResult(waiting.id)).resolves.toEqual(stored);
    });

    it('cancels a deferred task, which no maintenance pass promotes afterwards', async () => {
      const { backend } = subject();
      const deferred = await backend.tasks.enqueue(
        record({ runAfter: new Date(Date.now() + 200) }),
      );
      await expect(backend.control.cancel(deferred.id, decideCancel)).resolves.toMatchObject({
        outcome: 'cancelled',
      });
      await expect(backend.reads.peek('default', 'deferred', 10)).resolves.toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 250));
      await runMaintenancePass(backend);
      await expect(acquireAll()).resolves.toEqual([]);
      await expect(backend.tasks.getResult(deferred.id)).resolves.toMatchObject({
        status: TaskResultStatus.CANCELLED,
      });
    });

    it("records a running task's request for its own pool only, until dropped", async () => {
      const { backend } = subject();
      const task = await backend.tasks.enqueue(record());
      const [running] = await acquireAll('pool-a');
      const { outcome, record: after } = await backend.control.cancel(task.id, decideCancel);
      expect(outcome).toBe('requested');
      expect(after.status).toBe(TaskResultStatus.RUNNING);
      const requests = await backend.control.cancelRequests('pool-a');
      expect(requests.map((r) => r.id)).toEqual([running.id]);
      expect(requests[0].requestedAt).toBeInstanceOf(Date);
      // It names the lease it was made for, so only that lease's holder acts on it.
      expect(requests[0].lease).toBe(running.workerIds.at(-1));
      await expect(backend.control.cancelRequests('pool-b')).resolves.toEqual([]);
      // Asked twice, one request.
      await backend.control.cancel(task.id, decideCancel);
      await expect(backend.control.cancelRequests('pool-a')).resolves.toHaveLength(1);
      // A drop names the lease too: one for another lease leaves it.
      await backend.control.dropCancelRequests('pool-a', [{ ...requests[0], lease: 'host:9-9' }]);
      await expect(backend.control.cancelRequests('pool-a')).resolves.toHaveLength(1);
      await backend.control.dropCancelRequests('pool-a', requests);
      await expect(backend.control.cancelRequests('pool-a')).resolves.toEqual([]);
    });

    it('marks a leased task, and the mark outlives its attempt until a retry by hand', async () => {
      const { backend } = subject();
      const plain = record();
      const task = await backend.tasks.enqueue({
        ...plain,
        task: { ...plain.task, retries: 2, backoff: { type: 'fixed', delayMs: 0, jitter: false } },
      });
      const [running] = await acquireAll('pool-a');
      expect(running.cancelRequestedAt).toBeUndefined();
      const { record: marked, holder } = await backend.control.cancel(task.id, decideCancel);
      expect(holder).toBe('pool-a');
      expect(marked.cancelRequestedAt).toBeInstanceOf(Date);
      expect((await backend.tasks.getResult(task.id)).cancelRequestedAt).toBeInstanceOf(Date);
      // The holder had not heard of it: its failed attempt goes back as it would without.
      const retry = nextAttempt(
        { ...running, status: TaskResultStatus.FAILED, finishedAt: new Date() },
        null,
        new Date(),
      );
      expect(retry.status).toBe(TaskResultStatus.READY);
      await expect(backend.leases.retry([retry])).resolves.toEqual(['retried']);
      // ...and the next lease of it carries the mark, so it is never started again.
      const [again] = await acquireAll('pool-b');
      expect(again.id).toBe(task.id);
      expect(again.cancelRequestedAt).toBeInstanceOf(Date);
      const ended = nextAttempt(again, null, new Date());
      expect(ended.status).toBe(TaskResultStatus.CANCELLED);
      await expect(backend.leases.acknowledge([ended])).resolves.toEqual(['acknowledged']);
      const cancelled = await backend.tasks.getResult(task.id);
      const retried = manualRetryRecord(cancelled);
      expect(retried.cancelRequestedAt).toBeUndefined();
      await expect(backend.control.retryFinished(cancelled, retried)).resolves.toBe(true);
      const [fresh] = await acquireAll('pool-b');
      expect(fresh.cancelRequestedAt).toBeUndefined();
    });

    it("forgets a pool's requests with the pool", async () => {
      const { backend } = subject();
      const task = await backend.tasks.enqueue(record());
      const [running] = await acquireAll('pool-a');
      await backend.control.cancel(task.id, decideCancel);
      // The task finished before the pool saw the request; the pool then stops cleanly.
      await backend.leases.acknowledge([cancelledRecord(running, new Date())]);
      await expect(backend.control.cancelRequests('pool-a')).resolves.toHaveLength(1);
      await backend.pools.retire('pool-a');
      await expect(backend.control.cancelRequests('pool-a')).resolves.toEqual([]);
    });

    it('stores an acknowledged CANCELLED attempt in the cancelled history', async () => {
      const { backend } = subject();
      await backend.tasks.enqueue(record());
      const [running] = await acquireAll('pool-a');
      const cancelled = cancelledRecord(running, new Date());
      await expect(backend.leases.acknowledge([cancelled])).resolves.toEqual(['acknowledged']);
      await expect(backend.tasks.getResult(running.id)).resolves.toEqual(cancelled);
      expect((await backend.reads.peek('default', 'cancelled', 10)).map((r) => r.id)).toEqual([
        running.id,
      ]);
      await expect(backend.reads.peek('default', 'failed', 10)).resolves.toEqual([]);
      await expect(backend.reads.peek('default', 'running', 10)).resolves.toEqual([]);
    });

    it('leaves a finished task as it is, and says so', async () => {
      const { backend } = subject();
      await backend.tasks.enqueue(record());
      const [running] = await acquireAll();
      const done: TaskRecord = {
        ...running,
        status: TaskResultStatus.SUCCESSFUL,
        finishedAt: new Date(),
        returnValue: 1,
      };
      await backend.leases.acknowledge([done]);
      await expect(backend.control.cancel(done.id, decideCancel)).resolves.toEqual({
        outcome: 'already-final',
        record: done,
      });
      await expect(backend.tasks.getResult(done.id)).resolves.toEqual(done);
      const waiting = await backend.tasks.enqueue(record());
      await backend.control.cancel(waiting.id, decideCancel);
      await expect(backend.control.cancel(waiting.id, decideCancel)).resolves.toMatchObject({
        outcome: 'already-final',
        record: { status: TaskResultStatus.CANCELLED },
      });
    });

    it('throws TaskResultDoesNotExist for an unknown id', async () => {
      await expect(subject().backend.control.cancel('no-such-id', decideCancel)).rejects.toThrow(
        TaskResultDoesNotExist,
      );
    });
  });
}
