import { setTimeout as delay } from 'node:timers/promises';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { SAME_STOP_WINDOW_MS } from '../../lib/worker/shutdown-signals';
import { waitFor } from '../helpers/wait-for';
import {
  audit,
  auditLine,
  chaosRecord,
  chaosScenario,
  readJournal,
  report,
  settled,
  type ChaosStage,
  type RunningPool,
} from './chaos-harness';
import { decideCancel } from '../../lib/lifecycle/cancel-decision';

// `--prefetch` on real pools (one child of one slot, three tasks leased ahead
// of it): a prefetched task that never started must never be failed, nor run
// twice, whatever ends its wait: a SIGKILL of its child, the first or second
// shutdown signal, a pause of its queue, or its cancel.

const PREFETCH = 3;
/** Long enough that the first task still runs while the test acts on the others. */
const TASK_MS = 1500;

interface Busy {
  ids: string[];
  pool: RunningPool;
  /** The task that runs (its run is in the journal) while the others wait in the child. */
  running: string;
  /** The tasks leased ahead of the slot, never started. */
  waiting: string[];
}

describe('chaos: --prefetch', () => {
  jest.setTimeout(30_000);
  const scenario = chaosScenario();

  /** Enqueues `count` tasks, starts a pool of one slot with --prefetch 3, and waits until it holds 1 + 3. */
  async function busyPool(stage: ChaosStage, count: number, taskMs = TASK_MS): Promise<Busy> {
    const { alias, backend, journal, env } = stage;
    const records = Array.from({ length: count }, () => chaosRecord(alias, journal, taskMs));
    const ids = records.map((r) => r.id);
    await backend.tasks.enqueueMany(records);
    const pool = scenario.startPool(
      ['--alias', alias, '--processes', '1', '--threads', '1', '--prefetch', String(PREFETCH)],
      { ...env, THREADMILL_MAINTENANCE_INTERVAL_MS: '500' },
    );
    await waitFor(
      async () =>
        readJournal(journal).size === 1 &&
        (await backend.reads.telemetry(1000)).queues.default.counts.running === 1 + PREFETCH,
      { timeoutMs: 15_000, intervalMs: 10, what: 'one task running and three prefetched' },
    );
    const [running] = [...readJournal(journal).keys()];
    const leased = await backend.reads.peek('default', 'running', 10);
    const waiting = leased.map((r) => r.id).filter((id) => id !== running);
    return { ids, pool, running, waiting };
  }

  const countsOf = async (stage: ChaosStage) =>
    (await stage.backend.reads.telemetry(1000)).queues.default.counts;

  it('a child killed with SIGKILL fails only the task it ran; what it prefetched runs once, later', async () => {
    const stage = scenario.stage('prefetch-kill');
    const { ids, pool, running, waiting } = await busyPool(stage, 6, 800);
    const [child] = pool.liveChildren();
    process.kill(child, 'SIGKILL');
    expect(await settled(stage.backend, 15_000)).toBe(true);
    const result = await audit(stage.backend, ids, stage.journal);
    report(auditLine('--prefetch 3, SIGKILL of the child', result, `${waiting.length} prefetched`));
    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    // Only the task that ran is failed (WorkerCrashed); every failed task had run.
    expect(result.failed).toEqual({ WorkerCrashed: 1 });
    expect(result.ranThenFailed).toBe(1);
    expect((await stage.backend.tasks.getResult(running)).status).toBe(TaskResultStatus.FAILED);
    expect(result.successful).toBe(ids.length - 1);
    expect(result.duplicates).toEqual([]);
    expect(result.executions).toBe(ids.length);
    // The prefetched ones were given back with no attempt counted: one run each, in the replacement.
    for (const id of waiting) {
      expect(await stage.backend.tasks.getResult(id)).toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
        errors: [],
      });
      expect((await stage.backend.tasks.getResult(id)).workerIds).toHaveLength(1);
    }
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });

  it('children killed with SIGKILL again and again, each holding prefetched tasks, fail only what they ran', async () => {
    const stage = scenario.stage('prefetch-kills');
    const { alias, backend, journal, env } = stage;
    const records = Array.from({ length: 60 }, () => chaosRecord(alias, journal, 100));
    const ids = records.map((r) => r.id);
    await backend.tasks.enqueueMany(records);
    const pool = scenario.startPool(
      ['--alias', alias, '--processes', '1', '--threads', '2', '--prefetch', '2'],
      { ...env, THREADMILL_MAINTENANCE_INTERVAL_MS: '500' },
    );
    const killed: number[] = [];
    for (let kill = 0; kill < 3; kill++) {
      // A ready child that runs two tasks and holds two more it never started.
      const child = await waitFor(
        async () => {
          const [live] = pool.liveChildren().filter((pid) => !killed.includes(pid));
          const { running } = await countsOf(stage);
          return live !== undefined && running === 4 ? live : null;
        },
        { timeoutMs: 15_000, intervalMs: 10, what: `a busy child to kill (${kill + 1})` },
      );
      process.kill(child, 'SIGKILL');
      killed.push(child);
    }
    expect(await settled(backend, 20_000)).toBe(true);
    const result = await audit(backend, ids, journal);
    report(auditLine('--prefetch 2, 3 SIGKILLs of busy children', result, '1 × 2 slots'));
    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    expect(result.duplicates).toEqual([]);
    // Only tasks a slot had started failed, at most the two slots of each killed child: none of
    // those prefetched was failed. A kill can land after the child marked a task started and
    // before the task's first line wrote its run, so such a task fails unseen by the journal:
    // at most one per slot of each kill, and every other task ran exactly once.
    const failed = Object.values(result.failed).reduce((sum, n) => sum + n, 0);
    const failedUnseen = failed - result.ranThenFailed;
    expect(Object.keys(result.failed).filter((reason) => reason !== 'WorkerCrashed')).toEqual([]);
    expect(failed).toBeLessThanOrEqual(3 * 2);
    expect(failedUnseen).toBeGreaterThanOrEqual(0);
    expect(failedUnseen).toBeLessThanOrEqual(2 * killed.length);
    expect(result.successful + failed).toBe(ids.length);
    expect(result.executions).toBe(ids.length - failedUnseen);
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });

  it('drains a backlog of quick tasks with --prefetch 1 at one slot, each run once', async () => {
    const { alias, backend, journal, env } = scenario.stage('prefetch-drain');
    const records = Array.from({ length: 500 }, () => chaosRecord(alias, journal, 0));
    const ids = records.map((r) => r.id);
    await backend.tasks.enqueueMany(records);
    const pool = scenario.startPool(
      ['--alias', alias, '--processes', '1', '--threads', '1', '--prefetch', '1', '--exit-empty'],
      env,
    );
    expect((await pool.exited).code).toBe(0);
    const result = await audit(backend, ids, journal);
    report(auditLine('--prefetch 1, drain at one slot', result, 'exit 0'));
    expect(result.successful).toBe(ids.length);
    expect(result.executions).toBe(ids.length);
    expect(result.duplicates).toEqual([]);
  });

  it('the first shutdown signal gives the prefetched tasks back at once and lets the running one finish', async () => {
    const stage = scenario.stage('prefetch-sigterm');
    const { ids, pool, running, waiting } = await busyPool(stage, 1 + PREFETCH);
    pool.process.kill('SIGTERM');
    // Back before the running task is done: READY, never attempted.
    await waitFor(async () => (await countsOf(stage)).ready === PREFETCH, {
      timeoutMs: TASK_MS,
      intervalMs: 10,
      what: 'the prefetched tasks given back',
    });
    expect((await stage.backend.tasks.getResult(running)).status).toBe(TaskResultStatus.RUNNING);
    expect((await pool.exited).code).toBe(0);
    expect((await stage.backend.tasks.getResult(running)).status).toBe(TaskResultStatus.SUCCESSFUL);
    for (const id of waiting) {
      expect(await stage.backend.tasks.getResult(id)).toMatchObject({
        status: TaskResultStatus.READY,
        workerIds: [],
      });
    }
    // A second pool runs them, once each.
    const second = scenario.startPool(
      ['--alias', stage.alias, '--threads', String(PREFETCH), '--exit-empty'],
      stage.env,
    );
    expect((await second.exited).code).toBe(0);
    const result = await audit(stage.backend, ids, stage.journal);
    report(auditLine('--prefetch 3, SIGTERM', result, 'then a second pool'));
    expect(result.successful).toBe(ids.length);
    expect(result.duplicates).toEqual([]);
    expect(result.executions).toBe(ids.length);
  });

  it('the second shutdown signal releases the running task and gives back the prefetched ones unattempted', async () => {
    const stage = scenario.stage('prefetch-urgent');
    const { pool, running, waiting } = await busyPool(stage, 1 + PREFETCH, 10_000);
    pool.process.kill('SIGTERM');
    await waitFor(async () => (await countsOf(stage)).ready === PREFETCH, {
      timeoutMs: 5_000,
      intervalMs: 10,
      what: 'the prefetched tasks given back',
    });
    // Sooner, a signal would count as the same graceful stop. Counted from what the first one did,
    // which the pool did after it received it: a loaded pool may have received it late.
    await delay(SAME_STOP_WINDOW_MS);
    pool.process.kill('SIGTERM');
    await pool.exited;
    // The released task keeps its interrupted run in its history (it counts); the others have none.
    expect(await stage.backend.tasks.getResult(running)).toMatchObject({
      status: TaskResultStatus.READY,
      errors: [],
    });
    expect((await stage.backend.tasks.getResult(running)).workerIds).toHaveLength(1);
    for (const id of waiting) {
      expect(await stage.backend.tasks.getResult(id)).toMatchObject({
        status: TaskResultStatus.READY,
        workerIds: [],
      });
    }
    expect(await countsOf(stage)).toMatchObject({ running: 0, failed: 0, ready: 1 + PREFETCH });
  });

  it('a pause of the queue gives the prefetched tasks back within about a second, and starts none', async () => {
    const stage = scenario.stage('prefetch-pause');
    const { ids, pool, running, waiting } = await busyPool(stage, 1 + PREFETCH);
    const pausedAt = Date.now();
    await stage.backend.control.pauseQueue('default');
    await waitFor(async () => (await countsOf(stage)).ready === PREFETCH, {
      timeoutMs: 3_000,
      intervalMs: 10,
      what: 'the prefetched tasks given back',
    });
    expect(Date.now() - pausedAt).toBeLessThan(1_500);
    // The running one finishes; nothing else starts while paused.
    await waitFor(
      async () =>
        (await stage.backend.tasks.getResult(running)).status === TaskResultStatus.SUCCESSFUL,
      { timeoutMs: 5_000, what: 'the running task done' },
    );
    expect(readJournal(stage.journal).size).toBe(1);
    expect(await countsOf(stage)).toMatchObject({ running: 0, ready: PREFETCH });
    for (const id of waiting) {
      expect((await stage.backend.tasks.getResult(id)).workerIds).toEqual([]);
    }
    await stage.backend.control.resumeQueue('default');
    expect(await settled(stage.backend, 15_000)).toBe(true);
    const result = await audit(stage.backend, ids, stage.journal);
    report(auditLine('--prefetch 3, pause', result, 'resumed'));
    expect(result.successful).toBe(ids.length);
    expect(result.executions).toBe(ids.length);
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });

  it('a prefetched task whose cancel is requested ends CANCELLED without running', async () => {
    const stage = scenario.stage('prefetch-cancel');
    const { ids, pool, waiting } = await busyPool(stage, 1 + PREFETCH);
    const [cancelled] = waiting;
    await expect(stage.backend.control.cancel(cancelled, decideCancel)).resolves.toMatchObject({
      outcome: 'requested',
    });
    await waitFor(
      async () =>
        (await stage.backend.tasks.getResult(cancelled)).status === TaskResultStatus.CANCELLED,
      { timeoutMs: 3_000, what: 'the prefetched task cancelled' },
    );
    expect(await settled(stage.backend, 15_000)).toBe(true);
    expect(readJournal(stage.journal).has(cancelled)).toBe(false);
    // The audit of the others: each ran once.
    const others = ids.filter((id) => id !== cancelled);
    const result = await audit(stage.backend, others, stage.journal);
    report(auditLine('--prefetch 3, cancel', result, '1 more, prefetched, CANCELLED unrun'));
    expect(result.successful).toBe(others.length);
    expect(result.stuck).toEqual([]);
    expect(result.executions).toBe(others.length);
    expect(result.duplicates).toEqual([]);
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });
});
