import { Client } from 'pg';

import { BackendUnavailableError } from '../../lib/core/errors/backend-unavailable.error';
import { EnqueueOutcomeUnknownError } from '../../lib/core/errors/enqueue-outcome-unknown.error';
import { waitFor } from '../helpers/wait-for';
import { audit, auditLine, chaosRecord, report, settled } from './chaos-harness';
import { postgresChaosScenario, postgresPoolEnv } from './postgres-chaos-harness';

// Statements time out: the pool and the producer connect with a 1 s
// statement_timeout (in the url, as an app sets it), and another session
// holds an ACCESS EXCLUSIVE lock on the task table for 6 s, as a migration or
// a careless `LOCK TABLE` would. Every statement that needs the table waits
// for the lock and is cancelled by the server (57014) after 1 s. Enqueues
// must fail typed and fast, nothing may be lost or run twice, and the pool
// must carry on by itself once the lock is gone.

const LOCK_MS = 6000;
const STATEMENT_TIMEOUT_MS = 1000;
const TASKS = 400;
const TASK_MS = 20;
/** An enqueue refused during the lock: the statement timeout plus slack for a loaded machine. */
const ENQUEUE_BOUND_MS = STATEMENT_TIMEOUT_MS + 3000;

describe('chaos: statements time out under a running pool, on Postgres', () => {
  jest.setTimeout(120_000);
  const scenario = postgresChaosScenario();

  it('a lock held past statement_timeout fails enqueues typed, loses nothing, and the pool carries on', async () => {
    const stage = await scenario.stage('statement-timeout');
    const { alias, backend, journal, schema } = stage;
    const { url } = scenario.server();
    const timed = `${url}?options=${encodeURIComponent(`-c statement_timeout=${STATEMENT_TIMEOUT_MS}`)}`;
    const pool = scenario.startPool(['--alias', alias, '--processes', '2', '--threads', '4'], {
      ...postgresPoolEnv(timed, schema, alias),
      THREADMILL_MAINTENANCE_INTERVAL_MS: '500',
    });
    await waitFor(() => pool.liveChildren().length === 2, {
      timeoutMs: 60_000,
      what: 'two ready children',
    });
    const children = pool.liveChildren();
    const producer = stage.backendAt(timed);

    const acknowledged: string[] = [];
    const unknown: string[] = [];
    const failures: { name: string; message: string; ms: number }[] = [];
    const locker = new Client({ connectionString: url });
    await locker.connect();
    let lockedAt = 0;
    let lock: Promise<void> | null = null;
    try {
      for (let i = 0; i < TASKS * 4 && acknowledged.length < TASKS; i++) {
        if (acknowledged.length === TASKS / 4 && lock === null) {
          await locker.query(
            `BEGIN; LOCK TABLE ${schema}.threadmill_tasks IN ACCESS EXCLUSIVE MODE`,
          );
          lockedAt = Date.now();
          // The lock's length, not a wait for an event.
          lock = new Promise((resolve) => setTimeout(resolve, LOCK_MS)).then(async () => {
            await locker.query('COMMIT');
          });
        }
        const record = chaosRecord(alias, journal, TASK_MS);
        const started = Date.now();
        try {
          await producer.tasks.enqueue(record);
          acknowledged.push(record.id);
        } catch (error) {
          if (error instanceof EnqueueOutcomeUnknownError) unknown.push(...error.ids);
          const { name, message } = error as Error;
          failures.push({ name, message, ms: Date.now() - started });
        }
      }
      await lock;
    } finally {
      await locker.end();
    }
    const settledInTime = await settled(backend, 30_000);
    const result = await audit(backend, acknowledged, journal);
    const log = pool.output();
    const timeouts = log.match(/statement timeout/g)?.length ?? 0;
    report(
      auditLine(
        `Postgres: the task table locked ${LOCK_MS} ms past a ${STATEMENT_TIMEOUT_MS} ms statement_timeout`,
        result,
        `${failures.length} enqueue(s) refused during the lock (${[...new Set(failures.map((f) => f.name))].join(', ')}; ` +
          `slowest ${Math.max(0, ...failures.map((f) => f.ms))} ms); ${timeouts} statement ` +
          `timeout(s) in the pool's log`,
      ),
    );
    if (!settledInTime || result.stuck.length > 0) report(log.slice(-6000));

    expect(lockedAt).toBeGreaterThan(0);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.filter((f) => f.name !== BackendUnavailableError.name)).toEqual([]);
    expect(failures.filter((f) => !f.message.includes('ran past its statement_timeout'))).toEqual(
      [],
    );
    expect(Math.max(...failures.map((f) => f.ms))).toBeLessThan(ENQUEUE_BOUND_MS);
    expect(unknown).toEqual([]);
    expect(acknowledged.length).toBe(TASKS);
    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    expect(result.failed).toEqual({});
    expect(result.duplicates).toEqual([]);
    expect(result.successWithoutRun).toEqual([]);
    expect(pool.liveChildren()).toEqual(children);
    expect(log).not.toMatch(/Worker child \d+ (exited|died)/);
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });
});
