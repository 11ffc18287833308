import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';

import { Client } from 'pg';

import { SAFETY_POLL_MS } from '../../lib/backends/postgres/postgres-acquirer';
import { CANCEL_IDLE_AFTER_MS } from '../../lib/core/cancel-delivery';
import { startCli, type RunningCli } from '../helpers/cli-process';
import { testAlias } from '../helpers/test-alias';
import { testPostgresUrl } from '../helpers/test-postgres-url';
import { waitFor } from '../helpers/wait-for';

// What an idle pool costs a Postgres: the transactions committed in a
// database of the test's own (pg_stat_database counts per database, so no
// other test's work is in the figure) while a real pool of the sample CLI
// has nothing to do.

/** The span measured. */
const WINDOW_MS = 10_000;
/** A backend reports its counts when it goes idle, at most once a second: a commit may land 1 s late. */
const REPORT_LAG_MS = 1_000;
/** The pool's maintenance interval here: a pass, a beat and a schedule tick each. */
const MAINTENANCE_MS = 5_000;
/**
 * Transactions of one maintenance period with no work: the pool's beat, the
 * schedule tick, promote, reap, lapsed pools, one trim (ingress counts,
 * expired results and the retention of every queue and final status in one
 * statement), forgetting free unique keys and the pass's own mark.
 */
const PER_PASS = 8;
/** Each process re-reads the server's clock once a minute (3 round trips): the parent and the child. */
const CLOCK_READS = 2 * 3;
/** Autovacuum may look at the new database once (its own transaction). */
const AUTOVACUUM = 2;

describe('an idle pool on Postgres (e2e: real pool and child process, a database of its own)', () => {
  jest.setTimeout(120_000);
  let admin: Client;
  let database: string;
  const started: RunningCli[] = [];

  const commits = async (): Promise<number> => {
    const { rows } = await admin.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1',
      [database],
    );
    return Number(rows[0].n);
  };

  beforeEach(async () => {
    admin = new Client({ connectionString: testPostgresUrl() });
    await admin.connect();
    database = `t_${randomUUID().replaceAll('-', '')}`;
    await admin.query(`CREATE DATABASE ${database}`);
  });

  afterEach(async () => {
    for (const cli of started.splice(0)) await cli.killGroup();
    await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('commits no more transactions in 10 s than its safety poll, maintenance passes, beats and clock reads make', async () => {
    const url = new URL(testPostgresUrl());
    url.pathname = `/${database}`;
    // One child of 2 slots: one acquire lane, so one safety poll at a time.
    const pool = startCli(
      ['worker', '--processes', '1', '--threads', '2'],
      {
        REDIS_URL: '',
        REDIS_CLUSTER_NODES: '',
        REDIS_SENTINELS: '',
        DATABASE_URL: url.toString(),
        THREADMILL_ALIAS: testAlias(),
        THREADMILL_MAINTENANCE_INTERVAL_MS: String(MAINTENANCE_MS),
      },
      started,
    );
    await waitFor(() => pool.liveChildren().length === 1, {
      timeoutMs: 60_000,
      what: 'the pool child to be ready',
    });
    // A child reads its cancel requests until it has held nothing for a while: idle is after that.
    await delay(CANCEL_IDLE_AFTER_MS + REPORT_LAG_MS);

    const before = await commits();
    // The measurement is of a span of time: nothing to await but its end.
    await delay(WINDOW_MS);
    const committed = (await commits()) - before;

    const span = WINDOW_MS + REPORT_LAG_MS;
    const safetyPolls = Math.ceil(span / SAFETY_POLL_MS) + 1;
    const periods = Math.ceil(span / MAINTENANCE_MS) + 1;
    const budget = safetyPolls + periods * PER_PASS + CLOCK_READS + AUTOVACUUM;
    expect({ committed, budget, within: committed <= budget }).toMatchObject({ within: true });
  });
});
