import { Logger } from '@nestjs/common';

import {
  BackendUnavailableError,
  TaskResultStatus,
  type AcquireOptions,
  type TaskRecord,
} from '../../../lib/core';
import type { ChildMessage } from '../../../lib/worker/worker-ipc';
import { WorkerChild, type WorkerChildDeps } from '../../../lib/worker/child/worker-child';
import type { WorkerOptions } from '../../../lib/worker/worker-options.interface';
import { TempJournal } from '../../helpers/temp-journal';
import { waitFor } from '../../helpers/wait-for';
import { FakeWorkerBackend, readyRecord, runningRecord } from './fake-worker-backend';

/** A backend whose Redis is down for the first `outageCalls` acquires. */
class OutageBackend extends FakeWorkerBackend {
  readonly attemptsAt: number[] = [];

  constructor(private outageCalls: number) {
    super();
  }

  /** Acquire number `call` (1-based) fails too. */
  readonly alsoFail = new Set<number>();

  override async acquire(
    queues: readonly string[],
    options: AcquireOptions,
  ): Promise<TaskRecord[]> {
    this.attemptsAt.push(Date.now());
    if (this.alsoFail.has(this.attemptsAt.length)) {
      throw new BackendUnavailableError('Threadmill backend "fake" cannot use Redis: ECONNRESET');
    }
    if (this.outageCalls > 0) {
      this.outageCalls--;
      throw new BackendUnavailableError('Threadmill backend "fake" cannot use Redis: ECONNREFUSED');
    }
    return super.acquire(queues, options);
  }
}

const RETRY_DELAY_MS = 50;

const journals: TempJournal[] = [];
afterEach(() => journals.splice(0).forEach((journal) => journal.close()));

