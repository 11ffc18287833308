import { InvalidTaskError } from '../../core/errors/invalid-task.error';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { readyRecord } from './ready-record';
import type { ContractRunner } from './contract-runner';

/** What the refusal contract needs of the backend under test. */
export interface AcknowledgeRefusalSubject {
  backend: TaskBackend;
  alias: string;
}

const succeeded = (record: TaskRecord): TaskRecord => ({
  ...record,
  status: TaskResultStatus.SUCCESSFUL,
  finishedAt: new Date(),
  returnValue: 'done',
});

/**
 * The contract for records that are not final handed to acknowledge (a
 * READY, deferred or RUNNING record): refused with InvalidTaskError before
 * anything of the batch is stored, so no result row ever holds a task that
 * did not end. Part of describeBackendContract, run on every backend.
 */
export function describeAcknowledgeRefusals(
  t: ContractRunner,
  subject: () => AcknowledgeRefusalSubject,
): void {
  const { describe, it, expect } = t;
  describe('acknowledge of a record that is not final', () => {
    /** One task of each status that is not final, and a second running one (`leased`) to finish. */
    async function storeFour(backend: TaskBackend, alias: string) {
      const runAfter = new Date(Date.now() + 60_000);
      const deferred = await backend.tasks.enqueue(readyRecord(alias, { runAfter }));
      await backend.tasks.enqueueMany([readyRecord(alias), readyRecord(alias)]);
      const [running, leased] = await backend.leases.acquire(['default'], {
        workerId: 'w',
        max: 2,
        timeoutMs: 0,
      });
      const ready = await backend.tasks.enqueue(readyRecord(alias));
      return { deferred, ready, running, leased };
    }

    /** Each record still as it was: nothing of a refused batch was stored. */
    async function expectUnchanged(backend: TaskBackend, records: TaskRecord[]): Promise<void> {
      for (const record of records) {
        const stored = await backend.tasks.getResult(record.id);
        expect(stored.status).toBe(record.status);
      }
      await expect(backend.reads.peek('default', 'successful', 10)).resolves.toEqual([]);
      await expect(backend.reads.peek('default', 'failed', 10)).resolves.toEqual([]);
    }

    it('an acknowledge of a record that is not final is refused, as on every backend', async () => {
      const { backend, alias } = subject();
      const { deferred, ready, running, leased } = await storeFour(backend, alias);
      const finished = succeeded(leased);
      for (const unfinished of [ready, deferred, running]) {
        const refused = backend.leases.acknowledge([finished, unfinished]);
        await expect(refused).rejects.toThrow(InvalidTaskError);
        await expect(refused).rejects.toThrow(
          `Task ${unfinished.id} cannot be acknowledged with status ${unfinished.status}`,
        );
      }
      await expectUnchanged(backend, [deferred, ready, running, leased]);
      // The same task once it has finished is stored as usual.
      await expect(backend.leases.acknowledge([finished, succeeded(running)])).resolves.toEqual([
        'acknowledged',
        'acknowledged',
      ]);
    });

    it('an acknowledge of a record that is not final is refused by acknowledgeAndAcquire too, leasing nothing', async () => {
      const { backend, alias } = subject();
      const { deferred, ready, running, leased } = await storeFour(backend, alias);
      const finished = succeeded(leased);
      await expect(
        backend.leases.acknowledgeAndAcquire([finished, running], ['default'], {
          workerId: 'w2',
          max: 5,
          timeoutMs: 0,
        }),
      ).rejects.toThrow(InvalidTaskError);
      await expectUnchanged(backend, [deferred, ready, running, leased]);
      expect((await backend.reads.peek('default', 'ready', 10)).map((r) => r.id)).toEqual([
        ready.id,
      ]);
    });
  });
}
