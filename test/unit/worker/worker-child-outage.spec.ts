import { Logger } from '@nestjs/common';

import { MemoryBackend } from '../../../lib/backends/memory/memory.backend';
import { BackendUnavailableError } from '../../../lib/core/errors/backend-unavailable.error';
import { StoreFullError } from '../../../lib/core/errors/store-full.error';
import type { AcquireOptions } from '../../../lib/core/ports/lease-store.port';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import type { ChildMessage } from '../../../lib/worker/worker-ipc';
import { WorkerChild, type WorkerChildDeps } from '../../../lib/worker/child/worker-child';
import type { WorkerOptions } from '../../../lib/worker/worker-options.interface';
import {
  batchesOf,
  enqueueReady,
  idsOf,
  leaseTo,
  memoryBackend,
  readyTask,
} from '../../helpers/memory-backend';
import { TempJournal } from '../../helpers/temp-journal';
import { waitFor } from '../../helpers/wait-for';
import { workerOptions } from '../../helpers/worker-options';

const RETRY_DELAY_MS = 50;

const refused = (cause: string): BackendUnavailableError =>
  new BackendUnavailableError(`Threadmill backend "memory" cannot use Redis: ${cause}`);

/**
 * Spies on acquire: call number `n` (1-based) does what `outage(n)` says —
 * `refused` (nothing happens, the call throws), `lost` (the store leases, the
 * reply never arrives: it throws after the real acquire ran) or `up` (the
 * real acquire). Keeps when each call was made.
 */
function acquireOutage(
  backend: MemoryBackend,
  outage: (call: number) => 'refused' | 'lost' | 'up',
) {
  const acquire = backend.leases.acquire;
  const at: number[] = [];
  const spy = jest
    .spyOn(backend.leases, 'acquire')
    .mockImplementation(async (queues: readonly string[], options: AcquireOptions) => {
      at.push(Date.now());
      const now = outage(at.length);
      if (now === 'refused') throw refused('ECONNREFUSED');
      const leased = await acquire(queues, options);
      if (now === 'lost') throw refused('ECONNRESET');
      return leased;
    });
  return { spy, at };
}

/** Resolves once the backend stored task `id` as SUCCESSFUL. */
const succeeded = (backend: MemoryBackend, id: string) =>
  waitFor(async () => (await backend.tasks.getResult(id)).status === TaskResultStatus.SUCCESSFUL, {
    what: `${id} to be stored SUCCESSFUL`,
  });

const journals: TempJournal[] = [];
afterEach(() => journals.splice(0).forEach((journal) => journal.close()));

function childOn(
  backend: MemoryBackend,
  logger: Logger,
  messages: ChildMessage[],
  options: Partial<WorkerOptions> = {},
  deps: Partial<WorkerChildDeps> = {},
) {
  return new WorkerChild(workerOptions(backend.alias, options), {
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
    identity: 'host:42',
    idleWaitMs: 60_000,
    retryDelayMs: RETRY_DELAY_MS,
    ...deps,
  });
}

function quietLogger(): Logger {
  const logger = new Logger('test');
  jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  return logger;
}

