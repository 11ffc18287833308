import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { InvalidCommandOptionError } from '../../../lib/core/errors/invalid-command-option.error';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { countsOf, enqueueReady } from '../../helpers/memory-backend';
import { waitFor } from '../../helpers/wait-for';
import { acquireOptions, ids, setupChild } from './worker-child.setup';
import { decideCancel } from '../../../lib/lifecycle/cancel-decision';

const POOL = 'pool-1';

describe('WorkerChild with --prefetch', () => {
  it('leases one task beyond its free slot and starts it the moment the slot frees, before any acquire', async () => {
    const { backend, spies, runs, child, deps, journal } = setupChild({ threads: 1, prefetch: 1 });
    const acquiresAtStart: number[] = [];
    const runTask = deps.runTask;
    deps.runTask = (record, cancel) => {
      acquiresAtStart.push(spies.acquire.mock.calls.length);
      return runTask(record, cancel);
    };
    await enqueueReady(backend, 'a', 'b', 'c');
    const done = child.run();
    await waitFor(() => runs.length === 1, { what: 'the first run' });
    expect(acquireOptions(spies.acquire)[0].max).toBe(2);
    // Leased (RUNNING in the store) and journaled as never started.
    expect(journal.holding()).toEqual({ held: ['a', 'b'], unstarted: ['b'] });
    expect((await backend.tasks.getResult('b')).status).toBe(TaskResultStatus.RUNNING);

    const acquiresBefore = spies.acquire.mock.calls.length;
    runs[0].succeed();
    await waitFor(() => runs.length === 2, { what: 'the prefetched run' });
    expect(runs[1].record.id).toBe('b');
    expect(acquiresAtStart[1]).toBe(acquiresBefore);
    // The slot that runs it names itself, as for any task.
    expect(runs[1].record.workerIds).toEqual(['host:42-1']);
    // The freed place is filled again: c waits now.
    await waitFor(() => journal.holding().unstarted.includes('c'), { what: 'c prefetched' });
    expect(journal.holding().held).toEqual(['b', 'c']);

    // A graceful stop gives c back at once, as if never leased, and lets b finish.
    child.stop(false);
    await waitFor(
      async () => (await backend.tasks.getResult('c')).status === TaskResultStatus.READY,
      {
        what: 'c given back',
      },
    );
    expect(await backend.tasks.getResult('c')).toMatchObject({ workerIds: [], startedAt: null });
    expect(runs).toHaveLength(2);
    runs[1].succeed();
    await expect(done).resolves.toBe('stopped');
    expect(await countsOf(backend)).toMatchObject({ successful: 2, ready: 1, running: 0 });
    expect(journal.holding()).toEqual({ held: [], unstarted: [] });
  });

  it('hands a task that finished while the call for its successor was out to the next call, not one of its own', async () => {
    const { backend, real, spies, runs, child } = setupChild({ threads: 1, prefetch: 1 });
    // Acknowledgements made outside any acknowledgeAndAcquire: calls of their own.
    const alone: string[][] = [];
    let inside = 0;
    spies.acknowledge.mockImplementation((records) => {
      if (inside === 0) alone.push(ids(records));
      return real.leases.acknowledge(records);
    });
    // The first combined call is held until the test lets it through.
    let letThrough: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (letThrough = resolve));
    let gated = false;
    jest.spyOn(backend.leases, 'acknowledgeAndAcquire').mockImplementation(async (...args) => {
      if (!gated) {
        gated = true;
        await gate;
      }
      inside++;
      try {
        return await real.leases.acknowledgeAndAcquire(...args);
      } finally {
        inside--;
      }
    });
    await enqueueReady(backend, 'a', 'b', 'c');
    const done = child.run();
    await waitFor(() => runs.length === 1, { what: 'a runs' });
    await waitFor(async () => (await countsOf(backend)).running === 2, { what: 'b prefetched' });
    runs[0].succeed();
    await waitFor(() => gated && runs.length === 2, { what: 'b started, the call for c out' });
    runs[1].succeed();
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(alone).toEqual([]);
    letThrough();
    await waitFor(() => runs.length === 3, { what: 'c runs' });
    await waitFor(async () => (await countsOf(backend)).successful === 2, {
      what: 'a and b stored',
    });
    expect(alone).toEqual([]);
    child.stop(false);
    runs[2].succeed();
    await expect(done).resolves.toBe('stopped');
    expect(await countsOf(backend)).toMatchObject({ successful: 3, running: 0 });
  });

  it('on an urgent stop releases what runs and gives back what never started, unattempted, logging each put-back with its reason', async () => {
    const { backend, runs, child, journal, logger } = setupChild({ threads: 1, prefetch: 2 });
    await enqueueReady(backend, 'a', 'b', 'c');
    const done = child.run();
    await waitFor(() => journal.holding().unstarted.length === 2, { what: 'two prefetched' });
    child.stop(true);
    await expect(done).resolves.toBe('stopped');
    expect(runs.map((r) => r.record.id)).toEqual(['a']);
    // The released one keeps its run in its history; the others never had one.
    expect(await backend.tasks.getResult('a')).toMatchObject({
      status: TaskResultStatus.READY,
      workerIds: ['host:42-1'],
    });
    for (const id of ['b', 'c']) {
      expect(await backend.tasks.getResult(id)).toMatchObject({
        status: TaskResultStatus.READY,
        workerIds: [],
      });
    }
    expect(journal.holding()).toEqual({ held: [], unstarted: [] });
    const lines = [
      ...(logger.warn as jest.Mock).mock.calls,
      ...(logger.log as jest.Mock).mock.calls,
    ].map(([line]) => String(line));
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^Put 1 task\(s\) back in their queues \(urgent stop\): a; their interrupted runs count/,
        ),
        expect.stringMatching(
          /^Put 2 task\(s\) back in their queues \(stopping before they started\): b, c; they never started/,
        ),
      ]),
    );
  });

  it('gives back the prefetched tasks of a queue paused meanwhile, within a second, and starts none', async () => {
    const { backend, runs, child } = setupChild({ threads: 1, prefetch: 1 });
    await enqueueReady(backend, 'a', 'b');
    const done = child.run();
    await waitFor(async () => (await countsOf(backend)).running === 2, { what: 'b prefetched' });
    const pausedAt = Date.now();
    await backend.control.pauseQueue('default');
    await waitFor(
      async () => (await backend.tasks.getResult('b')).status === TaskResultStatus.READY,
      {
        what: 'b given back',
        timeoutMs: 2_000,
      },
    );
    expect(Date.now() - pausedAt).toBeLessThan(1_500);
    expect(await backend.tasks.getResult('b')).toMatchObject({ workerIds: [] });
    runs[0].succeed();
    await waitFor(async () => (await countsOf(backend)).successful === 1, { what: 'a stored' });
    expect(runs).toHaveLength(1);
    child.stop(false);
    await expect(done).resolves.toBe('stopped');
    expect(await countsOf(backend)).toMatchObject({ ready: 1, running: 0 });
  });

  it('ends a prefetched task CANCELLED without running it when its cancel is requested', async () => {
    const { backend, runs, child, journal } = setupChild(
      { threads: 1, prefetch: 1 },
      { poolId: POOL, cancelPoll: { everyMs: 20, requestTtlMs: 60_000, freshMs: 1_000 } },
    );
    await backend.pools.beat(POOL, 60_000);
    await enqueueReady(backend, 'a', 'b');
    const done = child.run();
    await waitFor(() => journal.holding().unstarted.includes('b'), { what: 'b prefetched' });
    await expect(backend.control.cancel('b', decideCancel)).resolves.toMatchObject({
      outcome: 'requested',
    });
    await waitFor(
      async () => (await backend.tasks.getResult('b')).status === TaskResultStatus.CANCELLED,
      { what: 'b cancelled' },
    );
    await waitFor(async () => (await backend.control.cancelRequests(POOL)).length === 0, {
      what: 'the request dropped',
    });
    runs[0].succeed();
    await waitFor(async () => (await countsOf(backend)).successful === 1, { what: 'a stored' });
    expect(runs.map((r) => r.record.id)).toEqual(['a']);
    child.stop(false);
    await expect(done).resolves.toBe('stopped');
    expect(await countsOf(backend)).toMatchObject({ cancelled: 1, successful: 1, running: 0 });
  });

  it('times a prefetched task from its start: its attempt gets its whole timeout', async () => {
    const { backend, runs, child, deps } = setupChild({ threads: 1, prefetch: 1 });
    const startedAt = new Map<string, number>();
    const runTask = deps.runTask;
    deps.runTask = (record, cancel) => {
      startedAt.set(record.id, Date.now());
      return runTask(record, cancel);
    };
    await enqueueReady(backend, 'a', 'b');
    const done = child.run();
    await waitFor(async () => (await countsOf(backend)).running === 2, { what: 'b prefetched' });
    const beforeFreed = Date.now();
    runs[0].succeed();
    await waitFor(() => runs.length === 2, { what: 'b started' });
    // runTask (TaskRunner.run, where the attempt's clock starts) is called only now.
    expect(startedAt.get('b')).toBeGreaterThanOrEqual(beforeFreed);
    child.stop(false);
    runs[1].succeed();
    await done;
  });

  it('checks the lease of a prefetched task too, and never starts one whose lease is gone', async () => {
    const { backend, runs, child, journal, deps } = setupChild(
      { threads: 1, prefetch: 1 },
      { leaseCheckMs: 20 },
    );
    const warnings = jest.mocked(deps.logger.warn);
    await enqueueReady(backend, 'a', 'b');
    const done = child.run();
    await waitFor(() => journal.holding().unstarted.includes('b'), { what: 'b prefetched' });
    // Its lease taken back behind the child's back (as a maintenance pass would).
    const leased: TaskRecord = await backend.tasks.getResult('b');
    await backend.leases.unlease([leased]);
    await waitFor(() => warnings.mock.calls.some(([message]) => String(message).includes('(b)')), {
      what: 'b dropped',
    });
    runs[0].succeed();
    // Leased again afresh (its place is free), then run once.
    await waitFor(() => runs.length === 2, { what: 'b run' });
    expect(runs[1].record.id).toBe('b');
    runs[1].succeed();
    child.stop(false);
    await expect(done).resolves.toBe('stopped');
    expect(await countsOf(backend)).toMatchObject({ successful: 2, running: 0, ready: 0 });
  });

  it('drains with --exit-empty, starting what it prefetched', async () => {
    const { backend, runs, child } = setupChild({ threads: 1, prefetch: 2, exitEmpty: true });
    await enqueueReady(backend, 'a', 'b', 'c', 'd');
    const done = child.run();
    for (let i = 0; i < 4; i++) {
      await waitFor(() => runs.length === i + 1, { what: `run ${i + 1}` });
      runs[i].succeed();
    }
    await expect(done).resolves.toBe('drained');
    expect(runs.map((r) => r.record.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(await countsOf(backend)).toMatchObject({ successful: 4, running: 0 });
  });

  it('at one slot and one place, lets quick tasks end before its next call, which then carries two outcomes and leases two', async () => {
    const { backend, spies, child, deps } = setupChild({
      threads: 1,
      prefetch: 1,
      exitEmpty: true,
    });
    // Tasks that end as soon as they start, within the turn that started them.
    deps.runTask = async (record) => ({
      ...record,
      status: TaskResultStatus.SUCCESSFUL,
      finishedAt: new Date(),
      returnValue: null,
    });
    const combined = jest.spyOn(backend.leases, 'acknowledgeAndAcquire');
    await enqueueReady(backend, 'a', 'b', 'c', 'd', 'e', 'f');
    await expect(child.run()).resolves.toBe('drained');
    expect(await countsOf(backend)).toMatchObject({ successful: 6, running: 0 });
    // a and b leased by the first call; then each call stores two outcomes and leases two.
    expect(acquireOptions(spies.acquire)[0].max).toBe(2);
    const carried = combined.mock.calls.map(([done, , options]) => [ids(done), options.max]);
    expect(carried.slice(0, 2)).toEqual([
      [['a', 'b'], 2],
      [['c', 'd'], 2],
    ]);
    // The memory backend's combined call acknowledges, then acquires: both spied, counted once.
    const alone = {
      acquires: spies.acquire.mock.calls.length - combined.mock.calls.length,
      acknowledges: spies.acknowledge.mock.calls.length - combined.mock.calls.length,
    };
    // Six tasks in four store calls (the last finds the queue empty), no acknowledgement alone.
    expect(alone.acknowledges).toBe(0);
    expect(alone.acquires + combined.mock.calls.length).toBe(4);
  });

  it('refuses a prefetch that is not a whole number of at least 0', () => {
    expect(() => setupChild({ prefetch: -1 })).toThrow(InvalidCommandOptionError);
    expect(() => setupChild({ prefetch: 1.5 })).toThrow('prefetch expects a whole number');
  });
});
