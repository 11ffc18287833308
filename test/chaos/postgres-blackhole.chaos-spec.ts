import { BackendUnavailableError } from '../../lib/core/errors/backend-unavailable.error';
import { EnqueueOutcomeUnknownError } from '../../lib/core/errors/enqueue-outcome-unknown.error';
import { TaskAlreadyExistsError } from '../../lib/core/errors/task-already-exists.error';
import type { TaskBackend } from '../../lib/core/task-backend.interface';
import { BlackholeProxy } from '../helpers/blackhole-proxy';
import { waitFor } from '../helpers/wait-for';
import { audit, auditLine, chaosRecord, readJournal, report, settledAt } from './chaos-harness';
import { postgresChaosScenario, postgresPoolEnv } from './postgres-chaos-harness';

// The network between Postgres and a pool and a producer goes silent for
// 15 s: the sockets stay open, nothing gets through, no error is seen but
// timeouts (test/helpers/blackhole-proxy.ts holds every byte and delivers it
// on restore, as TCP's retransmissions would). Another pool still reaches
// Postgres and would recover a pool whose beats lapsed. With the default
// settings nothing may fail: the outage stays within the pool's heartbeat
// tolerance, a statement that outlives the command timeout fails typed and
// its connection is dropped, and a producer that enqueues again with the
// same id after a lost reply stores each task exactly once.

const PROCESSES = 2;
const THREADS = 4;
const TASK_MS = 200;
/** Concurrent callers of enqueue, each pausing between its tasks: more than the slots run. */
const CALLERS = 6;
const CALLER_PAUSE_MS = 100;
/** Tasks enqueued at once just before the blackhole, so some wait when it starts. */
const BACKLOG = 60;
const BLACKHOLE_MS = 15_000;
/** How long the callers go on enqueuing new tasks after the restore. */
const AFTER_MS = 2_000;
const RETRY_PAUSE_MS = 250;
const MAX_ATTEMPTS = 8;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Producer {
  readonly ids: string[];
  /** 'stored', 'stored by a retry', 'already stored' (a retry found it), or what ended it. */
  readonly outcomes: Map<string, string>;
  readonly failures: { name: string; carriedId: boolean; sentAt: number; ms: number }[];
  /** The longest any one enqueue call took, whatever its outcome. */
  slowestMs(): number;
  stop(): Promise<void>;
}

/** CALLERS loops enqueuing one task after another; a lost reply or an outage is retried with the same id. */
function startProducer(producer: Pick<TaskBackend, 'tasks'>, alias: string, journal: string) {
  const ids: string[] = [];
  const outcomes = new Map<string, string>();
  const failures: Producer['failures'] = [];
  let producing = true;
  let slowest = 0;
  const enqueueOnce = async (record: ReturnType<typeof chaosRecord>) => {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const sentAt = Date.now();
      try {
        await producer.tasks.enqueue(record).finally(() => {
          slowest = Math.max(slowest, Date.now() - sentAt);
        });
        outcomes.set(record.id, attempt === 1 ? 'stored' : 'stored by a retry');
        return;
      } catch (error) {
        if (error instanceof TaskAlreadyExistsError && attempt > 1) {
          outcomes.set(record.id, 'already stored');
          return;
        }
        const carriedId =
          error instanceof EnqueueOutcomeUnknownError && error.ids.join() === record.id;
        const { name, message } = error as Error;
        failures.push({ name, carriedId, sentAt, ms: Date.now() - sentAt });
        const retryable =
          error instanceof EnqueueOutcomeUnknownError || error instanceof BackendUnavailableError;
        if (!retryable) {
          outcomes.set(record.id, `${name}: ${message}`);
          return;
        }
        await pause(RETRY_PAUSE_MS);
      }
    }
    outcomes.set(record.id, 'gave up');
  };
  const caller = async () => {
    for (let n = 0; n < 400 && producing; n++) {
      const record = chaosRecord(alias, journal, TASK_MS);
      ids.push(record.id);
      await enqueueOnce(record);
      await pause(CALLER_PAUSE_MS);
    }
  };
  const callers = Promise.all(Array.from({ length: CALLERS }, caller));
  const run: Producer = {
    ids,
    outcomes,
    failures,
    slowestMs: () => slowest,
    async stop() {
      producing = false;
      await callers;
    },
  };
  return run;
}

const runs = (journal: string): number =>
  [...readJournal(journal).values()].reduce((sum, n) => sum + n, 0);

