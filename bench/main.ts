/**
 * `npm run bench`: Threadmill against BullMQ and Bee-Queue (and Threadmill on
 * SQLite), every library in one run on one private redis-server, because
 * these 2-core machines drift by tens of percent between runs and only
 * figures of one run can be compared. A whole full run writes
 * bench/results/latest.json and docs/benchmarks.md; `--quick` and partial runs
 * write a *.tmp.json and leave both alone. `--help` lists the options.
 *
 * `npm run bench -- --against <ref> [--rounds N] [--quick] [--no-pool]`: the
 * A/B mode, for judging a refactor. Two full runs one after the other cannot
 * tell a 5% change from that drift, so this builds <ref> in a temporary git
 * worktree and measures it and the current tree with this harness in the
 * same run, Threadmill only, each figure N rounds with both builds in every
 * round (current, ref, then ref, current, ...), and reports the ratio of each
 * round, so the noise is in the table beside the change. See bench/against/run.ts.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, relative } from 'node:path';

import type { BenchConfig } from './bench-config';
import { BENCHMARKS_PAGE, LATEST_JSON, writeBenchmarksPage } from './benchmarks-page';
import { BEE_QUEUE, BULLMQ, buildFigures, SQLITE, THREADMILL, type PoolResults } from './figures';
import { BullmqRunner } from './bullmq.runner';
import { Cleanup, cleanUpOnCrash, cleanUpOnSignals, log } from './cleanup';
import { CostMeter, RoundTripCounter } from './metrics';
import { buildDashboardPage, copyLuaAssets, findProjectRoot } from './project-paths';
import type { QueueRunner } from './queue-runner.interface';
import { BenchRedisServer } from './redis-server';
import {
  isWholeFullRun,
  renderTable,
  toReported,
  writeJson,
  type BenchMeta,
  type BenchReport,
  type ReportedRow,
} from './report';
import { POSTGRES_FULL, POSTGRES_QUICK } from './postgres/postgres-bench-config';
import { runPostgresBench } from './postgres/postgres-bench';
import { buildPostgresRows } from './postgres/postgres-figures';
import { renderPostgresTable } from './postgres/postgres-page';
import { HELP, isAgainstRun, parseArgs, wantsHelp } from './run-args';
import { git, gitCommit, gitDirty, osName, ownVersion, packageVersion } from './run-info';
import { Scenarios } from './scenarios';
import { completeResults, Suite, type RunnerResults } from './suite';

/** The table's rows, judged: a row nobody measured in this run is left out. */
function reportedFigures(
  config: BenchConfig,
  results: Record<string, RunnerResults>,
  pool: PoolResults,
): ReportedRow[] {
  return buildFigures(config, results, pool)
    .map(toReported)
    .filter(
      (row) =>
        row.threadmill !== null ||
        row.bullmq !== null ||
        row.beeQueue !== null ||
        typeof row.sqlite === 'number',
    );
}

/**
 * `--from-json <file>`: docs/benchmarks.md from a report already written, for
 * when the page's layout changed and the figures did not. Only a whole full
 * run may stand for the benchmark. A report written before the Threadmill
 * version was recorded gets the version in package.json at its commit.
 */
async function writePageFromJson(root: string, file: string): Promise<void> {
  const report = JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
  if (!isWholeFullRun(report.meta)) {
    console.error(
      `${relative(root, file)} is a ${report.meta.partial ? 'partial' : report.meta.mode} run; ${BENCHMARKS_PAGE} shows only a whole full run`,
    );
    process.exit(2);
  }
  if (report.meta.threadmill === undefined && report.meta.commit !== null) {
    const manifest = git(root, ['show', `${report.meta.commit}:package.json`]);
    if (manifest !== null) {
      report.meta.threadmill = (JSON.parse(manifest) as { version: string }).version;
    }
  }
  // The figures judged again from the raw samples: the targets may have changed since the run.
  const raw = report.raw as {
    results?: Record<string, Partial<RunnerResults>>;
    pool?: PoolResults;
  };
  if (report.postgres) {
    const { config: pgConfig, raw: pgRaw } = report.postgres;
    report.postgres.rows = buildPostgresRows(
      pgConfig,
      pgRaw.results,
      pgRaw.pool,
      pgRaw.appTransaction ?? null,
    );
  }
  if (raw.results && raw.pool) {
    const results = Object.fromEntries(
      Object.entries(raw.results).map(([name, stored]) => [name, completeResults(stored)]),
    );
    report.figures = reportedFigures(report.config, results, raw.pool);
  }
  const page = join(root, BENCHMARKS_PAGE);
  await writeBenchmarksPage(page, report);
  console.error(`${relative(root, page)} written from ${relative(root, file)}`);
}

