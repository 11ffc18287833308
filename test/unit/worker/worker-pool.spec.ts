import { Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import type { MemoryBackendOptions } from '../../../lib/backends/memory/memory-backend-options.interface';
import { ExitCode } from '../../../lib/core/exit-code';
import { StoreCorruptError } from '../../../lib/core/errors/store-corrupt.error';
import { EventStream } from '../../../lib/core/event-stream';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { HeldJournal } from '../../../lib/worker/held-journal';
import type { ChildMessage, ParentMessage } from '../../../lib/worker/worker-ipc';
import type { WorkerOptions } from '../../../lib/worker/worker-options.interface';
import { WorkerPool } from '../../../lib/worker/pool/worker-pool';
import { StoreDamage } from '../../../lib/worker/store-damage';
import type { ForkedChild } from '../../../lib/worker/pool/worker-pool.deps';
import type { PoolSchedules } from '../../../lib/schedule/schedule.service';
import {
  acknowledgeSucceeded,
  batchesOf,
  countsOf,
  idsOf,
  leaseTo,
  memoryBackend,
  readyTask,
  recordsOf,
} from '../../helpers/memory-backend';
import { scheduleDueSince, tasksOfSchedule, tickerOn } from '../../helpers/schedule-race';
import { waitFor } from '../../helpers/wait-for';
import { workerOptions } from '../../helpers/worker-options';

/** A forked child the test drives: it "sends" messages, journals held ids and "dies" on command. */
class FakeChild extends EventEmitter implements ForkedChild {
  static nextPid = 1000;
  readonly pid = FakeChild.nextPid++;
  connected = true;
  readonly received: ParentMessage[] = [];
  private readonly journal: HeldJournal;

  constructor(readonly journalPath: string) {
    super();
    this.journal = new HeldJournal(journalPath);
  }

  hold(ids: string[], waiting: string[] = []): void {
    this.journal.hold(ids, waiting);
  }

  started(ids: string[]): void {
    this.journal.started(ids);
  }

  release(ids: string[]): void {
    this.journal.forget(ids);
  }

  send(message: ParentMessage, callback: (error: Error | null) => void): boolean {
    this.received.push(message);
    callback(null);
    return true;
  }

  kill(signal: NodeJS.Signals): boolean {
    this.die(null, signal);
    return true;
  }

  tell(message: ChildMessage): void {
    this.emit('message', message);
  }

  die(code: number | null, signal: NodeJS.Signals | null = null): void {
    this.connected = false;
    this.journal.close();
    setImmediate(() => this.emit('close', code, signal));
  }
}

/** The worker id of `child`'s slot `slot` (`host:pid-slot`), as its leases name it. */
const slotOf = (child: FakeChild, slot = 1): string => `host:${child.pid}-${slot}`;

/** `record` with `retries` attempts left after its first. */
const withRetries = (record: TaskRecord, retries: number): TaskRecord => ({
  ...record,
  task: { ...record.task, retries },
});

/**
 * A WorkerPool (host `host`) of FakeChild processes on a real MemoryBackend
 * whose calls are spied on (they still run), so a test sees what the pool
 * sent and reads what the store then holds.
 */
function setup(
  options: Partial<WorkerOptions> = {},
  pools: {
    poolId?: string;
    heartbeatToleranceMs?: number;
    journalRoot?: string;
    livenessCheckMs?: number;
    schedules?: PoolSchedules;
    /** As the launcher wires it: a damaged store stops the pool urgently. */
    storeDamage?: boolean;
  } = {},
  backendOptions: MemoryBackendOptions = {},
) {
  const backend = memoryBackend(backendOptions);
  const spies = {
    // Each maintenance pass marks itself once, last.
    maintenancePass: jest.spyOn(backend.maintenance, 'markPass'),
    acknowledge: jest.spyOn(backend.leases, 'acknowledge'),
    retry: jest.spyOn(backend.leases, 'retry'),
    release: jest.spyOn(backend.leases, 'release'),
    unlease: jest.spyOn(backend.leases, 'unlease'),
    beatPool: jest.spyOn(backend.pools, 'beat'),
    retirePool: jest.spyOn(backend.pools, 'retire'),
  };
  const children: FakeChild[] = [];
  const logger = new Logger('test');
  for (const level of ['log', 'warn', 'error', 'debug'] as const) {
    jest.spyOn(logger, level).mockImplementation(() => undefined);
  }
  const stream = new EventStream(logger);
  const { storeDamage, ...poolDeps } = pools;
  const damage = new StoreDamage(logger, 'the store is damaged', () => pool.stop(true));
  const pool: WorkerPool = new WorkerPool(
    workerOptions(backend.alias, { processes: 2, ...options }),
    {
      backend,
      host: 'host',
      logger,
      stream,
      forkChild: (journalPath) => {
        const child = new FakeChild(journalPath);
        children.push(child);
        return child;
      },
      summaryIntervalMs: 60_000,
      bootRetryMs: 10,
      urgentGraceMs: 60_000,
      livenessCheckMs: 60_000,
      ...(storeDamage && { storeCorrupt: (error: StoreCorruptError) => damage.report(error) }),
      ...poolDeps,
    },
  );
  return { backend, spies, children, pool, logger, stream, damage };
}

const ready = (child: FakeChild): void => child.tell({ kind: 'ready' });

/**
 * Resolves once the pool logged that it recovered `child`'s tasks: the last
 * step of the recovery, after what it stored was counted.
 */
const recovered = (logger: Logger, child: FakeChild) =>
  waitFor(
    () =>
      jest
        .mocked(logger.warn)
        .mock.calls.some(([message]) =>
          String(message).startsWith(`Recovered the tasks of worker child ${child.pid}:`),
        ),
    { what: `the tasks of child ${child.pid} recovered` },
  );

describe('WorkerPool', () => {
  it('runs a maintenance pass, then forks --processes children', async () => {
    const { backend, spies, children, pool } = setup({ processes: 3 });
    const run = pool.run();
    await waitFor(() => children.length === 3, { what: 'three children' });
    expect(spies.maintenancePass.mock.calls.length).toBeGreaterThanOrEqual(1);
    // The store recorded the pass.
    expect(await backend.reads.maintenanceHeartbeat()).not.toBeNull();
    pool.stop(false);
    children.forEach((child) => child.die(0));
    await run;
  });

  it("announces each child's start and exit on its event stream", async () => {
    const { children, pool, stream } = setup({ processes: 1 });
    const heard: string[] = [];
    stream.on('childStarted', ({ pid }) => heard.push(`started ${pid}`));
    stream.on('childExited', ({ pid, cause, reason }) =>
      heard.push(`exited ${pid} ${cause} ${reason}`),
    );
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'the child' });
    const [child] = children;
    ready(child);
    pool.stop(false);
    child.tell({ kind: 'exiting', reason: 'stopped' });
    child.die(0);
    await run;
    expect(heard).toEqual([`started ${child.pid}`, `exited ${child.pid} exit code 0 stopped`]);
  });

  it('names the paused queues among its own at start, and starts all the same', async () => {
    const { backend, children, pool, logger } = setup({ processes: 1 });
    await backend.control.pauseQueue('default');
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'the child' });
    expect(jest.mocked(logger.warn).mock.calls.map(([message]) => String(message))).toContain(
      `Queue "default" of backend "${backend.alias}" is paused: no pool starts its tasks until ` +
        '`threadmill queues resume default` (this pool takes its other queues meanwhile).',
    );
    pool.stop(false);
    children.forEach((child) => child.die(0));
    await run;
  });

  it('syncs the schedules before its first pass and enqueues their due ticks after every pass', async () => {
    const steps: string[] = [];
    const backend = memoryBackend();
    const cursor = await scheduleDueSince(backend, 'minutely', 60_000, 0);
    const ticker = tickerOn(backend);
    const { spies, children, pool } = setup(
      { processes: 1 },
      {
        schedules: {
          sync: async () => {
            steps.push(`sync after ${spies.maintenancePass.mock.calls.length} passes`);
          },
          tick: async () => {
            steps.push(`tick after ${spies.maintenancePass.mock.calls.length} passes`);
            await ticker.pass();
          },
        },
      },
    );
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    expect(steps).toEqual(['sync after 0 passes', 'tick after 1 passes']);
    const [task] = await tasksOfSchedule(backend, 'minutely');
    expect(task.task.schedule?.tickAt.getTime()).toBe(cursor);
    pool.stop(false);
    children[0].die(0);
    await run;
  });

  it('runs on, saying why, where no folder can be made for the journals', async () => {
    const blocker = join(mkdtempSync(join(tmpdir(), 'threadmill-test-')), 'a-file');
    writeFileSync(blocker, '');
    try {
      const { children, pool, logger } = setup({ processes: 1 }, { journalRoot: blocker });
      const run = pool.run();
      await waitFor(() => children.length === 1, { what: 'a child' });
      const said = jest.mocked(logger.error).mock.calls.map(([message]) => String(message));
      expect(said.some((message) => message.includes("folder for the workers' journals"))).toBe(
        true,
      );
      pool.stop(false);
      children[0].die(0);
      await run;
    } finally {
      rmSync(dirname(blocker), { recursive: true, force: true });
    }
  });

  it('gives each child a journal of its own, read and removed when it exits, in a folder removed at the end', async () => {
    const { children, pool } = setup({ processes: 2 });
    const run = pool.run();
    await waitFor(() => children.length === 2, { what: 'two children' });
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

  it('fails the tasks a crashed child held with WorkerCrashed, and replaces it at once', async () => {
    const { backend, spies, children, pool, logger } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    await leaseTo(backend, slotOf(child), readyTask('held'));
    child.hold(['held']);
    child.die(null, 'SIGKILL');

    await recovered(logger, child);
    expect(batchesOf(spies.acknowledge)).toEqual([['held']]);
    const [failed] = recordsOf(spies.acknowledge);
    expect(failed.status).toBe(TaskResultStatus.FAILED);
    expect(failed.errors.map((e) => e.className)).toEqual(['WorkerCrashed']);
    expect(failed.errors[0].traceback).toContain('signal SIGKILL');
    expect(failed.errors[0].traceback).toContain(String(child.pid));
    expect(await backend.tasks.getResult('held')).toMatchObject({
      status: TaskResultStatus.FAILED,
      errors: [{ className: 'WorkerCrashed' }],
    });
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    expect(pool.counts).toEqual({ done: 1, failed: 1 });

    pool.stop(false);
    children[1].die(0);
    await run;
  });

  it('counts what a child reports, and fails only what its journal still holds', async () => {
    const { backend, spies, children, pool, logger } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    const [first] = await leaseTo(backend, slotOf(child), readyTask('first'), readyTask('second'));
    child.hold(['first']);
    child.hold(['second']);
    // The child stores the first, takes it out of its journal and reports it.
    await acknowledgeSucceeded(backend, first);
    child.release(['first']);
    child.tell({ kind: 'settled', succeeded: 1, failed: 0 });
    child.die(null, 'SIGKILL');

    // Only the task still held is failed by the crash (the first call is the child's own).
    await recovered(logger, child);
    expect(batchesOf(spies.acknowledge)).toEqual([['first'], ['second']]);
    expect((await backend.tasks.getResult('first')).status).toBe(TaskResultStatus.SUCCESSFUL);
    expect((await backend.tasks.getResult('second')).status).toBe(TaskResultStatus.FAILED);
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    expect(pool.counts).toEqual({ done: 2, failed: 1 });

    pool.stop(false);
    children[1].die(0);
    await run;
  });

  it('sends a crashed child’s task with attempts left back for a retry instead of failing it', async () => {
    const { backend, spies, children, pool, logger } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    await leaseTo(backend, slotOf(child), withRetries(readyTask('held'), 2));
    child.hold(['held']);
    child.die(null, 'SIGKILL');

    await recovered(logger, child);
    expect(batchesOf(spies.retry)).toEqual([['held']]);
    const [retried] = recordsOf(spies.retry);
    expect(retried.status).toBe(TaskResultStatus.READY);
    expect(retried.errors.map((e) => e.className)).toEqual(['WorkerCrashed']);
    expect(retried.task.runAfter!.getTime()).toBeGreaterThan(Date.now() - 1000);
    expect(spies.acknowledge).not.toHaveBeenCalled();
    expect(pool.counts).toEqual({ done: 0, failed: 0 });
    // Back in the store for its next attempt, the crash in its errors.
    expect(await backend.tasks.getResult('held')).toMatchObject({
      status: TaskResultStatus.READY,
      errors: [{ className: 'WorkerCrashed' }],
    });
    expect(await countsOf(backend)).toMatchObject({ running: 0, failed: 0 });
    pool.stop(false);
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    children[1].die(0);
    await run;
  });

  it('beats under its pool id, saying what it is, before any child starts and on every maintenance pass, and retires it on stop', async () => {
    // A pass every 20 ms, so the second comes soon.
    const { backend, spies, children, pool } = setup(
      { processes: 1, threads: 3 },
      { poolId: 'p-1', heartbeatToleranceMs: 3000 },
      { maintenanceInterval: 20 },
    );
    const { beatPool: beats, retirePool: retire } = spies;
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
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
    pool.stop(false);
    children[0].die(0);
    await run;
    expect(retire).toHaveBeenCalledWith('p-1');
    await expect(backend.pools.list()).resolves.toEqual([]);
  });

  it('after a crash gives back, unfailed and uncounted, tasks leased to the child that it never received', async () => {
    const { backend, spies, children, pool, logger } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    await leaseTo(backend, slotOf(child, 3), readyTask('unreported'));
    const someoneElses = `host:${child.pid + 100}-1`;
    await leaseTo(backend, someoneElses, readyTask('other'));
    child.die(1);

    await recovered(logger, child);
    expect(batchesOf(spies.unlease)).toEqual([['unreported']]);
    expect(spies.acknowledge).not.toHaveBeenCalled();
    expect(pool.counts).toEqual({ done: 0, failed: 0 });
    // Back in its queue as if never leased; the other child's lease is left as it was.
    expect(await backend.tasks.getResult('unreported')).toMatchObject({
      status: TaskResultStatus.READY,
      workerIds: [],
      errors: [],
    });
    expect(await backend.tasks.getResult('other')).toMatchObject({
      status: TaskResultStatus.RUNNING,
      workerIds: [someoneElses],
    });
    pool.stop(false);
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    children[1].die(0);
    await run;
  });

  it('after a crash fails unreported leases too when the child said its journal failed', async () => {
    const { backend, spies, children, pool, logger } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    child.tell({ kind: 'journalFailed' });
    await leaseTo(backend, slotOf(child, 3), readyTask('unreported'));
    child.die(1);

    await recovered(logger, child);
    expect(batchesOf(spies.acknowledge)).toEqual([['unreported']]);
    expect(recordsOf(spies.acknowledge)[0].errors[0].traceback).toContain('exit code 1');
    expect(spies.unlease).not.toHaveBeenCalled();
    expect((await backend.tasks.getResult('unreported')).status).toBe(TaskResultStatus.FAILED);
    pool.stop(false);
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    children[1].die(0);
    await run;
  });

  it('after a crash gives back, unfailed and uncounted, the prefetched tasks its journal says never started', async () => {
    const { backend, spies, children, pool, logger } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    await leaseTo(backend, slotOf(child), readyTask('running'), readyTask('waiting'));
    await leaseTo(backend, slotOf(child), readyTask('started-later'));
    child.hold(['running'], ['waiting', 'started-later']);
    child.started(['started-later']);
    child.die(null, 'SIGKILL');

    await recovered(logger, child);
    expect(batchesOf(spies.unlease)).toEqual([['waiting']]);
    expect(idsOf(spies.acknowledge).sort()).toEqual(['running', 'started-later']);
    expect(pool.counts).toEqual({ done: 2, failed: 2 });
    expect(await backend.tasks.getResult('waiting')).toMatchObject({
      status: TaskResultStatus.READY,
      workerIds: [],
      errors: [],
    });
    pool.stop(false);
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    children[1].die(0);
    await run;
  });

  it('gives back the never-started tasks of a child that exited holding them (a give-back that failed)', async () => {
    const { backend, spies, children, pool, logger } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    await leaseTo(backend, slotOf(child), readyTask('waiting'));
    child.hold([], ['waiting']);
    pool.stop(false);
    child.tell({ kind: 'exiting', reason: 'stopped' });
    child.die(0);

    await recovered(logger, child);
    expect(batchesOf(spies.unlease)).toEqual([['waiting']]);
    expect(spies.acknowledge).not.toHaveBeenCalled();
    expect(spies.release).not.toHaveBeenCalled();
    await run;
    expect((await backend.tasks.getResult('waiting')).status).toBe(TaskResultStatus.READY);
  });

  it('after a crash fails the prefetched tasks too when the child said its journal failed', async () => {
    const { backend, spies, children, pool, logger } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    await leaseTo(backend, slotOf(child), readyTask('waiting'));
    child.hold([], ['waiting']);
    // A failed journal may have lost the line that said it started.
    child.tell({ kind: 'journalFailed' });
    child.die(1);

    await recovered(logger, child);
    expect(idsOf(spies.acknowledge)).toEqual(['waiting']);
    expect(spies.unlease).not.toHaveBeenCalled();
    pool.stop(false);
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    children[1].die(0);
    await run;
  });

  it('leaves a prefetched task alone once another worker leased it again', async () => {
    const { backend, spies, children, pool } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    const [leased] = await leaseTo(backend, slotOf(child), readyTask('waiting'));
    child.hold([], ['waiting']);
    // Given back, then leased by another process, before the child died.
    await backend.leases.unlease([leased]);
    const other = 'host:1-1';
    await backend.leases.acquire(['default'], { workerId: other, timeoutMs: 0 });
    child.die(null, 'SIGKILL');

    await waitFor(() => children.length === 2, { what: 'a replacement' });
    pool.stop(false);
    children[1].die(0);
    // The pool ends only after every recovery it started.
    await run;
    expect(spies.unlease).toHaveBeenCalledTimes(1);
    expect(spies.acknowledge).not.toHaveBeenCalled();
    expect(await backend.tasks.getResult('waiting')).toMatchObject({
      status: TaskResultStatus.RUNNING,
      workerIds: [other],
    });
  });

  it('leaves tasks a child acknowledged before it died as they are', async () => {
    const { backend, spies, children, pool } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    const [leased] = await leaseTo(backend, slotOf(child), readyTask('done'));
    child.hold(['done']);
    // The child stored it, and died before it took it out of its journal.
    await acknowledgeSucceeded(backend, leased);
    const stored = await backend.tasks.getResult('done');
    child.die(null, 'SIGKILL');
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    pool.stop(false);
    children[1].die(0);
    await run;
    // The child's own acknowledgement only: the pool stored nothing over it.
    expect(batchesOf(spies.acknowledge)).toEqual([['done']]);
    expect(spies.retry).not.toHaveBeenCalled();
    expect(spies.release).not.toHaveBeenCalled();
    expect(await backend.tasks.getResult('done')).toEqual(stored);
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
    const { children, pool } = setup({ processes: 2 });
    const run = pool.run();
    await waitFor(() => children.length === 2, { what: 'two children' });
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
    const { children, pool } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    pool.stop(false);
    ready(children[0]);
    expect(children[0].received).toEqual([
      { kind: 'stop', urgent: false },
      { kind: 'stop', urgent: false },
    ]);
    children[0].die(0);
    await run;
  });

  it('during an urgent stop releases a dying child’s tasks instead of failing them', async () => {
    const { backend, spies, children, pool } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    await leaseTo(backend, slotOf(child), readyTask('held'));
    child.hold(['held']);
    pool.stop(true);
    child.die(null, 'SIGKILL');
    await run;
    expect(idsOf(spies.release)).toEqual(['held']);
    expect(spies.acknowledge).not.toHaveBeenCalled();
    // Back in its queue for the next worker, its attempt not ended.
    expect(await backend.tasks.getResult('held')).toMatchObject({
      status: TaskResultStatus.READY,
      errors: [],
    });
    expect(await countsOf(backend)).toMatchObject({ ready: 1, running: 0, failed: 0 });
  });

  it('stops urgently, replacing no child, when a child exits saying it found the store damaged', async () => {
    const { backend, children, pool, damage } = setup({ processes: 2 }, { storeDamage: true });
    const run = pool.run();
    await waitFor(() => children.length === 2, { what: 'two children' });
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
    const { children, pool, damage } = setup({ processes: 1 }, { storeDamage: true });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    children[0].die(ExitCode.StoreCorrupt);
    await run;
    expect(children).toHaveLength(1);
    expect(damage.reported).toBe(true);
  });

  it('kills a child whose liveness beats stopped and fails its tasks as a crash’s', async () => {
    const { backend, spies, children, pool, logger } = setup(
      { processes: 1, livenessTimeoutMs: 50 },
      { livenessCheckMs: 10 },
    );
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    child.tell({ kind: 'alive', blockingMs: 0 });
    await leaseTo(backend, slotOf(child), readyTask('held'));
    child.hold(['held']);
    // No more beats: the child's event loop is stuck.
    await recovered(logger, child);
    expect(batchesOf(spies.acknowledge)).toEqual([['held']]);
    expect((await backend.tasks.getResult('held')).status).toBe(TaskResultStatus.FAILED);
    const [failed] = recordsOf(spies.acknowledge);
    expect(failed.errors.map((e) => e.className)).toEqual(['WorkerCrashed']);
    expect(failed.errors[0].traceback).toContain('without answering');
    expect(logger.error).toHaveBeenCalledWith(
      expect.stringContaining(`Worker child ${child.pid} has not answered for`),
    );
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    pool.stop(false);
    children[1].die(0);
    await run;
  });
});
