import { InvalidQueryError } from '../../core/errors/invalid-query.error';
import type { TaskBackend } from '../../core/task-backend.interface';
import { failedAttempt } from '../../lifecycle/retry-policy';
import type { PoolInfo } from '../../core/task-listing';
import { waitFor } from './wait-for';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import { decideCancel } from '../../lifecycle/cancel-decision';
import type { ContractRunner } from './contract-runner';
import { operatorReadCalls } from './operator-read-calls';

/**
 * The contract of the operators' reads besides task pages: the worker pools
 * with what each said in its beat, and activity per bucket. Part of
 * describeBackendContract, run on every backend.
 */
export function describePoolsAndActivity(
  t: ContractRunner,
  subject: () => { backend: TaskBackend; alias: string },
): void {
  const { describe, it, expect } = t;
  describe('pools and activity', () => {
    const { record, acquire, succeeded } = operatorReadCalls(subject);

    it('lists the pools with their info, keeps it on a beat without, and forgets a retired or recovered pool', async () => {
      const { backend } = subject();
      const info: PoolInfo = {
        host: 'box-1',
        pid: 4242,
        children: 2,
        slots: 8,
        queues: ['default', 'emails'],
        startedAt: new Date(Date.now() - 5000),
      };
      const before = Date.now();
      await backend.pools.beat('pool-a', 60_000, info);
      await backend.pools.beat('pool-b', 60_000);
      await backend.tasks.enqueue(record());
      await acquire(1, 'pool-a');
      await backend.pools.beat('pool-a', 60_000);
      const [a, b] = await backend.pools.list();
      expect(a).toEqual({
        ...info,
        id: 'pool-a',
        alive: true,
        held: 1,
        beatAt: a.beatAt,
        expiresAt: a.expiresAt,
      });
      expect(a.beatAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(a.expiresAt.getTime() - a.beatAt.getTime()).toBe(60_000);
      expect(b).toMatchObject({ id: 'pool-b', host: '', pid: 0, queues: [], alive: true, held: 0 });
      await backend.pools.retire('pool-b');
      expect((await backend.pools.list()).map((p) => p.id)).toEqual(['pool-a']);
      await backend.pools.beat('pool-c', 1, info);
      await waitFor(
        async () => (await backend.pools.list()).find((p) => p.id === 'pool-c')?.alive === false,
        {
          what: "pool-c's heartbeat to lapse",
        },
      );
      await runMaintenancePass(backend, { poolId: 'pool-a' });
      expect((await backend.pools.list()).map((p) => p.id)).toEqual(['pool-a']);
    });

    it('counts enqueued and finished tasks per bucket, with the mean wait and run of those finished', async () => {
      const { backend } = subject();
      const query = { windowMs: 3_600_000, bucketMs: 60_000 };
      await backend.tasks.enqueueMany(
        Array.from({ length: 5 }, () => record({ enqueuedAt: new Date(Date.now() - 5000) })),
      );
      await backend.tasks.enqueue(record({ queue: 'emails' }));
      const running = await acquire(3);
      await waitFor(() => Date.now() >= running[0].lastAttemptedAt!.getTime() + 30, {
        what: 'the attempts to run 30 ms',
      });
      await backend.leases.acknowledge([succeeded(running[0]), succeeded(running[1])]);
      await backend.leases.acknowledge([failedAttempt(running[2], new Error('boom'))]);
      const [waiting] = await backend.reads.peek('default', 'ready', 1);
      await backend.control.cancel(waiting.id, decideCancel);

      const activity = await backend.reads.activity(query);
      expect(activity.bucketMs).toBe(60_000);
      expect(activity.start.getTime() % 60_000).toBe(0);
      expect(Object.keys(activity.queues).sort()).toEqual(['default', 'emails', 'low']);
      const sum = (values: number[]) => values.reduce((x, y) => x + y, 0);
      const { default: main, emails } = activity.queues;
      for (const values of Object.values(main)) expect(values).toHaveLength(60);
      expect({
        enqueued: sum(main.enqueued),
        successful: sum(main.successful),
        failed: sum(main.failed),
        cancelled: sum(main.cancelled),
        emails: sum(emails.enqueued),
      }).toEqual({ enqueued: 5, successful: 2, failed: 1, cancelled: 1, emails: 1 });
      // Everything happened within the last two buckets; the others are empty.
      expect(sum(main.enqueued.slice(0, 58))).toBe(0);
      expect(main.waitMs.slice(0, 58).every((w) => w === null)).toBe(true);
      const waits = main.waitMs.filter((w): w is number => w !== null);
      const runs = main.runMs.filter((r): r is number => r !== null);
      expect(waits.length).toBeGreaterThan(0);
      for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(4900);
      for (const run of runs) expect(run).toBeGreaterThanOrEqual(25);
      expect(emails.runMs.every((r) => r === null)).toBe(true);
      await expect(backend.reads.activity({ windowMs: 3_600_000, bucketMs: 1500 })).rejects.toThrow(
        InvalidQueryError,
      );
      await expect(
        backend.reads.activity({ windowMs: 86_400_001, bucketMs: 60_000 }),
      ).rejects.toThrow(InvalidQueryError);
    });
  });
}
