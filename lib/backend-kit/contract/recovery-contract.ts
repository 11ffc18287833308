import { TaskResultStatus } from '../../core/task-result-status.enum';
import { waitFor } from './wait-for';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import type { ContractRunner } from './contract-runner';
import { sectionCase } from './section-case';
import { finish, newRecord, type SectionSubject } from './contract-subject';

/**
 * What the maintenance pass takes back: the tasks of dead pools and of expired leases.
 * Part of describeBackendContract, run on every backend.
 */
export function describeRecovery(t: ContractRunner, subject: () => SectionSubject): void {
  const { describe, it, expect } = t;
  const current = sectionCase(t, subject);

  describe('dead pools', () => {
    it("recovers the tasks of a pool whose heartbeat lapsed, and only that pool's", async () => {
      const plain = await current.backend.tasks.enqueue(newRecord(current.alias));
      const retrying = newRecord(current.alias);
      await current.backend.tasks.enqueue({
        ...retrying,
        task: { ...retrying.task, retries: 1, backoff: { type: 'fixed', delayMs: 0 } },
      });
      const kept = await current.backend.tasks.enqueue(newRecord(current.alias));
      await current.backend.pools.beat('pool-a', 200);
      await current.backend.pools.beat('pool-b', 60_000);
      const lost = await current.backend.leases.acquire(['default'], {
        workerId: 'a:1-1',
        max: 2,
        timeoutMs: 0,
        poolId: 'pool-a',
      });
      expect(lost.map((r) => r.id)).toEqual([plain.id, retrying.id]);
      const [held] = await current.backend.leases.acquire(['default'], {
        workerId: 'b:1-1',
        timeoutMs: 0,
        poolId: 'pool-b',
      });
      expect(held.id).toBe(kept.id);
      // Still beating: nothing to recover yet.
      expect((await runMaintenancePass(current.backend)).recovered).toBe(0);
      await waitFor(() => Date.now() > lost[0].lastAttemptedAt!.getTime() + 250, {
        what: "pool-a's heartbeat to lapse",
      });
      await current.backend.pools.beat('pool-b', 60_000);
      expect((await runMaintenancePass(current.backend)).recovered).toBe(2);

      const failed = await current.backend.tasks.getResult(plain.id);
      expect(failed.status).toBe(TaskResultStatus.FAILED);
      expect(failed.errors.map((e) => e.className)).toEqual(['WorkerLost']);
      expect(failed.errors[0].traceback).toContain('pool-a');
      expect((await current.backend.reads.peek('default', 'failed', 10)).map((r) => r.id)).toEqual([
        plain.id,
      ]);
      const retried = await current.backend.tasks.getResult(retrying.id);
      expect(retried.status).toBe(TaskResultStatus.READY);
      expect(retried.errors.map((e) => e.className)).toEqual(['WorkerLost']);
      await expect(current.backend.tasks.getResult(kept.id)).resolves.toMatchObject({
        status: TaskResultStatus.RUNNING,
      });
      expect((await current.backend.reads.peek('default', 'running', 10)).map((r) => r.id)).toEqual(
        [kept.id],
      );

      // The lost pool's late acknowledge changes nothing, and a second pass finds nothing.
      await expect(
        current.backend.leases.acknowledge([finish(lost[0], TaskResultStatus.SUCCESSFUL, 'late')]),
      ).resolves.toEqual(['stale']);
      expect((await runMaintenancePass(current.backend)).recovered).toBe(0);
      expect((await current.acquireOne(['default'], 'b:1-2')).id).toBe(retrying.id);
    });

    it('recovers the pool that lapsed first when one pass has room for only one', async () => {
      const small = await current.build({ batchSize: 1 });
      const early = await small.tasks.enqueue(newRecord(small.alias));
      const late = await small.tasks.enqueue(newRecord(small.alias));
      // pool-late beats first but lapses last; a store that lists pools as they came would take it first.
      await small.pools.beat('pool-late', 800);
      await small.pools.beat('pool-early', 400);
      for (const [poolId, workerId] of [
        ['pool-early', 'e:1-1'],
        ['pool-late', 'l:1-1'],
      ]) {
        await small.leases.acquire(['default'], { workerId, timeoutMs: 0, poolId });
      }
      const leased = await small.tasks.getResult(late.id);
      await waitFor(() => Date.now() > leased.lastAttemptedAt!.getTime() + 850, {
        what: 'both heartbeats to lapse',
      });
      expect((await runMaintenancePass(small)).recovered).toBe(1);
      await expect(small.tasks.getResult(early.id)).resolves.toMatchObject({
        status: TaskResultStatus.FAILED,
      });
      await expect(small.tasks.getResult(late.id)).resolves.toMatchObject({
        status: TaskResultStatus.RUNNING,
      });
    });

    it('never recovers the tasks of the pool that runs the pass, even when its beat lapsed', async () => {
      await current.backend.tasks.enqueue(newRecord(current.alias));
      await current.backend.pools.beat('pool-a', 100);
      const [acquired] = await current.backend.leases.acquire(['default'], {
        workerId: 'a:1-1',
        timeoutMs: 0,
        poolId: 'pool-a',
      });
      await waitFor(() => Date.now() > acquired.lastAttemptedAt!.getTime() + 150, {
        what: "pool-a's heartbeat to lapse",
      });
      expect((await runMaintenancePass(current.backend, { poolId: 'pool-a' })).recovered).toBe(0);
      await expect(current.backend.tasks.getResult(acquired.id)).resolves.toMatchObject({
        status: TaskResultStatus.RUNNING,
      });
      expect((await runMaintenancePass(current.backend, { poolId: 'pool-b' })).recovered).toBe(1);
    });

    it('recovers nothing of a pool that acknowledged its tasks before it stopped', async () => {
      await current.backend.tasks.enqueue(newRecord(current.alias));
      await current.backend.pools.beat('pool-a', 100);
      const [acquired] = await current.backend.leases.acquire(['default'], {
        workerId: 'a:1-1',
        timeoutMs: 0,
        poolId: 'pool-a',
      });
      await current.backend.leases.acknowledge([finish(acquired, TaskResultStatus.SUCCESSFUL, 1)]);
      await current.backend.pools.retire('pool-a');
      await waitFor(() => Date.now() > acquired.lastAttemptedAt!.getTime() + 150, {
        what: "pool-a's heartbeat to lapse",
      });
      expect((await runMaintenancePass(current.backend)).recovered).toBe(0);
      await expect(current.backend.tasks.getResult(acquired.id)).resolves.toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
      });
    });
  });

  describe('leases', () => {
    it('fails a task whose lease expired with AcknowledgementTimeout, and a late acknowledge is stale', async () => {
      current.backend = await current.build({ leaseTtl: 200 });
      current.alias = current.backend.alias;
      const record = await current.backend.tasks.enqueue(newRecord(current.alias));
      const acquired = await current.acquireOne();
      await waitFor(() => Date.now() > acquired.startedAt!.getTime() + 250, {
        what: 'the lease to expire',
      });
      const report = await runMaintenancePass(current.backend);
      expect(report.reaped).toBe(1);
      const reaped = await current.backend.tasks.getResult(record.id);
      expect(reaped.status).toBe(TaskResultStatus.FAILED);
      expect(reaped.finishedAt).not.toBeNull();
      expect(reaped.errors.map((e) => e.className)).toEqual(['AcknowledgementTimeout']);
      expect(reaped.errors[0].traceback).toContain(record.id);
      expect((await current.backend.reads.peek('default', 'failed', 10)).map((r) => r.id)).toEqual([
        record.id,
      ]);
      await expect(
        current.backend.leases.acknowledge([finish(acquired, TaskResultStatus.SUCCESSFUL, 'late')]),
      ).resolves.toEqual(['stale']);
      await expect(current.backend.tasks.getResult(record.id)).resolves.toMatchObject({
        status: TaskResultStatus.FAILED,
      });
    });

    it('leaves a task whose lease is still valid alone', async () => {
      await current.backend.tasks.enqueue(newRecord(current.alias));
      await current.acquireOne();
      const report = await runMaintenancePass(current.backend);
      expect(report.reaped).toBe(0);
      expect(report.failedSteps).toEqual([]);
    });
  });
}
