import { Redis } from 'ioredis';
import { StoreFullError } from '../../lib/core/errors/store-full.error';
import { TaskResultDoesNotExist } from '../../lib/core/errors/task-result-does-not-exist.error';
import type { FinishedTask } from '../../lib/core/finished-task-feed';
import type { LiveTaskEvent } from '../../lib/core/live-task-feed';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import {
  audit,
  auditLine,
  chaosRecord,
  chaosScenario,
  cliEnqueue,
  report,
  settledAt,
  type ChaosStage,
} from './chaos-harness';
import type { RunningCli } from '../helpers/cli-process';

// Redis filled to its maxmemory (noeviction) by waiting tasks, and left full:
// nobody raises the limit or deletes anything. Enqueues must stay refused
// (StoreFullError), but a pool must still lease, store outcomes, retry, beat
// and be told of progress refused, or the waiting tasks hold the memory for
// good and the drain that would free it never starts.

const MAXMEMORY = ['--maxmemory', '6mb', '--maxmemory-policy', 'noeviction'];
const PROCESSES = 2;
const THREADS = 8;
/** Enqueued in slices of this many until one is refused; then one by one to the limit. */
const SLICE = 250;
const REFUSALS = 20;
/** Tasks among the waiting ones that fail once and run again after a backoff (retry, promote). */
const FLAKY_TASKS = 20;
const BACKOFF_MS = 200;
/** Tasks that report progress while they run: their writes are refused on the full store. */
const PROGRESS_TASKS = 16;
const PROGRESS_STEPS = 3;
const PROGRESS_STEP_MS = 400;
/** The drain's time bound: a few thousand short tasks on 16 slots take seconds. */
const DRAIN_WITHIN_MS = 90_000;

/** Used bytes and the limit of a Redis, from INFO memory. */
async function memory(admin: Redis): Promise<{ used: number; limit: number }> {
  const info = await admin.info('memory');
  const read = (field: string) => Number(new RegExp(`${field}:(\\d+)`).exec(info)?.[1] ?? 0);
  return { used: read('used_memory'), limit: read('maxmemory') };
}

/** A READY record of a named chaos task with its own arguments. */
function taskRecord(
  stage: ChaosStage,
  name: string,
  args: unknown[],
  task: Partial<TaskRecord['task']> = {},
): TaskRecord {
  const base = chaosRecord(stage.alias, stage.journal, 0);
  return { ...base, task: { ...base.task, name, ...task }, args };
}

/** Enqueues waiting tasks until the store refuses them: what it took, and what refused it. */
async function fill(stage: ChaosStage): Promise<{ acknowledged: string[]; refusals: string[] }> {
  const acknowledged: string[] = [];
  const refusals: string[] = [];
  let slice = SLICE;
  while (refusals.length < REFUSALS) {
    const records = Array.from({ length: slice }, () => chaosRecord(stage.alias, stage.journal, 0));
    try {
      await stage.backend.tasks.enqueueMany(records);
      acknowledged.push(...records.map((record) => record.id));
    } catch (error) {
      // All or none: a refused slice stored nothing; then closer to the limit, one at a time.
      if (slice > 1) slice = 1;
      else refusals.push((error as Error).name);
    }
  }
  return { acknowledged, refusals };
}

