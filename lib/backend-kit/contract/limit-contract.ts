import { UnknownQueueError } from '../../core/errors/unknown-queue.error';
import type { QueueConfig } from '../../core/queue-limits';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { passUntil } from './maintenance-passes';
import { readyRecord } from './ready-record';
import type { ContractRunner } from './contract-runner';

/** What the limits contract needs of the backend under test. */
export interface LimitSubject {
  backend: TaskBackend;
  alias: string;
  /** A second backend on the same store (the caller closes it); absent when nothing outlives an instance. */
  reopen?: () => Promise<TaskBackend>;
  /** A backend of its own with these queues configured (closed by the contract). */
  build: (overrides: { queues: (string | QueueConfig)[] }) => Promise<TaskBackend>;
}

const succeeded = (record: TaskRecord): TaskRecord => ({
  ...record,
  status: TaskResultStatus.SUCCESSFUL,
  finishedAt: new Date(),
});

/**
 * The contract for queue limits: stored in the backend and checked in the
 * step that takes a lease, so a batch takes at most the room left, a finish
 * frees its share, a rate limit admits at most max starts per sliding
 * window, and a run-time change (or a second instance) sees the same limits.
 * Part of describeBackendContract, run on every backend.
 */
export function describeLimits(t: ContractRunner, subject: () => LimitSubject): void {
  const { describe, it, expect } = t;
  describe('queue limits', () => {
    const record = (fields: Parameters<typeof readyRecord>[1] = {}): TaskRecord =>
      readyRecord(subject().alias, { name: 'contract.echo', ...fields });
    const take = (queues: string[], timeoutMs = 0, backend = subject().backend) =>
      backend.leases.acquire(queues, { workerId: 'host:1-0', max: 10, timeoutMs });

    it('caps a batch lease at the concurrency left, and frees a share on acknowledge', async () => {
      const { backend } = subject();
      await backend.control.setQueueLimits('default', { concurrency: 2 });
      await backend.tasks.enqueueMany([record(), record(), record(), record()]);
      const first = await take(['default']);
      expect(first).toHaveLength(2);
      await expect(take(['default'])).resolves.toEqual([]);
      await backend.leases.acknowledge([succeeded(first[0])]);
      await expect(take(['default'])).resolves.toHaveLength(1);
      // Stored and leased in one step: the finished task's share goes to the next.
      const next = await backend.leases.acknowledgeAndAcquire([succeeded(first[1])], ['default'], {
        workerId: 'host:1-0',
        max: 10,
        timeoutMs: 0,
      });
      expect(next.acquired).toHaveLength(1);
      expect((await backend.reads.telemetry(60_000)).queues.default.counts.running).toBe(2);
    });

    it('gives a waiting acquire the share a finished task frees, soon after', async () => {
      const { backend } = subject();
      await backend.control.setQueueLimits('default', { concurrency: 1 });
      await backend.tasks.enqueueMany([record(), record()]);
      const [running] = await take(['default']);
      const waiting = take(['default'], 10_000);
      await backend.leases.acknowledge([succeeded(running)]);
      const freedAt = Date.now();
      await expect(waiting).resolves.toHaveLength(1);
      expect(Date.now() - freedAt).toBeLessThan(2000);
    });

    it('admits at most max starts in any sliding window, and more as it moves', async () => {
      const { backend } = subject();
      await backend.control.setQueueLimits('default', { rateLimit: { max: 3, perMs: 1000 } });
      await backend.tasks.enqueueMany(Array.from({ length: 8 }, () => record()));
      const started = Date.now();
      await expect(take(['default'])).resolves.toHaveLength(3);
      await expect(take(['default'])).resolves.toEqual([]);
      // A waiting acquire gets the next ones once the first starts leave the window.
      const next = await take(['default'], 5000);
      const waited = Date.now() - started;
      expect(next).toHaveLength(3);
      expect(waited).toBeGreaterThanOrEqual(900);
      expect(waited).toBeLessThan(3000);
      await expect(take(['default'])).resolves.toEqual([]);
    });

    it('leaves unlimited queues alone, and takes them while a limited one is full', async () => {
      const { backend } = subject();
      await backend.control.setQueueLimits('default', { concurrency: 1 });
      await backend.tasks.enqueueMany([record(), record()]);
      await backend.tasks.enqueueMany([1, 2, 3].map(() => record({ queue: 'emails' })));
      expect(await take(['default', 'emails'])).toHaveLength(1);
      const emails = await take(['default', 'emails']);
      expect(emails.map((r) => r.task.queue)).toEqual(['emails', 'emails', 'emails']);
      await expect(backend.control.queueLimits()).resolves.toEqual({ default: { concurrency: 1 } });
    });

    it('applies a run-time change at once; null lifts the limits', async () => {
      const { backend } = subject();
      await backend.control.setQueueLimits('default', { concurrency: 1 });
      await backend.tasks.enqueueMany(Array.from({ length: 6 }, () => record()));
      await expect(take(['default'])).resolves.toHaveLength(1);
      await backend.control.setQueueLimits('default', { concurrency: 3 });
      await expect(take(['default'])).resolves.toHaveLength(2);
      await backend.control.setQueueLimits('default', null);
      await expect(backend.control.queueLimits()).resolves.toEqual({});
      await expect(take(['default'])).resolves.toHaveLength(3);
    });

    it('refuses a queue the alias does not configure', async () => {
      const { backend } = subject();
      await expect(backend.control.setQueueLimits('nope', { concurrency: 1 })).rejects.toThrow(
        UnknownQueueError,
      );
    });

    it('seeds the configured limits, which a run-time change replaces', async () => {
      const { build } = subject();
      const backend = await build({
        queues: [
          'default',
          { name: 'emails', concurrency: 1, rateLimit: { max: 5, perMs: 60_000 } },
        ],
      });
      await expect(backend.control.queueLimits()).resolves.toEqual({
        emails: { concurrency: 1, rateLimit: { max: 5, perMs: 60_000 } },
      });
      const own = () => readyRecord(backend.alias, { name: 'contract.echo', queue: 'emails' });
      await backend.tasks.enqueueMany([own(), own()]);
      expect(await take(['emails'], 0, backend)).toHaveLength(1);
      await backend.control.setQueueLimits('emails', null);
      await expect(backend.control.queueLimits()).resolves.toEqual({});
      expect(await take(['emails'], 0, backend)).toHaveLength(1);
    });

    it("frees a lapsed pool's share when its tasks are recovered", async () => {
      const { backend } = subject();
      await backend.control.setQueueLimits('default', { concurrency: 1 });
      await backend.tasks.enqueueMany([record(), record()]);
      await backend.pools.beat('pool-a', 100);
      const [held] = await backend.leases.acquire(['default'], {
        workerId: 'a:1-0',
        timeoutMs: 0,
        poolId: 'pool-a',
      });
      await expect(take(['default'])).resolves.toEqual([]);
      // The pass that finds pool-a's heartbeat lapsed retries or fails its task: either way it stops running.
      await passUntil(backend, 'recovered', 1);
      await expect(backend.tasks.getResult(held.id)).resolves.not.toMatchObject({
        status: TaskResultStatus.RUNNING,
      });
      await expect(take(['default'])).resolves.toHaveLength(1);
      await expect(take(['default'])).resolves.toEqual([]);
    });

    it('keeps limits, and counts running tasks, for another backend instance on the same store', async () => {
      const { backend, reopen } = subject();
      await backend.control.setQueueLimits('emails', { concurrency: 1 });
      if (!reopen) {
        // Nothing outlives this backend's instance: the limits live as long as it does.
        await expect(backend.control.queueLimits()).resolves.toEqual({
          emails: { concurrency: 1 },
        });
        return;
      }
      await backend.tasks.enqueueMany([record({ queue: 'emails' }), record({ queue: 'emails' })]);
      await expect(take(['emails'])).resolves.toHaveLength(1);
      const other = await reopen();
      try {
        await expect(other.control.queueLimits()).resolves.toEqual({ emails: { concurrency: 1 } });
        await expect(take(['emails'], 0, other)).resolves.toEqual([]);
        await other.control.setQueueLimits('emails', { concurrency: 2 });
        await expect(backend.control.queueLimits()).resolves.toEqual({
          emails: { concurrency: 2 },
        });
        await expect(take(['emails'])).resolves.toHaveLength(1);
      } finally {
        await other.close();
      }
    });
  });
}
