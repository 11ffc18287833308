import { BackendUnavailableError } from '../../core/errors/backend-unavailable.error';
import { InvalidQueryError } from '../../core/errors/invalid-query.error';
import { InvalidTaskError } from '../../core/errors/invalid-task.error';
import { PORT_METHODS, type BackendPartName } from '../../core/ports/port-methods';
import type { TaskBackend } from '../../core/task-backend.interface';
import { readyRecord } from './ready-record';
import type { ContractRunner } from './contract-runner';

/** What the guard contract needs: the backend under test, and a fresh one it may close. */
export interface GuardSubject {
  backend: TaskBackend;
  alias: string;
  fresh: () => Promise<TaskBackend>;
}

/**
 * The contract of the guard in front of every backend (StoreGuard): a closed
 * backend refuses every method of every part, and each refuses input the
 * same way whatever stores it. Part of describeBackendContract, run on every
 * backend.
 */
export function describeGuard(t: ContractRunner, subject: () => GuardSubject): void {
  const { describe, it, expect } = t;
  describe('the guard in front of every part', () => {
    it('refuses every method of every part once the backend is closed', async () => {
      const backend = await subject().fresh();
      await backend.close();
      const accepted: string[] = [];
      for (const part of Object.keys(PORT_METHODS) as BackendPartName[]) {
        for (const method of PORT_METHODS[part]) {
          const call = (backend[part] as unknown as Record<string, () => Promise<unknown>>)[method];
          const refusal = await call().then(
            () => null,
            (error: unknown) => error,
          );
          if (!(refusal instanceof BackendUnavailableError)) accepted.push(`${part}.${method}`);
        }
      }
      expect(accepted).toEqual([]);
      await expect(backend.ping()).rejects.toThrow(BackendUnavailableError);
    });

    it('refuses a task for a queue the backend does not have, naming it, and stores nothing', async () => {
      const { backend, alias } = subject();
      const stray = readyRecord(alias, { queue: 'nowhere' });
      await expect(backend.tasks.enqueue(stray)).rejects.toThrow(InvalidTaskError);
      await expect(backend.tasks.enqueue(stray)).rejects.toThrow(/nowhere/);
      const fine = readyRecord(alias);
      await expect(backend.tasks.enqueueMany([fine, stray])).rejects.toThrow(InvalidTaskError);
      await expect(backend.tasks.getResult(fine.id)).rejects.toThrow();
    });

    it('reads nothing for a peek of 0 tasks and refuses a count that is no whole number', async () => {
      const { backend, alias } = subject();
      await backend.tasks.enqueueMany([readyRecord(alias), readyRecord(alias)]);
      await expect(backend.reads.peek('default', 'ready', 0)).resolves.toEqual([]);
      await expect(backend.reads.peek('default', 'ready', 1)).resolves.toHaveLength(1);
      for (const count of [-1, 1.5, Number.NaN, Infinity]) {
        await expect(backend.reads.peek('default', 'ready', count)).rejects.toThrow(
          InvalidQueryError,
        );
      }
    });

    it('refuses to retry a record that is not a retry (READY and due later)', async () => {
      const { backend, alias } = subject();
      await backend.tasks.enqueue(readyRecord(alias));
      const [running] = await backend.leases.acquire(['default'], {
        workerId: 'host:1-0',
        timeoutMs: 0,
      });
      await expect(backend.leases.retry([running])).rejects.toThrow(InvalidTaskError);
      await expect(backend.tasks.getResult(running.id)).resolves.toMatchObject({
        status: running.status,
      });
    });
  });
}