describe('chaos: the network to Postgres is blackholed for 15 s', () => {
  jest.setTimeout(120_000);
  let proxy: BlackholeProxy | undefined;
  let producer: Producer | undefined;
  // Before the scenario's own cleanup (hooks run in the order declared): the callers end over
  // a path restored in case the test failed during the outage.
  afterAll(async () => {
    proxy?.restore();
    await producer?.stop();
    await proxy?.close();
  });
  const scenario = postgresChaosScenario();

  it('fails nothing, loses nothing, runs nothing twice, and a retried enqueue stores its task once', async () => {
    const stage = await scenario.stage('blackhole');
    const { alias, backend, journal, schema } = stage;
    proxy = await BlackholeProxy.start(scenario.server().port);
    const proxied = `postgres://postgres@127.0.0.1:${proxy.port}/postgres`;
    const pool = scenario.startPool(
      ['--alias', alias, '--processes', String(PROCESSES), '--threads', String(THREADS)],
      postgresPoolEnv(proxied, schema, alias),
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
    const run = (producer = startProducer(stage.backendAt(proxied), alias, journal));
    await waitFor(
      async () => (await backend.reads.telemetry(1000)).queues.default.counts.running > 0,
      { timeoutMs: 30_000, what: 'tasks running' },
    );
    // A backlog, so acquires under way when the path goes silent lease tasks.
    const backlog = Array.from({ length: BACKLOG }, () => chaosRecord(alias, journal, TASK_MS));
    await backend.tasks.enqueueMany(backlog);
    const atStart = (await backend.reads.telemetry(1000)).queues.default.counts;
    const blackholedAt = Date.now();
    proxy.blackhole();
    // The fault's duration, not a wait for an event.
    await pause(BLACKHOLE_MS);
    const held = proxy.held();
    const runsAtRestore = runs(journal);
    const restoredAt = Date.now();
    proxy.restore();
    const firstRunMs = await waitFor(() => (runs(journal) > runsAtRestore ? Date.now() : null), {
      timeoutMs: 40_000,
      intervalMs: 25,
      what: 'the first run after the restore',
    }).then((at) => at - restoredAt);
    await pause(Math.max(0, restoredAt + AFTER_MS - Date.now()));
    await run.stop();
    const settled = await settledAt(backend, 40_000);
    const result = await audit(backend, [...run.ids, ...backlog.map((r) => r.id)], journal);

    const duringOutage = run.failures.filter((f) => f.sentAt < restoredAt);
    const unknown = duringOutage.filter((f) => f.name === EnqueueOutcomeUnknownError.name);
    const outcomes = [...run.outcomes.values()];
    const count = (outcome: string) => outcomes.filter((o) => o === outcome).length;
    const log = pool.output();
    report(
      auditLine(
        `Postgres: network blackholed ${restoredAt - blackholedAt} ms (default settings)`,
        result,
        `${atStart.running} running and ${atStart.ready} waiting at the start; ` +
          `${duringOutage.length} enqueue call(s) failed during the outage ` +
          `(${unknown.length} with the outcome unknown; slowest ` +
          `${Math.max(0, ...duringOutage.map((f) => f.ms))} ms), ` +
          `${count('already stored')} id(s) found stored by their retry, ` +
          `${count('stored by a retry')} stored by a retry; held at the restore ` +
          `${held.toTarget} B to Postgres and ${held.toClients} B back; the slowest enqueue ` +
          `call took ${run.slowestMs()} ms; the pool ran its first ` +
          `task ${firstRunMs} ms after the restore, settled ` +
          `${settled === null ? 'never' : `${settled - restoredAt} ms`} after it`,
      ),
    );
    const clean =
      settled !== null &&
      result.stuck.length + result.lost.length === 0 &&
      Object.keys(result.failed).length === 0;
    if (!clean) report(log.slice(-6000));

    expect(held.toTarget).toBeGreaterThan(0);
    // A failed enqueue is typed and, when its outcome is unknown, names its id.
    const typed = [EnqueueOutcomeUnknownError.name, BackendUnavailableError.name];
    expect(run.failures.filter((f) => !typed.includes(f.name))).toEqual([]);
    expect(unknown.filter((f) => !f.carriedId)).toEqual([]);
    expect(
      outcomes.filter((o) => !['stored', 'stored by a retry', 'already stored'].includes(o)),
    ).toEqual([]);
    expect(settled).not.toBeNull();
    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    expect(result.failed).toEqual({});
    expect(result.successful).toBe(result.tasks);
    expect(result.duplicates).toEqual([]);
    expect(result.successWithoutRun).toEqual([]);
    expect(log).not.toMatch(/WorkerLost|AcknowledgementTimeout/);
    expect(watcher.output()).not.toMatch(/stopped beating/);
    expect(pool.liveChildren()).toEqual(children);
    expect(log).not.toMatch(/Worker child \d+ (exited|died)/);
    for (const stopping of [pool, watcher]) {
      stopping.process.kill('SIGTERM');
      expect((await stopping.exited).code).toBe(0);
    }
  });
});
