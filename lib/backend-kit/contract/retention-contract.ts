import { InvalidBackendConfigError } from '../../core/errors/invalid-backend-config.error';
import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { waitFor } from './wait-for';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import { decideCancel } from '../../lifecycle/cancel-decision';
import type { ContractRunner } from './contract-runner';
import { sectionCase } from './section-case';
import { finish, newRecord, type SectionSubject } from './contract-subject';

/**
 * How long tasks are kept: waiting ones however long, finished ones by retention and resultTtl.
 * Part of describeBackendContract, run on every backend.
 */
export function describeRetention(t: ContractRunner, subject: () => SectionSubject): void {
  const { describe, it, expect } = t;
  const current = sectionCase(t, subject);

  describe('waiting', () => {
    it('keeps a task however long it waits, ready or deferred, through maintenance passes', async () => {
      // A wait several times 3 * leaseTtl + resultTtl, the life a task's data once had.
      current.backend = await current.build({ leaseTtl: 50, resultTtl: 100 });
      current.alias = current.backend.alias;
      const ready = await current.backend.tasks.enqueue(
        newRecord(current.alias, { args: ['waited'] }),
      );
      const deferred = await current.backend.tasks.enqueue(
        newRecord(current.alias, { args: ['deferred'], runAfter: new Date(Date.now() + 600) }),
      );
      const waitedUntil = Date.now() + 1200;
      while (Date.now() < waitedUntil) {
        await runMaintenancePass(current.backend);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await runMaintenancePass(current.backend);
      const leased = await current.backend.leases.acquire(['default'], {
        workerId: 'w',
        max: 2,
        timeoutMs: 0,
      });
      expect(leased.map((r) => r.args[0]).sort()).toEqual(['deferred', 'waited']);
      await current.backend.leases.acknowledge(
        leased.map((r) => finish(r, TaskResultStatus.SUCCESSFUL, r.args[0])),
      );
      await expect(current.backend.tasks.getResult(ready.id)).resolves.toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
        returnValue: 'waited',
      });
      await expect(current.backend.tasks.getResult(deferred.id)).resolves.toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
      });
    });
  });

  describe('retention', () => {
    const finishOneByOne = async (count: number, status: TaskResultStatus): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const record = await current.backend.tasks.enqueue(newRecord(current.alias));
        const leased = await current.acquireOne();
        await current.backend.leases.acknowledge([finish(leased, status, i)]);
        ids.push(record.id);
        // Results of one status are ordered by when they were stored.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return ids;
    };

    it('keeps the newest results of a status up to its count, and each status to its own age', async () => {
      current.backend = await current.build({
        retention: { successful: { maxCount: 2 }, failed: { maxAgeMs: 1 } },
      });
      current.alias = current.backend.alias;
      const successful = await finishOneByOne(3, TaskResultStatus.SUCCESSFUL);
      const failed = await finishOneByOne(2, TaskResultStatus.FAILED);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await runMaintenancePass(current.backend)).trimmed).toBeGreaterThanOrEqual(3);
      await expect(current.backend.tasks.getResult(successful[0])).rejects.toThrow(
        TaskResultDoesNotExist,
      );
      for (const id of successful.slice(1)) {
        await expect(current.backend.tasks.getResult(id)).resolves.toMatchObject({
          status: TaskResultStatus.SUCCESSFUL,
        });
      }
      for (const id of failed) {
        await expect(current.backend.tasks.getResult(id)).rejects.toThrow(TaskResultDoesNotExist);
      }
      const { counts } = (await current.backend.reads.telemetry(60_000)).queues.default;
      expect([counts.successful, counts.failed]).toEqual([2, 0]);
    });

    it('trims cancelled tasks to their own limit, like every final status', async () => {
      current.backend = await current.build({ retention: { cancelled: { maxCount: 1 } } });
      current.alias = current.backend.alias;
      const cancelled: string[] = [];
      for (let i = 0; i < 2; i++) {
        const { id } = await current.backend.tasks.enqueue(newRecord(current.alias));
        await current.backend.control.cancel(id, decideCancel);
        cancelled.push(id);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await runMaintenancePass(current.backend);
      await expect(current.backend.tasks.getResult(cancelled[0])).rejects.toThrow(
        TaskResultDoesNotExist,
      );
      await expect(current.backend.tasks.getResult(cancelled[1])).resolves.toMatchObject({
        status: TaskResultStatus.CANCELLED,
      });
      expect((await current.backend.reads.telemetry(60_000)).queues.default.counts.cancelled).toBe(
        1,
      );
    });

    it("applies a queue's own limits before the status's", async () => {
      current.backend = await current.build({
        retention: {
          successful: { maxCount: 5 },
          queues: { default: { successful: { maxCount: 1 } } },
        },
      });
      current.alias = current.backend.alias;
      const successful = await finishOneByOne(2, TaskResultStatus.SUCCESSFUL);
      await runMaintenancePass(current.backend);
      await expect(current.backend.tasks.getResult(successful[0])).rejects.toThrow(
        TaskResultDoesNotExist,
      );
      await expect(current.backend.tasks.getResult(successful[1])).resolves.toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
      });
    });

    it('refuses a limit that is not a whole positive number, or a status or queue it does not know', async () => {
      for (const retention of [
        { successful: { maxCount: 0 } },
        { done: { maxCount: 1 } },
        { queues: { nowhere: { failed: { maxAgeMs: 1 } } } },
      ]) {
        const refused = await current.build({ retention }).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(InvalidBackendConfigError);
        expect((refused as Error).message).toMatch(/option "retention/);
      }
    });
  });

  describe('results', () => {
    it('expire after resultTtl', async () => {
      current.backend = await current.build({ resultTtl: 300 });
      current.alias = current.backend.alias;
      await current.backend.tasks.enqueue(newRecord(current.alias));
      const done = finish(await current.acquireOne(), TaskResultStatus.SUCCESSFUL, 1);
      await current.backend.leases.acknowledge([done]);
      await expect(current.backend.tasks.getResult(done.id)).resolves.toMatchObject({
        id: done.id,
      });
      await waitFor(
        async () => {
          await runMaintenancePass(current.backend);
          return current.backend.tasks.getResult(done.id).then(
            () => false,
            (error: unknown) => error instanceof TaskResultDoesNotExist,
          );
        },
        { timeoutMs: 5000, intervalMs: 100, what: 'the result to expire' },
      );
      await expect(current.backend.reads.peek('default', 'successful', 10)).resolves.toEqual([]);
    });
  });
}
