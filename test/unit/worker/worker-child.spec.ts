import { Logger } from '@nestjs/common';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { TaskResultStatus, type TaskRecord } from '../../../lib/core';
import type { ChildMessage } from '../../../lib/worker/worker-ipc';
import { acquireLanes } from '../../../lib/worker/child/acquire-lanes';
import { WorkerChild, type WorkerChildDeps } from '../../../lib/worker/child/worker-child';
import type { WorkerOptions } from '../../../lib/worker/worker-options.interface';
import { HeldJournal } from '../../../lib/worker/held-journal';
import { TempJournal } from '../../helpers/temp-journal';
import { waitFor } from '../../helpers/wait-for';
import { FakeWorkerBackend, readyRecord, runningRecord } from './fake-worker-backend';

/** A task run the test settles by hand. */
interface PendingRun {
  record: TaskRecord;
  succeed(): void;
  fail(error: unknown): void;
}

const journals: TempJournal[] = [];
afterEach(() => journals.splice(0).forEach((journal) => journal.close()));

/** What the 'settled' messages reported in all. */
function reported(messages: readonly ChildMessage[]): { succeeded: number; failed: number } {
  const total = { succeeded: 0, failed: 0 };
  for (const message of messages) {
    if (message.kind !== 'settled') continue;
    total.succeeded += message.succeeded;
    total.failed += message.failed;
  }
  return total;
}

function setup(
  options: Partial<WorkerOptions> = {},
  random = 0,
  leaseCheckMs?: number,
  journalIn?: (dir: string) => HeldJournal,
) {
  const backend = new FakeWorkerBackend();
  const journal = new TempJournal();
  journals.push(journal);
  const runs: PendingRun[] = [];
  const messages: ChildMessage[] = [];
  const logger = new Logger('test');
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  const deps: { -readonly [K in keyof WorkerChildDeps]: WorkerChildDeps[K] } = {
    backend,
    runTask: (record) =>
      new Promise<TaskRecord>((resolve, reject) => {
        runs.push({
          record,
          succeed: () =>
            resolve({
              ...record,
              status: TaskResultStatus.SUCCESSFUL,
              finishedAt: new Date(),
              returnValue: null,
            }),
          fail: reject,
        });
      }),
    channel: {
      send: async (message: ChildMessage) => {
        messages.push(message);
      },
    },
    journal: journalIn?.(journal.dir) ?? journal.journal,
    logger,
    logTasks: false,
    identity: 'host:42',
    idleWaitMs: 60_000,
    retryDelayMs: 10,
    leaseCheckMs,
    random: () => random,
  };
  const child = new WorkerChild(
    {
      backend: 'fake',
      queues: ['default'],
      processes: 1,
      threads: 3,
      maxTasks: null,
      maxTasksJitter: 0,
      exitEmpty: false,
      livenessTimeoutMs: 30_000,
      heartbeatToleranceMs: 30_000,
      ...options,
    },
    deps,
  );
  return { backend, runs, messages, child, deps, journal };
}

const ids = (records: readonly TaskRecord[]): string[] => records.map((r) => r.id);

