import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { DEFAULT_HEARTBEAT_TOLERANCE_MS } from '../../lib/worker/worker.constants';
import { waitFor } from '../helpers/wait-for';
import { audit, auditLine, chaosRecord, report, settledAt } from './chaos-harness';
import type { StoreStage } from './store-stage';

// kill -9 of a whole pool (main process and children, one process group)
// mid-run, with the default heartbeat tolerance: the store is left with
// RUNNING tasks whose leases last an hour. Nobody is left to fail them; a
// second pool started afterwards must recover them (dead-pool recovery:
// WorkerLost) once the dead pool's heartbeat lapses, not after leaseTtl, and
// finish the rest: every task settled within the tolerance plus 5 s of the kill.

const TASK_MS = 50;
const PROCESSES = 2;
const THREADS = 8;
/**
 * The pool is killed busy (tasks in flight) once the ready backlog is down to
 * four rounds of its slots: what follows the kill is then recovery, not a
 * backlog draining through 16 slots. Four rounds (about 200 ms of work) leave
 * the check time to see that moment when the machine is loaded; one round
 * could pass between two looks.
 */
const KILL_BACKLOG = 4 * PROCESSES * THREADS;
/** The target: every task settled within the heartbeat tolerance plus 5 s of the kill. */
export const SETTLE_TARGET_MS = DEFAULT_HEARTBEAT_TOLERANCE_MS + 5000;

/** Runs the scenario with `tasks` tasks on `stage` and asserts what it must hold. */
export async function runPoolKill(stage: StoreStage, tasks: number): Promise<void> {
  const { alias, backend, journal } = stage;
  const records = Array.from({ length: tasks }, () => chaosRecord(alias, journal, TASK_MS));
  const ids = records.map((r) => r.id);
  await backend.tasks.enqueueMany(records);
  const env = { ...stage.env, THREADMILL_MAINTENANCE_INTERVAL_MS: '500' };
  const args = ['--alias', alias, '--processes', String(PROCESSES), '--threads', String(THREADS)];

  const first = stage.startPool(args, env);
  const atKill = await waitFor(
    async () => {
      const { counts } = (await backend.reads.telemetry(1000)).queues.default;
      return counts.ready <= KILL_BACKLOG && counts.running >= THREADS ? counts : null;
    },
    { timeoutMs: 60_000, intervalMs: 10, what: 'a busy pool near the end of its backlog' },
  );
  const held = (await backend.reads.peek('default', 'running', 1000)).map((r) => r.id);
  const killedAt = Date.now();
  await first.killGroup();

  const second = stage.startPool(args, env);
  await waitFor(
    async () => {
      const now = await Promise.all(held.map((id) => backend.tasks.getResult(id)));
      return now.every((r) => r.status !== TaskResultStatus.RUNNING);
    },
    { timeoutMs: 60_000, intervalMs: 25, what: "the dead pool's tasks to be recovered" },
  );
  const recoveredMs = Date.now() - killedAt;
  const settledAtMs = await settledAt(backend, 60_000);
  const settleMs = settledAtMs === null ? null : settledAtMs - killedAt;
  const result = await audit(backend, ids, journal);
  const lastFinalMs = result.lastFinishedAt === null ? null : result.lastFinishedAt - killedAt;
  report(
    auditLine(
      `${stage.store}: kill -9 of a whole pool, then a second pool`,
      result,
      `killed with ${atKill.running} running and ${atKill.ready} ready; ${held.length} held by ` +
        `the dead pool, recovered ${recoveredMs} ms after the kill; every task settled ` +
        `${settleMs} ms after the kill (the last one final at ${lastFinalMs} ms)`,
    ),
  );
  if (settledAtMs === null || result.stuck.length > 0) report(second.output().slice(-4000));

  expect(result.lost).toEqual([]);
  expect(result.stuck).toEqual([]);
  expect(result.successWithoutRun).toEqual([]);
  expect(Object.keys(result.failed).filter((reason) => reason !== 'WorkerLost')).toEqual([]);
  expect(result.successful + (result.failed.WorkerLost ?? 0)).toBe(tasks);
  expect(result.duplicates).toEqual([]);
  // The target: everything settled within the tolerance plus 5 s of the whole-pool kill.
  expect(settleMs).not.toBeNull();
  expect(settleMs!).toBeLessThan(SETTLE_TARGET_MS);
  second.process.kill('SIGTERM');
  expect((await second.exited).code).toBe(0);
}
