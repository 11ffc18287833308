import { BackendUnavailableError } from '../../lib/core/errors/backend-unavailable.error';
import { EnqueueOutcomeUnknownError } from '../../lib/core/errors/enqueue-outcome-unknown.error';
import type { TaskBackend } from '../../lib/core/task-backend.interface';
import { BlackholeProxy } from '../helpers/blackhole-proxy';
import { waitFor } from '../helpers/wait-for';
import { audit, auditLine, chaosRecord, readJournal, report, settledAt } from './chaos-harness';
import { startProducer, type Producer } from './blackhole-producer';
import type { StoreStage } from './store-stage';

// The network between the store and a pool and a producer goes silent: the
// sockets stay open, nothing gets through, no error is seen but timeouts
// (test/helpers/blackhole-proxy.ts holds every byte and delivers it on
// restore, as TCP's retransmissions would). Another pool still reaches the
// store, so a pool whose beats lapse is recovered as dead by it (a lone pool
// never recovers itself). With every setting at its default (heartbeat
// tolerance, lease, command timeout) nothing may fail: tasks that ran are
// stored SUCCESSFUL once the path is back, tasks that never started are
// never failed, and a producer that enqueues again with the same id after a
// lost reply stores each task exactly once.

/** How big a run is, and the store's default command timeout. */
export interface BlackholeSize {
  readonly processes: number;
  readonly threads: number;
  readonly taskMs: number;
  /** Concurrent callers of enqueue, each pausing 100 ms between its tasks. */
  readonly callers: number;
  /** Tasks enqueued at once just before the blackhole: acquires in flight then lease tasks. */
  readonly backlog: number;
  readonly blackholeMs: number;
  /** How long a call waits for a held reply (the store's default, which the scenario keeps). */
  readonly commandTimeoutMs: number;
}

/** A store the blackhole scenario can put a proxy in front of. */
export interface BlackholeStage extends StoreStage {
  /** The store's port, which the proxy forwards to. */
  readonly storePort: number;
  /** Pool environment and a producer backend (closed by the caller's scenario) reaching the store through `proxyPort`. */
  through(proxyPort: number): { env: Record<string, string>; producer: Pick<TaskBackend, 'tasks'> };
}

/** How long the callers go on enqueuing new tasks after the restore. */
const AFTER_MS = 2_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SUCCESSFUL tasks of every queue, read past the proxy. */
async function successfulCount(backend: Pick<TaskBackend, 'reads'>): Promise<number> {
  const { queues } = await backend.reads.telemetry(1000);
  return Object.values(queues).reduce((sum, q) => sum + q.counts.successful, 0);
}

/** Runs journaled so far. */
const runs = (journal: string): number =>
  [...readJournal(journal).values()].reduce((sum, n) => sum + n, 0);

/** Milliseconds from `since` until `condition` first holds (polled every 25 ms), or null. */
async function msUntil(since: number, condition: () => Promise<boolean> | boolean, what: string) {
  try {
    return (
      (await waitFor(async () => ((await condition()) ? Date.now() : null), {
        timeoutMs: 40_000,
        intervalMs: 25,
        what,
      })) - since
    );
  } catch {
    return null;
  }
}

/**
 * The proxy and producer of a run, for the spec's afterAll (declared before
 * its scenario, so it runs first): restored and stopped in case a test failed
 * during the outage.
 */
export class BlackholeRun {
  proxy: BlackholeProxy | undefined;
  producer: Producer | undefined;

  /** Restores the path, stops the callers, then `closeProducer` (its backend) and the proxy. */
  async end(closeProducer: () => Promise<void> = async () => undefined): Promise<void> {
    this.proxy?.restore();
    await this.producer?.stop();
    await closeProducer();
    await this.proxy?.close();
  }
}

