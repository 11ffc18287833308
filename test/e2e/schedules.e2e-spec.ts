import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { cliStage, STAGE_STORES } from '../helpers/cli-stage';
import { waitFor } from '../helpers/wait-for';

// `threadmill schedules` on the real CLI against the run's Redis or Postgres: what each
// subcommand prints where and exits with, and a real pool ticking a schedule added by it.

describe.each(STAGE_STORES)('threadmill schedules (e2e on %s)', (store) => {
  jest.setTimeout(120_000);
  const stage = cliStage(undefined, store);

  /** Runs one command to its end on the alias of the test. */
  const run = (args: readonly string[]) => stage.command(args);

  it('adds, lists, runs and removes a schedule', async () => {
    const added = await run([
      'schedules',
      'add',
      'nightly',
      'sample.echo',
      '--cron',
      '30 2 * * *',
      '--timezone',
      'Europe/Berlin',
      '--args',
      '["night"]',
    ]);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^nightly\t\d{4}-\d\d-\d\dT\d\d:30:00\.000Z\n$/);

    const listed = await run(['schedules', 'list']);
    expect(listed.code).toBe(0);
    const [header, line, ...rest] = listed.stdout.trim().split('\n');
    expect(header.split('\t')[0]).toBe('id');
    expect(rest).toEqual([]);
    expect(line.split('\t').slice(0, 4)).toEqual([
      'nightly',
      'sample.echo',
      '30 2 * * * (Europe/Berlin)',
      'active, runtime',
    ]);

    const ran = await run(['schedules', 'run', 'nightly']);
    expect(ran.code).toBe(0);
    const id = ran.stdout.trim();
    expect(id).toMatch(/^schedule:nightly:run:/);
    const result = await run(['result', id]);
    expect(JSON.parse(result.stdout)).toMatchObject({ id, args: ['night'], status: 'READY' });

    await expect(run(['schedules', 'remove', 'nightly'])).resolves.toMatchObject({
      code: 0,
      stdout: 'nightly\n',
    });
    const again = await run(['schedules', 'remove', 'nightly']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/No schedule "nightly" is stored/);
  });

  it.each([
    [
      ['schedules', 'add', 'bad', 'sample.echo', '--cron', '61 * * * *'],
      /cron "61 \* \* \* \*" is invalid/,
    ],
    [
      ['schedules', 'add', 'bad', 'sample.echo', '--every', '1000', '--cron', '* * * * *'],
      /exactly one of --cron/,
    ],
    [['schedules', 'add', 'bad', 'sample.echo'], /exactly one of --cron/],
    [
      ['schedules', 'add', 'bad', 'no.such.task', '--every', '1000'],
      /no @Task named "no.such.task"/,
    ],
    [['schedules', 'add', 'bad', 'sample.echo', '--every', '10'], /--every/],
    [
      ['schedules', 'add', 'bad', 'sample.echo', '--cron', '0 3 * * *', '--timezone', 'Mars/Base'],
      /time zone "Mars\/Base" is unknown/,
    ],
    [['schedules'], /list, add, remove, run/],
  ])('exits 2 with a message that says what to change: %j', async (args, message) => {
    const outcome = await run(args);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).toMatch(message);
  });

  it('exits 1 for a schedule run that no schedule has', async () => {
    const outcome = await run(['schedules', 'run', 'nope']);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toMatch(/No schedule "nope" is stored/);
  });

  it("a pool's maintenance passes enqueue the ticks, which its children run", async () => {
    await expect(
      run(['schedules', 'add', 'fast', 'sample.echo', '--every', '1000', '--args', '[1]']),
    ).resolves.toMatchObject({ code: 0 });
    stage.start(['worker', '--processes', '1']);
    // Read from the store first: polling through the CLI boots a process each time.
    await waitFor(
      async () => {
        const tick = (await stage.backend.schedules.getSchedule('fast'))?.lastTick;
        if (!tick) return false;
        return (
          (await stage.backend.tasks.getResult(tick.taskId)).status === TaskResultStatus.SUCCESSFUL
        );
      },
      { timeoutMs: 90_000, intervalMs: 100, what: 'a tick of "fast" run to success in the store' },
    );
    let line: string[] = [];
    await waitFor(
      async () => {
        const listed = await run(['schedules', 'list']);
        line = listed.stdout.trim().split('\n')[1]?.split('\t') ?? [];
        return line[7] === 'SUCCESSFUL';
      },
      { timeoutMs: 90_000, intervalMs: 200, what: 'a tick of "fast" run to success' },
    );
    expect(line[6]).toMatch(/^schedule:fast:\d+000$/);
    const result = JSON.parse((await run(['result', line[6]])).stdout) as { returnValue: unknown };
    expect(result.returnValue).toEqual([1]);
  });
});
