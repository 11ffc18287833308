import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import { TaskWaitTimeoutError } from '../../core/errors/task-wait-timeout.error';
import type { FinishedTask } from '../../core/finished-task-feed';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { finishedRecordSource, waitForFinished } from '../../core/wait-for-finished';
import { readyRecord } from './ready-record';
import { waitFor } from './wait-for';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import { decideCancel } from '../../lifecycle/cancel-decision';
import type { ContractRunner } from './contract-runner';

interface FeedSubject {
  backend: TaskBackend;
  alias: string;
  /** Another instance on the same store (its own connection), where the store is shared. */
  reopen?: () => Promise<TaskBackend>;
  build: (overrides: { leaseTtl?: number }) => Promise<TaskBackend>;
}

/** A listener that keeps every batch it is given, and its unsubscribe. */
async function listen(
  backend: TaskBackend,
): Promise<{ batches: FinishedTask[][]; seen: () => FinishedTask[]; off: () => Promise<void> }> {
  const batches: FinishedTask[][] = [];
  const off = await backend.feeds.subscribeFinished((tasks) => batches.push([...tasks]));
  return { batches, seen: () => batches.flat(), off };
}

const finish = (record: TaskRecord, status: TaskResultStatus): TaskRecord => ({
  ...record,
  status,
  finishedAt: new Date(),
  ...(status === TaskResultStatus.SUCCESSFUL ? { returnValue: record.args[0] } : {}),
});

/**
 * The contract of the feed of finished tasks and of waiting on it: every
 * way a task becomes final is announced (id, name, queue, status), a
 * listener hears only what finished while it was subscribed, and waiting
 * subscribes before it reads, so a finish is never missed. Part of
 * describeBackendContract, run on every backend.
 */
export function describeFinishedFeed(t: ContractRunner, subject: () => FeedSubject): void {
  const { describe, it, expect } = t;
  describe('feed of finished tasks', () => {
    const record = (name = 'contract.echo', args: unknown[] = []): TaskRecord =>
      readyRecord(subject().alias, { name, args });
    const lease = (backend: TaskBackend, max = 10): Promise<TaskRecord[]> =>
      backend.leases.acquire(['default'], { workerId: 'host:1-0', max, timeoutMs: 0 });

    it('announces acknowledged tasks with their name, queue and final status', async () => {
      const { backend } = subject();
      const feed = await listen(backend);
      await backend.tasks.enqueueMany([record('contract.a', [1]), record('contract.b', [2])]);
      const [a, b] = await lease(backend);
      await backend.leases.acknowledge([
        finish(a, TaskResultStatus.SUCCESSFUL),
        finish(b, TaskResultStatus.FAILED),
      ]);
      await waitFor(() => feed.seen().length >= 2, { what: 'two finished tasks' });
      for (const announced of [
        { id: a.id, name: 'contract.a', queue: 'default', status: TaskResultStatus.SUCCESSFUL },
        { id: b.id, name: 'contract.b', queue: 'default', status: TaskResultStatus.FAILED },
      ]) {
        expect(feed.seen()).toContainEqual(announced);
      }
      await feed.off();
    });

    it('announces what acknowledgeAndAcquire stores, and a cancelled waiting task', async () => {
      const { backend } = subject();
      const feed = await listen(backend);
      const waiting = await backend.tasks.enqueue(record());
      await backend.control.cancel(waiting.id, decideCancel);
      const running = await backend.tasks.enqueue(record());
      const [leased] = await lease(backend, 1);
      await backend.leases.acknowledgeAndAcquire(
        [finish(leased, TaskResultStatus.SUCCESSFUL)],
        ['default'],
        { workerId: 'host:1-0', timeoutMs: 0 },
      );
      await waitFor(() => feed.seen().length >= 2, { what: 'two finished tasks' });
      expect(feed.seen().map((t) => [t.id, t.status])).toEqual([
        [waiting.id, TaskResultStatus.CANCELLED],
        [running.id, TaskResultStatus.SUCCESSFUL],
      ]);
      await feed.off();
    });

    it('announces a task the reaper fails', async () => {
      const backend = await subject().build({ leaseTtl: 50 });
      const feed = await listen(backend);
      const task = await backend.tasks.enqueue(
        readyRecord(backend.alias, { name: 'contract.echo' }),
      );
      await lease(backend);
      await waitFor(
        async () => {
          await runMaintenancePass(backend);
          return feed.seen().some((t) => t.id === task.id);
        },
        { what: 'the reaped task announced' },
      );
      expect(feed.seen()).toEqual([
        { id: task.id, name: 'contract.echo', queue: 'default', status: TaskResultStatus.FAILED },
      ]);
      await feed.off();
    });

    it('delivers nothing after unsubscribing, while another listener still hears', async () => {
      const { backend } = subject();
      const gone = await listen(backend);
      const staying = await listen(backend);
      await gone.off();
      await gone.off();
      const task = await backend.tasks.enqueue(record());
      await backend.control.cancel(task.id, decideCancel);
      await waitFor(() => staying.seen().length === 1, { what: 'the staying listener' });
      expect(gone.batches).toEqual([]);
      await staying.off();
    });

    it('announces a finish to another instance on the same store', async () => {
      const { backend, reopen } = subject();
      if (!reopen) return;
      const other = await reopen();
      try {
        const feed = await listen(other);
        const task = await backend.tasks.enqueue(record());
        await backend.control.cancel(task.id, decideCancel);
        await waitFor(() => feed.seen().some((t) => t.id === task.id), {
          what: 'the other instance hearing the cancel',
        });
        await feed.off();
      } finally {
        await other.close();
      }
    });

    describe('waitForFinished', () => {
      it('resolves with the final record once a task finishes', async () => {
        const { backend } = subject();
        const task = await backend.tasks.enqueue(record('contract.echo', ['done']));
        const waiting = waitForFinished(finishedRecordSource(backend), task.id, {
          timeoutMs: 10_000,
        });
        const [leased] = await lease(backend);
        await backend.leases.acknowledge([finish(leased, TaskResultStatus.SUCCESSFUL)]);
        await expect(waiting).resolves.toMatchObject({
          id: task.id,
          status: TaskResultStatus.SUCCESSFUL,
          returnValue: 'done',
        });
      });

      it('resolves at once for a task already final', async () => {
        const { backend } = subject();
        const task = await backend.tasks.enqueue(record());
        await backend.control.cancel(task.id, decideCancel);
        await expect(
          waitForFinished(finishedRecordSource(backend), task.id, { timeoutMs: 0 }),
        ).resolves.toMatchObject({
          status: TaskResultStatus.CANCELLED,
        });
      });

      it('rejects an unknown id with TaskResultDoesNotExist', async () => {
        await expect(
          waitForFinished(finishedRecordSource(subject().backend), 'no-such-id'),
        ).rejects.toThrow(TaskResultDoesNotExist);
      });

      it('rejects with TaskWaitTimeoutError, naming the task and its queue, when time runs out', async () => {
        const { backend } = subject();
        const task = await backend.tasks.enqueue(record());
        const failure = waitForFinished(finishedRecordSource(backend), task.id, { timeoutMs: 30 });
        await expect(failure).rejects.toThrow(TaskWaitTimeoutError);
        await expect(failure).rejects.toThrow(/still READY after 30 ms.*queue "default"/s);
        await expect(failure).rejects.toMatchObject({ record: { id: task.id }, retryable: true });
      });
    });
  });
}
