import { cancelledRecord } from '../../../lib/lifecycle/cancelled-record';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { countsOf, readyTask } from '../../helpers/memory-backend';
import { waitFor } from '../../helpers/wait-for';
import { timeoutGraceMs } from '../../../lib/worker/child/overrun-watch';
import { setupChild } from './worker-child.setup';
import { decideCancel } from '../../../lib/lifecycle/cancel-decision';

const POOL = 'pool-1';

/** A child of POOL that polls its cancel requests every 20 ms; its tasks end CANCELLED on their cancel. */
function setupCancellingChild(requestTtlMs = 60_000) {
  const setup = setupChild(
    { threads: 1 },
    { poolId: POOL, cancelPoll: { everyMs: 20, requestTtlMs, freshMs: 1_000 } },
  );
  const aborted: string[] = [];
  const runTask = setup.deps.runTask;
  // As TaskRunner does: an attempt whose cancel is requested ends CANCELLED.
  setup.deps.runTask = (record, cancel) =>
    new Promise<TaskRecord>((resolve, reject) => {
      cancel.listen(() => {
        aborted.push(record.id);
        resolve(cancelledRecord(record, new Date()));
      });
      runTask(record, cancel).then(resolve, reject);
    });
  return { ...setup, aborted };
}

describe('WorkerChild cancel requests', () => {
  it("aborts a running task's signal on its pool's request, stores it CANCELLED and takes the next task", async () => {
    const { backend, runs, child, aborted, spies } = setupCancellingChild();
    await backend.pools.beat(POOL, 60_000);
    // Retries left: a CANCELLED attempt must still never be retried.
    const a = readyTask('a');
    await backend.tasks.enqueueMany([{ ...a, task: { ...a.task, retries: 3 } }, readyTask('b')]);
    const done = child.run();
    await waitFor(() => runs.length === 1, { what: 'the first run' });
    await expect(backend.control.cancel('a', decideCancel)).resolves.toMatchObject({
      outcome: 'requested',
    });
    await waitFor(() => runs.length === 2, { what: 'the next task in the freed slot' });
    expect(aborted).toEqual(['a']);
    await expect(backend.tasks.getResult('a')).resolves.toMatchObject({
      status: TaskResultStatus.CANCELLED,
    });
    // Handled requests are removed.
    await waitFor(async () => (await backend.control.cancelRequests(POOL)).length === 0, {
      what: 'the request dropped',
    });
    expect(spies.acknowledge.mock.calls.flat(2).map((r) => r.status)).not.toContain(
      TaskResultStatus.READY,
    );
    runs[1].succeed();
    await waitFor(async () => (await countsOf(backend)).successful === 1, { what: 'b stored' });
    expect(await countsOf(backend)).toMatchObject({ cancelled: 1, successful: 1, ready: 0 });
    child.stop(false);
    await expect(done).resolves.toBe('stopped');
  });

  it('does not stop a task it does not hold, and drops the request once stale', async () => {
    const { backend, runs, child } = setupCancellingChild(50);
    await backend.pools.beat(POOL, 60_000);
    await backend.pools.beat('other', 60_000);
    await backend.tasks.enqueueMany([readyTask('held-elsewhere'), readyTask('mine')]);
    // Another child of the same pool holds the first task.
    await backend.leases.acquire(['default'], { workerId: 'h:1-1', timeoutMs: 0, poolId: POOL });
    await backend.control.cancel('held-elsewhere', decideCancel);
    const done = child.run();
    await waitFor(() => runs.length === 1, { what: 'a run' });
    // Not this child's to stop: left alone, and dropped once older than the bound.
    await waitFor(async () => (await backend.control.cancelRequests(POOL)).length === 0, {
      what: 'the stale request dropped',
    });
    await expect(backend.tasks.getResult('held-elsewhere')).resolves.toMatchObject({
      status: TaskResultStatus.RUNNING,
    });
    runs[0].succeed();
    child.stop(false);
    await done;
  });

  it('asks the pool for a hard stop when a cancelled task declaring one still runs after its grace', async () => {
    const { backend, runs, child, deps, messages } = setupChild(
      { threads: 2 },
      { poolId: POOL, cancelPoll: { everyMs: 20, requestTtlMs: 60_000, freshMs: 1_000 } },
    );
    // Both tasks ignore their signal; only 'stubborn' declares a hard stop.
    deps.hardStopAfterMs = (name) => (name === 'stubborn' ? 30 : undefined);
    await backend.pools.beat(POOL, 60_000);
    await backend.tasks.enqueueMany([readyTask('a', { name: 'stubborn' }), readyTask('b')]);
    const done = child.run();
    await waitFor(() => runs.length === 2, { what: 'two runs' });
    await backend.control.cancel('a', decideCancel);
    await backend.control.cancel('b', decideCancel);
    await waitFor(() => messages.some((m) => m.kind === 'hardStop'), { what: 'a hard stop' });
    expect(messages.filter((m) => m.kind === 'hardStop')).toEqual([
      { kind: 'hardStop', id: 'a', reason: 'cancel' },
    ]);
    runs.forEach((run) => run.succeed());
    child.stop(false);
    await done;
  });

  it('asks the pool to stop it for a task that runs past its timeoutMs and the grace after it, not for one that ended', async () => {
    const { backend, runs, child, messages } = setupChild({ threads: 2 });
    const limited = (id: string) => {
      const task = readyTask(id);
      return { ...task, task: { ...task.task, timeoutMs: 20 } };
    };
    await backend.tasks.enqueueMany([limited('hangs'), limited('ends')]);
    const done = child.run();
    await waitFor(() => runs.length === 2, { what: 'two runs' });
    runs.find((run) => run.record.id === 'ends')!.succeed();
    await waitFor(() => messages.some((m) => m.kind === 'hardStop'), {
      what: 'a hard stop',
      timeoutMs: 20 + timeoutGraceMs(20) + 2_000,
    });
    expect(messages.filter((m) => m.kind === 'hardStop')).toEqual([
      { kind: 'hardStop', id: 'hangs', reason: 'timeout' },
    ]);
    runs.forEach((run) => run.succeed());
    child.stop(false);
    await done;
  });
});
