import type { Cleanup } from '../cleanup';
import { copyLuaAssets } from '../project-paths';
import { ownVersion, packageVersion } from '../run-info';
import { BenchPostgresServer } from './bench-postgres-server';
import { BullmqPostgresRunner } from './bullmq-postgres.runner';
import { GraphileWorkerRunner } from './graphile-worker.runner';
import type { PostgresBenchConfig } from './postgres-bench-config';
import { PostgresAppTransactionBench } from './postgres-app-transaction';
import { PostgresCostMeter, PostgresQueryCounter } from './postgres-cost-meter';
import { buildPostgresRows, POSTGRES_THREADMILL } from './postgres-figures';
import { OutboxBench } from './outbox-bench';
import type { PostgresReport } from './postgres-page';
import { PostgresPoolBench } from './postgres-pool';
import type { PostgresQueueRunner } from './postgres-queue-runner';
import { PostgresScenarios } from './postgres-scenarios';
import { PostgresSuite } from './postgres-suite';
import { PgBossRunner } from './pg-boss.runner';
import { ThreadmillPostgresRunner } from './threadmill-postgres.runner';

type Log = (line: string) => void;

/**
 * The Postgres rows of `npm run bench`: Threadmill's Postgres backend, BullMQ
 * on its Postgres backend, pg-boss and graphile-worker, on one Postgres
 * started for the run (or PG_URL), every figure of every library in one run.
 * `pool`: whether Threadmill's pool row runs (the sample CLI; seconds each).
 */
export async function runPostgresBench(
  root: string,
  config: PostgresBenchConfig,
  pool: boolean,
  log: Log,
  cleanup: Cleanup,
): Promise<PostgresReport> {
  const server = await BenchPostgresServer.start();
  cleanup.add(() => server.stop());
  const version = await server.version();
  log(
    `postgres ${version} on ${server.shownUrl} (${server.isPrivate ? 'private' : 'PG_URL'}, a fresh database per scenario)`,
  );
  const counter = new PostgresQueryCounter();
  counter.install();
  cleanup.add(async () => counter.uninstall());

  const versions: Record<string, string> = {
    Threadmill: ownVersion(root),
    BullMQ: packageVersion(root, 'bullmq'),
    'pg-boss': packageVersion(root, 'pg-boss'),
    'graphile-worker': packageVersion(root, 'graphile-worker'),
  };
  const runners: PostgresQueueRunner[] = [
    new ThreadmillPostgresRunner(versions.Threadmill),
    new BullmqPostgresRunner(versions.BullMQ),
    new PgBossRunner(versions['pg-boss']),
    new GraphileWorkerRunner(versions['graphile-worker']),
  ];
  const meter = new PostgresCostMeter(server, counter);
  const scenarios = new PostgresScenarios(server, meter, config.drainLimitMs);
  cleanup.add(async () => {
    for (const runner of runners) await scenarios.release(runner);
  });
  const poolRates = pool
    ? await new PostgresPoolBench(scenarios, config, root, log, cleanup).run(versions.Threadmill)
    : [];
  const results = await new PostgresSuite(scenarios, config, log).run(runners);
  const ours = results[POSTGRES_THREADMILL];
  if (ours) {
    // The outbox moves into Redis: its backend loads the Lua scripts beside the compiled code.
    copyLuaAssets(root);
    ours.outbox = await new OutboxBench(server, config, log).run();
  }
  const appTransaction = await new PostgresAppTransactionBench(server, meter).run(
    config.sequentialTasks,
  );
  log(
    `postgres app transaction: ${Math.round(appTransaction.transactions / appTransaction.withEnqueue.seconds)} tx/s with an enqueue, ` +
      `${Math.round(appTransaction.transactions / appTransaction.without.seconds)} without`,
  );
  return {
    meta: { server: version, privateServer: server.isPrivate, versions },
    config,
    rows: buildPostgresRows(config, results, poolRates, appTransaction),
    raw: { results, pool: poolRates, appTransaction },
  };
}
