import { UnknownQueueError } from '../../core/errors/unknown-queue.error';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { readyRecord } from './ready-record';
import type { ContractRunner } from './contract-runner';

/** What the pause contract needs of the backend under test. */
export interface PauseSubject {
  backend: TaskBackend;
  alias: string;
  /** A second backend on the same store (the caller closes it); absent when nothing outlives an instance. */
  reopen?: () => Promise<TaskBackend>;
}

/** Settles with 'waiting' when `promise` has not settled within `ms`. */
async function stillWaiting<T>(promise: Promise<T>, ms: number): Promise<T | 'waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'waiting'>((resolve) => {
    timer = setTimeout(() => resolve('waiting'), ms);
  });
  try {
    return await Promise.race([promise, waited]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The contract for pausing a queue: stored in the backend, so every consumer
 * of the store stops leasing the queue's tasks (and a new instance sees the
 * pause), while its other queues, enqueue and a resume's wake-up work as
 * before. Part of describeBackendContract, run on every backend.
 */
export function describePauses(t: ContractRunner, subject: () => PauseSubject): void {
  const { describe, it, expect } = t;
  describe('paused queues', () => {
    const record = (fields: Parameters<typeof readyRecord>[1] = {}): TaskRecord =>
      readyRecord(subject().alias, { name: 'contract.echo', ...fields });
    const take = (queues: string[], timeoutMs = 0): Promise<TaskRecord[]> =>
      subject().backend.leases.acquire(queues, { workerId: 'host:1-0', max: 10, timeoutMs });

    it('lists a paused queue until it is resumed; pausing or resuming twice changes nothing', async () => {
      const { backend } = subject();
      await expect(backend.control.pausedQueues()).resolves.toEqual([]);
      await backend.control.pauseQueue('emails');
      await backend.control.pauseQueue('emails');
      await backend.control.pauseQueue('low');
      expect((await backend.control.pausedQueues()).sort()).toEqual(['emails', 'low']);
      await backend.control.resumeQueue('emails');
      await backend.control.resumeQueue('emails');
      await backend.control.resumeQueue('default');
      await expect(backend.control.pausedQueues()).resolves.toEqual(['low']);
    });

    it('refuses a queue the alias does not configure, naming the configured ones', async () => {
      const { backend } = subject();
      await expect(backend.control.pauseQueue('nope')).rejects.toThrow(UnknownQueueError);
      await expect(backend.control.resumeQueue('nope')).rejects.toThrow(
        /"default", "emails", "low"/,
      );
      await expect(backend.control.pausedQueues()).resolves.toEqual([]);
    });

    it('leases nothing of a paused queue and takes the others; enqueue still stores', async () => {
      const { backend } = subject();
      const waiting = await backend.tasks.enqueue(record());
      await backend.control.pauseQueue('default');
      const later = await backend.tasks.enqueue(record({ priority: 5 }));
      const email = await backend.tasks.enqueue(record({ queue: 'emails' }));
      await expect(take(['default'])).resolves.toEqual([]);
      expect((await take(['default', 'emails'])).map((r) => r.id)).toEqual([email.id]);
      const ready = await backend.reads.peek('default', 'ready', 10);
      expect(ready.map((r) => r.id)).toEqual([later.id, waiting.id]);
      expect((await backend.reads.telemetry(60_000)).queues.default.counts.ready).toBe(2);
    });

    it('leases nothing of a paused queue behind stored outcomes either', async () => {
      const { backend } = subject();
      await backend.tasks.enqueueMany([record(), record()]);
      const [running] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      await backend.control.pauseQueue('default');
      const finished = { ...running, status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date() };
      const result = await backend.leases.acknowledgeAndAcquire([finished], ['default'], {
        workerId: 'w',
        timeoutMs: 0,
      });
      expect(result).toEqual({ acknowledged: ['acknowledged'], acquired: [] });
    });

    it('makes the tasks acquirable again once resumed, best first', async () => {
      const { backend } = subject();
      const low = await backend.tasks.enqueue(record());
      await backend.control.pauseQueue('default');
      const high = await backend.tasks.enqueue(record({ priority: 9 }));
      await expect(take(['default'])).resolves.toEqual([]);
      await backend.control.resumeQueue('default');
      expect((await take(['default'])).map((r) => r.id)).toEqual([high.id, low.id]);
    });

    it('wakes an acquire waiting on the paused queue when it is resumed', async () => {
      const { backend } = subject();
      const task = await backend.tasks.enqueue(record());
      await backend.control.pauseQueue('default');
      const started = Date.now();
      const waiting = take(['default'], 20_000);
      // The wait must not take the paused task: it is still waiting a while later.
      await expect(stillWaiting(waiting, 300)).resolves.toBe('waiting');
      await backend.control.resumeQueue('default');
      expect((await waiting).map((r) => r.id)).toEqual([task.id]);
      // Woken by the resume, not by a poll or the end of its wait.
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('keeps a pause for another backend instance on the same store', async () => {
      const { backend, reopen } = subject();
      if (!reopen) {
        // Nothing outlives this backend's instance: the pause lives as long as it does.
        await backend.control.pauseQueue('emails');
        await expect(backend.control.pausedQueues()).resolves.toEqual(['emails']);
        return;
      }
      await backend.tasks.enqueue(record({ queue: 'emails' }));
      await backend.control.pauseQueue('emails');
      const other = await reopen();
      try {
        await expect(other.control.pausedQueues()).resolves.toEqual(['emails']);
        await expect(
          other.leases.acquire(['emails'], { workerId: 'other', timeoutMs: 0 }),
        ).resolves.toEqual([]);
        await other.control.resumeQueue('emails');
        await expect(backend.control.pausedQueues()).resolves.toEqual([]);
        await expect(take(['emails'])).resolves.toHaveLength(1);
      } finally {
        await other.close();
      }
    });
  });
}