async function main(): Promise<void> {
  const root = findProjectRoot();
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) {
    console.log(HELP);
    return;
  }
  if (isAgainstRun(argv)) {
    const { runAgainst } = await import('./against/run');
    return runAgainst(root, argv);
  }
  const args = parseArgs(argv, root);
  if (args.fromJson !== null) return writePageFromJson(root, args.fromJson);
  const { config } = args;
  const startedAt = new Date().toISOString();
  const commit = gitCommit(root);
  const dirty = gitDirty(root);
  const cleanup = new Cleanup();
  cleanUpOnSignals(cleanup);
  cleanUpOnCrash(cleanup);

  try {
    const loadBefore = loadavg();
    const server = await BenchRedisServer.start();
    cleanup.add(() => server.stop());
    log(
      `redis-server ${await server.version()} on ${server.url} (private, emptied between scenarios)`,
    );

    const counter = new RoundTripCounter();
    counter.install();
    counter.ignore(server.admin);
    cleanup.add(async () => counter.uninstall());

    const runners: QueueRunner[] = [];
    const wants = (name: string): boolean =>
      args.redis && (args.only === null || args.only === name.toLowerCase());
    if (wants(THREADMILL)) {
      copyLuaAssets(root);
      buildDashboardPage(root);
      const { ThreadmillRunner } = await import('./threadmill.runner');
      const runner = await ThreadmillRunner.create(server.url);
      runners.push(runner);
      cleanup.add(() => runner.close());
    }
    if (wants(BULLMQ)) {
      const runner = new BullmqRunner(server.url);
      runners.push(runner);
      cleanup.add(() => runner.close());
    }
    let beeQueue: string | null = null;
    if (wants(BEE_QUEUE)) {
      const { BeeQueueRunner } = await import('./bee-queue.runner');
      const runner = await BeeQueueRunner.create(server.url);
      runners.push(runner);
      cleanup.add(() => runner.close());
      beeQueue = packageVersion(root, 'bee-queue');
    }
    let sqlite: BenchMeta['sqlite'] | null = null;
    if (wants(SQLITE)) {
      const { SqliteRunner } = await import('./sqlite.runner');
      const runner = await SqliteRunner.create();
      runners.push(runner);
      cleanup.add(() => runner.close());
      sqlite = {
        sqlite: runner.libraryVersion(),
        betterSqlite3: packageVersion(root, 'better-sqlite3'),
        database: 'a file in a temporary folder (deleted afterwards), WAL, synchronous NORMAL',
      };
      log(
        `SQLite ${sqlite.sqlite} (better-sqlite3 ${sqlite.betterSqlite3}) on a file in ${runner.folder}`,
      );
    }

    // The pool figures first, while this process is fresh: after the in-process
    // scenarios (a million-task fill per library among them) Threadmill's pool
    // drained about a fifth slower than in a run of the pool figures alone; its
    // child and Redis need both cores of a 2-core machine, so this process's
    // leftover work shows. BullMQ's pool, limited by its child's own CPU, barely moved.
    const pool: PoolResults = {};
    if (args.pool && args.redis) {
      const { PoolBench } = await import('./pool.runner');
      Object.assign(pool, await new PoolBench(server, config, root, log, cleanup).run(args.only));
    }
    const scenarios = new Scenarios(server, new CostMeter(server, counter));
    const results = args.inProcess ? await new Suite(scenarios, config, log).run(runners) : {};

    const postgres = args.postgres
      ? await runPostgresBench(
          root,
          config.mode === 'quick' ? POSTGRES_QUICK : POSTGRES_FULL,
          args.pool,
          log,
          cleanup,
        )
      : undefined;

    const rows = reportedFigures(config, results, pool);
    const cpuModel = cpus()[0]?.model.trim() ?? 'unknown';
    const meta: BenchMeta = {
      date: new Date().toISOString(),
      startedAt,
      mode: config.mode,
      partial: args.partial,
      command: [
        'npm run bench',
        ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : []),
      ].join(' '),
      commit,
      dirty,
      node: process.version,
      redis: await server.version(),
      threadmill: ownVersion(root),
      bullmq: packageVersion(root, 'bullmq'),
      ...(beeQueue && { beeQueue }),
      ...(sqlite && { sqlite }),
      cpus: `${cpus().length} × ${cpuModel}`,
      cpuModel,
      cores: cpus().length,
      memoryBytes: totalmem(),
      os: osName(),
      loadAverageBefore: loadBefore.map((n) => Number(n.toFixed(2))),
      loadAverageAfter: loadavg().map((n) => Number(n.toFixed(2))),
      roundTripMethod:
        'client side: ioredis sendCommand calls of the benchmarked clients, one per command sent alone, one per pipeline/MULTI; Bee-Queue uses node_redis, which this does not see, so its round trips are not reported',
      commandMethod:
        'server side: INFO commandstats calls delta (commands run inside Lua included)',
    };
    console.log(
      `\nThreadmill vs BullMQ${beeQueue ? ' and Bee-Queue' : ''}${sqlite ? ' (and Threadmill on SQLite)' : ''} — ${config.mode} run, ${meta.date}`,
    );
    console.log(
      `node ${meta.node}, redis ${meta.redis}, bullmq ${meta.bullmq}${beeQueue ? `, bee-queue ${beeQueue}` : ''}${sqlite ? `, sqlite ${sqlite.sqlite}` : ''}, ${meta.cpus}, load ${meta.loadAverageBefore.join(' ')} → ${meta.loadAverageAfter.join(' ')}\n`,
    );
    console.log(renderTable(rows));
    if (postgres)
      console.log(`\nPostgres ${postgres.meta.server}\n\n${renderPostgresTable(postgres.rows)}`);
    const report: BenchReport = {
      meta,
      config,
      figures: rows,
      raw: { results, pool },
      ...(postgres && { postgres }),
    };
    writeJson(args.out, report);
    log(`results written to ${relative(root, args.out)}`);
    if (args.page !== null) {
      await writeBenchmarksPage(args.page, report);
      log(`${relative(root, args.page)} written from the same run`);
    } else {
      log(`${BENCHMARKS_PAGE} left alone: only a whole full run into ${LATEST_JSON} rewrites it`);
    }
  } finally {
    await cleanup.run();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
