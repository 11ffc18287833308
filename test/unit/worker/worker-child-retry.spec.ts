import { Logger } from '@nestjs/common';

import type { MemoryBackend } from '../../../lib/backends/memory/memory.backend';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import type { ChildMessage } from '../../../lib/worker/worker-ipc';
import { WorkerChild } from '../../../lib/worker/child/worker-child';
import {
  countsOf,
  idsOf,
  memoryBackend,
  readyTask,
  recordsOf,
  retriedBy,
} from '../../helpers/memory-backend';
import { TempJournal } from '../../helpers/temp-journal';
import { workerOptions } from '../../helpers/worker-options';

/** A READY record that may be tried `retries` more times, each `delayMs` after the last. */
function retrying(id: string, retries: number, delayMs = 0): TaskRecord {
  const record = readyTask(id);
  return {
    ...record,
    task: { ...record.task, retries, backoff: { type: 'fixed', delayMs, jitter: false } },
  };
}

const journals: TempJournal[] = [];
afterEach(() => journals.splice(0).forEach((journal) => journal.close()));

/**
 * A WorkerChild (identity `host:42`, pool `pool-1`, draining) on a real
 * MemoryBackend that holds what `stored` put there. Its acquire, acknowledge
 * and retry are spied on from then on (they still run), so the spies see the
 * child's calls only.
 */
async function setup(
  stored: (backend: MemoryBackend) => Promise<unknown> = async () => undefined,
  /** The last progress each failed attempt's record carries, as a TaskRunner's does; none when undefined. */
  progress?: unknown,
) {
  const backend = memoryBackend();
  await stored(backend);
  const spies = {
    acquire: jest.spyOn(backend.leases, 'acquire'),
    acknowledge: jest.spyOn(backend.leases, 'acknowledge'),
    retry: jest.spyOn(backend.leases, 'retry'),
  };
  const journal = new TempJournal();
  journals.push(journal);
  const messages: ChildMessage[] = [];
  const logger = new Logger('test');
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  const child = new WorkerChild(workerOptions(backend.alias, { threads: 3, exitEmpty: true }), {
    backend,
    // Every task fails: the child must decide between retry and acknowledge.
    runTask: async (record) => ({
      ...record,
      status: TaskResultStatus.FAILED,
      finishedAt: new Date(),
      errors: [...record.errors, { className: 'Error', traceback: 'Error: boom' }],
      ...(progress !== undefined && { progress }),
    }),
    channel: { send: async (message: ChildMessage) => void messages.push(message) },
    journal: journal.journal,
    logger,
    identity: 'host:42',
    idleWaitMs: 60_000,
    retryDelayMs: 10,
    poolId: 'pool-1',
  });
  return { backend, spies, messages, child, journal };
}

describe('WorkerChild retries', () => {
  it('sends a failed attempt with attempts left back through retry, and acknowledges the rest', async () => {
    // The retry waits a minute, so this child drains without running it again.
    const { backend, spies, messages, child, journal } = await setup((backend) =>
      backend.tasks.enqueueMany([retrying('again', 1, 60_000), readyTask('once')]),
    );
    await expect(child.run()).resolves.toBe('drained');

    expect(idsOf(spies.retry)).toEqual(['again']);
    const [retried] = recordsOf(spies.retry);
    expect(retried.status).toBe(TaskResultStatus.READY);
    expect(retried.errors).toHaveLength(1);
    expect(retried.workerIds).toEqual(['host:42-1']);
    expect(recordsOf(spies.acknowledge).map((r) => [r.id, r.status])).toEqual([
      ['once', TaskResultStatus.FAILED],
    ]);
    // A retried task is off the child's hands but counts neither as done nor failed.
    expect(journal.held()).toEqual([]);
    const settled = messages.filter((m) => m.kind === 'settled');
    expect(settled.reduce((sum, m) => sum + m.failed + m.succeeded, 0)).toBe(1);
    // The store holds it for its next attempt, with this attempt's error and worker id.
    expect(await backend.tasks.getResult('again')).toMatchObject({
      status: TaskResultStatus.READY,
      workerIds: ['host:42-1'],
      errors: [{ className: 'Error' }],
    });
    expect(await countsOf(backend)).toMatchObject({
      ready: 0,
      running: 0,
      deferred: 1,
      failed: 1,
    });
  });

  it('acquires under its pool id', async () => {
    const { spies, child } = await setup(async (backend) => {
      // Alive, as its pool makes it before any child starts.
      await backend.pools.beat('pool-1', 60_000);
      await backend.tasks.enqueue(readyTask('a'));
    });
    await child.run();
    expect(spies.acquire).toHaveBeenCalled();
    expect(spies.acquire.mock.calls.every(([, options]) => options.poolId === 'pool-1')).toBe(true);
  });

  it('fails the last attempt instead of retrying it', async () => {
    // Its first attempt failed on another worker, which sent it back: this one is its last.
    const { backend, spies, child } = await setup((backend) =>
      retriedBy(backend, 'host:41-1', retrying('last', 1)),
    );
    await child.run();
    expect(spies.retry).not.toHaveBeenCalled();
    const [failed] = recordsOf(spies.acknowledge);
    expect(failed).toMatchObject({ id: 'last', status: TaskResultStatus.FAILED });
    expect(failed.workerIds).toEqual(['host:41-1', 'host:42-1']);
    expect(await backend.tasks.getResult('last')).toMatchObject({
      status: TaskResultStatus.FAILED,
      workerIds: ['host:41-1', 'host:42-1'],
    });
  });

  it("stores a last attempt's progress with its outcome, and never a retried one's", async () => {
    const { backend, spies, child } = await setup(
      async (backend) => {
        await retriedBy(backend, 'host:41-1', retrying('last', 1));
        await backend.tasks.enqueue(retrying('again', 1));
      },
      { done: 3 },
    );
    await child.run();
    const [retried] = recordsOf(spies.retry);
    expect(retried.id).toBe('again');
    expect('progress' in retried).toBe(false);
    const acknowledged = recordsOf(spies.acknowledge);
    expect(acknowledged.find((record) => record.id === 'last')?.progress).toEqual({ done: 3 });
    await expect(backend.tasks.getResult('last')).resolves.toMatchObject({
      status: TaskResultStatus.FAILED,
      progress: { done: 3 },
    });
  });
});
