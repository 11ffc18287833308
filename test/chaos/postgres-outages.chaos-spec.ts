import { BackendUnavailableError } from '../../lib/core/errors/backend-unavailable.error';
import { EnqueueOutcomeUnknownError } from '../../lib/core/errors/enqueue-outcome-unknown.error';
import type { TaskBackend } from '../../lib/core/task-backend.interface';
import { waitFor } from '../helpers/wait-for';
import { audit, auditLine, chaosRecord, report, settled, type RunningPool } from './chaos-harness';
import {
  adminQuery,
  postgresChaosScenario,
  type PostgresChaosStage,
} from './postgres-chaos-harness';

// Postgres itself goes away under a running pool and a busy producer: the
// server crashes (`pg_ctl stop -m immediate`, which quits without a
// checkpoint, so the restart recovers from the WAL) and comes back on the
// same port, and every connection to it is ended with pg_terminate_backend,
// again and again. Nothing acknowledged may be lost or run twice, the pool
// must carry on without being restarted, and enqueue during the outage must
// fail fast and typed.

const TASKS = 600;
const TASK_MS = 20;
/** How long Postgres stays down in the crash scenario. */
const OUTAGE_MS = 2500;
/** pg_terminate_backend rounds, and the time between them. */
const TERMINATIONS = 5;
const TERMINATE_EVERY_MS = 400;
/** An enqueue refused while the server is down: ECONNREFUSED answers at once. */
const ENQUEUE_BOUND_MS = 5000;
// A lease reply lost with a dropped connection is given back by the worker (orphan search)
// or, at worst, recovered when its lease ends: a short lease keeps that inside the test.
const LEASE_TTL_MS = 15_000;

interface ProducerRun {
  acknowledged: string[];
  unknown: string[];
  failures: { name: string; message: string; ms: number }[];
}