function childOn(
  backend: FakeWorkerBackend,
  logger: Logger,
  messages: ChildMessage[],
  options: Partial<WorkerOptions> = {},
  deps: Partial<WorkerChildDeps> = {},
) {
  return new WorkerChild(
    {
      backend: 'fake',
      queues: ['default'],
      processes: 1,
      threads: 1,
      maxTasks: null,
      maxTasksJitter: 0,
      exitEmpty: false,
      livenessTimeoutMs: 30_000,
      heartbeatToleranceMs: 30_000,
      ...options,
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
      journal: journals[journals.push(new TempJournal()) - 1].journal,
      logger,
      logTasks: false,
      identity: 'host:42',
      idleWaitMs: 60_000,
      retryDelayMs: RETRY_DELAY_MS,
      ...deps,
    },
  );
}

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
    const child = childOn(backend, logger, messages);
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
    expect(messages).toContainEqual({ kind: 'settled', succeeded: 1, failed: 0 });
    expect(journals[0].held()).toEqual([]);
  });

  it('after a failed acquire, puts back the tasks Redis leased to it whose reply was lost, and only those', async () => {
    const backend = new OutageBackend(1);
    // What the lost acquire leased to this child's slot 1, and a lease of another process.
    const orphan = runningRecord('orphan', 'host:42-1');
    const othersLease = runningRecord('theirs', 'host:7-1');
    backend.runningSegment.push(orphan, othersLease);
    const record = readyRecord('next');
    backend.ready.push(record);
    const logger = new Logger('test');
    jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const warnings: string[] = [];
    jest.spyOn(logger, 'warn').mockImplementation((message: unknown) => {
      warnings.push(String(message));
    });
    const child = childOn(backend, logger, []);
    const running = child.run();
    await waitFor(() => backend.acknowledged.flat().some((r) => r.id === record.id), {
      what: 'the next task to be acknowledged',
    });
    child.stop(false);
    await running;

    // Never started: given back as if never leased, not released with an attempt counted.
    expect(backend.unleased.map((batch) => batch.map((r) => r.id))).toEqual([['orphan']]);
    expect(backend.released).toEqual([]);
    expect(warnings).toEqual([
      '1 task(s) of backend "fake" were leased to this worker by an acquire whose reply was lost ' +
        'with the connection; they never started and went back to their queue.',
    ]);
  });

  it('with two lanes, searches for orphans once at a time and never while an acquire is out', async () => {
    // Both lanes' first acquires fail: each lane then wants the search.
    const backend = new OutageBackend(2);
    for (let i = 0; i < 40; i++) backend.ready.push(readyRecord(`t${i}`));
    let searching = 0;
    let acquiring = 0;
    const overlaps: string[] = [];
    const peek = backend.peek.bind(backend);
    backend.peek = async (...args) => {
      if (searching > 0) overlaps.push('two searches');
      if (acquiring > 0) overlaps.push('a search during an acquire');
      searching++;
      try {
        // A search that takes a while, as a real one over the network does.
        await new Promise((resolve) => setTimeout(resolve, 20));
        return await peek(...args);
      } finally {
        searching--;
      }
    };
    const acquire = backend.acquire.bind(backend);
    backend.acquire = async (queues, options) => {
      if (searching > 0) overlaps.push('an acquire during a search');
      acquiring++;
      try {
        return await acquire(queues, options);
      } finally {
        acquiring--;
      }
    };
    const logger = new Logger('test');
    jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const child = childOn(backend, logger, [], { threads: 16, exitEmpty: true });
    await expect(child.run()).resolves.toBe('drained');
    expect(overlaps).toEqual([]);
    expect(backend.acknowledged.flat()).toHaveLength(40);
  });

  it('never puts back a task it holds itself', async () => {
    const backend = new OutageBackend(0);
    const held = readyRecord('held');
    backend.ready.push(held);
    // Redis shows it leased to us, as it is; the acquire after the one that took it fails.
    backend.runningSegment.push(runningRecord('held', 'host:42-1'));
    backend.alsoFail.add(2);
    const logger = new Logger('test');
    jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    let settle: (() => void) | undefined;
    const child = childOn(
      backend,
      logger,
      [],
      { threads: 2 },
      {
        // The held task runs until the test lets it finish.
        runTask: (r) =>
          new Promise<TaskRecord>((resolve) => {
            settle = () =>
              resolve({
                ...r,
                status: TaskResultStatus.SUCCESSFUL,
                finishedAt: new Date(),
                returnValue: null,
              });
          }),
      },
    );
    const running = child.run();
    await waitFor(() => settle !== undefined, { what: 'the held task to start' });
    await waitFor(() => backend.attemptsAt.length >= 3, { what: 'an acquire after the failure' });
    expect(backend.released).toEqual([]);
    settle?.();
    child.stop(false);
    await running;
    expect(backend.released).toEqual([]);
  });

  it('holds an outcome the store refuses, tries again with a growing pause, and leases nothing meanwhile', async () => {
    const backend = new FakeWorkerBackend();
    let refusals = 3;
    const refusedAt: number[] = [];
    // The store refuses the first acknowledgements (a full Redis), then has room again.
    backend.acknowledge = async (records) => {
      if (refusals > 0) {
        refusals--;
        refusedAt.push(Date.now());
        throw new BackendUnavailableError('OOM command not allowed when used memory > maxmemory');
      }
      backend.acknowledged.push([...records]);
      return records.map(() => 'acknowledged' as const);
    };
    backend.acknowledgeAndAcquire = async (finished, queues, options) => ({
      acknowledged: await backend.acknowledge(finished),
      acquired: await backend.acquire(queues, options),
    });
    backend.ready.push(readyRecord('first'), readyRecord('second'));
    const logger = new Logger('test');
    jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const child = childOn(backend, logger, [], { exitEmpty: true });
    const acquiredBeforeStored: number[] = [];
    backend.onAcquired = (records) => {
      if (records.length > 0 && backend.acknowledged.length === 0) {
        acquiredBeforeStored.push(records.length);
      }
    };
    await child.run();

    expect(backend.acknowledged.flat().map((r) => r.id)).toEqual(['first', 'second']);
    // Only the first lease came before its outcome was stored.
    expect(acquiredBeforeStored).toEqual([1]);
    const gaps = refusedAt.slice(1).map((at, i) => at - refusedAt[i]);
    expect(gaps[1]).toBeGreaterThan(gaps[0]);
    expect(logger.error).toHaveBeenCalledWith(
      expect.stringContaining('holding the outcomes and trying again'),
    );
  });
});
