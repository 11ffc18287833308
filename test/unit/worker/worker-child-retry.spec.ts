import { Logger } from '@nestjs/common';

import { TaskResultStatus, type TaskRecord } from '../../../lib/core';
import type { ChildMessage } from '../../../lib/worker/worker-ipc';
import { WorkerChild } from '../../../lib/worker/child/worker-child';
import { TempJournal } from '../../helpers/temp-journal';
import { FakeWorkerBackend, readyRecord } from './fake-worker-backend';

/** A READY record that may be tried `retries` more times, right away. */
function retrying(id: string, retries: number): TaskRecord {
  const record = readyRecord(id);
  return {
    ...record,
    task: { ...record.task, retries, backoff: { type: 'fixed', delayMs: 0, jitter: false } },
  };
}

const journals: TempJournal[] = [];
afterEach(() => journals.splice(0).forEach((journal) => journal.close()));

function setup() {
  const backend = new FakeWorkerBackend();
  const journal = new TempJournal();
  journals.push(journal);
  const messages: ChildMessage[] = [];
  const logger = new Logger('test');
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  const child = new WorkerChild(
    {
      backend: 'fake',
      queues: ['default'],
      processes: 1,
      threads: 3,
      maxTasks: null,
      maxTasksJitter: 0,
      exitEmpty: true,
      livenessTimeoutMs: 30_000,
      heartbeatToleranceMs: 30_000,
    },
    {
      backend,
      // Every task fails: the child must decide between retry and acknowledge.
      runTask: async (record) => ({
        ...record,
        status: TaskResultStatus.FAILED,
        finishedAt: new Date(),
        errors: [...record.errors, { className: 'Error', traceback: 'Error: boom' }],
      }),
      channel: { send: async (message: ChildMessage) => void messages.push(message) },
      journal: journal.journal,
      logger,
      logTasks: false,
      identity: 'host:42',
      idleWaitMs: 60_000,
      retryDelayMs: 10,
      poolId: 'pool-1',
    },
  );
  return { backend, messages, child, journal };
}

describe('WorkerChild retries', () => {
  it('sends a failed attempt with attempts left back through retry, and acknowledges the rest', async () => {
    const { backend, messages, child, journal } = setup();
    backend.ready.push(retrying('again', 1), readyRecord('once'));
    await expect(child.run()).resolves.toBe('drained');

    expect(backend.retried.flat().map((r) => r.id)).toEqual(['again']);
    const [retried] = backend.retried.flat();
    expect(retried.status).toBe(TaskResultStatus.READY);
    expect(retried.errors).toHaveLength(1);
    expect(retried.workerIds).toEqual(['host:42-1']);
    expect(backend.acknowledged.flat().map((r) => [r.id, r.status])).toEqual([
      ['once', TaskResultStatus.FAILED],
    ]);
    // A retried task is off the child's hands but counts neither as done nor failed.
    expect(journal.held()).toEqual([]);
    const settled = messages.filter((m) => m.kind === 'settled');
    expect(settled.reduce((sum, m) => sum + m.failed + m.succeeded, 0)).toBe(1);
  });

  it('acquires under its pool id', async () => {
    const { backend, child } = setup();
    backend.ready.push(readyRecord('a'));
    await child.run();
    expect(backend.acquireCalls.every((call) => call.poolId === 'pool-1')).toBe(true);
  });

  it('fails the last attempt instead of retrying it', async () => {
    const { backend, child } = setup();
    const last = { ...retrying('last', 1), workerIds: ['host:41-1'] };
    backend.ready.push(last);
    await child.run();
    expect(backend.retried).toEqual([]);
    const [failed] = backend.acknowledged.flat();
    expect(failed).toMatchObject({ id: 'last', status: TaskResultStatus.FAILED });
    expect(failed.workerIds).toEqual(['host:41-1', 'host:42-1']);
  });
});