/** Enqueues TASKS tasks one call at a time, calling `disrupt` once after `disruptAfter` were acknowledged. */
async function produce(
  backend: Pick<TaskBackend, 'tasks'>,
  stage: PostgresChaosStage,
  disruptAfter: number,
  disrupt: () => Promise<void>,
): Promise<ProducerRun> {
  const run: ProducerRun = { acknowledged: [], unknown: [], failures: [] };
  let disruption: Promise<void> | null = null;
  for (let i = 0; i < TASKS * 4 && run.acknowledged.length < TASKS; i++) {
    if (run.acknowledged.length === disruptAfter && disruption === null) disruption = disrupt();
    const record = chaosRecord(stage.alias, stage.journal, TASK_MS);
    const started = Date.now();
    try {
      await backend.tasks.enqueue(record);
      run.acknowledged.push(record.id);
    } catch (error) {
      if (error instanceof EnqueueOutcomeUnknownError) run.unknown.push(...error.ids);
      run.failures.push({
        name: (error as Error).name,
        message: (error as Error).message,
        ms: Date.now() - started,
      });
      // A refused call is tried again by a real producer after a pause, not in a hot loop.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  await disruption;
  return run;
}

describe('chaos: Postgres goes away under a running pool', () => {
  jest.setTimeout(120_000);
  const scenario = postgresChaosScenario();

  async function setUp(name: string) {
    const stage = await scenario.stage(name);
    const pool = scenario.startPool(
      ['--alias', stage.alias, '--processes', '2', '--threads', '8'],
      {
        ...stage.env,
        THREADMILL_MAINTENANCE_INTERVAL_MS: '500',
        THREADMILL_LEASE_TTL_MS: String(LEASE_TTL_MS),
      },
    );
    await waitFor(() => pool.liveChildren().length === 2, {
      timeoutMs: 60_000,
      what: 'two ready children',
    });
    return { stage, pool };
  }

  /** What must hold after any outage: every acknowledged id final, the pool never restarted. */
  async function auditAfter(
    name: string,
    stage: PostgresChaosStage,
    pool: RunningPool,
    children: number[],
    run: ProducerRun,
    extra: string,
  ) {
    const { backend, journal } = stage;
    const settledInTime = await settled(backend, LEASE_TTL_MS + 30_000);
    const result = await audit(backend, run.acknowledged, journal);
    const slowestFailure = Math.max(0, ...run.failures.map((f) => f.ms));
    const kinds = [...new Set(run.failures.map((f) => f.name))].join(', ') || 'none';
    report(
      auditLine(
        name,
        result,
        `${run.failures.length} enqueue(s) failed during the outage (${kinds}; ` +
          `${run.unknown.length} with the outcome unknown; slowest ${slowestFailure} ms); ${extra}`,
      ),
    );
    if (!settledInTime || result.stuck.length > 0) report(pool.output().slice(-4000));

    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    expect(result.successWithoutRun).toEqual([]);
    expect(result.duplicates).toEqual([]);
    // Nothing failed but a lease whose holder is unknown (a reply lost with the connection).
    expect(
      Object.keys(result.failed).filter(
        (r) => r !== 'AcknowledgementTimeout' && r !== 'WorkerLost',
      ),
    ).toEqual([]);
    const typed = [BackendUnavailableError.name, EnqueueOutcomeUnknownError.name];
    expect(run.failures.filter((f) => !typed.includes(f.name))).toEqual([]);
    const unknown = await audit(backend, run.unknown, journal);
    expect(unknown.stuck).toEqual([]);
    expect(unknown.duplicates).toEqual([]);
    expect(unknown.successWithoutRun).toEqual([]);
    expect(slowestFailure).toBeLessThan(ENQUEUE_BOUND_MS);
    // The same children did all of it: nothing crashed or was restarted.
    expect(pool.liveChildren()).toEqual(children);
    expect(pool.output()).not.toMatch(/Worker child \d+ (exited|died)/);
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  }

  it('a crash (pg_ctl stop -m immediate) and restart loses no acknowledged enqueue, and the pool carries on', async () => {
    const { stage, pool } = await setUp('crash');
    const children = pool.liveChildren();
    const server = scenario.server();
    let downMs = 0;
    const crash = async (): Promise<void> => {
      const stoppedAt = Date.now();
      await server.stop({ mode: 'immediate' });
      // The outage's length, not a wait for an event: enqueues, acquires and beats fail meanwhile.
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
      await server.start();
      downMs = Date.now() - stoppedAt;
    };
    const run = await produce(stage.backend, stage, TASKS / 4, crash);
    expect(run.acknowledged.length).toBe(TASKS);
    expect(run.failures.length).toBeGreaterThan(0);
    await auditAfter(
      'Postgres crashed (pg_ctl stop -m immediate) and restarted mid-run',
      stage,
      pool,
      children,
      run,
      `Postgres was down ${downMs} ms`,
    );
  });

  it(`pg_terminate_backend of every connection, ${TERMINATIONS} times: consumers and producer resume`, async () => {
    const { stage, pool } = await setUp('terminate');
    const children = pool.liveChildren();
    const { url } = scenario.server();
    const terminated: number[] = [];
    const terminate = async (): Promise<void> => {
      for (let round = 0; round < TERMINATIONS; round++) {
        const rows = await adminQuery<{ ended: boolean }>(
          url,
          `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
           WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
        );
        terminated.push(rows.filter((row) => row.ended).length);
        await new Promise((resolve) => setTimeout(resolve, TERMINATE_EVERY_MS));
      }
    };
    const run = await produce(stage.backend, stage, TASKS / 4, terminate);
    // The producer's, the pool parent's and both children's connections at first; then
    // whatever was made again since (a connection is made again only once it is needed).
    expect(terminated[0]).toBeGreaterThanOrEqual(4);
    expect(Math.min(...terminated)).toBeGreaterThanOrEqual(1);
    expect(run.acknowledged.length).toBe(TASKS);
    await auditAfter(
      `pg_terminate_backend of every connection, ${TERMINATIONS} rounds ${TERMINATE_EVERY_MS} ms apart`,
      stage,
      pool,
      children,
      run,
      `${terminated.join('+')} connections ended`,
    );
  });
});
