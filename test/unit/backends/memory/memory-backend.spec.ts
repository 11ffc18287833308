import { BackendUnavailableError } from '../../../../lib/core/errors/backend-unavailable.error';
import { InvalidBackendConfigError } from '../../../../lib/core/errors/invalid-backend-config.error';
import { InvalidTaskError } from '../../../../lib/core/errors/invalid-task.error';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { MemoryBackend } from '../../../../lib/backends/memory/memory.backend';
import { describeBackendContract, newRecord } from '../../../../lib/backend-kit';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

// Jest's own functions, passed as any other runner's would be.
const runner = { describe, it, expect, beforeEach, afterEach };

describeBackendContract(runner, 'memory', async (settings) => ({
  backend: new MemoryBackend(
    settings.alias,
    {
      backend: MemoryBackend,
      queues: settings.queues,
      options: {
        leaseTtl: settings.leaseTtl,
        resultTtl: settings.resultTtl,
        maintenanceInterval: settings.maintenanceInterval,
        batchSize: settings.batchSize,
        ...(settings.retention && { retention: settings.retention }),
      },
    },
    storeRules,
  ),
  // Nothing outlives the instance: close() (run by the contract) is the cleanup.
  cleanup: async () => undefined,
}));

describe('MemoryBackend', () => {
  const config = (options: Record<string, unknown> = {}, queues?: unknown) => ({
    backend: MemoryBackend,
    queues: queues as string[] | undefined,
    options,
  });

  describe('configuration', () => {
    it('refuses an unknown option and names the alias and the option', () => {
      expect(() => new MemoryBackend('mem', config({ leaseTTL: 5 }), storeRules)).toThrow(
        InvalidBackendConfigError,
      );
      expect(() => new MemoryBackend('mem', config({ leaseTTL: 5 }), storeRules)).toThrow(
        'Threadmill backend "mem": option "leaseTTL" is not an option of MemoryBackend',
      );
    });

    it.each([
      ['leaseTtl', -1, 'must be a positive whole number of milliseconds, got -1'],
      ['resultTtl', Number.NaN, 'must be a positive whole number of milliseconds, got NaN'],
      ['batchSize', 1.5, 'must be a whole number of at least 1, got 1.5'],
      ['immediate', 'yes', 'must be true or false, got "yes"'],
    ])('refuses %s = %p', (option, value, problem) => {
      expect(() => new MemoryBackend('mem', config({ [option]: value }), storeRules)).toThrow(
        `Threadmill backend "mem": option "${option}" ${problem}`,
      );
    });

    it.each([
      [[], 'must be a non-empty array of queue names'],
      [['a', 'a'], 'lists a queue twice'],
      [['bad queue'], 'is invalid: The queue name "bad queue" is invalid'],
    ])('refuses queues %p', (queues, problem) => {
      expect(() => new MemoryBackend('mem', config({}, queues), storeRules)).toThrow(
        `Threadmill backend "mem": option "queues" ${problem}`,
      );
    });

    it('serves the default queue when none is configured', () => {
      expect(new MemoryBackend('mem', config(), storeRules).queues).toEqual(['default']);
    });
  });

  it('refuses a task for a queue it does not serve, naming the task', async () => {
    const backend = new MemoryBackend('mem', config({}, ['default']), storeRules);
    await expect(backend.tasks.enqueue(newRecord('mem', { queue: 'emails' }))).rejects.toThrow(
      'Task "contract.echo": queue "emails" is not configured for backend "mem"',
    );
    await backend.close();
  });

  it('refuses to acknowledge a record that has not finished', async () => {
    const backend = new MemoryBackend('mem', config(), storeRules);
    await backend.tasks.enqueue(newRecord('mem'));
    const [running] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
    await expect(backend.leases.acknowledge([running])).rejects.toThrow(InvalidTaskError);
    await expect(backend.leases.acknowledge([running])).rejects.toThrow('with status RUNNING');
    await backend.close();
  });

  it('ends a waiting acquire with nothing when closed, and refuses calls after', async () => {
    const backend = new MemoryBackend('mem', config(), storeRules);
    const waiting = backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 60_000 });
    await backend.close();
    await expect(waiting).resolves.toEqual([]);
    await expect(backend.ping()).rejects.toThrow(BackendUnavailableError);
    await expect(backend.tasks.enqueue(newRecord('mem'))).rejects.toThrow(
      'Threadmill backend "mem" is closed',
    );
  });

  describe('immediate mode', () => {
    const finishWith =
      (returnValue: unknown) =>
      async (record: TaskRecord): Promise<TaskRecord> => ({
        ...record,
        status: TaskResultStatus.SUCCESSFUL,
        finishedAt: new Date(),
        returnValue,
      });

    it('runs the task inside enqueue and stores the finished result', async () => {
      const backend = new MemoryBackend('mem', config({ immediate: true }), storeRules);
      const seen: TaskRecord[] = [];
      backend.setExecutor(async (record) => {
        seen.push(record);
        return finishWith('done')(record);
      });
      const record = newRecord('mem', { args: [1] });
      const finished = await backend.tasks.enqueue(record);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ id: record.id, status: TaskResultStatus.RUNNING });
      expect(finished).toMatchObject({ status: TaskResultStatus.SUCCESSFUL, returnValue: 'done' });
      expect(finished.workerIds).toHaveLength(1);
      await expect(backend.tasks.getResult(record.id)).resolves.toEqual(finished);
      const telemetry = await backend.reads.telemetry(60_000);
      expect(telemetry.queues.default.counts).toMatchObject({
        ready: 0,
        running: 0,
        successful: 1,
      });
      await backend.close();
    });

    it('records an executor that throws as a FAILED task', async () => {
      const backend = new MemoryBackend('mem', config({ immediate: true }), storeRules);
      backend.setExecutor(() => Promise.reject(new TypeError('executor broke')));
      const finished = await backend.tasks.enqueue(newRecord('mem'));
      expect(finished.status).toBe(TaskResultStatus.FAILED);
      expect(finished.errors.map((e) => e.className)).toEqual(['TypeError']);
      await backend.close();
    });

    it('does not defer, and says why when asked to', async () => {
      const backend = new MemoryBackend('mem', config({ immediate: true }), storeRules);
      backend.setExecutor(finishWith(null));
      expect(backend.features.defer).toBe(false);
      await expect(
        backend.tasks.enqueue(newRecord('mem', { runAfter: new Date(Date.now() + 1000) })),
      ).rejects.toThrow('Task "contract.echo": backend "mem" does not support runAfter');
      await backend.close();
    });

    it('refuses to enqueue before the module attached an executor', async () => {
      const backend = new MemoryBackend('mem', config({ immediate: true }), storeRules);
      await expect(backend.tasks.enqueue(newRecord('mem'))).rejects.toThrow(
        'runs tasks at enqueue (immediate: true) but has no executor',
      );
      await backend.close();
    });
  });
});
