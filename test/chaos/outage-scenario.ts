import { BackendUnavailableError } from '../../lib/core/errors/backend-unavailable.error';
import { EnqueueOutcomeUnknownError } from '../../lib/core/errors/enqueue-outcome-unknown.error';
import { waitFor } from '../helpers/wait-for';
import { audit, auditLine, chaosRecord, report, settled } from './chaos-harness';
import type { StoreStage } from './store-stage';

// The store itself goes away under a running pool and a busy producer (a
// crash and restart, or every connection cut, as each store's spec file
// does it). Nothing acknowledged may be lost or run twice, the pool must
// carry on without being restarted, and enqueue during the outage must fail
// fast and typed.

export const TASKS = 600;
const TASK_MS = 20;
/** An enqueue refused while the store is down: about a connect timeout, plus slack for a loaded machine. */
const ENQUEUE_BOUND_MS = 5000;
// A lease reply lost with a dropped connection is given back by the worker (orphan search)
// or, at worst, recovered when its lease ends: a short lease keeps that inside the test.
const LEASE_TTL_MS = 15_000;

/** How the store goes away, once a quarter of the tasks were acknowledged. */
export interface Outage {
  /** The report line's name for it. */
  readonly name: string;
  /** Takes the store away and brings it back; what it did, for the report line. */
  disrupt(): Promise<string>;
  /** Whether enqueues must have failed meanwhile (a cut connection may be made again unnoticed). */
  readonly failsEnqueues: boolean;
  /** Text the pool and the failed enqueues must never show (e.g. a script the store forgot). */
  readonly forbidden?: string;
}

interface ProducerRun {
  /** Ids whose enqueue resolved: each must be found afterwards. */
  acknowledged: string[];
  /** Ids whose enqueue lost its reply (EnqueueOutcomeUnknownError): stored or not, never twice. */
  unknown: string[];
  /** Each failed enqueue: its error class and how long the call took. */
  failures: { name: string; message: string; ms: number }[];
}

/**
 * Enqueues TASKS tasks one call at a time (as request handlers do), calling
 * `disrupt` once, after `disruptAfter` have been acknowledged; failed calls are
 * recorded and the producer goes on with the next task after a pause.
 */
async function produce(
  stage: StoreStage,
  disruptAfter: number,
  disrupt: () => Promise<unknown>,
): Promise<ProducerRun> {
  const run: ProducerRun = { acknowledged: [], unknown: [], failures: [] };
  let disruption: Promise<unknown> | null = null;
  for (let i = 0; i < TASKS * 4 && run.acknowledged.length < TASKS; i++) {
    if (run.acknowledged.length === disruptAfter && disruption === null) disruption = disrupt();
    const record = chaosRecord(stage.alias, stage.journal, TASK_MS);
    const started = Date.now();
    try {
      await stage.backend.tasks.enqueue(record);
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

/** Runs `outage` under a pool of 2 children and a producer on `stage`, and asserts what must hold. */
export async function runOutage(stage: StoreStage, outage: Outage): Promise<void> {
  const pool = stage.startPool(['--alias', stage.alias, '--processes', '2', '--threads', '8'], {
    ...stage.env,
    THREADMILL_MAINTENANCE_INTERVAL_MS: '500',
    THREADMILL_LEASE_TTL_MS: String(LEASE_TTL_MS),
  });
  await waitFor(() => pool.liveChildren().length === 2, {
    timeoutMs: 60_000,
    what: 'two ready children',
  });
  const children = pool.liveChildren();
  let did = '';
  const run = await produce(stage, TASKS / 4, async () => {
    did = await outage.disrupt();
  });
  // Enqueue works again after the outage...
  expect(run.acknowledged.length).toBe(TASKS);
  // ...and during it failed, typed and fast (checked below).
  if (outage.failsEnqueues) expect(run.failures.length).toBeGreaterThan(0);

  const { backend, journal } = stage;
  const settledInTime = await settled(backend, LEASE_TTL_MS + 30_000);
  const result = await audit(backend, run.acknowledged, journal);
  const slowestFailure = Math.max(0, ...run.failures.map((f) => f.ms));
  const kinds = [...new Set(run.failures.map((f) => f.name))].join(', ') || 'none';
  report(
    auditLine(
      `${stage.store}: ${outage.name}`,
      result,
      `${run.failures.length} enqueue(s) failed during the outage (${kinds}; ` +
        `${run.unknown.length} with the outcome unknown; slowest ${slowestFailure} ms); ${did}`,
    ),
  );
  if (!settledInTime || result.stuck.length > 0) report(pool.output().slice(-4000));

  expect(result.lost).toEqual([]);
  expect(result.stuck).toEqual([]);
  expect(result.successWithoutRun).toEqual([]);
  expect(result.duplicates).toEqual([]);
  // No task failed for any reason but a lease whose holder is unknown: a lease reply
  // lost with the dropped connection (AcknowledgementTimeout), or, with pool
  // heartbeats, a beat missed during the outage (WorkerLost). The audit line counts them.
  expect(
    Object.keys(result.failed).filter((r) => r !== 'AcknowledgementTimeout' && r !== 'WorkerLost'),
  ).toEqual([]);
  // Enqueue during the outage: typed and fast, never a hang. One whose reply was lost
  // says so (its task may be stored); any other failure is the store being unreachable.
  const typed = [BackendUnavailableError.name, EnqueueOutcomeUnknownError.name];
  expect(run.failures.filter((f) => !typed.includes(f.name))).toEqual([]);
  // A task whose enqueue lost its reply was stored and settled, or never stored: never
  // left stuck, never run twice.
  const unknown = await audit(backend, run.unknown, journal);
  expect(unknown.stuck).toEqual([]);
  expect(unknown.duplicates).toEqual([]);
  expect(unknown.successWithoutRun).toEqual([]);
  expect(slowestFailure).toBeLessThan(ENQUEUE_BOUND_MS);
  if (outage.forbidden !== undefined) {
    expect(pool.output()).not.toContain(outage.forbidden);
    expect(run.failures.filter((f) => f.message.includes(outage.forbidden!))).toEqual([]);
  }
  // The same children did all of it: nothing crashed or was restarted.
  expect(pool.liveChildren()).toEqual(children);
  expect(pool.output()).not.toMatch(/Worker child \d+ (exited|died)/);
  pool.process.kill('SIGTERM');
  expect((await pool.exited).code).toBe(0);
}
