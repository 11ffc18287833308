import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { cliStage, STAGE_STORES } from '../helpers/cli-stage';
import { readyRecord } from '../helpers/ready-record';
import { waitFor } from '../helpers/wait-for';
import { decideCancel } from '../../lib/lifecycle/cancel-decision';

// Task progress on the real CLI and a real pool: what a task in a pool child
// reports through its context is read back by getResult while it runs, and
// kept with its outcome; on Redis and on Postgres.

describe.each(STAGE_STORES)('task progress (e2e: real CLI and pool on %s)', (store) => {
  jest.setTimeout(60_000);
  const stage = cliStage(undefined, store);

  it("shows a pool child's progress through getResult while the task runs, and keeps the last value with its outcome", async () => {
    const task = readyRecord(stage.alias, { name: 'fixture.progress', args: [30] });
    await stage.backend.tasks.enqueue(task);
    expect((await stage.backend.tasks.getResult(task.id)).progress).toBeUndefined();
    stage.start(['worker', '--alias', stage.alias, '--processes', '1', '--threads', '1']);
    const midway = await waitFor(
      async () => {
        const record = await stage.backend.tasks.getResult(task.id);
        return record.progress === undefined ? null : record;
      },
      { timeoutMs: 30_000, what: 'the first progress stored' },
    );
    expect(midway.status).toBe(TaskResultStatus.RUNNING);
    expect(midway.progress).toMatchObject({ of: 30 });
    const last = await waitFor(
      async () => {
        const record = await stage.backend.tasks.getResult(task.id);
        return (record.progress as { done?: number } | undefined)?.done === 30 ? record : null;
      },
      { timeoutMs: 10_000, what: 'the last progress stored' },
    );
    expect(last.status).toBe(TaskResultStatus.RUNNING);

    await stage.backend.control.cancel(task.id, decideCancel);
    const cancelled = await waitFor(
      async () => {
        const record = await stage.backend.tasks.getResult(task.id);
        return record.status === TaskResultStatus.CANCELLED ? record : null;
      },
      { timeoutMs: 10_000, what: 'the task CANCELLED' },
    );
    expect(cancelled.progress).toEqual({ done: 30, of: 30 });
  });
});
