import { TaskResultStatus } from '../../core/task-result-status.enum';
import type { ContractRunner } from './contract-runner';
import { sectionCase } from './section-case';
import { finish, newRecord, type SectionSubject } from './contract-subject';

/**
 * How a lease ends: acknowledge (alone and with the next acquire), release and unlease.
 * Part of describeBackendContract, run on every backend.
 */
export function describeLeaseEnds(t: ContractRunner, subject: () => SectionSubject): void {
  const { describe, it, expect } = t;
  const current = sectionCase(t, subject);

  describe('acknowledge', () => {
    it('stores a SUCCESSFUL result with its return value', async () => {
      const record = await current.backend.tasks.enqueue(newRecord(current.alias));
      const acquired = await current.acquireOne();
      const done = finish(acquired, TaskResultStatus.SUCCESSFUL, { sent: true });
      await expect(current.backend.leases.acknowledge([done])).resolves.toEqual(['acknowledged']);
      const stored = await current.backend.tasks.getResult(record.id);
      expect(stored).toEqual(done);
      expect(stored.returnValue).toEqual({ sent: true });
      await expect(current.backend.reads.peek('default', 'running', 10)).resolves.toEqual([]);
      expect(
        (await current.backend.reads.peek('default', 'successful', 10)).map((r) => r.id),
      ).toEqual([record.id]);
    });

    it('stores a FAILED result with its errors in the failed history', async () => {
      await current.backend.tasks.enqueue(newRecord(current.alias));
      const failed = finish(await current.acquireOne(), TaskResultStatus.FAILED);
      await expect(current.backend.leases.acknowledge([failed])).resolves.toEqual(['acknowledged']);
      const [peeked] = await current.backend.reads.peek('default', 'failed', 10);
      expect(peeked).toEqual(failed);
      expect(peeked.errors).toEqual([
        { className: 'Error', traceback: 'Error: boom\n    at task' },
      ]);
      await expect(current.backend.reads.peek('default', 'successful', 10)).resolves.toEqual([]);
    });

    it('acknowledges many records at once, reporting each', async () => {
      await current.backend.tasks.enqueueMany([
        newRecord(current.alias),
        newRecord(current.alias),
        newRecord(current.alias),
      ]);
      const acquired = await current.backend.leases.acquire(['default'], {
        workerId: 'w',
        max: 2,
        timeoutMs: 0,
      });
      const unacquired = (await current.backend.reads.peek('default', 'ready', 1))[0];
      const outcomes = await current.backend.leases.acknowledge([
        finish(acquired[0], TaskResultStatus.SUCCESSFUL, 1),
        finish(unacquired, TaskResultStatus.SUCCESSFUL, 2),
        finish(acquired[1], TaskResultStatus.FAILED),
      ]);
      expect(outcomes).toEqual(['acknowledged', 'stale', 'acknowledged']);
    });

    it('is a no-op reported as stale the second time', async () => {
      await current.backend.tasks.enqueue(newRecord(current.alias));
      const done = finish(await current.acquireOne(), TaskResultStatus.SUCCESSFUL, 'first');
      await current.backend.leases.acknowledge([done]);
      const again = { ...done, returnValue: 'second' };
      await expect(current.backend.leases.acknowledge([again])).resolves.toEqual(['stale']);
      await expect(current.backend.tasks.getResult(done.id)).resolves.toMatchObject({
        returnValue: 'first',
      });
    });
  });

  describe('acknowledgeAndAcquire', () => {
    it('stores finished records of several queues in order, then leases the next tasks', async () => {
      await current.backend.tasks.enqueueMany([
        newRecord(current.alias),
        newRecord(current.alias),
        newRecord(current.alias),
      ]);
      await current.backend.tasks.enqueue(newRecord(current.alias, { queue: 'emails' }));
      const [a, b] = await current.backend.leases.acquire(['default'], {
        workerId: 'w',
        max: 2,
        timeoutMs: 0,
      });
      const [c] = await current.backend.leases.acquire(['emails'], { workerId: 'w', timeoutMs: 0 });
      const waiting = (await current.backend.reads.peek('default', 'ready', 1))[0];
      const result = await current.backend.leases.acknowledgeAndAcquire(
        [
          finish(c, TaskResultStatus.FAILED),
          finish(a, TaskResultStatus.SUCCESSFUL, 'a'),
          finish(waiting, TaskResultStatus.SUCCESSFUL, 'not leased'),
          finish(b, TaskResultStatus.SUCCESSFUL, 'b'),
        ],
        ['default'],
        { workerId: 'w2', max: 5, timeoutMs: 0 },
      );
      expect(result.acknowledged).toEqual([
        'acknowledged',
        'acknowledged',
        'stale',
        'acknowledged',
      ]);
      expect(result.acquired.map((r) => [r.id, r.status, r.workerIds])).toEqual([
        [waiting.id, TaskResultStatus.RUNNING, ['w2']],
      ]);
      await expect(current.backend.tasks.getResult(a.id)).resolves.toMatchObject({
        returnValue: 'a',
      });
      await expect(current.backend.tasks.getResult(b.id)).resolves.toMatchObject({
        returnValue: 'b',
      });
      await expect(current.backend.tasks.getResult(c.id)).resolves.toMatchObject({
        status: TaskResultStatus.FAILED,
      });
      expect((await current.backend.reads.peek('emails', 'failed', 10)).map((r) => r.id)).toEqual([
        c.id,
      ]);
      expect(
        (await current.backend.reads.peek('default', 'successful', 10)).map((r) => r.id).sort(),
      ).toEqual([a.id, b.id].sort());
    });

    it('stores what finished when the wait is already aborted, and never waits for work', async () => {
      await current.backend.tasks.enqueueMany([newRecord(current.alias), newRecord(current.alias)]);
      const [a, b] = await current.backend.leases.acquire(['default'], {
        workerId: 'w',
        max: 2,
        timeoutMs: 0,
      });
      const aborted = new AbortController();
      aborted.abort();
      const first = await current.backend.leases.acknowledgeAndAcquire(
        [finish(a, TaskResultStatus.SUCCESSFUL, 'a')],
        ['low'],
        { workerId: 'w', timeoutMs: 60_000, signal: aborted.signal },
      );
      expect(first).toEqual({ acknowledged: ['acknowledged'], acquired: [] });
      // With records to store it does not wait for work (the test's timeout would catch it).
      const second = await current.backend.leases.acknowledgeAndAcquire(
        [finish(b, TaskResultStatus.SUCCESSFUL, 'b')],
        ['low'],
        { workerId: 'w', timeoutMs: 60_000 },
      );
      expect(second).toEqual({ acknowledged: ['acknowledged'], acquired: [] });
      await expect(current.backend.tasks.getResult(a.id)).resolves.toMatchObject({
        returnValue: 'a',
      });
      await expect(current.backend.tasks.getResult(b.id)).resolves.toMatchObject({
        returnValue: 'b',
      });
    });
  });

  describe('release', () => {
    it('puts a running task back in its ready queue, keeping its attempt history', async () => {
      const record = await current.backend.tasks.enqueue(newRecord(current.alias));
      const acquired = await current.acquireOne(['default'], 'host:1-0');
      await expect(current.backend.leases.release([acquired])).resolves.toBe(1);
      await expect(current.backend.tasks.getResult(record.id)).resolves.toMatchObject({
        status: TaskResultStatus.READY,
        workerIds: ['host:1-0'],
      });
      const again = await current.acquireOne(['default'], 'host:2-0');
      expect(again.id).toBe(record.id);
      expect(again.workerIds).toEqual(['host:1-0', 'host:2-0']);
    });

    it('ignores a task it no longer holds', async () => {
      await current.backend.tasks.enqueue(newRecord(current.alias));
      const acquired = await current.acquireOne();
      await current.backend.leases.acknowledge([
        finish(acquired, TaskResultStatus.SUCCESSFUL, null),
      ]);
      await expect(current.backend.leases.release([acquired])).resolves.toBe(0);
      await expect(current.backend.tasks.getResult(acquired.id)).resolves.toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
      });
    });
  });

  describe('unlease', () => {
    it('gives a task that never started back as if never leased: no attempt counted', async () => {
      const record = await current.backend.tasks.enqueue(newRecord(current.alias));
      const leased = await current.acquireOne(['default'], 'host:1-0');
      await expect(current.backend.leases.unlease([leased])).resolves.toBe(1);
      await expect(current.backend.tasks.getResult(record.id)).resolves.toMatchObject({
        status: TaskResultStatus.READY,
        workerIds: [],
        startedAt: null,
      });
      const again = await current.acquireOne(['default'], 'host:2-0');
      expect(again.id).toBe(record.id);
      expect(again.workerIds).toEqual(['host:2-0']);
    });

    it('keeps the attempts a task had before the lease it gives back', async () => {
      await current.backend.tasks.enqueue(newRecord(current.alias));
      const first = await current.acquireOne(['default'], 'host:1-0');
      await current.backend.leases.release([first]);
      const second = await current.acquireOne(['default'], 'host:2-0');
      await expect(current.backend.leases.unlease([second])).resolves.toBe(1);
      await expect(current.backend.tasks.getResult(second.id)).resolves.toMatchObject({
        status: TaskResultStatus.READY,
        workerIds: ['host:1-0'],
      });
    });

    it('leaves alone a task leased again since, and one no longer held', async () => {
      await current.backend.tasks.enqueue(newRecord(current.alias));
      const first = await current.acquireOne(['default'], 'host:1-0');
      await current.backend.leases.release([first]);
      const second = await current.acquireOne(['default'], 'host:2-0');
      // `first` names an earlier lease of the same task: not the one it holds now.
      await expect(current.backend.leases.unlease([first])).resolves.toBe(0);
      await expect(current.backend.tasks.getResult(second.id)).resolves.toMatchObject({
        status: TaskResultStatus.RUNNING,
        workerIds: ['host:1-0', 'host:2-0'],
      });
      await current.backend.leases.acknowledge([finish(second, TaskResultStatus.SUCCESSFUL, null)]);
      await expect(current.backend.leases.unlease([second])).resolves.toBe(0);
    });
  });
}
