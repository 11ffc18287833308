import { cpus, loadavg } from 'node:os';
import { join, relative } from 'node:path';

import { Cleanup, cleanUpOnSignals, log } from '../cleanup';
import { CostMeter, RoundTripCounter } from '../metrics';
import { sampleCliSystem, PoolDrain, THREADMILL_POOL_ALIAS, type PoolSystem } from '../pool-drain';
import { COMPILED_ROOT, copyLuaAssets } from '../project-paths';
import { BenchRedisServer } from '../redis-server';
import { writeJson } from '../report';
import { HELP } from '../run-args';
import { gitCommit, gitDirty, osName, ownVersion } from '../run-info';
import { Scenarios } from '../scenarios';
import { ThreadmillRunner } from '../threadmill.runner';
import { currentPoolKeys, loadBuild, type Build } from './builds';
import { againstConfig, type AgainstConfig } from './config';
import { parseAgainstArgs, UsageError, type AgainstOptions } from './options';
import { AgainstSuite } from './suite';
import { renderAbTable, summarize, type AbRow } from './summary';
import { checkOutRef, resolveRef, runCommand, type RefCheckout } from './worktree';
import type { Side } from './schedule';

/** The sample CLI's entry point in a checkout, once `npm run build:sample` has run there. */
const SAMPLE_CLI = join('sample-dist', 'sample', 'src', 'worker.js');

/** What `bench/results/against-<commit>.tmp.json` holds. */
export interface AgainstReport {
  meta: {
    date: string;
    startedAt: string;
    command: string;
    mode: AgainstConfig['mode'];
    rounds: number;
    order: string;
    current: { label: string; commit: string | null; dirty: boolean | null; version: string };
    ref: { label: string; ref: string; commit: string; version: string | null; install: string };
    node: string;
    redis: string;
    cpus: string;
    os: string;
    loadAverageBefore: number[];
    loadAverageAfter: number[];
  };
  config: AgainstConfig;
  figures: AbRow[];
  /** The current build against itself: a variant (current) and the plain scenario (ref). */
  within: AbRow[];
  raw: unknown;
}

/**
 * `npm run bench -- --against <ref>`: the current tree and <ref>, Threadmill
 * only, driven by this harness through each build's public API and sample CLI.
 *
 * What the ref must have: `npm run build` writing dist/index.js, which
 * exports RedisBackend with the TaskBackend contract's enqueue, enqueueMany,
 * acknowledge and acknowledgeAndAcquire (a5b4799 and later) and a
 * constructor `(alias, { backend, url, queues })`, and which accepts the
 * TaskRecord this harness builds; and ThreadmillModule.forRoot, TaskService
 * (enqueue, enqueueMany) and Task, which the enqueue figures go through,
 * booted by the NestFactory of the `@nestjs/core` the build resolves. For the pool figure, also `npm run
 * build:sample` writing sample-dist/sample/src/worker.js, a CLI with `worker
 * --processes --threads --exit-empty` that reads REDIS_URL and
 * THREADMILL_ALIAS and runs `sample.echo`; without build:sample the pool
 * figure is left out. Its dist/backends/redis/redis-keys.js, if present, says
 * where the pool figure counts its queue; else the current layout is assumed.
 *
 * The harness code between a scenario and the backend (the consumer loop,
 * the fill's and the backend-level row's records, the no-op task) is the
 * current tree's for both builds: a change there is not measured by the
 * drain figures, only by the pool figure, which runs each build's own
 * worker. The enqueue figures run each build's own TaskService.
 */
export async function runAgainst(root: string, argv: readonly string[]): Promise<void> {
  let options: AgainstOptions;
  try {
    options = parseAgainstArgs(argv);
    resolveRef(root, options.ref);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${HELP}`);
    process.exit(2);
  }
  const config = againstConfig(options);
  const startedAt = new Date().toISOString();
  const commit = gitCommit(root);
  const dirty = gitDirty(root);
  const cleanup = new Cleanup();
  cleanUpOnSignals(cleanup);
  try {
    const checkout = await checkOutRef(root, options.ref, log, cleanup);
    const builds = await prepareBuilds(root, checkout, config, cleanup, {
      current: `current (${commit ?? 'no commit'}${dirty ? ' + uncommitted changes' : ''})`,
      ref: checkout.ref === checkout.short ? checkout.short : `${checkout.ref} (${checkout.short})`,
    });

    const loadBefore = loadavg();
    const server = await BenchRedisServer.start();
    cleanup.add(() => server.stop());
    const redis = await server.version();
    log(`redis-server ${redis} on ${server.url} (private, emptied between scenarios)`);
    const counter = new RoundTripCounter();
    for (const build of Object.values(builds)) counter.install(build.ioredis);
    counter.ignore(server.admin);
    cleanup.add(async () => counter.uninstall());

    const runners = {
      current: await ThreadmillRunner.of(
        builds.current.RedisBackend,
        builds.current.api,
        'current',
        server.url,
      ),
      ref: await ThreadmillRunner.of(builds.ref.RedisBackend, builds.ref.api, 'ref', server.url),
    };
    for (const runner of Object.values(runners)) cleanup.add(() => runner.close());
    const pool = await poolSystems(builds, server, cleanup);
    const scenarios = new Scenarios(server, new CostMeter(server, counter));
    const results = await new AgainstSuite(scenarios, config, log, runners, pool).run();

    const rows = results.series.map(summarize);
    const within = results.within.map(summarize);
    const labels = { current: builds.current.label, ref: builds.ref.label };
    const report: AgainstReport = {
      meta: {
        date: new Date().toISOString(),
        startedAt,
        command: ['npm run bench --', ...argv].join(' '),
        mode: config.mode,
        rounds: config.rounds,
        order:
          'both builds every round, current first in odd rounds (1st, 3rd, ...), the ref in even ones',
        current: { label: labels.current, commit, dirty, version: ownVersion(root) },
        ref: {
          label: labels.ref,
          ref: checkout.ref,
          commit: checkout.commit,
          version: checkout.manifest.version ?? null,
          install: checkout.install,
        },
        node: process.version,
        redis,
        cpus: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown'}`,
        os: osName(),
        loadAverageBefore: loadBefore.map((n) => Number(n.toFixed(2))),
        loadAverageAfter: loadavg().map((n) => Number(n.toFixed(2))),
      },
      config,
      figures: rows,
      within,
      raw: results.raw,
    };
    printReport(report, rows, labels);
    console.log(`\nThe current build against itself, same rounds and order:\n`);
    console.log(renderAbTable(within, { current: 'variant', ref: 'plain' }));
    const out = join(root, 'bench', 'results', `against-${checkout.short}.tmp.json`);
    writeJson(out, report);
    log(`results written to ${relative(root, out)}; latest.json and docs/benchmarks.md left alone`);
  } finally {
    await cleanup.run();
  }
}

