import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem, type } from 'node:os';
import { join, relative, resolve } from 'node:path';

import { FULL, QUICK, type BenchConfig } from './bench-config';
import {
  BENCHMARKS_PAGE,
  benchmarksPagePath,
  LATEST_JSON,
  writeBenchmarksPage,
} from './benchmarks-page';
import { BEE_QUEUE, BULLMQ, buildFigures, SQLITE, THREADMILL, type PoolResults } from './figures';
import { BullmqRunner } from './bullmq.runner';
import { CostMeter, RoundTripCounter } from './metrics';
import { copyLuaAssets, findProjectRoot } from './project-paths';
import type { QueueRunner } from './queue-runner.interface';
import { BenchRedisServer } from './redis-server';
import {
  isWholeFullRun,
  renderTable,
  toReported,
  writeJson,
  type BenchMeta,
  type BenchReport,
} from './report';
import { Scenarios } from './scenarios';
import { Suite } from './suite';

interface Args {
  config: BenchConfig;
  only: string | null;
  pool: boolean;
  inProcess: boolean;
  /** Only some figures: the run must not stand for the benchmark. */
  partial: boolean;
  out: string;
  /** Where this run's report goes besides `out`: docs/benchmarks.md for a whole full run into latest.json. */
  page: string | null;
  /** `--from-json <file>`: no run, only docs/benchmarks.md rewritten from that report. */
  fromJson: string | null;
}

const USAGE =
  'use --quick, --only <threadmill|bullmq|bee-queue|sqlite>, --pool, --no-pool, --pool-only, --out <file>, --from-json <file>';

function parseArgs(argv: readonly string[], root: string): Args {
  const quick = argv.includes('--quick');
  const value = (flag: string): string | null => {
    const inline = argv.find((arg) => arg.startsWith(`${flag}=`));
    if (inline) return inline.slice(flag.length + 1);
    const at = argv.indexOf(flag);
    return at >= 0 && at + 1 < argv.length ? argv[at + 1] : null;
  };
  const known = new Set([
    '--quick',
    '--only',
    '--pool',
    '--no-pool',
    '--pool-only',
    '--out',
    '--from-json',
  ]);
  const unknown = argv.filter((arg) => arg.startsWith('--') && !known.has(arg.split('=')[0]));
  if (unknown.length) {
    console.error(`unknown option ${unknown.join(' ')}; ${USAGE}`);
    process.exit(2);
  }
  const only = value('--only')?.toLowerCase() ?? null;
  // Only a whole full run replaces latest.json and docs/benchmarks.md: a part of one,
  // or a quick one, must not stand in for the benchmark.
  const partial = only !== null || argv.includes('--no-pool') || argv.includes('--pool-only');
  const out = resolve(
    value('--out') ??
      join(
        root,
        'bench',
        'results',
        quick ? 'latest-quick.tmp.json' : partial ? 'latest-partial.tmp.json' : 'latest.json',
      ),
  );
  const fromJson = value('--from-json');
  return {
    config: quick ? QUICK : FULL,
    only,
    // The pool figure boots Nest processes (seconds each): --quick leaves it out unless asked.
    pool:
      argv.includes('--pool-only') ||
      (!argv.includes('--no-pool') && (!quick || argv.includes('--pool'))),
    inProcess: !argv.includes('--pool-only'),
    partial,
    out,
    page: benchmarksPagePath(root, { quick, partial, out }),
    fromJson: fromJson === null ? null : resolve(fromJson),
  };
}

function git(root: string, args: readonly string[]): string | null {
  try {
    return execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return null;
  }
}

function gitCommit(root: string): string | null {
  return git(root, ['rev-parse', '--short', 'HEAD'])?.trim() ?? null;
}

/** Uncommitted changes (untracked files included) besides what a run itself writes; null when git cannot tell. */
function gitDirty(root: string): boolean | null {
  const status = git(root, [
    'status',
    '--porcelain',
    '--',
    '.',
    ':(exclude)bench/results',
    `:(exclude)${BENCHMARKS_PAGE}`,
  ]);
  return status === null ? null : status.trim().length > 0;
}

function packageVersion(root: string, name: string): string {
  const manifest = join(root, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

function ownVersion(root: string): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** "Debian GNU/Linux 12 (bookworm), Linux 6.1.0" where /etc/os-release says so, else the kernel alone. */
function osName(): string {
  const kernel = `${type()} ${release()}`;
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    return pretty ? `${pretty[1]}, ${kernel}` : kernel;
  } catch {
    return kernel;
  }
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
  const page = join(root, BENCHMARKS_PAGE);
  await writeBenchmarksPage(page, report);
  console.error(`${relative(root, page)} written from ${relative(root, file)}`);
}

/** Everything started by this run, stopped in reverse order, also on Ctrl-C. */
class Cleanup {
  private readonly steps: (() => Promise<void>)[] = [];
  private running: Promise<void> | null = null;

  add(step: () => Promise<void>): void {
    this.steps.push(step);
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (const step of this.steps.reverse()) {
        try {
          await step();
        } catch (error) {
          console.error('cleanup step failed (continuing):', error);
        }
      }
    })();
    return this.running;
  }
}

async function main(): Promise<void> {
  const root = findProjectRoot();
  const args = parseArgs(process.argv.slice(2), root);
  if (args.fromJson !== null) return writePageFromJson(root, args.fromJson);
  const { config } = args;
  const startedAt = new Date().toISOString();
  const commit = gitCommit(root);
  const dirty = gitDirty(root);
  const cleanup = new Cleanup();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping what the benchmark started`);
      void cleanup.run().finally(() => process.exit(130));
    });
  }
  const log = (line: string): void =>
    console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

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
    const wants = (name: string): boolean => args.only === null || args.only === name.toLowerCase();
    if (wants(THREADMILL)) {
      copyLuaAssets(root);
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
    if (args.pool) {
      const { PoolBench } = await import('./pool.runner');
      Object.assign(pool, await new PoolBench(server, config, root, log, cleanup).run(args.only));
    }
    const scenarios = new Scenarios(server, new CostMeter(server, counter));
    const results = args.inProcess ? await new Suite(scenarios, config, log).run(runners) : {};

    const rows = buildFigures(config, results, pool)
      .map(toReported)
      .filter(
        (row) =>
          row.threadmill !== null ||
          row.bullmq !== null ||
          row.beeQueue !== null ||
          typeof row.sqlite === 'number',
      );
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
    const report: BenchReport = { meta, config, figures: rows, raw: { results, pool } };
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
