import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { REDIS_BACKEND_DEFAULTS } from '../../lib/backends/redis/redis-backend-options.interface';
import { BackendUnavailableError } from '../../lib/core/errors/backend-unavailable.error';
import { EnqueueOutcomeUnknownError } from '../../lib/core/errors/enqueue-outcome-unknown.error';
import { TaskAlreadyExistsError } from '../../lib/core/errors/task-already-exists.error';
import { BlackholeProxy } from '../helpers/blackhole-proxy';
import { waitFor } from '../helpers/wait-for';
import {
  CHAOS_QUEUES,
  audit,
  auditLine,
  chaosRecord,
  chaosScenario,
  readJournal,
  report,
  settledAt,
} from './chaos-harness';
import { storeRules } from '../../lib/lifecycle/store-rules';

// The network between Redis and a pool and a producer goes silent for 20 s:
// the sockets stay open, nothing gets through, no error is seen but timeouts.
// Another pool still reaches Redis, so a pool whose beats lapse is recovered
// as dead by it (a lone pool never recovers itself). With every setting at
// its default (heartbeat tolerance, lease, command timeout) nothing may fail:
// tasks that ran are stored SUCCESSFUL once the path is back (the pool's
// heartbeat outlives the outage, held outcomes land), tasks that never
// started are never failed, and a producer that enqueues again with the same
// id after a lost reply stores each task exactly once.

const PROCESSES = 2;
const THREADS = 8;
const TASK_MS = 400;
/**
 * Concurrent callers of enqueue (request handlers), each pausing between its
 * tasks: about 90 enqueues/s together, over twice what 16 slots of 400 ms
 * run, so a backlog builds and every acquire leases tasks.
 */
const CALLERS = 10;
const CALLER_PAUSE_MS = 100;
/**
 * Tasks waiting when the blackhole starts: acquires then in flight lease
 * tasks whose replies are held, and those must go back, not fail.
 */
const BACKLOG = 100;
const BLACKHOLE_MS = 20_000;
/** How long the callers go on enqueuing new tasks after the restore. */
const AFTER_MS = 2_000;
/** A caller's pause before it enqueues again with the same id. */
const RETRY_PAUSE_MS = 250;
/** How long a call waits for a reply that is held (the default, which the scenario keeps). */
const COMMAND_TIMEOUT_MS = REDIS_BACKEND_DEFAULTS.commandTimeout;
/** Tries of one id at most: a 20 s outage with a 10 s command timeout costs two or three. */
const MAX_ATTEMPTS = 8;

/**
 * What became of one id: 'stored' (the first try), 'stored by a retry',
 * 'already stored' (a retry found it), 'gave up', or the error that ended it.
 */
type Outcome = string;

interface Producer {
  /** Every id a caller enqueued, whatever became of it. */
  readonly ids: string[];
  readonly outcomes: Map<string, Outcome>;
  /** Each failed enqueue call: its error, whether it carried its id, and when it was sent. */
  readonly failures: { name: string; carriedId: boolean; sentAt: number }[];
  /** No new ids; resolves once every caller has settled the id it was on. */
  stop(): Promise<void>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * CALLERS loops, each enqueuing one task after another through `producer`. An
 * enqueue that threw EnqueueOutcomeUnknownError or BackendUnavailableError is
 * sent again with the same id; TaskAlreadyExistsError then means an earlier
 * try stored it.
 */
function startProducer(producer: RedisBackend, alias: string, journal: string): Producer {
  const ids: string[] = [];
  const outcomes = new Map<string, Outcome>();
  const failures: Producer['failures'] = [];
  let producing = true;
  const enqueueOnce = async (id: string, record: ReturnType<typeof chaosRecord>) => {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const sentAt = Date.now();
      try {
        await producer.tasks.enqueue(record);
        outcomes.set(id, attempt === 1 ? 'stored' : 'stored by a retry');
        return;
      } catch (error) {
        if (error instanceof TaskAlreadyExistsError && attempt > 1) {
          outcomes.set(id, error.existing.id === id ? 'already stored' : 'another task');
          return;
        }
        const carriedId = error instanceof EnqueueOutcomeUnknownError && error.ids.join() === id;
        failures.push({ name: (error as Error).name, carriedId, sentAt });
        const retryable =
          error instanceof EnqueueOutcomeUnknownError || error instanceof BackendUnavailableError;
        if (!retryable) {
          outcomes.set(id, `${(error as Error).name}: ${(error as Error).message}`);
          return;
        }
        await pause(RETRY_PAUSE_MS);
      }
    }
    outcomes.set(id, 'gave up');
  };
  const caller = async () => {
    // Bounded in count as well as by `producing`: a minute of tasks at most.
    for (let n = 0; n < 600 && producing; n++) {
      const record = chaosRecord(alias, journal, TASK_MS);
      ids.push(record.id);
      await enqueueOnce(record.id, record);
      await pause(CALLER_PAUSE_MS);
    }
  };
  const callers = Promise.all(Array.from({ length: CALLERS }, caller));
  return {
    ids,
    outcomes,
    failures,
    async stop() {
      producing = false;
      await callers;
    },
  };
}