/**
 * Builds the ref in its worktree with its own scripts (so an older ref builds
 * as it did then), and the current tree's sample CLI; the current tree's
 * lib/ is what `npm run bench` has just compiled. The pool figure needs both
 * sample CLIs, so neither is built when the ref has none.
 */
async function prepareBuilds(
  root: string,
  checkout: RefCheckout,
  config: AgainstConfig,
  cleanup: Cleanup,
  labels: Record<Side, string>,
): Promise<Record<Side, Build>> {
  log(`${labels.ref}: npm run build`);
  await runCommand('npm', ['run', 'build'], checkout.dir, cleanup);
  let withPool = config.pool !== null;
  if (withPool && !checkout.manifest.scripts?.['build:sample']) {
    log(`${labels.ref}: no \`npm run build:sample\`, pool figure left out`);
    withPool = false;
  }
  if (withPool) {
    log(`${labels.ref}: npm run -s build:sample`);
    await runCommand('npm', ['run', '-s', 'build:sample'], checkout.dir, cleanup);
    log(`${labels.current}: npm run -s build:sample`);
    await runCommand('npm', ['run', '-s', 'build:sample'], root, cleanup);
  }
  copyLuaAssets(root);
  const sample = (dir: string): string | null => (withPool ? join(dir, SAMPLE_CLI) : null);
  return {
    current: loadBuild(
      'current',
      labels.current,
      root,
      join(COMPILED_ROOT, 'lib', 'index.js'),
      sample(root),
      log,
    ),
    ref: loadBuild(
      'ref',
      labels.ref,
      checkout.dir,
      join(checkout.dir, 'dist', 'index.js'),
      sample(checkout.dir),
      log,
    ),
  };
}

/** Each build's pool through its own sample CLI, filled by its own backend; null without both. */
async function poolSystems(
  builds: Record<Side, Build>,
  server: BenchRedisServer,
  cleanup: Cleanup,
): Promise<{ drain: PoolDrain; systems: Record<Side, PoolSystem> } | null> {
  const { current, ref } = builds;
  if (current.sampleCli === null || ref.sampleCli === null) return null;
  const system = async (build: Build, name: Side, cli: string): Promise<PoolSystem> => {
    const fill = await ThreadmillRunner.of(
      build.RedisBackend,
      build.api,
      name,
      server.url,
      THREADMILL_POOL_ALIAS,
    );
    cleanup.add(() => fill.close());
    const keys = build.poolKeys ?? currentPoolKeys();
    return sampleCliSystem(name, fill, cli, keys, server, build.root);
  };
  return {
    drain: new PoolDrain(server, current.root, log, cleanup),
    systems: {
      current: await system(current, 'current', current.sampleCli),
      ref: await system(ref, 'ref', ref.sampleCli),
    },
  };
}

function printReport(report: AgainstReport, rows: AbRow[], labels: Record<Side, string>): void {
  const { meta } = report;
  const unanimous = Math.min(1, 2 ** (1 - meta.rounds));
  console.log(
    `\nThreadmill A/B: ${labels.current} against ${labels.ref} — ${meta.mode} sizes, ${meta.rounds} rounds, ${meta.date}`,
  );
  console.log(
    `node ${meta.node}, redis ${meta.redis}, ${meta.cpus}, load ${meta.loadAverageBefore.join(' ')} → ${meta.loadAverageAfter.join(' ')}\n`,
  );
  console.log(renderAbTable(rows, labels));
  console.log(
    '\nEach build: median (min–max) over the rounds. current / ref: the ratio within each round, the two measured one right after the other, median (min–max). ' +
      'better / worse: the ratio fell on that side of 1 in every round; noise: the rounds disagree. ' +
      'In brackets: the rounds in which the current tree did better, and p, the chance that two identical builds split the rounds at least this unevenly (sign test). ' +
      `At ${meta.rounds} rounds a unanimous figure has p ${unanimous.toFixed(2)}: about ${Math.round(unanimous * rows.length)} of these ${rows.length} figures come out better or worse from noise alone; more --rounds tell that from a change.`,
  );
}
