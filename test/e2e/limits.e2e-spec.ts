import { RedisKeys } from '../../lib/backends/redis/redis-keys';
import type { TaskBackend } from '../../lib/core/task-backend.interface';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { type RunningCli } from '../helpers/cli-process';
import { cliStage, STAGE_STORES } from '../helpers/cli-stage';
import { readyRecord } from '../helpers/ready-record';
import { waitFor } from '../helpers/wait-for';

// A queue's limits across 3 real pools of 8 slots each, on the run's real
// Redis or Postgres. Every test has its own backend alias (and schema), so its own keys.

const POOLS = 3;
/**
 * How early a start may look: none on either store, since every pool's rate
 * window is kept on the store's one clock (Redis's, or Postgres's
 * clock_timestamp() under the queue's limit lock), and a start is dated on it.
 */
const CLOCK_ERROR_MS = { redis: 0, postgres: 0 };
/** Samples of the running tasks a run must take to mean anything: a Postgres read costs more than a ZCARD. */
const MIN_SAMPLES = { redis: 100, postgres: 50 };

describe.each(STAGE_STORES)('queue limits (e2e: 3 real pools on %s)', (store) => {
  jest.setTimeout(120_000);
  const stage = cliStage(undefined, store);
  let alias: string;
  let backend: TaskBackend;

  beforeEach(() => {
    ({ alias, backend } = stage);
  });

  /** How many tasks of `queue` hold a lease now: Redis's running set, or the rows Postgres leased. */
  const runningOf = async (queue: string): Promise<number> =>
    store === 'redis'
      ? stage.redis.zcard(new RedisKeys(alias).running(queue))
      : (await backend.reads.peek(queue, 'running', 100)).length;

  /** A pool of one child with 8 slots, resolved once its child is ready. */
  async function startPool(): Promise<RunningCli> {
    const pool = stage.start(['worker', '--alias', alias, '--processes', '1', '--threads', '8']);
    await waitFor(() => pool.liveChildren().length === 1, {
      timeoutMs: 60_000,
      what: 'the pool child to be ready',
    });
    return pool;
  }

  const sleeps = (count: number, ms: number): TaskRecord[] =>
    Array.from({ length: count }, () =>
      readyRecord(alias, { name: 'sample.sleep', args: [ms], queue: 'emails' }),
    );

  const allDone = async (records: readonly TaskRecord[]): Promise<TaskRecord[] | null> => {
    const results = await Promise.all(records.map((r) => backend.tasks.getResult(r.id)));
    return results.every((r) => r.status === TaskResultStatus.SUCCESSFUL) ? results : null;
  };

  it('concurrency 5 over 24 slots: never more than 5 running, and 5 at a time', async () => {
    await backend.control.setQueueLimits('emails', { concurrency: 5 });
    await Promise.all(Array.from({ length: POOLS }, () => startPool()));
    // 40 ms each, 5 at a time: at least 1.6 s of run, long enough for the samples below on a busy machine.
    const tasks = sleeps(200, 40);
    await backend.tasks.enqueueMany(tasks);
    // The running set, sampled throughout the run: every lease enters it, every end leaves it.
    const samples: number[] = [];
    let done: TaskRecord[] | null = null;
    const started = Date.now();
    while (done === null && Date.now() - started < 20_000) {
      samples.push(await runningOf('emails'));
      if (samples.length % 20 === 0) done = await allDone(tasks);
    }
    done ??= await allDone(tasks);
    expect(done).not.toBeNull();
    expect(Math.max(...samples)).toBe(5);
    expect(samples.length).toBeGreaterThan(MIN_SAMPLES[store]);
  });

  it('rate 50/s over 24 slots: at most 50 starts in any 1 s, at least 45/s while there is backlog', async () => {
    await backend.control.setQueueLimits('emails', { rateLimit: { max: 50, perMs: 1000 } });
    await Promise.all(Array.from({ length: POOLS }, () => startPool()));
    // 150 tasks: about 3 s of backlog at 50 a second.
    const tasks = sleeps(150, 1);
    await backend.tasks.enqueueMany(tasks);
    let done: TaskRecord[] | null = null;
    await waitFor(async () => (done = await allDone(tasks)) !== null, {
      timeoutMs: 15_000,
      intervalMs: 100,
      what: 'the rate-limited queue to drain',
    });
    // startedAt is the store's time at the lease, the clock the window is kept on.
    const starts = done!.map((r) => r.startedAt!.getTime()).sort((a, b) => a - b);
    for (let i = 0; i + 50 < starts.length; i++) {
      expect(starts[i + 50] - starts[i]).toBeGreaterThanOrEqual(1000 - CLOCK_ERROR_MS[store]);
    }
    // Each whole second from the first start while the backlog lasted admitted nearly 50.
    const first = starts[0];
    for (const second of [0, 1]) {
      const inSecond = starts.filter(
        (t) => t >= first + second * 1000 && t < first + (second + 1) * 1000,
      ).length;
      expect(inSecond).toBeGreaterThanOrEqual(45);
    }
  });
});