/** Tasks running and BACKLOG waiting. */
function backlogged(counts: { ready: number; running: number }): boolean {
  return counts.running > 0 && counts.ready >= BACKLOG;
}

/** SUCCESSFUL tasks of every queue, read past the proxy. */
async function successfulCount(backend: RedisBackend): Promise<number> {
  const { queues } = await backend.reads.telemetry(1000);
  return Object.values(queues).reduce((sum, q) => sum + q.counts.successful, 0);
}

/** Runs journaled so far. */
function runs(journal: string): number {
  return [...readJournal(journal).values()].reduce((sum, n) => sum + n, 0);
}

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

describe('chaos: the network to Redis is blackholed for 20 s', () => {
  jest.setTimeout(90_000);
  let proxy: BlackholeProxy | undefined;
  let producerBackend: RedisBackend | undefined;
  let producer: Producer | undefined;
  // Before the scenario's own cleanup (hooks run in the order declared), which stops
  // Redis: the callers end and the producer says QUIT, over a path restored in case
  // the test failed during the outage.
  afterAll(async () => {
    proxy?.restore();
    await producer?.stop();
    await producerBackend?.close();
    await proxy?.close();
  });
  const scenario = chaosScenario();

  it('fails nothing, loses nothing, runs nothing twice, and a retried enqueue stores its task once', async () => {
    const stage = scenario.stage('network-blackhole');
    const { alias, backend, journal } = stage;
    proxy = await BlackholeProxy.start(scenario.server().port);
    // The pool and the producer reach Redis only through the proxy; the audit's `backend`
    // does not.
    const pool = scenario.startPool(
      ['--alias', alias, '--processes', String(PROCESSES), '--threads', String(THREADS)],
      { ...stage.env, REDIS_URL: proxy.url },
    );
    producerBackend = new RedisBackend(
      alias,
      {
        backend: RedisBackend,
        url: proxy.url,
        queues: CHAOS_QUEUES,
      },
      storeRules,
    );
    // On a queue nobody enqueues on: it only watches, and recovers pools it takes for dead.
    const watcher = scenario.startPool(
      ['--alias', alias, '--queues', 'emails', '--processes', '1', '--threads', '1'],
      stage.env,
    );
    await waitFor(
      () => pool.liveChildren().length === PROCESSES && watcher.liveChildren().length === 1,
      { timeoutMs: 60_000, what: 'the pools to be ready' },
    );
    const children = pool.liveChildren();

    const run = startProducer(producerBackend, alias, journal);
    producer = run;
    // Blackholed with tasks running and waiting, and enqueues under way.
    await waitFor(
      async () => backlogged((await backend.reads.telemetry(1000)).queues.default.counts),
      {
        timeoutMs: 30_000,
        what: 'a backlog with tasks running',
      },
    ).catch((error: unknown) => {
      const failed = run.failures.map((f) => f.name).join();
      report(`[chaos] warm-up: enqueues failed [${failed}]\n${pool.output().slice(-4000)}`);
      throw error;
    });
    const atStart = (await backend.reads.telemetry(1000)).queues.default.counts;
    const blackholedAt = Date.now();
    proxy.blackhole();
    // The fault's duration, not a wait for an event.
    await pause(BLACKHOLE_MS);
    const held = proxy.held();
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
    const result = await audit(backend, run.ids, journal);

    const duringOutage = run.failures.filter((f) => f.sentAt < restoredAt);
    const unknown = duringOutage.filter((f) => f.name === EnqueueOutcomeUnknownError.name);
    const outcomes = [...run.outcomes.values()];
    const count = (outcome: Outcome) => outcomes.filter((o) => o === outcome).length;
    const log = pool.output();
    const logCount = (pattern: RegExp) => log.match(pattern)?.length ?? 0;
    report(
      auditLine(
        `network to Redis blackholed ${restoredAt - blackholedAt} ms (default settings)`,
        result,
        `${atStart.running} running and ${atStart.ready} waiting at the start; ` +
          `${duringOutage.length} enqueue call(s) failed during the outage ` +
          `(${unknown.length} with the outcome unknown), ` +
          `${count('already stored')} id(s) found stored by their retry, ` +
          `${count('stored by a retry')} stored by a retry; held at the restore ` +
          `${held.toTarget} B to Redis and ${held.toClients} B back; the pool resumed ` +
          `${firstRunMs ?? 'never'} ms (first run) and ${firstOutcomeMs ?? 'never'} ms (first ` +
          `outcome stored) after the restore, settled ` +
          `${settled === null ? 'never' : `${settled - restoredAt} ms`} after it; pool log: ` +
          `${logCount(/Acquiring from backend/g)} failed acquire(s), ` +
          `${logCount(/Storing the outcome of/g)} refused store(s), ` +
          `${logCount(/could not write its heartbeat/g)} failed beat(s), ` +
          `${logCount(/acquire whose reply was lost/g)} orphan unlease(s)`,
      ),
    );
    const clean =
      settled !== null &&
      result.stuck.length + result.lost.length === 0 &&
      Object.keys(result.failed).length === 0;
    if (!clean) report(log.slice(-6000));

    // The outage really hit the producer and the pool: enqueues lost their replies.
    expect(unknown.length).toBeGreaterThan(0);
    expect(held.toTarget).toBeGreaterThan(0);
    // A failed enqueue is typed and, when its outcome is unknown, names its id.
    const typed = [EnqueueOutcomeUnknownError.name, BackendUnavailableError.name];
    expect(run.failures.filter((f) => !typed.includes(f.name))).toEqual([]);
    expect(unknown.filter((f) => !f.carriedId)).toEqual([]);
    // Every id ended stored: at the first try, by a retry, or found stored by one.
    const accepted: Outcome[] = ['stored', 'stored by a retry', 'already stored'];
    expect(outcomes.filter((o) => !accepted.includes(o))).toEqual([]);
    expect(settled).not.toBeNull();
    // Back at work as soon as the path is: no command timeout or store back-off waited out.
    expect(firstRunMs).not.toBeNull();
    expect(firstRunMs ?? Infinity).toBeLessThan(COMMAND_TIMEOUT_MS);
    expect(firstOutcomeMs ?? Infinity).toBeLessThan(COMMAND_TIMEOUT_MS);
    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    expect(result.failed).toEqual({});
    expect(result.successful).toBe(result.tasks);
    expect(result.duplicates).toEqual([]);
    expect(result.successWithoutRun).toEqual([]);
    expect(result.executions).toBe(result.tasks);
    // Stored once each: the store counted one enqueue per id, however often it was tried.
    const { queues } = await backend.reads.telemetry(10 * 60_000);
    expect(Object.values(queues).reduce((sum, q) => sum + q.rates.ingress, 0)).toBe(run.ids.length);
    expect(log).not.toMatch(/WorkerLost|AcknowledgementTimeout/);
    expect(watcher.output()).not.toMatch(/stopped beating/);
    // The same children did all of it, and the pool stops cleanly.
    expect(pool.liveChildren()).toEqual(children);
    expect(log).not.toMatch(/Worker child \d+ (exited|died)/);
    for (const stopping of [pool, watcher]) {
      stopping.process.kill('SIGTERM');
      expect((await stopping.exited).code).toBe(0);
    }
  });
});
