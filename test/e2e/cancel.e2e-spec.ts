import { randomUUID } from 'node:crypto';

import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { untilOutput } from '../helpers/cli-process';
import { cliStage, STAGE_STORES } from '../helpers/cli-stage';
import { readyRecord } from '../helpers/ready-record';
import { waitFor } from '../helpers/wait-for';
import { decideCancel } from '../../lib/lifecycle/cancel-decision';

// Cancelling on the real CLI and a real pool: a running task's signal aborted
// by the pool that holds it, a waiting task that never runs, and the
// `cancel` command's output and exit codes.

describe.each(STAGE_STORES)('cancelling tasks (e2e: real CLI and pool on %s)', (store) => {
  jest.setTimeout(60_000);
  const stage = cliStage(undefined, store);

  const statusOf = async (id: string): Promise<TaskResultStatus> =>
    (await stage.backend.tasks.getResult(id)).status;

  it('stops a running 60 s sample.sleep within 2 s, CANCELLED, and its slot takes the next task', async () => {
    const sleeper = readyRecord(stage.alias, { name: 'sample.sleep', args: [60_000] });
    const next = readyRecord(stage.alias, { name: 'sample.echo', args: ['next'] });
    await stage.backend.tasks.enqueueMany([sleeper, next]);
    stage.start(['worker', '--alias', stage.alias, '--processes', '1', '--threads', '1']);
    await waitFor(async () => (await statusOf(sleeper.id)) === TaskResultStatus.RUNNING, {
      timeoutMs: 30_000,
      what: 'the sleep running',
    });
    expect(await statusOf(next.id)).toBe(TaskResultStatus.READY);

    const asked = Date.now();
    await expect(stage.backend.control.cancel(sleeper.id, decideCancel)).resolves.toMatchObject({
      outcome: 'requested',
    });
    const cancelled = await waitFor(
      async () => {
        const record = await stage.backend.tasks.getResult(sleeper.id);
        return record.status === TaskResultStatus.CANCELLED ? record : null;
      },
      { timeoutMs: 2_000, intervalMs: 25, what: 'the sleep CANCELLED' },
    );
    expect(Date.now() - asked).toBeLessThan(2_000);
    expect(cancelled.errors.at(-1)?.className).toBe('TaskCancelledError');
    expect(cancelled.workerIds).toHaveLength(1);
    const done: TaskRecord = await waitFor(
      async () => {
        const record = await stage.backend.tasks.getResult(next.id);
        return record.status === TaskResultStatus.SUCCESSFUL ? record : null;
      },
      { timeoutMs: 10_000, what: 'the next task done in the freed slot' },
    );
    expect(done.returnValue).toEqual(['next']);
    // The request was handled, so it was removed.
    await waitFor(async () => (await stage.pendingCancels()) === 0, {
      what: 'the request removed',
    });
  });

  it('hard-stops a task that ignores its signal: its child is replaced, the others it held are released', async () => {
    const stubborn = readyRecord(stage.alias, { name: 'fixture.ignoresCancel' });
    const neighbour = readyRecord(stage.alias, { name: 'sample.sleep', args: [1_500] });
    await stage.backend.tasks.enqueueMany([stubborn, neighbour]);
    const pool = stage.start([
      'worker',
      '--alias',
      stage.alias,
      '--processes',
      '1',
      '--threads',
      '2',
    ]);
    // Started, not only leased: a task cancelled before its handler runs is never hard-stopped.
    await waitFor(
      async () =>
        (await stage.backend.tasks.getResult(stubborn.id)).progress !== undefined &&
        (await statusOf(neighbour.id)) === TaskResultStatus.RUNNING,
      { timeoutMs: 30_000, what: 'both tasks running in one child, the stubborn one started' },
    );
    await stage.backend.control.cancel(stubborn.id, decideCancel);
    const cancelled = await waitFor(
      async () => {
        const record = await stage.backend.tasks.getResult(stubborn.id);
        return record.status === TaskResultStatus.CANCELLED ? record : null;
      },
      { timeoutMs: 10_000, what: 'the stubborn task CANCELLED' },
    );
    expect(cancelled.workerIds).toHaveLength(1);
    // The pool logs the hard stop as it kills the child, which may be just after the record settles.
    await untilOutput(pool, new RegExp(`still runs cancelled task ${stubborn.id}`));
    // Released, not failed: it runs again in the new child, with no error recorded.
    const again = await waitFor(
      async () => {
        const record = await stage.backend.tasks.getResult(neighbour.id);
        return record.status === TaskResultStatus.SUCCESSFUL ? record : null;
      },
      { timeoutMs: 30_000, what: 'the neighbour done in the replacement child' },
    );
    expect(again.errors).toEqual([]);
    expect(new Set(again.workerIds.map((w) => /:(\d+)-\d+$/.exec(w)?.[1])).size).toBe(2);
  });

  it('cancel <id> of a waiting task prints "cancelled", and no worker ever runs it', async () => {
    const waiting = readyRecord(stage.alias, { name: 'sample.echo', args: [1] });
    const other = readyRecord(stage.alias, { name: 'sample.echo', args: [2] });
    await stage.backend.tasks.enqueueMany([waiting, other]);

    const cancelled = await stage.command(['cancel', waiting.id]);
    expect(cancelled.code).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({
      outcome: 'cancelled',
      result: { id: waiting.id, status: 'CANCELLED' },
    });

    const pool = stage.start(['worker', '--alias', stage.alias, '--exit-empty']);
    await expect(pool.exited).resolves.toMatchObject({ code: 0 });
    await expect(stage.backend.tasks.getResult(other.id)).resolves.toMatchObject({
      status: TaskResultStatus.SUCCESSFUL,
    });
    await expect(stage.backend.tasks.getResult(waiting.id)).resolves.toMatchObject({
      status: TaskResultStatus.CANCELLED,
      workerIds: [],
    });

    const again = await stage.command(['cancel', waiting.id]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ outcome: 'already-final' });
  });

  it('cancel <id> of an unknown id exits 1 and prints nothing on stdout', async () => {
    const outcome = await stage.command(['cancel', randomUUID()]);
    expect(outcome).toMatchObject({ code: 1, stdout: '' });
  });
});
