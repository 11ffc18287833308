import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import type { RunningCli } from '../helpers/cli-process';
import { cliStage, STAGE_STORES } from '../helpers/cli-stage';
import { readyRecord } from '../helpers/ready-record';
import { waitFor } from '../helpers/wait-for';

// Pausing a queue for every pool at once, on the real CLI, real pools and the
// run's real Redis or Postgres. Every test has its own backend alias (and schema), so its own keys.

const POOLS = 3;
/**
 * How long a paused queue is watched for a task that starts, across the 3
 * pools and a restart of one: 10 s, in which the 12 idle slots ask for work
 * many times over (a task leased in spite of the pause would start within
 * milliseconds).
 */
const WATCH_MS = 10_000;

describe.each(STAGE_STORES)('pausing a queue (e2e: 3 real pools on %s)', (store) => {
  jest.setTimeout(120_000);
  const stage = cliStage(undefined, store);

  /** A small pool (one child of 4 slots), resolved once its child is ready. */
  async function startPool(): Promise<RunningCli> {
    const pool = stage.start([
      'worker',
      '--alias',
      stage.alias,
      '--processes',
      '1',
      '--threads',
      '4',
    ]);
    await waitFor(() => pool.liveChildren().length === 1, {
      timeoutMs: 60_000,
      what: 'the pool child to be ready',
    });
    return pool;
  }

  const results = (records: readonly TaskRecord[]): Promise<TaskRecord[]> =>
    Promise.all(records.map((r) => stage.backend.tasks.getResult(r.id)));

  const sleeps = (count: number, queue: string, ms: number): TaskRecord[] =>
    Array.from({ length: count }, () =>
      readyRecord(stage.alias, { name: 'sample.sleep', args: [ms], queue }),
    );

  it('no pool starts a task of a paused queue, even after a restart, and resume drains it', async () => {
    const pools = await Promise.all(Array.from({ length: POOLS }, () => startPool()));

    // Tasks flowing on all 12 slots, then the pause: those running finish, no other starts.
    const emails = sleeps(120, 'emails', 100);
    await stage.backend.tasks.enqueueMany(emails);
    await waitFor(
      async () =>
        (await results(emails)).filter((r) => r.status !== TaskResultStatus.READY).length >= 12,
      { what: 'the pools to be busy with the queue' },
    );
    await stage.backend.control.pauseQueue('emails');
    const pausedAt = Date.now();

    // The other queue is served meanwhile.
    const others = sleeps(8, 'default', 10);
    await stage.backend.tasks.enqueueMany(others);
    await waitFor(
      async () => (await results(others)).every((r) => r.status === TaskResultStatus.SUCCESSFUL),
      { what: 'the tasks of the queue that is not paused' },
    );

    // A pool restarted while the queue is paused keeps to the pause.
    pools[0].process.kill('SIGTERM');
    await expect(pools[0].exited).resolves.toMatchObject({ code: 0 });
    const restarted = await startPool();
    expect(restarted.output()).toContain(`Queue "emails" of backend "${stage.alias}" is paused`);
    // The restarted pool is watched a second at least, its slots idle and asking.
    const watchEnd = Math.max(pausedAt + WATCH_MS, Date.now() + 1000);
    await waitFor(() => Date.now() >= watchEnd, {
      timeoutMs: WATCH_MS + 1000,
      intervalMs: 100,
      what: 'the watch to end',
    });
    const watched = await results(emails);
    const started = watched.filter((r) => r.startedAt !== null);
    // Leased before the pause was stored (the store's clock and ours are this host's).
    const lateStarts = started.filter((r) => r.startedAt!.getTime() > pausedAt);
    expect(lateStarts.map((r) => r.startedAt)).toEqual([]);
    expect(started.length).toBeLessThan(emails.length);
    // Those running at the pause finished; the others wait.
    expect(watched.filter((r) => r.status === TaskResultStatus.RUNNING)).toEqual([]);

    const listed = await stage.command(['queues', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ queue: 'default', state: { paused: false, limits: null } }),
      expect.objectContaining({ queue: 'emails', state: { paused: true, limits: null } }),
    ]);
    await expect(stage.command(['queues', 'resume', 'emails'])).resolves.toMatchObject({ code: 0 });
    await waitFor(
      async () => (await results(emails)).every((r) => r.status === TaskResultStatus.SUCCESSFUL),
      { timeoutMs: 30_000, intervalMs: 100, what: 'the resumed queue to drain' },
    );
  });
});
