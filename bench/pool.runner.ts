import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import type { ChainableCommander } from 'ioredis';

import type { BenchConfig } from './bench-config';
import { BullmqRunner } from './bullmq.runner';
import { BULLMQ, poolKey, THREADMILL, type PoolResults } from './figures';
import type { QueueRunner } from './queue-runner.interface';
import type { BenchRedisServer } from './redis-server';

type Log = (line: string) => void;

interface CleanupRegistry {
  add(step: () => Promise<void>): void;
}

/** One library's pool: how to fill its queue, start it, and see how much is left. */
interface PoolSystem {
  name: string;
  fill: QueueRunner;
  commands(processes: number, threads: number): string[][];
  /** Tasks waiting or running, read from outside (the admin connection). */
  remaining(): Promise<number>;
}

/** How long one pool run may take before it is killed and the run fails. */
const POOL_DEADLINE_MS = 180_000;
/**
 * How often the queue is looked at from outside while a pool drains it. Each
 * look wakes Redis and this process, which on 2 cores takes CPU from the pool
 * being measured: every 5 ms it cost Threadmill's pool 14% of its rate (19.3k
 * and 17.9k against 21.9k and 21.1k tasks/s, alternating). Every 20 ms the end
 * of a 5 s drain is still placed to within 0.4%.
 */
const OBSERVE_EVERY_MS = 20;
const BULLMQ_QUEUE = 'pool';
/** Alias the sample CLI is pointed at (THREADMILL_ALIAS); the sample consumes its queue `default`. */
const THREADMILL_ALIAS = 'benchpool';

/**
 * The pool figure: N tasks waiting, a pool started with
 * `--exit-empty`. Booting Nest (seconds) is not queue work, so the drain is
 * timed from outside: from the first moment fewer than N tasks are left
 * (ZCARD/LLEN in one round trip on the admin connection every 20 ms) to the moment none is
 * waiting or running. Spawn-to-exit time is logged too.
 *
 * Threadmill: the sample CLI (`npm run -s cli -- worker --processes P
 * --threads T --exit-empty`, built once and started as `node
 * sample-dist/sample/src/worker.js worker ...`) draining `sample.echo`.
 * BullMQ has no pool: P processes each running one Worker with concurrency T
 * (bench/bullmq.pool-child.ts) stand in for it.
 */
export class PoolBench {
  constructor(
    private readonly server: BenchRedisServer,
    private readonly config: BenchConfig,
    private readonly root: string,
    private readonly log: Log,
    private readonly cleanup: CleanupRegistry,
  ) {}

  async run(only: string | null): Promise<PoolResults> {
    const systems: PoolSystem[] = [];
    if (only === null || only === THREADMILL.toLowerCase()) {
      const threadmill = await this.threadmillSystem();
      if (threadmill) systems.push(threadmill);
    }
    if (only === null || only === BULLMQ.toLowerCase()) systems.push(this.bullmqSystem());

    const results: PoolResults = {};
    for (const { processes, threads, tasks } of this.config.poolRuns) {
      const key = poolKey(processes, threads);
      results[key] = {};
      for (let rep = 0; rep < this.config.reps; rep++) {
        const order = rep % 2 === 0 ? systems : [...systems].reverse();
        for (const system of order) {
          const rate = await this.drainOnce(system, processes, threads, tasks);
          (results[key][system.name] ??= []).push(rate);
        }
      }
    }
    return results;
  }

  private async drainOnce(
    system: PoolSystem,
    processes: number,
    threads: number,
    tasks: number,
  ): Promise<number> {
    await this.server.reset();
    await system.fill.fill(tasks);
    await this.server.settle();
    const spawned = performance.now();
    let exited = false;
    const done = Promise.all(
      system.commands(processes, threads).map((argv) => this.runToExit(argv)),
    ).finally(() => (exited = true));
    // Awaited after the sampling loop; a child that fails meanwhile (Ctrl-C stops them all)
    // must reach that await, not crash this process as an unhandled rejection before the
    // cleanup has stopped the private redis-server.
    done.catch(() => undefined);
    let firstTaken: number | null = null;
    let lastSeen = spawned;
    const deadline = spawned + POOL_DEADLINE_MS;
    while (!exited && performance.now() < deadline) {
      const left = await system.remaining();
      const now = performance.now();
      if (firstTaken === null && left < tasks) firstTaken = now;
      lastSeen = now;
      if (left === 0) break;
      await sleep(OBSERVE_EVERY_MS);
    }
    await done;
    const total = (performance.now() - spawned) / 1000;
    const draining = (lastSeen - (firstTaken ?? spawned)) / 1000;
    const rate = tasks / Math.max(draining, 1e-3);
    this.log(
      `pool ${system.name} --processes ${processes} --threads ${threads}: ${Math.round(rate)} tasks/s (drain ${draining.toFixed(2)} s, spawn to exit ${total.toFixed(2)} s)`,
    );
    return rate;
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
    const fill = await ThreadmillRunner.create(this.server.url, THREADMILL_ALIAS);
    this.cleanup.add(() => fill.close());
    const keys = new RedisKeys(THREADMILL_ALIAS);
    const entry = join(this.root, 'sample-dist', 'sample', 'src', 'worker.js');
    const { admin } = this.server;
    return {
      name: THREADMILL,
      fill,
      commands: (processes, threads) => [
        [
          process.execPath,
          entry,
          'worker',
          '--backend',
          THREADMILL_ALIAS,
          '--processes',
          String(processes),
          '--threads',
          String(threads),
          '--exit-empty',
        ],
      ],
      remaining: () =>
        countAll(admin.pipeline().zcard(keys.queue('default')).zcard(keys.running('default'))),
    };
  }

  private runToExit([file, ...args]: string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(file, args, {
        cwd: this.root,
        env: { ...process.env, REDIS_URL: this.server.url, THREADMILL_ALIAS },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-4000);
      });
      const stop = (signal: NodeJS.Signals): void => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      };
      // Past the deadline: SIGTERM (the pool stops its children), then SIGKILL if it hangs on.
      const timer = setTimeout(() => {
        stop('SIGTERM');
        setTimeout(() => stop('SIGKILL'), 10_000).unref();
      }, POOL_DEADLINE_MS);
      this.cleanup.add(async () => stop('SIGTERM'));
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`${file} ${args.join(' ')} exited ${code ?? signal}: ${stderr}`));
      });
    });
  }
}

/** The sum of a pipeline of counts, sent as one round trip (one wake-up of Redis per look). */
async function countAll(pipeline: ChainableCommander): Promise<number> {
  let total = 0;
  for (const [error, count] of (await pipeline.exec()) ?? []) {
    if (error) throw error;
    total += Number(count);
  }
  return total;
}
