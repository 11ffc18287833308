import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { HeldJournal } from '../../../lib/worker/held-journal';
import { countsOf, enqueueReady, idsOf, recordsOf } from '../../helpers/memory-backend';
import { waitFor } from '../../helpers/wait-for';
import { acquireOptions, ids, reported, setupChild } from './worker-child.setup';
import { runMaintenancePass } from '../../../lib/lifecycle/maintenance-pass';

describe('WorkerChild', () => {
  it('asks one acquire for as many tasks as it has free slots, and runs them together', async () => {
    const { backend, spies, runs, child } = setupChild({ threads: 3 });
    await enqueueReady(backend, 'a', 'b', 'c', 'd');
    const done = child.run();
    await waitFor(() => runs.length === 3, { what: 'three runs' });
    expect(acquireOptions(spies.acquire)[0].max).toBe(3);
    expect(ids(runs.map((r) => r.record))).toEqual(['a', 'b', 'c']);
    child.stop(false);
    runs.forEach((run) => run.succeed());
    await expect(done).resolves.toBe('stopped');
  });

  it('acknowledges tasks that finish together in one call, and tells the parent', async () => {
    const { backend, spies, runs, messages, child, journal } = setupChild({ threads: 3 });
    await enqueueReady(backend, 'a', 'b', 'c');
    const done = child.run();
    await waitFor(() => runs.length === 3, { what: 'three runs' });
    runs.forEach((run) => run.succeed());
    await waitFor(() => spies.acknowledge.mock.calls.length === 1, { what: 'an acknowledge' });
    expect(ids(spies.acknowledge.mock.calls[0][0])).toEqual(['a', 'b', 'c']);
    child.stop(false);
    await done;
    expect(spies.acknowledge).toHaveBeenCalledTimes(1);
    expect(await countsOf(backend)).toMatchObject({ running: 0, successful: 3 });
    expect(reported(messages)).toEqual({ succeeded: 3, failed: 0 });
    expect(journal.held()).toEqual([]);
  });

  it('journals what an acquire leased, and takes out what the same call stored', async () => {
    const { backend, runs, messages, child, journal } = setupChild({ threads: 1 });
    await enqueueReady(backend, 'a', 'b');
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
    const { backend, spies, runs, child, deps } = setupChild(
      { threads: 1 },
      {
        journalIn: (dir) => {
          const blocker = join(dir, 'a-file');
          writeFileSync(blocker, '');
          return new HeldJournal(join(blocker, 'child.held'));
        },
      },
    );
    const errors = jest.spyOn(deps.logger, 'error');
    await enqueueReady(backend, 'a', 'b');
    const done = child.run();
    await waitFor(() => runs.length === 1, { what: 'the first run' });
    runs[0].succeed();
    await waitFor(() => runs.length === 2, { what: 'the second run' });
    child.stop(false);
    runs[1].succeed();
    await expect(done).resolves.toBe('stopped');
    expect(idsOf(spies.acknowledge)).toEqual(['a', 'b']);
    const said = errors.mock.calls.map(([message]) => String(message));
    expect(said.filter((message) => message.includes('journal of held tasks'))).toHaveLength(1);
  });

  it('has the ids of a batch in its journal before any of them starts', async () => {
    const { backend, runs, child, deps, journal } = setupChild({ threads: 2 });
    const heldAtStart: string[][] = [];
    const runTask = deps.runTask;
    deps.runTask = (record, cancel) => {
      heldAtStart.push(journal.held());
      return runTask(record, cancel);
    };
    await enqueueReady(backend, 'a', 'b');
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
    const { backend, spies, runs, child } = setupChild({ threads: 3 });
    await enqueueReady(backend, 'a', 'b', 'c');
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
    // The stored results name the slot too, not the one id the batch was leased under.
    expect(recordsOf(spies.acknowledge).map((r) => r.workerIds)).toEqual([
      ['host:42-1'],
      ['host:42-2'],
      ['host:42-3'],
    ]);
    expect((await backend.tasks.getResult('c')).workerIds).toEqual(['host:42-3']);
  });

  it('records a rejected run as FAILED with the thrown value, and goes on', async () => {
    const { backend, spies, runs, child } = setupChild({ threads: 1, exitEmpty: true });
    await enqueueReady(backend, 'a', 'b');
    const done = child.run();
    await waitFor(() => runs.length === 1, { what: 'first run' });
    runs[0].fail('not an Error');
    await waitFor(() => runs.length === 2, { what: 'second run' });
    runs[1].succeed();
    await expect(done).resolves.toBe('drained');
    const stored = recordsOf(spies.acknowledge);
    expect(stored.map((r) => [r.id, r.status])).toEqual([
      ['a', TaskResultStatus.FAILED],
      ['b', TaskResultStatus.SUCCESSFUL],
    ]);
    expect(stored[0].errors[0].traceback).toContain('not an Error');
    const failed = await backend.tasks.getResult('a');
    expect(failed.status).toBe(TaskResultStatus.FAILED);
    expect(failed.errors[0].traceback).toContain('not an Error');
  });

  it('recycles itself after max-tasks plus its jitter, acquiring no more than that', async () => {
    // random() = 0.99 with jitter 2 draws the full jitter: 3 + 2 = 5 tasks.
    const { backend, spies, runs, child } = setupChild(
      { threads: 4, maxTasks: 3, maxTasksJitter: 2 },
      { random: 0.99 },
    );
    await enqueueReady(backend, ...Array.from({ length: 9 }, (_, i) => `t${i}`));
    expect(child.remainingBudget).toBe(5);
    const done = child.run();
    await waitFor(() => runs.length === 4, { what: 'four runs' });
    runs.forEach((run) => run.succeed());
    await waitFor(() => runs.length === 5, { what: 'the fifth run' });
    expect(acquireOptions(spies.acquire)[1].max).toBe(1);
    runs[4].succeed();
    await expect(done).resolves.toBe('recycled');
    expect(await countsOf(backend)).toMatchObject({ ready: 4, running: 0, successful: 5 });
    expect(recordsOf(spies.acknowledge)).toHaveLength(5);
  });

  it('with --exit-empty, asks without waiting and reports drained once nothing runs', async () => {
    const { spies, child } = setupChild({ exitEmpty: true });
    await expect(child.run()).resolves.toBe('drained');
    expect(acquireOptions(spies.acquire).map((c) => c.timeoutMs)).toEqual([0]);
  });

  it('on a graceful stop, aborts the idle acquire and finishes what it holds', async () => {
    const { backend, spies, runs, child } = setupChild({ threads: 2 });
    await enqueueReady(backend, 'a');
    const done = child.run();
    await waitFor(() => runs.length === 1 && spies.acquire.mock.calls.length === 2, {
      what: 'a run and a blocking acquire',
    });
    child.stop(false);
    expect(acquireOptions(spies.acquire)[1].signal?.aborted).toBe(true);
    // The real acquire was waiting for work: the abort, not its minute-long timeout, ends it.
    await expect(spies.acquire.mock.results[1].value).resolves.toEqual([]);
    let settled = false;
    void done.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    runs[0].succeed();
    await expect(done).resolves.toBe('stopped');
    expect(idsOf(spies.acknowledge)).toEqual(['a']);
    expect(spies.release).not.toHaveBeenCalled();
    expect((await backend.tasks.getResult('a')).status).toBe(TaskResultStatus.SUCCESSFUL);
  });

  it('on an urgent stop, releases unfinished tasks and never stores their late results', async () => {
    const { backend, spies, runs, child, journal } = setupChild({ threads: 2 });
    await enqueueReady(backend, 'a', 'b');
    const done = child.run();
    await waitFor(() => runs.length === 2, { what: 'two runs' });
    runs[0].succeed();
    await waitFor(() => spies.acknowledge.mock.calls.length === 1, { what: 'first acknowledge' });
    child.stop(false);
    child.stop(true);
    await expect(done).resolves.toBe('stopped');
    expect(idsOf(spies.release)).toEqual(['b']);
    expect(journal.held()).toEqual([]);
    runs[1].succeed();
    await new Promise((resolve) => setImmediate(resolve));
    expect(idsOf(spies.acknowledge)).toEqual(['a']);
    // Back in its queue for another run, not stored with the result that came too late.
    expect((await backend.tasks.getResult('b')).status).toBe(TaskResultStatus.READY);
    expect(await countsOf(backend)).toMatchObject({ ready: 1, running: 0, successful: 1 });
  });

  it('frees the slot of a task that never settles once its lease was reaped', async () => {
    // Leases that lapse at once: the maintenance pass the test runs reaps what is running then.
    const { backend, spies, runs, child, journal } = setupChild(
      { threads: 1 },
      { leaseCheckMs: 20, backend: { leaseTtl: 1 } },
    );
    await enqueueReady(backend, 'hung', 'next');
    const done = child.run();
    await waitFor(() => runs.length === 1, { what: 'the first run' });
    // While the store has it RUNNING under this lease, its slot stays taken.
    await waitFor(() => spies.getResult.mock.calls.length >= 2, { what: 'two lease checks' });
    expect(runs).toHaveLength(1);
    expect((await runMaintenancePass(backend)).reaped).toBe(1);
    await waitFor(() => runs.length === 2, { what: 'the next task in the freed slot' });
    expect(runs[1].record.id).toBe('next');
    expect(journal.held()).toEqual(['next']);
    child.stop(false);
    runs[1].succeed();
    await expect(done).resolves.toBe('stopped');
    // Its late result is dropped, never acknowledged over the reaper's FAILED.
    runs[0].succeed();
    await new Promise((resolve) => setImmediate(resolve));
    expect(idsOf(spies.acknowledge)).toEqual(['next']);
    const reaped = await backend.tasks.getResult('hung');
    expect(reaped.status).toBe(TaskResultStatus.FAILED);
    expect(reaped.errors.map((e) => e.className)).toEqual(['AcknowledgementTimeout']);
  });
});
