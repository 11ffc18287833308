import { Client } from 'pg';

import { lockKey, sessionName } from '../../lib/backends/postgres/postgres-names';
import { postgresQuery } from '../helpers/postgres-query';
import { waitFor } from '../helpers/wait-for';
import { audit, auditLine, chaosRecord, report, settledAt } from './chaos-harness';
import { postgresChaosScenario } from './postgres-chaos-harness';

// A child killed while its lease call waits on the server: the call runs on
// after the death (Postgres finds the connection closed only when it
// replies), so without more it would lease its task after the pool's
// searches and leave it RUNNING until its lease runs out (an hour). The test
// holds the queue's pause lock, which every lease shares, so the child's
// call waits under it; it kills the child and lets the lock go well after a
// second. The pool ends the dead child's sessions, so the call rolls back
// and never leases: every task runs once, soon after the lock is let go, and
// none is leased by the dead child.

const TASKS = 3;
/** How long the lock is held after the kill: far past the 1 s a timed search would wait. */
const HELD_MS = 3000;
/** Far below the lease (1 h by default), which would recover a task the dead child leased. */
const SETTLE_MS = 15_000;

describe('chaos: a worker child killed while its Postgres lease call waits on a lock', () => {
  jest.setTimeout(120_000);
  let holder: Client | undefined;
  // Before the scenario's own cleanup (hooks run in the order declared).
  afterAll(async () => {
    await holder?.end();
  });
  const scenario = postgresChaosScenario();

  it('ends the dead child’s sessions, so its call never leases: each task runs once, soon after the lock goes', async () => {
    const stage = await scenario.stage('late-lease');
    const { alias, backend, journal, schema } = stage;
    const url = scenario.server().url;
    const pool = scenario.startPool(
      ['--alias', alias, '--processes', '1', '--threads', '1'],
      stage.env,
    );
    const [child] = await waitFor(
      () => (pool.liveChildren().length === 1 ? pool.liveChildren() : null),
      { timeoutMs: 60_000, what: 'a ready child' },
    );
    holder = new Client({ connectionString: url });
    holder.on('error', () => undefined);
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1::bigint)', [
      lockKey('pause', schema, alias, 'default'),
    ]);
    const records = Array.from({ length: TASKS }, () => chaosRecord(alias, journal, 0));
    await backend.tasks.enqueueMany(records);
    const waiting = (pid: number) =>
      postgresQuery<{ n: number }>(
        url,
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE application_name = $1 AND wait_event_type = 'Lock'`,
        [sessionName(pid)],
      );
    await waitFor(async () => ((await waiting(child))[0]?.n ?? 0) > 0, {
      what: "the child's lease call to wait on the lock",
    });

    process.kill(child, 'SIGKILL');
    // The fault's duration, not a wait for an event.
    await new Promise((resolve) => setTimeout(resolve, HELD_MS));
    const [left] = await postgresQuery<{ n: number }>(
      url,
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
      [sessionName(child)],
    );
    const releasedAt = Date.now();
    await holder.query('SELECT pg_advisory_unlock_all()');
    const settled = await settledAt(backend, SETTLE_MS);
    const result = await audit(
      backend,
      records.map((r) => r.id),
      journal,
    );
    const byDead = (await Promise.all(records.map((r) => backend.tasks.getResult(r.id)))).filter(
      (r) => r.workerIds.some((id) => id.includes(`:${child}-`)),
    );
    report(
      auditLine(
        `Postgres: a child killed while its lease call waited, the lock held ${HELD_MS} ms after`,
        result,
        `${left?.n ?? '?'} session(s) of the dead child left at the release; ` +
          `${byDead.length} task(s) leased by it; settled ` +
          `${settled === null ? 'never' : `${settled - releasedAt} ms`} after the release`,
      ),
    );
    if (settled === null || result.stuck.length > 0) report(pool.output().slice(-4000));

    expect(left?.n).toBe(0);
    expect(settled).not.toBeNull();
    expect(result.stuck).toEqual([]);
    expect(result.lost).toEqual([]);
    expect(result.failed).toEqual({});
    expect(result.successful).toBe(TASKS);
    expect(result.duplicates).toEqual([]);
    expect(byDead).toEqual([]);
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });
});
