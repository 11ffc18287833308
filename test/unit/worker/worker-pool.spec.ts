import { Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { TaskResultStatus } from '../../../lib/core';
import { HeldJournal } from '../../../lib/worker/held-journal';
import type { ChildMessage, ParentMessage } from '../../../lib/worker/worker-ipc';
import type { WorkerOptions } from '../../../lib/worker/worker-options.interface';
import { WorkerPool } from '../../../lib/worker/pool/worker-pool';
import type { ForkedChild } from '../../../lib/worker/pool/worker-pool.deps';
import { waitFor } from '../../helpers/wait-for';
import { FakeWorkerBackend, runningRecord } from './fake-worker-backend';

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

  hold(ids: string[]): void {
    this.journal.hold(ids);
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

function setup(
  options: Partial<WorkerOptions> = {},
  pools: {
    poolId?: string;
    poolTtlMs?: number;
    journalRoot?: string;
    livenessCheckMs?: number;
  } = {},
) {
  const backend = new FakeWorkerBackend();
  const children: FakeChild[] = [];
  const logger = new Logger('test');
  for (const level of ['log', 'warn', 'error', 'debug'] as const) {
    jest.spyOn(logger, level).mockImplementation(() => undefined);
  }
  const pool = new WorkerPool(
    {
      backend: 'fake',
      queues: ['default'],
      processes: 2,
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
      host: 'host',
      logger,
      forkChild: (journalPath) => {
        const child = new FakeChild(journalPath);
        children.push(child);
        return child;
      },
      summaryIntervalMs: 60_000,
      bootRetryMs: 10,
      urgentGraceMs: 60_000,
      livenessCheckMs: 60_000,
      ...pools,
    },
  );
  return { backend, children, pool, logger };
}

const ready = (child: FakeChild): void => child.tell({ kind: 'ready' });

describe('WorkerPool', () => {
  it('runs a maintenance pass, then forks --processes children', async () => {
    const { backend, children, pool } = setup({ processes: 3 });
    const run = pool.run();
    await waitFor(() => children.length === 3, { what: 'three children' });
    expect(backend.maintenancePasses).toBeGreaterThanOrEqual(1);
    pool.stop(false);
    children.forEach((child) => child.die(0));
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
    const { backend, children, pool } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    const held = runningRecord('held', `host:${child.pid}-1`);
    backend.stored.set(held.id, held);
    child.hold(['held']);
    child.die(null, 'SIGKILL');

    await waitFor(() => backend.acknowledged.length === 1, { what: 'the crash acknowledged' });
    const [failed] = backend.acknowledged[0];
    expect(failed.status).toBe(TaskResultStatus.FAILED);
    expect(failed.errors.map((e) => e.className)).toEqual(['WorkerCrashed']);
    expect(failed.errors[0].traceback).toContain('signal SIGKILL');
    expect(failed.errors[0].traceback).toContain(String(child.pid));
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    expect(pool.counts).toEqual({ done: 1, failed: 1 });

    pool.stop(false);
    children[1].die(0);
    await run;
  });

  it('counts what a child reports, and fails only what its journal still holds', async () => {
    const { backend, children, pool } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    for (const id of ['first', 'second']) {
      backend.stored.set(id, runningRecord(id, `host:${child.pid}-1`));
    }
    child.hold(['first']);
    child.hold(['second']);
    child.release(['first']);
    backend.stored.set('first', {
      ...runningRecord('first', `host:${child.pid}-1`),
      status: TaskResultStatus.SUCCESSFUL,
    });
    child.tell({ kind: 'settled', succeeded: 1, failed: 0 });
    child.die(null, 'SIGKILL');

    // Only the task still held is failed by the crash.
    await waitFor(() => backend.acknowledged.length === 1, { what: 'the crash acknowledged' });
    expect(backend.acknowledged[0].map((record) => record.id)).toEqual(['second']);
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    expect(pool.counts).toEqual({ done: 2, failed: 1 });

    pool.stop(false);
    children[1].die(0);
    await run;
  });

  it('sends a crashed child’s task with attempts left back for a retry instead of failing it', async () => {
    const { backend, children, pool } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    const plain = runningRecord('held', `host:${child.pid}-1`);
    const held = { ...plain, task: { ...plain.task, retries: 2 } };
    backend.stored.set(held.id, held);
    child.hold(['held']);
    child.die(null, 'SIGKILL');

    await waitFor(() => backend.retried.length === 1, { what: 'the crash retried' });
    const [retried] = backend.retried[0];
    expect(retried.status).toBe(TaskResultStatus.READY);
    expect(retried.errors.map((e) => e.className)).toEqual(['WorkerCrashed']);
    expect(retried.task.runAfter!.getTime()).toBeGreaterThan(Date.now() - 1000);
    expect(backend.acknowledged).toEqual([]);
    expect(pool.counts).toEqual({ done: 0, failed: 0 });
    pool.stop(false);
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    children[1].die(0);
    await run;
  });

  it('beats under its pool id before any child starts and on every maintenance pass, and retires it on stop', async () => {
    const { backend, children, pool } = setup({ processes: 1 }, { poolId: 'p-1', poolTtlMs: 3000 });
    const beats = jest.spyOn(backend, 'beatPool');
    const retire = jest.spyOn(backend, 'retirePool');
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    expect(beats).toHaveBeenCalledWith('p-1', 3000);
    const before = beats.mock.calls.length;
    await waitFor(() => backend.maintenancePasses >= 2, { timeoutMs: 5000, what: 'a second pass' });
    expect(beats.mock.calls.length).toBeGreaterThan(before);
    expect(retire).not.toHaveBeenCalled();
    pool.stop(false);
    children[0].die(0);
    await run;
    expect(retire).toHaveBeenCalledWith('p-1');
  });

  it('after a crash gives back, unfailed and uncounted, tasks leased to the child that it never received', async () => {
    const { backend, children, pool } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    const unreported = runningRecord('unreported', `host:${child.pid}-3`);
    const someoneElses = runningRecord('other', `host:${child.pid + 100}-1`);
    backend.runningSegment.push(unreported, someoneElses);
    child.die(1);

    await waitFor(() => backend.unleased.length === 1, { what: 'the lease given back' });
    expect(backend.unleased[0].map((r) => r.id)).toEqual(['unreported']);
    expect(backend.acknowledged).toEqual([]);
    pool.stop(false);
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    children[1].die(0);
    await run;
  });

  it('after a crash fails unreported leases too when the child said its journal failed', async () => {
    const { backend, children, pool } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    child.tell({ kind: 'journalFailed' });
    const unreported = runningRecord('unreported', `host:${child.pid}-3`);
    backend.runningSegment.push(unreported);
    child.die(1);

    await waitFor(() => backend.acknowledged.length === 1, { what: 'the crash acknowledged' });
    expect(backend.acknowledged[0].map((r) => r.id)).toEqual(['unreported']);
    expect(backend.acknowledged[0][0].errors[0].traceback).toContain('exit code 1');
    expect(backend.unleased).toEqual([]);
    pool.stop(false);
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    children[1].die(0);
    await run;
  });

  it('leaves tasks a child acknowledged before it died as they are', async () => {
    const { backend, children, pool } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    backend.stored.set('done', {
      ...runningRecord('done', `host:${child.pid}-1`),
      status: TaskResultStatus.SUCCESSFUL,
    });
    child.hold(['done']);
    child.die(null, 'SIGKILL');
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    pool.stop(false);
    children[1].die(0);
    await run;
    expect(backend.acknowledged).toEqual([]);
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
    const { backend, children, pool } = setup({ processes: 1 });
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    const held = runningRecord('held', `host:${child.pid}-1`);
    backend.stored.set(held.id, held);
    child.hold(['held']);
    pool.stop(true);
    child.die(null, 'SIGKILL');
    await run;
    expect(backend.released.flat().map((r) => r.id)).toEqual(['held']);
    expect(backend.acknowledged).toEqual([]);
  });

  it('kills a child whose liveness beats stopped and fails its tasks as a crash’s', async () => {
    const { backend, children, pool, logger } = setup(
      { processes: 1, livenessTimeoutMs: 50 },
      { livenessCheckMs: 10 },
    );
    const run = pool.run();
    await waitFor(() => children.length === 1, { what: 'a child' });
    const [child] = children;
    ready(child);
    child.tell({ kind: 'alive', blockingMs: 0 });
    const held = runningRecord('held', `host:${child.pid}-1`);
    backend.stored.set(held.id, held);
    child.hold(['held']);
    // No more beats: the child's event loop is stuck.
    await waitFor(() => backend.acknowledged.length === 1, { what: 'the wedged child recovered' });
    const [failed] = backend.acknowledged[0];
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
