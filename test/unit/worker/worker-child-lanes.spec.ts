import { PoolHeartbeatLapsedError } from '../../../lib/core/errors/pool-heartbeat-lapsed.error';
import { acquireLanes } from '../../../lib/worker/child/acquire-lanes';
import { countsOf, enqueueReady, recordsOf } from '../../helpers/memory-backend';
import { waitFor } from '../../helpers/wait-for';
import { acquireOptions, setupChild } from './worker-child.setup';

const tasks = (count: number): string[] => Array.from({ length: count }, (_, i) => `t${i}`);

describe('WorkerChild acquire lanes', () => {
  it.each([
    [1, 1],
    [7, 1],
    [8, 2],
    [31, 2],
    [32, 4],
    [100, 4],
  ])('with %i threads keeps %i acquires out at once', (threads, lanes) => {
    expect(acquireLanes(threads)).toBe(lanes);
  });

  it('once an acquire comes back short, acquires one lane at a time: an idle worker sends one per change', async () => {
    const { backend, spies, runs, child } = setupChild({ threads: 16 });
    await enqueueReady(backend, 'a', 'b');
    const done = child.run();
    // Both lanes ask at the start; the second finds nothing, then only the first (blocking) asks.
    await waitFor(() => runs.length === 2 && spies.acquire.mock.calls.length === 3, {
      what: 'two runs and the blocking acquire',
    });
    runs.forEach((run) => run.succeed());
    await waitFor(() => recordsOf(spies.acknowledge).length === 2, { what: 'both stored' });
    expect(acquireOptions(spies.acquire).map((call) => call.timeoutMs)).toEqual([
      60_000, 0, 60_000,
    ]);
    child.stop(false);
    await expect(done).resolves.toBe('stopped');
    expect(spies.acquire).toHaveBeenCalledTimes(3);
  });

  it('from 8 threads keeps two acquires out, each for half the slots, and runs every task once', async () => {
    const { backend, real, spies, runs, child } = setupChild({ threads: 16, exitEmpty: true });
    await enqueueReady(backend, ...tasks(40));
    let out = 0;
    let mostOut = 0;
    const acquire = real.leases.acquire;
    spies.acquire.mockImplementation(async (queues, options) => {
      mostOut = Math.max(mostOut, ++out);
      // Answer on a later turn, as a store does, so the other lane can ask meanwhile.
      await new Promise((resolve) => setImmediate(resolve));
      try {
        return await acquire(queues, options);
      } finally {
        out--;
      }
    });
    const done = child.run();
    let drained = false;
    void done.then(() => (drained = true));
    await waitFor(() => runs.length === 16, { what: 'sixteen runs' });
    expect(mostOut).toBe(2);
    expect(
      acquireOptions(spies.acquire)
        .slice(0, 2)
        .map((call) => call.max),
    ).toEqual([8, 8]);
    expect(new Set(runs.map((run) => run.record.workerIds[0])).size).toBe(16);
    let settled = 0;
    await waitFor(
      () => {
        runs.slice(settled).forEach((run) => run.succeed());
        settled = runs.length;
        return drained;
      },
      { what: 'the child to drain' },
    );
    await expect(done).resolves.toBe('drained');
    expect(runs.map((run) => run.record.id).sort()).toEqual(tasks(40).sort());
    expect(recordsOf(spies.acknowledge)).toHaveLength(40);
    expect(await countsOf(backend)).toMatchObject({ ready: 0, running: 0, successful: 40 });
  });

  it('with two lanes still acquires no more than max-tasks before recycling', async () => {
    const { backend, runs, child } = setupChild({ threads: 16, maxTasks: 12, maxTasksJitter: 0 });
    await enqueueReady(backend, ...tasks(40));
    const done = child.run();
    await waitFor(() => runs.length === 12, { what: 'twelve runs' });
    runs.forEach((run) => run.succeed());
    await expect(done).resolves.toBe('recycled');
    expect(runs).toHaveLength(12);
    expect(await countsOf(backend)).toMatchObject({ ready: 28, running: 0, successful: 12 });
  });

  it('stops when a lane that does not block comes back empty after the other lane already ended', async () => {
    const { real, spies, child } = setupChild({ threads: 8 });
    const acquire = real.leases.acquire;
    let answerLookingLane: () => void = () => undefined;
    spies.acquire.mockImplementation(async (queues, options) => {
      // The lane that does not block is answered only when the test says so.
      if (options.timeoutMs === 0) {
        await new Promise<void>((resolve) => (answerLookingLane = resolve));
      }
      return acquire(queues, options);
    });
    const done = child.run();
    await waitFor(() => spies.acquire.mock.calls.length === 2, { what: 'both lanes asking' });
    child.stop(false);
    // The blocking lane's acquire ends with the abort and that lane ends: its wake-up
    // comes while the other lane's call is still out, so nothing is waiting for it.
    await new Promise((resolve) => setImmediate(resolve));
    answerLookingLane();
    await expect(done).resolves.toBe('stopped');
  });
  it('waits and leases again under a pool whose heartbeat lapsed, without taking it for a failure or an empty store', async () => {
    const { backend, real, spies, runs, child, deps } = setupChild({ threads: 1 });
    await enqueueReady(backend, 'a');
    const acquire = real.leases.acquire;
    const at: number[] = [];
    spies.acquire.mockImplementation(async (queues, options) => {
      at.push(Date.now());
      if (at.length <= 2) throw new PoolHeartbeatLapsedError('the pool has not beaten yet');
      return acquire(queues, options);
    });
    const done = child.run();
    await waitFor(() => runs.length === 1, { what: 'the task leased once the pool beats' });
    runs[0].succeed();
    await waitFor(() => recordsOf(spies.acknowledge).length === 1, { what: 'its outcome stored' });
    child.stop(false);
    await expect(done).resolves.toBe('stopped');
    // A pause between tries (no spin), no failed acquire logged, no orphan searched for.
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(deps.retryDelayMs - 1);
    expect(deps.logger.error).not.toHaveBeenCalled();
    expect(spies.unlease).not.toHaveBeenCalled();
    expect((await backend.tasks.getResult('a')).workerIds).toEqual(['host:42-1']);
  });
});