describe('chaos: Redis at `maxmemory` (`noeviction`), filled by waiting tasks and left full', () => {
  jest.setTimeout(240_000);
  const scenario = chaosScenario(MAXMEMORY);
  const clis: RunningCli[] = [];
  afterAll(async () => {
    for (const cli of clis.splice(0)) await cli.killGroup();
  });

  it('drains to empty: every acknowledged task runs to SUCCESSFUL, enqueues stay refused, in bounded time', async () => {
    const stage = scenario.stage('full-drain', { maintenanceInterval: 500 });
    const { backend, journal } = stage;
    const admin = new Redis(scenario.server().url);
    const unsubscribe: (() => Promise<void>)[] = [];
    try {
      // First in line: tasks that retry after a backoff and tasks that report progress.
      const flaky = Array.from({ length: FLAKY_TASKS }, () =>
        taskRecord(stage, 'chaos.flaky', [`${journal}.flaky`], {
          retries: 1,
          backoff: { type: 'fixed', delayMs: BACKOFF_MS, jitter: false },
        }),
      );
      const progressing = Array.from({ length: PROGRESS_TASKS }, () =>
        taskRecord(stage, 'chaos.progress', [journal, PROGRESS_STEPS, PROGRESS_STEP_MS]),
      );
      await backend.tasks.enqueueMany([...flaky, ...progressing]);
      const { acknowledged, refusals } = await fill(stage);
      const full = await memory(admin);
      const plain = acknowledged.length;
      expect(refusals).toEqual(Array.from({ length: REFUSALS }, () => StoreFullError.name));
      // At its limit: what Redis counts moves by a few hundred bytes as its buffers come and go.
      expect(full.used).toBeGreaterThan(full.limit * 0.99);
      // The command line says the same, as a failure (exit 1), not a usage error (exit 2). The
      // limit goes just under what is used for it, so a buffer freed meanwhile cannot make room.
      await admin.config('SET', 'maxmemory', String(full.used - 64 * 1024));
      const cli = await cliEnqueue(stage, clis);
      await admin.config('SET', 'maxmemory', String(full.limit));
      expect(cli.code).toBe(1);
      expect(cli.output).toMatch(/StoreFullError|is full and refused/);

      // Someone listens to both feeds: their publishing runs inside the scripts that drain.
      const finished = new Set<string>();
      const started = new Set<string>();
      unsubscribe.push(
        await backend.feeds.subscribeFinished((tasks: readonly FinishedTask[]) => {
          for (const task of tasks) finished.add(task.id);
        }),
        await backend.feeds.subscribeLive((events: readonly LiveTaskEvent[]) => {
          for (const event of events) if (event.event === 'started') started.add(event.id);
        }),
      );

      const startedAt = Date.now();
      const pool = scenario.startPool(
        ['--alias', stage.alias, '--processes', String(PROCESSES), '--threads', String(THREADS)],
        { ...stage.env, THREADMILL_MAINTENANCE_INTERVAL_MS: '500', THREADMILL_LOG_LEVEL: 'log' },
      );
      const drainedAt = await settledAt(backend, DRAIN_WITHIN_MS);
      const drained = await memory(admin);
      const ids = [...acknowledged, ...progressing.map((record) => record.id)];
      const result = await audit(backend, ids, journal);
      const output = pool.output();
      report(
        auditLine(
          'Redis at maxmemory 6mb (noeviction), filled by waiting tasks and left full',
          result,
          `${plain} waiting tasks (+${FLAKY_TASKS} flaky, +${PROGRESS_TASKS} with progress) took ` +
            `${(full.used / 1024 / 1024).toFixed(2)} MB of ${(full.limit / 1024 / 1024).toFixed(0)} MB; ` +
            `drained in ${drainedAt === null ? 'never' : `${drainedAt - startedAt} ms`}, after which ` +
            `Redis used ${(drained.used / 1024 / 1024).toFixed(2)} MB (results kept resultTtl); ` +
            `${finished.size} finishes and ${started.size} starts heard on the feeds`,
        ),
      );
      if (drainedAt === null || result.stuck.length > 0) report(output.slice(-4000));

      expect(drainedAt).not.toBeNull();
      expect(result.lost).toEqual([]);
      expect(result.stuck).toEqual([]);
      expect(result.duplicates).toEqual([]);
      expect(result.successWithoutRun).toEqual([]);
      expect(result.successful).toBe(ids.length);
      // Each flaky task failed once and ran again: the retry and its promotion went on too.
      for (const record of flaky) {
        await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
          status: TaskResultStatus.SUCCESSFUL,
          returnValue: 2,
        });
      }
      // Progress the full store refused failed nothing; the outcome carries the last value.
      for (const record of progressing) {
        await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
          status: TaskResultStatus.SUCCESSFUL,
          progress: PROGRESS_STEPS,
        });
      }
      expect(output).toMatch(
        /Progress of task "chaos\.progress" .* was not stored: .* is full and refused storeProgress\.lua/,
      );
      // Nothing else the pool writes failed: its beats, passes and their heartbeat went on.
      expect(output).not.toMatch(/PoolHeartbeatLapsed/);
      expect(output.split('\n').filter((line) => /\bERROR\b/.test(line))).toEqual([]);
      // Everyone listening was told.
      expect(ids.filter((id) => !finished.has(id))).toEqual([]);
      expect(started.size).toBeGreaterThan(0);
      // Still full (results are kept): new work is still refused, and nothing of it stored.
      const late = chaosRecord(stage.alias, journal, 0);
      await expect(backend.tasks.enqueue(late)).rejects.toThrow(StoreFullError);
      await expect(backend.tasks.getResult(late.id)).rejects.toThrow(TaskResultDoesNotExist);
      pool.process.kill('SIGTERM');
      expect((await pool.exited).code).toBe(0);
    } finally {
      for (const stop of unsubscribe) await stop();
      await admin.quit();
    }
  });
});
