import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { BenchConfig } from './bench-config';
import { BullmqRunner } from './bullmq.runner';
import { BULLMQ, poolKey, THREADMILL, type PoolResults } from './figures';
import {
  countAll,
  PoolDrain,
  sampleCliSystem,
  THREADMILL_POOL_ALIAS,
  type CleanupRegistry,
  type Log,
  type PoolSystem,
} from './pool-drain';
import type { BenchRedisServer } from './redis-server';

const BULLMQ_QUEUE = 'pool';

/**
 * The pool figures (each drain timed as bench/pool-drain.ts says).
 *
 * Threadmill: the sample CLI (`npm run -s cli -- worker --processes P
 * --threads T --exit-empty`, built once and started as `node
 * sample-dist/sample/src/worker.js worker ...`) draining `sample.echo`.
 * BullMQ has no pool: P processes each running one Worker with concurrency T
 * (bench/bullmq.pool-child.ts) stand in for it.
 */
export class PoolBench {
  private readonly drain: PoolDrain;

  constructor(
    private readonly server: BenchRedisServer,
    private readonly config: BenchConfig,
    private readonly root: string,
    private readonly log: Log,
    private readonly cleanup: CleanupRegistry,
  ) {
    this.drain = new PoolDrain(server, root, log, cleanup);
  }

  async run(only: string | null): Promise<PoolResults> {
    const systems: PoolSystem[] = [];
    if (only === null || only === THREADMILL.toLowerCase()) {
      const threadmill = await this.threadmillSystem();
      if (threadmill) systems.push(threadmill);
    }
    if (only === null || only === BULLMQ.toLowerCase()) systems.push(this.bullmqSystem());

    const results: PoolResults = {};
    for (const { processes, threads, tasks, prefetch = 0 } of this.config.poolRuns) {
      const key = poolKey(processes, threads, prefetch);
      results[key] = {};
      for (let rep = 0; rep < this.config.reps; rep++) {
        const order = rep % 2 === 0 ? systems : [...systems].reverse();
        for (const system of order) {
          const rate = await this.drain.once(system, processes, threads, tasks, prefetch);
          (results[key][system.name] ??= []).push(rate);
        }
      }
    }
    return results;
  }

  private bullmqSystem(): PoolSystem {
    const fill = new BullmqRunner(this.server.url, BULLMQ_QUEUE);
    this.cleanup.add(() => fill.close());
    const child = join(__dirname, 'bullmq.pool-child.js');
    const { admin } = this.server;
    return {
      name: BULLMQ,
      fill,
      commands: (processes, threads) =>
        Array.from({ length: processes }, () => [
          process.execPath,
          child,
          this.server.url,
          BULLMQ_QUEUE,
          String(threads),
        ]),
      remaining: () =>
        countAll(
          admin.pipeline().llen(`bull:${BULLMQ_QUEUE}:wait`).llen(`bull:${BULLMQ_QUEUE}:active`),
        ),
    };
  }

  /** Threadmill's pool, when the sample CLI exists in this checkout; null (and a log line) otherwise. */
  private async threadmillSystem(): Promise<PoolSystem | null> {
    const manifest = JSON.parse(readFileSync(join(this.root, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    if (!manifest.scripts?.['build:sample'] || !existsSync(join(this.root, 'sample'))) {
      this.log(
        'pool: no `npm run build:sample` / sample/ in this checkout, Threadmill pool skipped',
      );
      return null;
    }
    // `npm run cli` rebuilds the sample on every call: build it once, then time the node entry alone.
    this.log('pool: building the sample CLI once (npm run -s build:sample)');
    execFileSync('npm', ['run', '-s', 'build:sample'], { cwd: this.root, stdio: 'inherit' });
    const { ThreadmillRunner } = await import('./threadmill.runner');
    const { RedisKeys } = await import('../lib/backends/redis/redis-keys');
    const fill = await ThreadmillRunner.create(this.server.url, THREADMILL_POOL_ALIAS);
    this.cleanup.add(() => fill.close());
    const entry = join(this.root, 'sample-dist', 'sample', 'src', 'worker.js');
    const keys = new RedisKeys(THREADMILL_POOL_ALIAS);
    return sampleCliSystem(THREADMILL, fill, entry, keys, this.server);
  }
}
