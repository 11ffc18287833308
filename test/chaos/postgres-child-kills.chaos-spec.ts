import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { waitFor } from '../helpers/wait-for';
import { audit, auditLine, chaosRecord, report, settledAt } from './chaos-harness';
import { postgresChaosScenario } from './postgres-chaos-harness';

// kill -9 of a random worker child every 200 ms while short tasks run on a
// Postgres cluster this test started, through the real CLI (the sample on
// DATABASE_URL). As on Redis, a crashed child's tasks must be failed at once
// by its own pool (WorkerCrashed), never lost or left RUNNING, nothing may
// run twice, and the run must settle within 3 s of the last kill. A kill
// cuts the child's connections mid-transaction: the server rolls back what
// was under way, and the pool's own connections carry on.

const TASKS = 1000;
const TASK_MS = 50;
const PROCESSES = 2;
const THREADS = 8;
const KILL_EVERY_MS = 200;
/** Kills stop after this long even if work is left, so the test stays bounded. */
const KILL_WINDOW_MS = 12_000;
/** After the kill window, how long the backlog may take to drain before the last kill. */
const DRAIN_LIMIT_MS = 20_000;
/** The last kill comes once the ready backlog is down to one round of the pool's slots. */
const LAST_KILL_BACKLOG = PROCESSES * THREADS;
const POLL_MS = 25;
const MIN_KILLS = 3;
const SETTLE_TARGET_MS = 3000;

/** The pid part of a `host:pid-slot` worker id. */
const pidOf = (workerId: string): number => Number(/:(\d+)-\d+$/.exec(workerId)?.[1]);

describe('chaos: kill -9 of worker children, on Postgres', () => {
  jest.setTimeout(120_000);
  const scenario = postgresChaosScenario();

  it(`loses nothing, runs nothing twice and settles within ${SETTLE_TARGET_MS / 1000} s of the last kill while a child is killed every ${KILL_EVERY_MS} ms`, async () => {
    const { alias, backend, journal, env } = await scenario.stage('child-kills');
    const records = Array.from({ length: TASKS }, () => chaosRecord(alias, journal, TASK_MS));
    await backend.tasks.enqueueMany(records);
    const ids = records.map((r) => r.id);
    const pool = scenario.startPool(
      ['--alias', alias, '--processes', String(PROCESSES), '--threads', String(THREADS)],
      { ...env, THREADMILL_MAINTENANCE_INTERVAL_MS: '500' },
    );
    await waitFor(() => pool.liveChildren().length > 0, {
      timeoutMs: 30_000,
      what: 'a ready child',
    });

    const kills: { pid: number; at: number; held: string[] }[] = [];
    const killOne = async (holding = false): Promise<boolean> => {
      const running = await backend.reads.peek('default', 'running', 200);
      const heldBy = (pid: number): string[] =>
        running
          .filter((r) => pidOf(r.workerIds[r.workerIds.length - 1] ?? '') === pid)
          .map((r) => r.id);
      const candidates = pool
        .liveChildren()
        .filter((pid) => !kills.some((k) => k.pid === pid) && (!holding || heldBy(pid).length > 0));
      if (candidates.length === 0) return false;
      const victim = candidates[Math.floor(Math.random() * candidates.length)];
      try {
        process.kill(victim, 'SIGKILL');
      } catch {
        return false; // It exited on its own between the log line and the kill.
      }
      kills.push({ pid: victim, at: Date.now(), held: heldBy(victim) });
      return true;
    };
    const windowEnd = Date.now() + KILL_WINDOW_MS;
    const drainEnd = windowEnd + DRAIN_LIMIT_MS;
    let nextKillAt = Date.now();
    let finalKill = false;
    for (;;) {
      const { counts } = (await backend.reads.telemetry(1000)).queues.default;
      const now = Date.now();
      if (counts.ready <= LAST_KILL_BACKLOG) {
        finalKill = await killOne(true);
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
    const lastHeld = await Promise.all((last?.held ?? []).map((id) => backend.tasks.getResult(id)));
    const result = await audit(backend, ids, journal);
    report(
      auditLine(
        'Postgres: kill -9 a child every 200 ms',
        result,
        `${kills.length} kills survived; the last kill interrupted ${last?.held.length ?? 0} ` +
          `tasks, and every task was settled ${settleMs} ms after it`,
      ),
    );
    if (settledAtMs === null || result.stuck.length > 0) report(pool.output().slice(-4000));

    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    expect(result.successWithoutRun).toEqual([]);
    expect(kills.length).toBeGreaterThanOrEqual(MIN_KILLS);
    expect(Object.keys(result.failed).filter((reason) => reason !== 'WorkerCrashed')).toEqual([]);
    expect(result.successful + (result.failed.WorkerCrashed ?? 0)).toBe(TASKS);
    expect(result.duplicates).toEqual([]);
    expect(finalKill).toBe(true);
    // What the last victim held (some may have finished between the read and the kill) is
    // final, failed by its own pool, not left to a lease or a heartbeat.
    expect(lastHeld.filter((r) => r.status === TaskResultStatus.RUNNING)).toEqual([]);
    expect(settleMs).not.toBeNull();
    expect(settleMs!).toBeLessThan(SETTLE_TARGET_MS);
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });
});