/** Runs the scenario, sized by `size`, on `stage`; `held` keeps its proxy and producer for cleanup. */
export async function runBlackhole(
  stage: BlackholeStage,
  size: BlackholeSize,
  held: BlackholeRun,
): Promise<void> {
  const { alias, backend, journal } = stage;
  const proxy = (held.proxy = await BlackholeProxy.start(stage.storePort));
  const proxied = stage.through(proxy.port);
  // The pool and the producer reach the store only through the proxy; the audit's `backend` does not.
  const pool = stage.startPool(
    ['--alias', alias, '--processes', String(size.processes), '--threads', String(size.threads)],
    proxied.env,
  );
  // On a queue nobody enqueues on: it only watches, and recovers pools it takes for dead.
  const watcher = stage.startPool(
    ['--alias', alias, '--queues', 'emails', '--processes', '1', '--threads', '1'],
    stage.env,
  );
  await waitFor(
    () => pool.liveChildren().length === size.processes && watcher.liveChildren().length === 1,
    { timeoutMs: 60_000, what: 'the pools to be ready' },
  );
  const children = pool.liveChildren();
  const run = (held.producer = startProducer(proxied.producer, alias, journal, size));
  await waitFor(
    async () => (await backend.reads.telemetry(1000)).queues.default.counts.running > 0,
    { timeoutMs: 30_000, what: 'tasks running' },
  );
  const backlog = Array.from({ length: size.backlog }, () =>
    chaosRecord(alias, journal, size.taskMs),
  );
  await backend.tasks.enqueueMany(backlog);
  const atStart = (await backend.reads.telemetry(1000)).queues.default.counts;
  const blackholedAt = Date.now();
  proxy.blackhole();
  // The fault's duration, not a wait for an event.
  await pause(size.blackholeMs);
  const bytes = proxy.held();
  const successfulAtRestore = await successfulCount(backend);
  const runsAtRestore = runs(journal);
  const restoredAt = Date.now();
  proxy.restore();

  const [firstOutcomeMs, firstRunMs] = await Promise.all([
    msUntil(
      restoredAt,
      async () => (await successfulCount(backend)) > successfulAtRestore,
      'the first outcome stored after the restore',
    ),
    msUntil(restoredAt, () => runs(journal) > runsAtRestore, 'the first run after the restore'),
  ]);
  await pause(Math.max(0, restoredAt + AFTER_MS - Date.now()));
  await run.stop();
  const settled = await settledAt(backend, 40_000);
  const ids = [...run.ids, ...backlog.map((r) => r.id)];
  const result = await audit(backend, ids, journal);

  const duringOutage = run.failures.filter((f) => f.sentAt < restoredAt);
  const unknown = duringOutage.filter((f) => f.name === EnqueueOutcomeUnknownError.name);
  const outcomes = [...run.outcomes.values()];
  const count = (outcome: string) => outcomes.filter((o) => o === outcome).length;
  const log = pool.output();
  const logCount = (pattern: RegExp) => log.match(pattern)?.length ?? 0;
  report(
    auditLine(
      `${stage.store}: network blackholed ${restoredAt - blackholedAt} ms (default settings)`,
      result,
      `${atStart.running} running and ${atStart.ready} waiting at the start; ` +
        `${duringOutage.length} enqueue call(s) failed during the outage ` +
        `(${unknown.length} with the outcome unknown), ` +
        `${count('already stored')} id(s) found stored by their retry, ` +
        `${count('stored by a retry')} stored by a retry; held at the restore ` +
        `${bytes.toTarget} B to the store and ${bytes.toClients} B back; the slowest enqueue ` +
        `call took ${run.slowestMs()} ms; the pool resumed ` +
        `${firstRunMs ?? 'never'} ms (first run) and ${firstOutcomeMs ?? 'never'} ms (first ` +
        `outcome stored) after the restore, settled ` +
        `${settled === null ? 'never' : `${settled - restoredAt} ms`} after it; pool log: ` +
        `${logCount(/could not write its heartbeat/g)} failed beat(s), ` +
        `${logCount(/acquire whose reply was lost/g)} orphan unlease(s)`,
    ),
  );
  const clean =
    settled !== null &&
    result.stuck.length + result.lost.length === 0 &&
    Object.keys(result.failed).length === 0;
  if (!clean) report(log.slice(-6000));

  // The outage really hit the producer and the pool: enqueues failed meanwhile (on Redis
  // their replies are lost; Postgres may refuse a connection first, which the line counts).
  expect(duringOutage.length).toBeGreaterThan(0);
  expect(bytes.toTarget).toBeGreaterThan(0);
  // A failed enqueue is typed and, when its outcome is unknown, names its id.
  const typed = [EnqueueOutcomeUnknownError.name, BackendUnavailableError.name];
  expect(run.failures.filter((f) => !typed.includes(f.name))).toEqual([]);
  expect(unknown.filter((f) => !f.carriedId)).toEqual([]);
  // Every id ended stored: at the first try, by a retry, or found stored by one.
  const accepted = ['stored', 'stored by a retry', 'already stored'];
  expect(outcomes.filter((o) => !accepted.includes(o))).toEqual([]);
  expect(settled).not.toBeNull();
  // Back at work as soon as the path is: no command timeout or store back-off waited out.
  expect(firstRunMs).not.toBeNull();
  expect(firstRunMs ?? Infinity).toBeLessThan(size.commandTimeoutMs);
  expect(firstOutcomeMs ?? Infinity).toBeLessThan(size.commandTimeoutMs);
  expect(result.lost).toEqual([]);
  expect(result.stuck).toEqual([]);
  expect(result.failed).toEqual({});
  expect(result.successful).toBe(result.tasks);
  expect(result.duplicates).toEqual([]);
  expect(result.successWithoutRun).toEqual([]);
  expect(result.executions).toBe(result.tasks);
  // Stored once each: the store counted one enqueue per id, however often it was tried.
  const { queues } = await backend.reads.telemetry(10 * 60_000);
  expect(Object.values(queues).reduce((sum, q) => sum + q.rates.ingress, 0)).toBe(ids.length);
  expect(log).not.toMatch(/WorkerLost|AcknowledgementTimeout/);
  expect(watcher.output()).not.toMatch(/stopped beating/);
  // The same children did all of it, and the pool stops cleanly.
  expect(pool.liveChildren()).toEqual(children);
  expect(log).not.toMatch(/Worker child \d+ (exited|died)/);
  for (const stopping of [pool, watcher]) {
    stopping.process.kill('SIGTERM');
    expect((await stopping.exited).code).toBe(0);
  }
}
