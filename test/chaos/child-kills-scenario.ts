import type { TaskBackend } from '../../lib/core/task-backend.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { waitFor } from '../helpers/wait-for';
import { audit, auditLine, chaosRecord, report, settledAt } from './chaos-harness';
import type { StoreStage } from './store-stage';

// kill -9 of a random worker child every 200 ms while short tasks run, on a
// store this test started, through the real CLI. The crashed children's
// tasks must be failed at once by their own pool (WorkerCrashed), never lost
// or left RUNNING, nothing may run twice, and the whole run must settle
// within 3 s of the last kill. On Postgres a kill also cuts the child's
// connections mid-transaction: the server rolls back what was under way.

/** How big a run is: a store whose round trips cost more runs a smaller one. */
export interface ChildKillsSize {
  readonly tasks: number;
  readonly processes: number;
  /** Kills stop after this long even if work is left, so the test stays bounded. */
  readonly killWindowMs: number;
  /** After the kill window, how long the backlog may take to drain before the last kill. */
  readonly drainLimitMs: number;
  /** Fewest kills a run must have survived to count. */
  readonly minKills: number;
}

// 50 ms tasks at 8 slots per child: about 4 s of work for the pool, so the kills
// every 200 ms land on children with tasks in flight.
const TASK_MS = 50;
const THREADS = 8;
export const KILL_EVERY_MS = 200;
/** How often the backlog is read (so the moment for the last kill is not missed). */
const POLL_MS = 25;
/** The target: every task settled within 3 s of the last kill (and each kill's tasks too). */
export const SETTLE_TARGET_MS = 3000;

/** The pid part of a `host:pid-slot` worker id. */
const pidOf = (workerId: string): number => Number(/:(\d+)-\d+$/.exec(workerId)?.[1]);

/** Resolves with how long after `killedAt` every one of `ids` was no longer RUNNING. */
async function recoveredAfter(
  backend: Pick<TaskBackend, 'tasks'>,
  ids: readonly string[],
  killedAt: number,
): Promise<number> {
  await waitFor(
    async () => {
      const records = await Promise.all(ids.map((id) => backend.tasks.getResult(id)));
      return records.every((r) => r.status !== TaskResultStatus.RUNNING);
    },
    { timeoutMs: 60_000, intervalMs: 25, what: `the ${ids.length} tasks of a killed child` },
  );
  return Date.now() - killedAt;
}

/** How long the idle pool may take to stop after SIGTERM. */
const STOP_LIMIT_MS = 20_000;
/** The test's own bounds end to end: boot, kill window, drain, settling, then the audit and stop. */
export const childKillsTimeoutMs = ({ killWindowMs, drainLimitMs }: ChildKillsSize): number =>
  30_000 + killWindowMs + drainLimitMs + 30_000 + 30_000 + STOP_LIMIT_MS;

