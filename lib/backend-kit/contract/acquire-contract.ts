import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import type { ContractRunner } from './contract-runner';
import { CONTRACT_QUEUES, finish, newRecord, type SectionSubject } from './contract-subject';
import { sectionCase } from './section-case';

/**
 * Enqueue and getResult, acquire, and the reads of what was stored (peek, telemetry).
 * Part of describeBackendContract, run on every backend.
 */
export function describeEnqueueAndAcquire(t: ContractRunner, subject: () => SectionSubject): void {
  const { describe, it, expect } = t;
  const current = sectionCase(t, subject);

  describe('enqueue and getResult', () => {
    it('stores a READY task that getResult returns unchanged', async () => {
      const record = newRecord(current.alias, { args: [1, 'two', { three: [3] }], priority: 7 });
      const stored = await current.backend.tasks.enqueue(record);
      expect(stored).toEqual(record);
      await expect(current.backend.tasks.getResult(record.id)).resolves.toEqual(record);
    });

    it('throws TaskResultDoesNotExist for an unknown id', async () => {
      await expect(current.backend.tasks.getResult('no-such-id')).rejects.toThrow(
        TaskResultDoesNotExist,
      );
    });

    it('stores a bulk enqueue and keeps its order within one priority', async () => {
      const records = [1, 2, 3, 4].map((n) => newRecord(current.alias, { args: [n] }));
      await expect(current.backend.tasks.enqueueMany(records)).resolves.toEqual(records);
      const acquired = await current.backend.leases.acquire(['default'], {
        workerId: 'w',
        max: 10,
        timeoutMs: 0,
      });
      expect(acquired.map((r) => r.args[0])).toEqual([1, 2, 3, 4]);
    });

    it('accepts an empty bulk enqueue', async () => {
      await expect(current.backend.tasks.enqueueMany([])).resolves.toEqual([]);
    });
  });

  describe('acquire', () => {
    it('takes the highest priority first, then first in first out', async () => {
      const base = Date.now();
      const order = [
        ['a', 0],
        ['b', 10],
        ['c', 0],
        ['d', -5],
        ['e', 10],
      ] as const;
      for (const [i, [name, priority]] of order.entries()) {
        await current.backend.tasks.enqueue(
          newRecord(current.alias, { args: [name], priority, enqueuedAt: new Date(base + i) }),
        );
      }
      const taken: unknown[] = [];
      for (let i = 0; i < order.length; i++) taken.push((await current.acquireOne()).args[0]);
      expect(taken).toEqual(['b', 'e', 'a', 'c', 'd']);
    });

    it('empties queues in the order given, whatever their priorities', async () => {
      await current.backend.tasks.enqueue(
        newRecord(current.alias, { queue: 'default', priority: 100, args: ['d'] }),
      );
      await current.backend.tasks.enqueue(
        newRecord(current.alias, { queue: 'emails', priority: -100, args: ['e'] }),
      );
      expect((await current.acquireOne(['emails', 'default'])).args).toEqual(['e']);
      expect((await current.acquireOne(['emails', 'default'])).args).toEqual(['d']);
    });

    it('marks the task RUNNING for the worker and moves it to the running segment', async () => {
      const record = await current.backend.tasks.enqueue(newRecord(current.alias));
      const before = Date.now();
      const acquired = await current.acquireOne(['default'], 'host:42-3');
      expect(acquired).toMatchObject({
        id: record.id,
        status: TaskResultStatus.RUNNING,
        workerIds: ['host:42-3'],
      });
      expect(acquired.startedAt!.getTime()).toBeGreaterThanOrEqual(before - 5);
      expect(acquired.lastAttemptedAt).toEqual(acquired.startedAt);
      await expect(current.backend.tasks.getResult(record.id)).resolves.toMatchObject({
        status: TaskResultStatus.RUNNING,
        workerIds: ['host:42-3'],
      });
      expect((await current.backend.reads.peek('default', 'running', 10)).map((r) => r.id)).toEqual(
        [record.id],
      );
      await expect(current.backend.reads.peek('default', 'ready', 10)).resolves.toEqual([]);
    });

    it('takes at most max tasks, best first', async () => {
      const base = Date.now();
      for (let i = 0; i < 5; i++) {
        await current.backend.tasks.enqueue(
          newRecord(current.alias, { args: [i], enqueuedAt: new Date(base + i) }),
        );
      }
      const first = await current.backend.leases.acquire(['default'], {
        workerId: 'w',
        max: 3,
        timeoutMs: 0,
      });
      expect(first.map((r) => r.args[0])).toEqual([0, 1, 2]);
      const rest = await current.backend.leases.acquire(['default'], {
        workerId: 'w',
        max: 3,
        timeoutMs: 0,
      });
      expect(rest.map((r) => r.args[0])).toEqual([3, 4]);
    });

    it('returns nothing at once from empty queues when the timeout is 0', async () => {
      await expect(
        current.backend.leases.acquire(CONTRACT_QUEUES, { workerId: 'w', timeoutMs: 0 }),
      ).resolves.toEqual([]);
    });

    it('returns nothing after the timeout when no task arrives', async () => {
      const started = Date.now();
      await expect(
        current.backend.leases.acquire(CONTRACT_QUEUES, { workerId: 'w', timeoutMs: 300 }),
      ).resolves.toEqual([]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    });

    it('wakes a waiting acquire when a task is enqueued', async () => {
      const waiting = current.backend.leases.acquire(['default'], {
        workerId: 'w',
        timeoutMs: 10_000,
      });
      await new Promise((resolve) => setImmediate(resolve));
      const record = await current.backend.tasks.enqueue(newRecord(current.alias));
      const started = Date.now();
      const acquired = await waiting;
      expect(acquired.map((r) => r.id)).toEqual([record.id]);
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('ends a wait early when its signal aborts', async () => {
      const controller = new AbortController();
      const started = Date.now();
      const waiting = current.backend.leases.acquire(['default'], {
        workerId: 'w',
        timeoutMs: 10_000,
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(), 50);
      await expect(waiting).resolves.toEqual([]);
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('never hands one task to two workers', async () => {
      const records = Array.from({ length: 20 }, (_, i) => newRecord(current.alias, { args: [i] }));
      await current.backend.tasks.enqueueMany(records);
      const batches = await Promise.all(
        Array.from({ length: 8 }, (_, w) =>
          current.backend.leases.acquire(['default'], { workerId: `w${w}`, max: 4, timeoutMs: 0 }),
        ),
      );
      const ids = batches.flat().map((r) => r.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(20);
    });
  });

  describe('peek', () => {
    it('lists a segment best first, limited by count', async () => {
      const base = Date.now();
      await current.backend.tasks.enqueue(
        newRecord(current.alias, { args: ['low'], priority: -1, enqueuedAt: new Date(base) }),
      );
      await current.backend.tasks.enqueue(
        newRecord(current.alias, { args: ['high'], priority: 5, enqueuedAt: new Date(base + 1) }),
      );
      await current.backend.tasks.enqueue(
        newRecord(current.alias, { args: ['mid'], enqueuedAt: new Date(base + 2) }),
      );
      expect(
        (await current.backend.reads.peek('default', 'ready', 2)).map((r) => r.args[0]),
      ).toEqual(['high', 'mid']);
      await expect(current.backend.reads.peek('emails', 'ready', 10)).resolves.toEqual([]);
    });

    it('lists deferred tasks soonest first', async () => {
      const now = Date.now();
      await current.backend.tasks.enqueue(
        newRecord(current.alias, { args: ['later'], runAfter: new Date(now + 60_000) }),
      );
      await current.backend.tasks.enqueue(
        newRecord(current.alias, { args: ['sooner'], runAfter: new Date(now + 30_000) }),
      );
      expect(
        (await current.backend.reads.peek('default', 'deferred', 10)).map((r) => r.args[0]),
      ).toEqual(['sooner', 'later']);
    });
  });

  describe('telemetry', () => {
    it('counts every segment and the ingress and egress within the window', async () => {
      await current.backend.tasks.enqueueMany([
        newRecord(current.alias),
        newRecord(current.alias),
        newRecord(current.alias),
      ]);
      await current.backend.tasks.enqueue(
        newRecord(current.alias, { runAfter: new Date(Date.now() + 60_000) }),
      );
      await current.backend.tasks.enqueue(newRecord(current.alias, { queue: 'emails' }));
      const [a, b] = await current.backend.leases.acquire(['default'], {
        workerId: 'w',
        max: 2,
        timeoutMs: 0,
      });
      await current.backend.leases.acknowledge([finish(a, TaskResultStatus.SUCCESSFUL, 1)]);
      const [c] = await current.backend.leases.acquire(['emails'], { workerId: 'w', timeoutMs: 0 });
      await current.backend.leases.acknowledge([finish(c, TaskResultStatus.FAILED)]);

      const telemetry = await current.backend.reads.telemetry(60_000);
      expect(Object.keys(telemetry.queues).sort()).toEqual([...CONTRACT_QUEUES].sort());
      expect(telemetry.queues.default).toEqual({
        counts: { ready: 1, running: 1, deferred: 1, successful: 1, failed: 0, cancelled: 0 },
        rates: { intervalMs: 60_000, ingress: 4, egress: 1, failed: 0 },
      });
      expect(telemetry.queues.emails).toEqual({
        counts: { ready: 0, running: 0, deferred: 0, successful: 0, failed: 1, cancelled: 0 },
        rates: { intervalMs: 60_000, ingress: 1, egress: 1, failed: 1 },
      });
      expect(telemetry.queues.low.counts).toEqual({
        ready: 0,
        running: 0,
        deferred: 0,
        successful: 0,
        failed: 0,
        cancelled: 0,
      });
      expect(b.status).toBe(TaskResultStatus.RUNNING);
    });
  });
}
