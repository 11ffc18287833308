import { ExitCode } from '../../lib/core/exit-code';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { cliStage, STAGE_STORES } from '../helpers/cli-stage';
import { waitFor } from '../helpers/wait-for';
import { decideCancel } from '../../lib/lifecycle/cancel-decision';

// `threadmill enqueue --wait` on the real CLI, a real pool and Redis or Postgres: the
// final result printed as JSON, and one exit code per outcome of the table.

describe.each(STAGE_STORES)('enqueue --wait (e2e: real CLI, pool and %s)', (store) => {
  jest.setTimeout(90_000);
  const stage = cliStage(undefined, store);

  const startPool = () =>
    stage.start(['worker', '--alias', stage.alias, '--processes', '1', '--threads', '2']);

  const printed = (stdout: string): TaskRecord => JSON.parse(stdout) as TaskRecord;

  it('exits 0 with the SUCCESSFUL result as JSON, soon after the task finished', async () => {
    startPool();
    const outcome = await stage.command([
      'enqueue',
      'sample.sleep',
      '--args',
      '[1500]',
      '--wait',
      '--timeout',
      '60000',
    ]);
    const exitedAt = Date.now();
    expect(outcome.code).toBe(ExitCode.Success);
    const result = printed(outcome.stdout);
    expect(result).toMatchObject({ status: TaskResultStatus.SUCCESSFUL, returnValue: 1500 });
    // Not a timing benchmark (bench/ measures the latency): a bound no poller
    // with a seconds-long interval and no missed event could meet.
    expect(exitedAt - new Date(result.finishedAt!).getTime()).toBeLessThan(5_000);
  });

  it('exits 3 with the FAILED result, its error included', async () => {
    startPool();
    const outcome = await stage.command(['enqueue', 'sample.fail', '--args', '["boom"]', '--wait']);
    expect(outcome.code).toBe(ExitCode.TaskFailed);
    const result = printed(outcome.stdout);
    expect(result.status).toBe(TaskResultStatus.FAILED);
    expect(result.errors.at(-1)?.traceback).toContain('boom');
  });

  it('exits 4 when the running task is cancelled', async () => {
    startPool();
    const waiting = stage.command(['enqueue', 'sample.sleep', '--args', '[60000]', '--wait']);
    const running = await waitFor(
      async () => (await stage.backend.reads.peek('default', 'running', 1))[0],
      { timeoutMs: 30_000, what: 'the sleep running' },
    );
    await stage.backend.control.cancel(running.id, decideCancel);
    const outcome = await waiting;
    expect(outcome.code).toBe(ExitCode.TaskCancelled);
    expect(printed(outcome.stdout)).toMatchObject({
      id: running.id,
      status: TaskResultStatus.CANCELLED,
    });
  });

  it('exits 5 after --timeout, printing the task as it stands and saying what to do', async () => {
    startPool();
    const outcome = await stage.command([
      'enqueue',
      'sample.sleep',
      '--args',
      '[60000]',
      '--wait',
      '--timeout',
      '300',
    ]);
    expect(outcome.code).toBe(ExitCode.WaitTimedOut);
    expect([TaskResultStatus.READY, TaskResultStatus.RUNNING]).toContain(
      printed(outcome.stdout).status,
    );
    expect(outcome.stderr).toMatch(/error: Task "sample\.sleep" .* after 300 ms of waiting/);
    expect(outcome.stderr).toContain('Wait longer');
  });

  it('refuses --timeout without --wait, and --wait with --count, as usage errors', async () => {
    await expect(
      stage.command(['enqueue', 'sample.echo', '--timeout', '10']),
    ).resolves.toMatchObject({
      code: ExitCode.Usage,
      stderr: expect.stringContaining('--timeout bounds --wait') as unknown,
    });
    await expect(
      stage.command(['enqueue', 'sample.echo', '--wait', '--count', '2']),
    ).resolves.toMatchObject({ code: ExitCode.Usage });
    await expect(stage.backend.reads.peek('default', 'ready', 10)).resolves.toEqual([]);
  });
});