/** Runs the scenario, sized by `size`, on `stage` and asserts what it must hold. */
export async function runChildKills(stage: StoreStage, size: ChildKillsSize): Promise<void> {
  /**
   * The last kill comes once the ready backlog is down to one round of the
   * pool's slots, with tasks in flight: what follows it is then recovery, not
   * a backlog left by the end of the kill window still draining.
   */
  const lastKillBacklog = size.processes * THREADS;
  const testStartedAt = Date.now();
  const elapsed = (): string => `${((Date.now() - testStartedAt) / 1000).toFixed(1)} s`;
  const { alias, backend, journal, env } = stage;
  const records = Array.from({ length: size.tasks }, () => chaosRecord(alias, journal, TASK_MS));
  await backend.tasks.enqueueMany(records);
  const ids = records.map((r) => r.id);

  const pool = stage.startPool(
    ['--alias', alias, '--processes', String(size.processes), '--threads', String(THREADS)],
    { ...env, THREADMILL_MAINTENANCE_INTERVAL_MS: '500' },
  );
  await waitFor(() => pool.liveChildren().length > 0, {
    timeoutMs: 30_000,
    what: 'a ready child',
  });

  // Kill a random ready child every 200 ms while tasks wait (for at most the window;
  // a killed child's replacement boots the whole app, so some ticks find none ready).
  // Whatever backlog the window leaves drains without kills; then the last kill, of
  // a child holding tasks, comes when only about one round of work is left.
  const kills: { pid: number; at: number; held: number }[] = [];
  const recoveries: Promise<number>[] = [];
  /** Kills a random ready child (one holding tasks, with `holding`); false when there was none. */
  const killOne = async (holding = false): Promise<boolean> => {
    // What each child holds right now: a victim's must be FAILED at once after the kill.
    const running = await backend.reads.peek('default', 'running', 200);
    const heldBy = (pid: number): string[] =>
      running
        .filter((r) => pidOf(r.workerIds[r.workerIds.length - 1] ?? '') === pid)
        .map((r) => r.id);
    const candidates = pool
      .liveChildren()
      .filter(
        (pid) => !kills.some((kill) => kill.pid === pid) && (!holding || heldBy(pid).length > 0),
      );
    if (candidates.length === 0) return false;
    const victim = candidates[Math.floor(Math.random() * candidates.length)];
    const held = heldBy(victim);
    try {
      process.kill(victim, 'SIGKILL');
    } catch {
      return false; // It exited on its own between the log line and the kill.
    }
    const killedAt = Date.now();
    kills.push({ pid: victim, at: killedAt, held: held.length });
    recoveries.push(recoveredAfter(backend, held, killedAt));
    return true;
  };
  const windowEnd = Date.now() + size.killWindowMs;
  const drainEnd = windowEnd + size.drainLimitMs;
  let nextKillAt = Date.now();
  let backlogAtWindowEnd: number | null = null;
  let finalKill = false;
  for (;;) {
    const { counts } = (await backend.reads.telemetry(1000)).queues.default;
    const now = Date.now();
    if (now >= windowEnd) backlogAtWindowEnd ??= counts.ready;
    if (counts.ready <= lastKillBacklog) {
      finalKill = await killOne(true);
      // Done once the last kill landed, or when nothing is left to interrupt.
      if (finalKill || (counts.ready === 0 && counts.running === 0)) break;
    } else if (now > drainEnd) {
      break;
    } else if (now < windowEnd && now >= nextKillAt) {
      await killOne();
      nextKillAt = now + KILL_EVERY_MS;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }

  const settledAtMs = await settledAt(backend, 30_000);
  const last = kills.at(-1);
  const settleMs = settledAtMs === null || last === undefined ? null : settledAtMs - last.at;
  const recoveryMs = await Promise.all(recoveries);
  const slowestRecoveryMs = Math.max(0, ...recoveryMs);
  const result = await audit(backend, ids, journal);
  const lastFinalMs =
    result.lastFinishedAt === null || last === undefined ? null : result.lastFinishedAt - last.at;
  report(
    auditLine(
      `${stage.store}: kill -9 a child every 200 ms`,
      result,
      `${kills.length} kills survived (` +
        (backlogAtWindowEnd === null
          ? 'the backlog ran out within the kill window'
          : `${backlogAtWindowEnd} tasks still ready when the ${size.killWindowMs / 1000} s kill window closed`) +
        `); a killed child's tasks were final within ` +
        `${slowestRecoveryMs} ms (slowest of ${recoveryMs.length}); the last kill interrupted ` +
        `${last?.held ?? 0} tasks, and every task was settled ${settleMs} ms after it ` +
        `(the last one final at ${lastFinalMs} ms); audited ${elapsed()} into the test`,
    ),
  );

  if (settledAtMs === null || result.stuck.length > 0) report(pool.output().slice(-4000));
  expect(result.lost).toEqual([]);
  expect(result.stuck).toEqual([]);
  expect(result.successWithoutRun).toEqual([]);
  // Only ready children are killed, and each replacement boots the whole app
  // (seconds on 2 busy cores), so the kill count depends on the machine.
  expect(kills.length).toBeGreaterThanOrEqual(size.minKills);
  // Every task is SUCCESSFUL or failed by a crash; nothing else went wrong.
  expect(Object.keys(result.failed).filter((reason) => reason !== 'WorkerCrashed')).toEqual([]);
  expect(result.successful + (result.failed.WorkerCrashed ?? 0)).toBe(size.tasks);
  // Without retries a task runs at most once.
  expect(result.duplicates).toEqual([]);
  // The last kill landed on a child holding tasks, once the backlog was down to one round.
  expect(finalKill).toBe(true);
  // The target: the whole run settled within 3 s of the last kill...
  expect(settleMs).not.toBeNull();
  expect(settleMs!).toBeLessThan(SETTLE_TARGET_MS);
  // ...and the interrupted tasks of every kill were final within it too.
  expect(slowestRecoveryMs).toBeLessThan(SETTLE_TARGET_MS);

  // The pool itself survived every kill and still stops cleanly (promptly: it is idle).
  pool.process.kill('SIGTERM');
  const stopped = await Promise.race([
    pool.exited,
    new Promise<null>((resolve) => setTimeout(resolve, STOP_LIMIT_MS, null)),
  ]);
  if (stopped === null)
    report(
      `pool still running ${STOP_LIMIT_MS} ms after SIGTERM (${elapsed()} into the test):\n${pool.output().slice(-6000)}`,
    );
  expect(stopped?.code).toBe(0);
}