describe('WorkerChild while its backend is unavailable', () => {
  it('logs each failed acquire, waits retryDelayMs before the next (no spin, no crash), and resumes', async () => {
    const backend = memoryBackend();
    const { at } = acquireOutage(backend, (call) => (call <= 3 ? 'refused' : 'up'));
    await enqueueReady(backend, 'after-the-outage');
    const logger = quietLogger();
    const messages: ChildMessage[] = [];
    const child = childOn(backend, logger, messages);
    const running = child.run();

    await succeeded(backend, 'after-the-outage');
    child.stop(false);
    expect(await running).toBe('stopped');

    // Three refused acquires, each logged with its cause, then the one that worked.
    const errors = jest.mocked(logger.error).mock.calls.map(([message]) => String(message));
    expect(errors).toHaveLength(3);
    for (const error of errors) expect(error).toContain('ECONNREFUSED');
    const [, ...later] = at;
    later.slice(0, 3).forEach((time, i) => {
      // Timers may fire a millisecond early; never a tight loop.
      expect(time - at[i]).toBeGreaterThanOrEqual(RETRY_DELAY_MS - 5);
    });
    expect(messages).toContainEqual({ kind: 'settled', succeeded: 1, failed: 0 });
    expect(journals[0].held()).toEqual([]);
  });

  it('after a failed acquire, puts back the tasks Redis leased to it whose reply was lost, and only those', async () => {
    const backend = memoryBackend();
    // A lease of another process, then the ones this child's first (lost) acquire takes.
    await leaseTo(backend, 'host:7-1', readyTask('theirs'));
    await enqueueReady(backend, 'orphan', 'next');
    const { spy: acquire } = acquireOutage(backend, (call) => (call === 1 ? 'lost' : 'up'));
    const unlease = jest.spyOn(backend.leases, 'unlease');
    const release = jest.spyOn(backend.leases, 'release');
    const logger = quietLogger();
    const child = childOn(backend, logger, []);
    const running = child.run();
    await succeeded(backend, 'next');
    child.stop(false);
    await running;

    // The lost acquire really leased it to slot 1, which never got it.
    expect(await acquire.mock.results[0].value.catch(() => 'lost')).toBe('lost');
    // Never started: given back as if never leased, not released with an attempt counted.
    expect(batchesOf(unlease)).toEqual([['orphan']]);
    expect(release).not.toHaveBeenCalled();
    expect(jest.mocked(logger.warn).mock.calls.map(([message]) => String(message))).toEqual([
      '1 task(s) of backend "memory" were leased to this worker by an acquire whose reply was lost ' +
        'with the connection; they never started and went back to their queue.',
    ]);
    const theirs = await backend.tasks.getResult('theirs');
    expect(theirs).toMatchObject({ status: TaskResultStatus.RUNNING, workerIds: ['host:7-1'] });
  });

  it('with two lanes, searches for orphans once at a time and never while an acquire is out', async () => {
    const backend = memoryBackend();
    await enqueueReady(backend, ...Array.from({ length: 40 }, (_, i) => `t${i}`));
    let searching = 0;
    let acquiring = 0;
    const overlaps: string[] = [];
    const peek = backend.reads.peek;
    jest.spyOn(backend.reads, 'peek').mockImplementation(async (...args) => {
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
    });
    // Both lanes' first acquires lease and lose the reply: each lane then wants the search.
    const lost = backend.leases.acquire;
    let calls = 0;
    jest.spyOn(backend.leases, 'acquire').mockImplementation(async (queues, options) => {
      if (searching > 0) overlaps.push('an acquire during a search');
      acquiring++;
      try {
        const leased = await lost(queues, options);
        if (++calls <= 2) throw refused('ECONNRESET');
        return leased;
      } finally {
        acquiring--;
      }
    });
    const acknowledge = jest.spyOn(backend.leases, 'acknowledge');
    const child = childOn(backend, quietLogger(), [], { threads: 16, exitEmpty: true });
    await expect(child.run()).resolves.toBe('drained');
    expect(overlaps).toEqual([]);
    // Every task ran, the 16 orphans too once the search gave them back.
    expect(idsOf(acknowledge)).toHaveLength(40);
    expect(await backend.reads.peek('default', 'successful', 100)).toHaveLength(40);
  });

  it('never puts back a task it holds itself', async () => {
    const backend = memoryBackend();
    await enqueueReady(backend, 'held');
    // The acquire after the one that took it fails: the search finds it leased to slot 1, as it is.
    const { at } = acquireOutage(backend, (call) => (call === 2 ? 'refused' : 'up'));
    const unlease = jest.spyOn(backend.leases, 'unlease');
    const release = jest.spyOn(backend.leases, 'release');
    const peek = jest.spyOn(backend.reads, 'peek');
    let settle: (() => void) | undefined;
    const child = childOn(
      backend,
      quietLogger(),
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
    await waitFor(() => at.length >= 3, { what: 'an acquire after the failure' });
    // The search ran and saw it.
    expect(peek).toHaveBeenCalledWith('default', 'running', expect.any(Number));
    expect((await peek.mock.results[0].value).map((r: TaskRecord) => r.id)).toEqual(['held']);
    expect(unlease).not.toHaveBeenCalled();
    expect(release).not.toHaveBeenCalled();
    settle?.();
    child.stop(false);
    await running;
    expect(unlease).not.toHaveBeenCalled();
    expect(release).not.toHaveBeenCalled();
    expect((await backend.tasks.getResult('held')).workerIds).toEqual(['host:42-1']);
  });

  it('holds an outcome the store refuses, tries again with a growing pause, and leases nothing meanwhile', async () => {
    const backend = memoryBackend();
    await enqueueReady(backend, 'first', 'second');
    // The store refuses the first acknowledgements (a full Redis), then has room again.
    const acknowledge = backend.leases.acknowledge;
    const refusedAt: number[] = [];
    const storedAt: number[] = [];
    let stored = 0;
    const acknowledgeSpy = jest
      .spyOn(backend.leases, 'acknowledge')
      .mockImplementation(async (records) => {
        if (refusedAt.length < 3) {
          refusedAt.push(Date.now());
          throw new StoreFullError('OOM command not allowed when used memory > maxmemory');
        }
        storedAt.push(Date.now());
        const outcomes = await acknowledge(records);
        stored++;
        return outcomes;
      });
    const acquire = backend.leases.acquire;
    const acquiredBeforeStored: number[] = [];
    jest.spyOn(backend.leases, 'acquire').mockImplementation(async (queues, options) => {
      const records = await acquire(queues, options);
      if (records.length > 0 && stored === 0) acquiredBeforeStored.push(records.length);
      return records;
    });
    const logger = quietLogger();
    const child = childOn(backend, logger, [], { exitEmpty: true });
    await child.run();

    expect(idsOf(acknowledgeSpy).slice(refusedAt.length)).toEqual(['first', 'second']);
    expect(idsOf(acknowledgeSpy).slice(0, refusedAt.length)).toEqual(['first', 'first', 'first']);
    // Only the first lease came before its outcome was stored.
    expect(acquiredBeforeStored).toEqual([1]);
    // The first refusal is the acknowledgement riding on the next acquire; the
    // held outcome's own tries follow, each after a pause twice the last. The
    // pauses are read from the log and each measured from below: a loaded
    // machine can only lengthen a gap, so the gaps are not compared.
    const pauses = (logger.error as jest.Mock).mock.calls
      .map(([line]) => /holding the outcomes and trying again in (\d+) ms/.exec(String(line)))
      .filter((match) => match !== null)
      .map((match) => Number(match[1]));
    expect(pauses).toEqual([RETRY_DELAY_MS, 2 * RETRY_DELAY_MS]);
    const tries = [refusedAt[1], refusedAt[2], storedAt[0]];
    // A timer may fire a millisecond before Date.now() has moved on by its delay.
    expect(tries[1] - tries[0]).toBeGreaterThanOrEqual(pauses[0] - 2);
    expect(tries[2] - tries[1]).toBeGreaterThanOrEqual(pauses[1] - 2);
    expect((await backend.tasks.getResult('first')).status).toBe(TaskResultStatus.SUCCESSFUL);
  });
  it('never pauses a held outcome past a quarter of the lease, so it is stored before the lease runs out', async () => {
    const leaseTtl = 8 * RETRY_DELAY_MS;
    const backend = memoryBackend({ leaseTtl });
    await enqueueReady(backend, 'held');
    const acknowledge = backend.leases.acknowledge;
    const refusedAt: number[] = [];
    jest.spyOn(backend.leases, 'acknowledge').mockImplementation(async (records) => {
      if (refusedAt.length < 6) {
        refusedAt.push(Date.now());
        throw new StoreFullError('OOM command not allowed when used memory > maxmemory');
      }
      return acknowledge(records);
    });
    const child = childOn(backend, quietLogger(), [], { exitEmpty: true });
    await child.run();

    // Doubling alone would pause 50, 100, 200, 400 and 800 ms: past the 400 ms lease.
    const gaps = refusedAt.slice(1).map((time, i) => time - refusedAt[i]);
    expect(Math.max(...gaps)).toBeLessThan(leaseTtl / 2);
    expect((await backend.tasks.getResult('held')).status).toBe(TaskResultStatus.SUCCESSFUL);
  });
});
