import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { ExitCode } from '../../../lib/core/exit-code';
import { StoreCorruptError } from '../../../lib/core/errors/store-corrupt.error';
import { memoryBackend } from '../../helpers/memory-backend';
import { scheduleDueSince, tasksOfSchedule, tickerOn } from '../../helpers/schedule-race';
import { waitFor } from '../../helpers/wait-for';
import { forked, ready, setup, started, stopAll } from './worker-pool.setup';

describe('WorkerPool', () => {
  it('runs a maintenance pass, then forks --processes children', async () => {
    const { backend, spies, stopAll } = await started({ processes: 3 });
    expect(spies.maintenancePass.mock.calls.length).toBeGreaterThanOrEqual(1);
    // The store recorded the pass.
    expect(await backend.reads.maintenanceHeartbeat()).not.toBeNull();
    await stopAll();
  });

  it("announces each child's start and exit on its event stream", async () => {
    const harness = setup({ processes: 1 });
    const { children, pool, stream } = harness;
    const heard: string[] = [];
    stream.on('childStarted', ({ pid }) => heard.push(`started ${pid}`));
    stream.on('childExited', ({ pid, cause, reason }) =>
      heard.push(`exited ${pid} ${cause} ${reason}`),
    );
    const { run } = await forked(harness, 1);
    const [child] = children;
    ready(child);
    pool.stop(false);
    child.tell({ kind: 'exiting', reason: 'stopped' });
    child.die(0);
    await run;
    expect(heard).toEqual([`started ${child.pid}`, `exited ${child.pid} exit code 0 stopped`]);
  });

  it('names the paused queues among its own at start, and starts all the same', async () => {
    const harness = setup({ processes: 1 });
    const { backend, logger } = harness;
    await backend.control.pauseQueue('default');
    const { run } = await forked(harness, 1);
    expect(jest.mocked(logger.warn).mock.calls.map(([message]) => String(message))).toContain(
      `Queue "default" of backend "${backend.alias}" is paused: no pool starts its tasks until ` +
        '`threadmill queues resume default` (this pool takes its other queues meanwhile).',
    );
    await stopAll(harness, run);
  });

  it('syncs the schedules before its first pass and enqueues their due ticks after every pass', async () => {
    const steps: string[] = [];
    const backend = memoryBackend();
    const cursor = await scheduleDueSince(backend, 'minutely', 60_000, 0);
    const ticker = tickerOn(backend);
    const harness = setup(
      { processes: 1 },
      {
        schedules: {
          sync: async () => {
            steps.push(`sync after ${harness.spies.maintenancePass.mock.calls.length} passes`);
          },
          tick: async () => {
            steps.push(`tick after ${harness.spies.maintenancePass.mock.calls.length} passes`);
            await ticker.pass();
          },
        },
      },
    );
    const { run } = await forked(harness, 1);
    expect(steps).toEqual(['sync after 0 passes', 'tick after 1 passes']);
    const [task] = await tasksOfSchedule(backend, 'minutely');
    expect(task.task.schedule?.tickAt.getTime()).toBe(cursor);
    await stopAll(harness, run);
  });

  it('runs on, saying why, where no folder can be made for the journals', async () => {
    const blocker = join(mkdtempSync(join(tmpdir(), 'threadmill-test-')), 'a-file');
    writeFileSync(blocker, '');
    try {
      const { logger, stopAll } = await started({ processes: 1 }, { journalRoot: blocker });
      const said = jest.mocked(logger.error).mock.calls.map(([message]) => String(message));
      expect(said.some((message) => message.includes("folder for the workers' journals"))).toBe(
        true,
      );
      await stopAll();
    } finally {
      rmSync(dirname(blocker), { recursive: true, force: true });
    }
  });

  it('gives each child a journal of its own, read and removed when it exits, in a folder removed at the end', async () => {
    const { children, pool, run } = await started({ processes: 2 });
    const [first, second] = children;
    expect(first.journalPath).not.toBe(second.journalPath);
    expect(dirname(first.journalPath)).toBe(dirname(second.journalPath));
    children.forEach(ready);
    first.hold(['a']);
    first.release(['a']);
    first.tell({ kind: 'exiting', reason: 'recycled' });
    first.die(0);
    await waitFor(() => !existsSync(first.journalPath), { what: 'the journal removed' });
    pool.stop(false);
    children.slice(1).forEach((child) => child.die(0));
    await run;
    expect(existsSync(dirname(first.journalPath))).toBe(false);
  });

  it('beats under its pool id, saying what it is, before any child starts and on every maintenance pass, and retires it on stop', async () => {
    // A pass every 20 ms, so the second comes soon.
    const { backend, spies, stopAll } = await started(
      { processes: 1, threads: 3 },
      { poolId: 'p-1', heartbeatToleranceMs: 3000 },
      { maintenanceInterval: 20 },
    );
    const { beatPool: beats, retirePool: retire } = spies;
    const info = { host: 'host', pid: process.pid, slots: 3, queues: ['default'] };
    expect(beats).toHaveBeenCalledWith('p-1', 3000, expect.objectContaining(info));
    expect(beats.mock.calls[0][2]).toMatchObject({ children: 0 });
    const before = beats.mock.calls.length;
    await waitFor(() => spies.maintenancePass.mock.calls.length >= 2, {
      timeoutMs: 5000,
      what: 'a second pass',
    });
    expect(beats.mock.calls.length).toBeGreaterThan(before);
    const [listed] = await backend.pools.list();
    expect(listed).toMatchObject({ ...info, id: 'p-1', children: 1, alive: true, held: 0 });
    expect(listed.startedAt.getTime()).toBeLessThanOrEqual(listed.beatAt.getTime());
    expect(retire).not.toHaveBeenCalled();
    await stopAll();
    expect(retire).toHaveBeenCalledWith('p-1');
    await expect(backend.pools.list()).resolves.toEqual([]);
  });

  it('replaces a recycled child, and with --exit-empty finishes once every child drained', async () => {
    const { children, pool } = setup({ processes: 2, exitEmpty: true });
    let finished = false;
    const run = pool.run().then(() => (finished = true));
    await waitFor(() => children.length === 2, { what: 'two children' });
    children.forEach(ready);
    children[0].tell({ kind: 'exiting', reason: 'recycled' });
    children[0].die(0);
    await waitFor(() => children.length === 3, { what: 'a replacement' });
    ready(children[2]);
    for (const child of [children[1], children[2]]) {
      child.tell({ kind: 'exiting', reason: 'drained' });
      child.die(0);
    }
    await run;
    expect(finished).toBe(true);
    expect(children).toHaveLength(3);
  });

  it('on stop tells every child, replaces none, and finishes when they are gone', async () => {
    const { children, pool, run } = await started({ processes: 2 });
    children.forEach(ready);
    pool.stop(false);
    pool.stop(false);
    expect(children.map((c) => c.received)).toEqual([
      [{ kind: 'stop', urgent: false }],
      [{ kind: 'stop', urgent: false }],
    ]);
    pool.stop(true);
    expect(children[0].received[1]).toEqual({ kind: 'stop', urgent: true });
    children.forEach((child) => child.die(0));
    await run;
    expect(children).toHaveLength(2);
  });

  it('repeats a stop to a child that was still booting once it is ready', async () => {
    const { children, pool, run } = await started({ processes: 1 });
    pool.stop(false);
    ready(children[0]);
    expect(children[0].received).toEqual([
      { kind: 'stop', urgent: false },
      { kind: 'stop', urgent: false },
    ]);
    children[0].die(0);
    await run;
  });

  it('stops urgently, replacing no child, when a child exits saying it found the store damaged', async () => {
    const { backend, children, damage, run } = await started(
      { processes: 2 },
      { storeDamage: true },
    );
    children.forEach(ready);
    const [finder, other] = children;
    finder.tell({ kind: 'exiting', reason: 'storeCorrupt' });
    finder.die(ExitCode.StoreCorrupt);
    await waitFor(() => other.received.length > 0, { what: 'the stop' });
    expect(other.received).toEqual([{ kind: 'stop', urgent: true }]);
    other.die(0);
    await run;
    expect(children).toHaveLength(2);
    expect(() => damage.rethrow()).toThrow(StoreCorruptError);
    expect(() => damage.rethrow()).toThrow(
      `The store of backend "${backend.alias}" is damaged: worker child ${finder.pid} found it so`,
    );
  });

  it('stops instead of starting another when a child dies booting with ExitCode.StoreCorrupt', async () => {
    const { children, damage, run } = await started({ processes: 1 }, { storeDamage: true });
    children[0].die(ExitCode.StoreCorrupt);
    await run;
    expect(children).toHaveLength(1);
    expect(damage.reported).toBe(true);
  });
});
