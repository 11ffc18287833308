import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import {
  acknowledgeSucceeded,
  batchesOf,
  countsOf,
  idsOf,
  leaseTo,
  readyTask,
  recordsOf,
} from '../../helpers/memory-backend';
import { waitFor } from '../../helpers/wait-for';
import { oneReadyChild, recovered, slotOf, withRetries } from './worker-pool.setup';

describe('WorkerPool', () => {
  it('fails the tasks a crashed child held with WorkerCrashed, and replaces it at once', async () => {
    const { backend, spies, children, pool, child, crashHolding, stopReplaced } =
      await oneReadyChild();
    await crashHolding(readyTask('held'));
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
    await stopReplaced();
  });

  it('counts what a child reports, and fails only what its journal still holds', async () => {
    const { backend, spies, children, pool, logger, child, stopReplaced } = await oneReadyChild();
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
    await stopReplaced();
  });

  it('sends a crashed child’s task with attempts left back for a retry instead of failing it', async () => {
    const { backend, spies, pool, crashHolding, stopReplaced } = await oneReadyChild();
    await crashHolding(withRetries(readyTask('held'), 2));
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
    await stopReplaced();
  });

  it('after a crash gives back, unfailed and uncounted, tasks leased to the child that it never received', async () => {
    const { backend, spies, pool, logger, child, stopReplaced } = await oneReadyChild();
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
    await stopReplaced();
  });

  it('after a crash fails unreported leases too when the child said its journal failed', async () => {
    const { backend, spies, logger, child, stopReplaced } = await oneReadyChild();
    child.tell({ kind: 'journalFailed' });
    await leaseTo(backend, slotOf(child, 3), readyTask('unreported'));
    child.die(1);

    await recovered(logger, child);
    expect(batchesOf(spies.acknowledge)).toEqual([['unreported']]);
    expect(recordsOf(spies.acknowledge)[0].errors[0].traceback).toContain('exit code 1');
    expect(spies.unlease).not.toHaveBeenCalled();
    expect((await backend.tasks.getResult('unreported')).status).toBe(TaskResultStatus.FAILED);
    await stopReplaced();
  });

  it('after a crash gives back, unfailed and uncounted, the prefetched tasks its journal says never started', async () => {
    const { backend, spies, pool, logger, child, stopReplaced } = await oneReadyChild();
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
    await stopReplaced();
  });

  it('gives back the never-started tasks of a child that exited holding them (a give-back that failed)', async () => {
    const { backend, spies, pool, logger, child, run } = await oneReadyChild();
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
    const { backend, spies, logger, child, stopReplaced } = await oneReadyChild();
    await leaseTo(backend, slotOf(child), readyTask('waiting'));
    child.hold([], ['waiting']);
    // A failed journal may have lost the line that said it started.
    child.tell({ kind: 'journalFailed' });
    child.die(1);

    await recovered(logger, child);
    expect(idsOf(spies.acknowledge)).toEqual(['waiting']);
    expect(spies.unlease).not.toHaveBeenCalled();
    await stopReplaced();
  });

  it('leaves a prefetched task alone once another worker leased it again', async () => {
    const { backend, spies, children, child, stopReplaced } = await oneReadyChild();
    const [leased] = await leaseTo(backend, slotOf(child), readyTask('waiting'));
    child.hold([], ['waiting']);
    // Given back, then leased by another process, before the child died.
    await backend.leases.unlease([leased]);
    const other = 'host:1-1';
    await backend.leases.acquire(['default'], { workerId: other, timeoutMs: 0 });
    child.die(null, 'SIGKILL');

    await waitFor(() => children.length === 2, { what: 'a replacement' });
    // The pool ends only after every recovery it started.
    await stopReplaced();
    expect(spies.unlease).toHaveBeenCalledTimes(1);
    expect(spies.acknowledge).not.toHaveBeenCalled();
    expect(await backend.tasks.getResult('waiting')).toMatchObject({
      status: TaskResultStatus.RUNNING,
      workerIds: [other],
    });
  });

  it('leaves tasks a child acknowledged before it died as they are', async () => {
    const { backend, spies, children, child, stopReplaced } = await oneReadyChild();
    const [leased] = await leaseTo(backend, slotOf(child), readyTask('done'));
    child.hold(['done']);
    // The child stored it, and died before it took it out of its journal.
    await acknowledgeSucceeded(backend, leased);
    const stored = await backend.tasks.getResult('done');
    child.die(null, 'SIGKILL');
    await waitFor(() => children.length === 2, { what: 'a replacement' });
    await stopReplaced();
    // The child's own acknowledgement only: the pool stored nothing over it.
    expect(batchesOf(spies.acknowledge)).toEqual([['done']]);
    expect(spies.retry).not.toHaveBeenCalled();
    expect(spies.release).not.toHaveBeenCalled();
    expect(await backend.tasks.getResult('done')).toEqual(stored);
  });

  it('during an urgent stop releases a dying child’s tasks instead of failing them', async () => {
    const { backend, spies, pool, child, run } = await oneReadyChild();
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

  it('kills a child whose liveness beats stopped and fails its tasks as a crash’s', async () => {
    const { backend, spies, children, logger, child, stopReplaced } = await oneReadyChild(
      { livenessTimeoutMs: 50 },
      { livenessCheckMs: 10 },
    );
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
    await stopReplaced();
  });
});
