import { BlackholeProxy } from '../helpers/blackhole-proxy';
import { waitFor } from '../helpers/wait-for';
import { audit, auditLine, chaosRecord, report, settledAt } from './chaos-harness';
import { postgresChaosScenario, postgresPoolEnv } from './postgres-chaos-harness';

// The replies of a pool's calls to Postgres are lost on the wire while the
// calls themselves get through: each lease call commits (its tasks RUNNING
// under the child's slots) and its child never hears of it. Once a call
// outlives the command timeout (the default, 10 s) the child drops the
// connection, and before its next lease it searches the running tasks for
// leases of its own that it does not hold: those go back to their queue, as
// never started, and run once. Nothing may fail, be lost or run twice.

const PROCESSES = 1;
const THREADS = 4;
const TASKS = 400;
const TASK_MS = 20;
/** Longer than the command timeout, so the calls under way fail and their connections go. */
const HELD_MS = 12_000;

describe('chaos: the replies of lease calls to Postgres are lost on the wire', () => {
  jest.setTimeout(120_000);
  let proxy: BlackholeProxy | undefined;
  // Before the scenario's own cleanup (hooks run in the order declared).
  afterAll(async () => {
    proxy?.restore();
    await proxy?.close();
  });
  const scenario = postgresChaosScenario();

  it('gives the leased tasks back and runs each once, failing nothing', async () => {
    const stage = await scenario.stage('lost-lease-reply');
    const { alias, backend, journal, schema } = stage;
    proxy = await BlackholeProxy.start(scenario.server().port);
    const proxied = `postgres://postgres@127.0.0.1:${proxy.port}/postgres`;
    const pool = scenario.startPool(
      ['--alias', alias, '--processes', String(PROCESSES), '--threads', String(THREADS)],
      postgresPoolEnv(proxied, schema, alias),
    );
    await waitFor(() => pool.liveChildren().length === PROCESSES, {
      timeoutMs: 60_000,
      what: 'a ready child',
    });
    const children = pool.liveChildren();
    const records = Array.from({ length: TASKS }, () => chaosRecord(alias, journal, TASK_MS));
    await backend.tasks.enqueueMany(records);
    await waitFor(
      async () => (await backend.reads.telemetry(1000)).queues.default.counts.successful > 0,
      { timeoutMs: 30_000, what: 'tasks finishing' },
    );
    proxy.holdReplies();
    // Every slot's call of this moment reaches the server and commits: what it leased is
    // RUNNING under the child's slots, and no reply comes back.
    const leasedUnheard = await waitFor(
      async () => {
        const { running, ready } = (await backend.reads.telemetry(1000)).queues.default.counts;
        return running >= THREADS || ready === 0 ? running : null;
      },
      { timeoutMs: 10_000, intervalMs: 25, what: 'the lease calls to commit unheard' },
    );
    // The fault's duration, not a wait for an event.
    await new Promise((resolve) => setTimeout(resolve, HELD_MS));
    const restoredAt = Date.now();
    proxy.restore();
    const settled = await settledAt(backend, 60_000);
    const result = await audit(
      backend,
      records.map((r) => r.id),
      journal,
    );
    const log = pool.output();
    const givenBack = [
      ...log.matchAll(/(\d+) task\(s\) of backend .* acquire whose reply was lost/g),
    ]
      .map((m) => Number(m[1]))
      .reduce((sum, n) => sum + n, 0);
    report(
      auditLine(
        `Postgres: lease replies lost for ${HELD_MS} ms`,
        result,
        `${leasedUnheard} tasks leased by calls whose replies were held; ${givenBack} given back ` +
          `by the orphan search; settled ` +
          `${settled === null ? 'never' : `${settled - restoredAt} ms`} after the restore`,
      ),
    );
    if (settled === null || result.stuck.length > 0) report(log.slice(-6000));

    expect(settled).not.toBeNull();
    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    expect(result.failed).toEqual({});
    expect(result.successful).toBe(TASKS);
    expect(result.duplicates).toEqual([]);
    expect(result.successWithoutRun).toEqual([]);
    // The leases of the lost replies went back through the child's own search, not a lease's end.
    expect(givenBack).toBeGreaterThan(0);
    expect(log).not.toMatch(/WorkerLost|AcknowledgementTimeout/);
    expect(pool.liveChildren()).toEqual(children);
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });
});