describe('WorkerChild', () => {
  it('asks one acquire for as many tasks as it has free slots, and runs them together', async () => {
    const { backend, runs, child } = setup({ threads: 3 });
    backend.ready.push(readyRecord('a'), readyRecord('b'), readyRecord('c'), readyRecord('d'));
    const done = child.run();
    await waitFor(() => runs.length === 3, { what: 'three runs' });
    expect(backend.acquireCalls[0].max).toBe(3);
    expect(ids(runs.map((r) => r.record))).toEqual(['a', 'b', 'c']);
    child.stop(false);
    runs.forEach((run) => run.succeed());
    await expect(done).resolves.toBe('stopped');
  });

  it('acknowledges tasks that finish together in one call, and tells the parent', async () => {
    const { backend, runs, messages, child, journal } = setup({ threads: 3 });
    backend.ready.push(readyRecord('a'), readyRecord('b'), readyRecord('c'));
    const done = child.run();
    await waitFor(() => runs.length === 3, { what: 'three runs' });
    runs.forEach((run) => run.succeed());
    await waitFor(() => backend.acknowledged.length === 1, { what: 'an acknowledge' });
    expect(ids(backend.acknowledged[0])).toEqual(['a', 'b', 'c']);
    child.stop(false);
    await done;
    expect(reported(messages)).toEqual({ succeeded: 3, failed: 0 });
    expect(journal.held()).toEqual([]);
  });

  it('journals what an acquire leased, and takes out what the same call stored', async () => {
    const { backend, runs, messages, child, journal } = setup({ threads: 1 });
    backend.ready.push(readyRecord('a'), readyRecord('b'));
    const done = child.run();
    await waitFor(() => runs.length === 1, { what: 'the first run' });
    expect(journal.held()).toEqual(['a']);
    runs[0].succeed();
    await waitFor(() => runs.length === 2, { what: 'the second run' });
    expect(journal.held()).toEqual(['b']);
    child.stop(false);
    runs[1].succeed();
    await done;
    expect(journal.held()).toEqual([]);
    // Counts only, and few messages: one per report period at most, and one at the end.
    expect(reported(messages)).toEqual({ succeeded: 2, failed: 0 });
    expect(messages.filter((m) => m.kind === 'settled').length).toBeLessThanOrEqual(2);
  });

  it('works on when its journal cannot be written, and says so once', async () => {
    const { backend, runs, child, deps } = setup({ threads: 1 }, 0, undefined, (dir) => {
      const blocker = join(dir, 'a-file');
      writeFileSync(blocker, '');
      return new HeldJournal(join(blocker, 'child.held'));
    });
    const errors = jest.spyOn(deps.logger, 'error');
    backend.ready.push(readyRecord('a'), readyRecord('b'));
    const done = child.run();
    await waitFor(() => runs.length === 1, { what: 'the first run' });
    runs[0].succeed();
    await waitFor(() => runs.length === 2, { what: 'the second run' });
    child.stop(false);
    runs[1].succeed();
    await expect(done).resolves.toBe('stopped');
    expect(ids(backend.acknowledged.flat())).toEqual(['a', 'b']);
    const said = errors.mock.calls.map(([message]) => String(message));
    expect(said.filter((message) => message.includes('journal of held tasks'))).toHaveLength(1);
  });

  it('has the ids of a batch in its journal before any of them starts', async () => {
    const { backend, runs, child, deps, journal } = setup({ threads: 2 });
    const heldAtStart: string[][] = [];
    const runTask = deps.runTask;
    deps.runTask = (record) => {
      heldAtStart.push(journal.held());
      return runTask(record);
    };
    backend.ready.push(readyRecord('a'), readyRecord('b'));
    const done = child.run();
    await waitFor(() => runs.length === 2, { what: 'two runs' });
    expect(heldAtStart).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ]);
    child.stop(false);
    runs.forEach((run) => run.succeed());
    await done;
  });

  it('names the slot that runs each task in its worker id (host:pid-slot)', async () => {
    const { backend, runs, child } = setup({ threads: 3 });
    backend.ready.push(readyRecord('a'), readyRecord('b'), readyRecord('c'));
    const done = child.run();
    await waitFor(() => runs.length === 3, { what: 'three runs' });
    expect(runs.map((r) => r.record.workerIds)).toEqual([
      ['host:42-1'],
      ['host:42-2'],
      ['host:42-3'],
    ]);
    child.stop(false);
    runs.forEach((run) => run.succeed());
    await done;
  });

  it('records a rejected run as FAILED with the thrown value, and goes on', async () => {
    const { backend, runs, child } = setup({ threads: 1, exitEmpty: true });
    backend.ready.push(readyRecord('a'), readyRecord('b'));
    const done = child.run();
    await waitFor(() => runs.length === 1, { what: 'first run' });
    runs[0].fail('not an Error');
    await waitFor(() => runs.length === 2, { what: 'second run' });
    runs[1].succeed();
    await expect(done).resolves.toBe('drained');
    const stored = backend.acknowledged.flat();
    expect(stored.map((r) => [r.id, r.status])).toEqual([
      ['a', TaskResultStatus.FAILED],
      ['b', TaskResultStatus.SUCCESSFUL],
    ]);
    expect(stored[0].errors[0].traceback).toContain('not an Error');
  });

  it('recycles itself after max-tasks plus its jitter, acquiring no more than that', async () => {
    // random() = 0.99 with jitter 2 draws the full jitter: 3 + 2 = 5 tasks.
    const { backend, runs, child } = setup({ threads: 4, maxTasks: 3, maxTasksJitter: 2 }, 0.99);
    for (let i = 0; i < 9; i++) backend.ready.push(readyRecord(`t${i}`));
    expect(child.remainingBudget).toBe(5);
    const done = child.run();
    await waitFor(() => runs.length === 4, { what: 'four runs' });
    runs.forEach((run) => run.succeed());
    await waitFor(() => runs.length === 5, { what: 'the fifth run' });
    expect(backend.acquireCalls[1].max).toBe(1);
    runs[4].succeed();
    await expect(done).resolves.toBe('recycled');
    expect(backend.ready).toHaveLength(4);
    expect(backend.acknowledged.flat()).toHaveLength(5);
  });

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
    const { backend, runs, child } = setup({ threads: 16 });
    backend.ready.push(readyRecord('a'), readyRecord('b'));
    const done = child.run();
    // Both lanes ask at the start; the second finds nothing, then only the first (blocking) asks.
    await waitFor(() => runs.length === 2 && backend.acquireCalls.length === 3, {
      what: 'two runs and the blocking acquire',
    });
    runs.forEach((run) => run.succeed());
    await waitFor(() => backend.acknowledged.flat().length === 2, { what: 'both stored' });
    expect(backend.acquireCalls.map((call) => call.timeoutMs)).toEqual([60_000, 0, 60_000]);
    child.stop(false);
    await expect(done).resolves.toBe('stopped');
    expect(backend.acquireCalls).toHaveLength(3);
  });

  it('from 8 threads keeps two acquires out, each for half the slots, and runs every task once', async () => {
    const { backend, runs, child } = setup({ threads: 16, exitEmpty: true });
    for (let i = 0; i < 40; i++) backend.ready.push(readyRecord(`t${i}`));
    let out = 0;
    let mostOut = 0;
    const acquire = backend.acquire.bind(backend);
    backend.acquire = async (queues, options) => {
      mostOut = Math.max(mostOut, ++out);
      // Answer on a later turn, as a store does, so the other lane can ask meanwhile.
      await new Promise((resolve) => setImmediate(resolve));
      try {
        return await acquire(queues, options);
      } finally {
        out--;
      }
    };
    const done = child.run();
    let drained = false;
    void done.then(() => (drained = true));
    await waitFor(() => runs.length === 16, { what: 'sixteen runs' });
    expect(mostOut).toBe(2);
    expect(backend.acquireCalls.slice(0, 2).map((call) => call.max)).toEqual([8, 8]);
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
    expect(runs.map((run) => run.record.id).sort()).toEqual(
      Array.from({ length: 40 }, (_, i) => `t${i}`).sort(),
    );
    expect(backend.acknowledged.flat()).toHaveLength(40);
  });

  it('with two lanes still acquires no more than max-tasks before recycling', async () => {
    const { backend, runs, child } = setup({ threads: 16, maxTasks: 12, maxTasksJitter: 0 });
    for (let i = 0; i < 40; i++) backend.ready.push(readyRecord(`t${i}`));
    const done = child.run();
    await waitFor(() => runs.length === 12, { what: 'twelve runs' });
    runs.forEach((run) => run.succeed());
    await expect(done).resolves.toBe('recycled');
    expect(runs).toHaveLength(12);
    expect(backend.ready).toHaveLength(28);
  });

  it('with --exit-empty, asks without waiting and reports drained once nothing runs', async () => {
    const { backend, child } = setup({ exitEmpty: true });
    await expect(child.run()).resolves.toBe('drained');
    expect(backend.acquireCalls.map((c) => c.timeoutMs)).toEqual([0]);
  });

  it('on a graceful stop, aborts the idle acquire and finishes what it holds', async () => {
    const { backend, runs, child } = setup({ threads: 2 });
    backend.ready.push(readyRecord('a'));
    const done = child.run();
    await waitFor(() => runs.length === 1 && backend.acquireCalls.length === 2, {
      what: 'a run and a blocking acquire',
    });
    child.stop(false);
    expect(backend.acquireCalls[1].signal?.aborted).toBe(true);
    let settled = false;
    void done.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    runs[0].succeed();
    await expect(done).resolves.toBe('stopped');
    expect(ids(backend.acknowledged.flat())).toEqual(['a']);
    expect(backend.released).toEqual([]);
  });

  it('stops when a lane that does not block comes back empty after the other lane already ended', async () => {
    const { backend, child } = setup({ threads: 8 });
    const acquire = backend.acquire.bind(backend);
    let answerLookingLane: () => void = () => undefined;
    let asking = 0;
    backend.acquire = async (queues, options) => {
      asking++;
      // The lane that does not block is answered only when the test says so.
      if (options.timeoutMs === 0) {
        await new Promise<void>((resolve) => (answerLookingLane = resolve));
      }
      return acquire(queues, options);
    };
    const done = child.run();
    await waitFor(() => asking === 2, { what: 'both lanes asking' });
    child.stop(false);
    // The blocking lane's acquire ends with the abort and that lane ends: its wake-up
    // comes while the other lane's call is still out, so nothing is waiting for it.
    await new Promise((resolve) => setImmediate(resolve));
    answerLookingLane();
    await expect(done).resolves.toBe('stopped');
  });

  it('on an urgent stop, releases unfinished tasks and never stores their late results', async () => {
    const { backend, runs, child, journal } = setup({ threads: 2 });
    backend.ready.push(readyRecord('a'), readyRecord('b'));
    const done = child.run();
    await waitFor(() => runs.length === 2, { what: 'two runs' });
    runs[0].succeed();
    await waitFor(() => backend.acknowledged.length === 1, { what: 'first acknowledge' });
    child.stop(false);
    child.stop(true);
    await expect(done).resolves.toBe('stopped');
    expect(ids(backend.released.flat())).toEqual(['b']);
    expect(journal.held()).toEqual([]);
    runs[1].succeed();
    await new Promise((resolve) => setImmediate(resolve));
    expect(ids(backend.acknowledged.flat())).toEqual(['a']);
  });

  it('frees the slot of a task that never settles once its lease was reaped', async () => {
    const { backend, runs, child, journal } = setup({ threads: 1 }, 0, 20);
    backend.ready.push(readyRecord('hung'), readyRecord('next'));
    // What the store says while they run: RUNNING, so their slots stay taken.
    backend.stored.set('hung', runningRecord('hung', 'host:42-1'));
    backend.stored.set('next', runningRecord('next', 'host:42-1'));
    const done = child.run();
    await waitFor(() => runs.length === 1, { what: 'the first run' });
    await waitFor(() => backend.getResultCalls >= 2, { what: 'two lease checks' });
    expect(runs).toHaveLength(1);
    // The broker reaped it.
    backend.stored.set('hung', { ...runs[0].record, status: TaskResultStatus.FAILED });
    await waitFor(() => runs.length === 2, { what: 'the next task in the freed slot' });
    expect(runs[1].record.id).toBe('next');
    expect(journal.held()).toEqual(['next']);
    child.stop(false);
    runs[1].succeed();
    await expect(done).resolves.toBe('stopped');
    // Its late result is dropped, never acknowledged over the reaper's FAILED.
    runs[0].succeed();
    await new Promise((resolve) => setImmediate(resolve));
    expect(backend.acknowledged.flat().map((r) => r.id)).toEqual(['next']);
  });
});
