import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { DEFAULT_HEARTBEAT_TOLERANCE_MS } from '../../lib/worker/worker.constants';
import { waitFor } from '../helpers/wait-for';
import { audit, auditLine, chaosRecord, report, settledAt } from './chaos-harness';
import { postgresChaosScenario } from './postgres-chaos-harness';

// kill -9 of a whole pool (parent and children, one process group) mid-run
// on Postgres, with the default heartbeat tolerance: the server is left with
// RUNNING rows whose leases last an hour and connections that died with
// their processes. A second pool started afterwards must recover them
// (WorkerLost) once the dead pool's heartbeat lapses, not after the lease,
// and finish the rest: every task settled within the tolerance plus 5 s.

const TASKS = 1000;
const TASK_MS = 50;
const PROCESSES = 2;
const THREADS = 8;
const KILL_BACKLOG = 4 * PROCESSES * THREADS;
const SETTLE_TARGET_MS = DEFAULT_HEARTBEAT_TOLERANCE_MS + 5000;

describe('chaos: kill -9 of a whole pool, on Postgres', () => {
  jest.setTimeout(120_000);
  const scenario = postgresChaosScenario();

  it(`a second pool recovers everything the killed pool held: all settled within ${SETTLE_TARGET_MS / 1000} s of the kill`, async () => {
    const stage = await scenario.stage('pool-kill');
    const { alias, backend, journal } = stage;
    const records = Array.from({ length: TASKS }, () => chaosRecord(alias, journal, TASK_MS));
    const ids = records.map((r) => r.id);
    await backend.tasks.enqueueMany(records);
    const env = { ...stage.env, THREADMILL_MAINTENANCE_INTERVAL_MS: '500' };
    const args = ['--alias', alias, '--processes', String(PROCESSES), '--threads', String(THREADS)];

    const first = scenario.startPool(args, env);
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

    const second = scenario.startPool(args, env);
    await waitFor(
      async () => {
        const now = await Promise.all(held.map((id) => backend.tasks.getResult(id)));
        return now.every((r) => r.status !== TaskResultStatus.RUNNING);
      },
      { timeoutMs: 60_000, intervalMs: 25, what: "the dead pool's tasks to be recovered" },
    );
    const recoveredMs = Date.now() - killedAt;
    const settledAtMs = await settledAt(backend, 30_000);
    const settleMs = settledAtMs === null ? null : settledAtMs - killedAt;
    const result = await audit(backend, ids, journal);
    report(
      auditLine(
        'Postgres: kill -9 of a whole pool, then a second pool',
        result,
        `killed with ${atKill.running} running and ${atKill.ready} ready; ${held.length} held by ` +
          `the dead pool, recovered ${recoveredMs} ms after the kill; every task settled ` +
          `${settleMs} ms after the kill`,
      ),
    );
    if (settledAtMs === null || result.stuck.length > 0) report(second.output().slice(-4000));

    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    expect(result.successWithoutRun).toEqual([]);
    expect(Object.keys(result.failed).filter((reason) => reason !== 'WorkerLost')).toEqual([]);
    expect(result.successful + (result.failed.WorkerLost ?? 0)).toBe(TASKS);
    expect(result.duplicates).toEqual([]);
    expect(settleMs).not.toBeNull();
    expect(settleMs!).toBeLessThan(SETTLE_TARGET_MS);
    second.process.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  });
});
