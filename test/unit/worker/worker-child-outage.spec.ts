import { Logger } from '@nestjs/common';

import {
  BackendUnavailableError,
  TaskResultStatus,
  type AcquireOptions,
  type TaskRecord,
} from '../../../lib/core';
import type { ChildMessage } from '../../../lib/worker/worker-ipc';
import { WorkerChild } from '../../../lib/worker/worker-child';
import { waitFor } from '../../helpers/wait-for';
import { FakeWorkerBackend, readyRecord } from './fake-worker-backend';

/** A backend whose Redis is down for the first `outageCalls` acquires. */
class OutageBackend extends FakeWorkerBackend {
  readonly attemptsAt: number[] = [];

  constructor(private outageCalls: number) {
    super();
  }

  override async acquire(
    queues: readonly string[],
    options: AcquireOptions,
  ): Promise<TaskRecord[]> {
    this.attemptsAt.push(Date.now());
    if (this.outageCalls > 0) {
      this.outageCalls--;
      throw new BackendUnavailableError('Threadmill backend "fake" cannot use Redis: ECONNREFUSED');
    }
    return super.acquire(queues, options);
  }
}

const RETRY_DELAY_MS = 50;

describe('WorkerChild while its backend is unavailable', () => {
  it('logs each failed acquire, waits retryDelayMs before the next (no spin, no crash), and resumes', async () => {
    const backend = new OutageBackend(3);
    const record = readyRecord('after-the-outage');
    backend.ready.push(record);
    const logger = new Logger('test');
    const errors: string[] = [];
    jest.spyOn(logger, 'error').mockImplementation((message: unknown) => {
      errors.push(String(message));
    });
    const messages: ChildMessage[] = [];
    const child = new WorkerChild(
      {
        backend: 'fake',
        queues: ['default'],
        processes: 1,
        threads: 1,
        maxTasks: null,
        maxTasksJitter: 0,
        exitEmpty: false,
      },
      {
        backend,
        runTask: async (r) => ({
          ...r,
          status: TaskResultStatus.SUCCESSFUL,
          finishedAt: new Date(),
          returnValue: null,
        }),
        channel: { send: async (message: ChildMessage) => void messages.push(message) },
        logger,
        logTasks: false,
        identity: 'host:42',
        idleWaitMs: 60_000,
        retryDelayMs: RETRY_DELAY_MS,
      },
    );
    const running = child.run();

    await waitFor(() => backend.acknowledged.flat().some((r) => r.id === record.id), {
      what: 'the task after the outage to be acknowledged',
    });
    child.stop(false);
    expect(await running).toBe('stopped');

    // Three refused acquires, each logged with its cause, then the one that worked.
    expect(errors).toHaveLength(3);
    for (const error of errors) expect(error).toContain('ECONNREFUSED');
    const [, ...later] = backend.attemptsAt;
    later.slice(0, 3).forEach((at, i) => {
      // Timers may fire a millisecond early; never a tight loop.
      expect(at - backend.attemptsAt[i]).toBeGreaterThanOrEqual(RETRY_DELAY_MS - 5);
    });
    expect(messages.some((m) => m.kind === 'settled' && m.ids.includes(record.id))).toBe(true);
  });
});
