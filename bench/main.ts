import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

import { FULL, QUICK, type BenchConfig } from './bench-config';
import { BEE_QUEUE, BULLMQ, buildFigures, SQLITE, THREADMILL, type PoolResults } from './figures';
import { BullmqRunner } from './bullmq.runner';
import { CostMeter, RoundTripCounter } from './metrics';
import { copyLuaAssets, findProjectRoot } from './project-paths';
import type { QueueRunner } from './queue-runner.interface';
import { BenchRedisServer } from './redis-server';
import { renderTable, toReported, writeJson } from './report';
import { Scenarios } from './scenarios';
import { Suite } from './suite';

interface Args {
  config: BenchConfig;
  only: string | null;
  pool: boolean;
  inProcess: boolean;
  out: string | null;
}

function parseArgs(argv: readonly string[], root: string): Args {
  const quick = argv.includes('--quick');
  const value = (flag: string): string | null => {
    const inline = argv.find((arg) => arg.startsWith(`${flag}=`));
    if (inline) return inline.slice(flag.length + 1);
    const at = argv.indexOf(flag);
    return at >= 0 && at + 1 < argv.length ? argv[at + 1] : null;
  };
  const known = new Set(['--quick', '--only', '--pool', '--no-pool', '--pool-only', '--out']);
  const unknown = argv.filter((arg) => arg.startsWith('--') && !known.has(arg.split('=')[0]));
  if (unknown.length) {
    console.error(
      `unknown option ${unknown.join(' ')}; use --quick, --only <threadmill|bullmq|bee-queue|sqlite>, --pool, --no-pool, --pool-only, --out <file>`,
    );
    process.exit(2);
  }
  const only = value('--only')?.toLowerCase() ?? null;
  // Only a whole run replaces latest.json: a part of one must not stand in for the README's table.
  const partial = only !== null || argv.includes('--no-pool') || argv.includes('--pool-only');
  return {
    config: quick ? QUICK : FULL,
    only,
    // The pool figure boots Nest processes (seconds each): --quick leaves it out unless asked.
    pool:
      argv.includes('--pool-only') ||
      (!argv.includes('--no-pool') && (!quick || argv.includes('--pool'))),
    inProcess: !argv.includes('--pool-only'),
    out:
      value('--out') ??
      join(
        root,
        'bench',
        'results',
        quick ? 'latest-quick.tmp.json' : partial ? 'latest-partial.tmp.json' : 'latest.json',
      ),
  };
}

function gitCommit(root: string): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
    }).trim();
  } catch {
    return null;
  }
}

function packageVersion(root: string, name: string): string {
  const manifest = join(root, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
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
  const { config } = args;
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
    let sqlite: Record<string, string> | null = null;
    if (wants(SQLITE)) {
      const { SqliteRunner } = await import('./sqlite.runner');
      const runner = await SqliteRunner.create();
      runners.push(runner);
      cleanup.add(() => runner.close());
      sqlite = {
        sqlite: runner.libraryVersion(),
        betterSqlite3: packageVersion(root, 'better-sqlite3'),
        database: `a file in ${runner.folder} (deleted afterwards), WAL, synchronous NORMAL`,
      };
      log(`SQLite ${sqlite.sqlite} (better-sqlite3 ${sqlite.betterSqlite3}) on ${sqlite.database}`);
    }

    // The pool figures first, while this process is fresh: after the in-process
    // scenarios (a million-task fill per library among them) Threadmill's pool
    // drained 40k tasks/s here, where a run of the pool figures alone drained
    // 48-54k; its child and Redis need both cores, so this process's leftover
    // work shows. BullMQ's pool, limited by its child's own CPU, barely moved.
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
    const meta = {
      date: new Date().toISOString(),
      mode: config.mode,
      command: `npm run bench${config.mode === 'quick' ? ' -- --quick' : ''}`,
      commit: gitCommit(root),
      node: process.version,
      redis: await server.version(),
      bullmq: packageVersion(root, 'bullmq'),
      ...(beeQueue && { beeQueue }),
      ...(sqlite && { sqlite }),
      cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
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
    writeJson(args.out ?? '', { meta, config, figures: rows, raw: { results, pool } });
    log(`results written to ${args.out}`);
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
