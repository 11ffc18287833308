import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

import type { ChainableCommander } from 'ioredis';

import type { QueueRunner } from './queue-runner.interface';
import type { BenchRedisServer } from './redis-server';

export type Log = (line: string) => void;

export interface CleanupRegistry {
  add(step: () => Promise<void>): void;
}

/** One library's pool: how to fill its queue, start it, and see how much is left. */
export interface PoolSystem {
  name: string;
  fill: QueueRunner;
  /** `prefetch`: Threadmill's `--prefetch`, which another system runs without. */
  commands(processes: number, threads: number, prefetch: number): string[][];
  /** Tasks waiting or running, read from outside (the admin connection). */
  remaining(): Promise<number>;
  /** Where its processes start (the checkout the pool belongs to); default the project root. */
  cwd?: string;
}

/** Where a Threadmill build keeps the two sets the pool figure counts (that build's RedisKeys). */
export interface PoolKeys {
  queue(queue: string): string;
  running(queue: string): string;
}

/** Alias the sample CLI is pointed at (THREADMILL_ALIAS); the sample consumes its queue `default`. */
export const THREADMILL_POOL_ALIAS = 'benchpool';

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

/**
 * One timed pool drain: N tasks waiting, a pool started with `--exit-empty`.
 * Booting Nest (seconds) is not queue work, so the drain is timed from
 * outside: from the first moment fewer than N tasks are left (one round trip
 * on the admin connection every 20 ms) to the moment none is waiting or
 * running. Spawn-to-exit time is logged too.
 */
export class PoolDrain {
  constructor(
    private readonly server: BenchRedisServer,
    private readonly root: string,
    private readonly log: Log,
    private readonly cleanup: CleanupRegistry,
  ) {}

  /** Resolves with the drain's tasks/s. */
  async once(
    system: PoolSystem,
    processes: number,
    threads: number,
    tasks: number,
    prefetch = 0,
  ): Promise<number> {
    await this.server.reset();
    await system.fill.fill(tasks);
    await this.server.settle();
    const spawned = performance.now();
    let exited = false;
    const cwd = system.cwd ?? this.root;
    const done = Promise.all(
      system.commands(processes, threads, prefetch).map((argv) => this.runToExit(argv, cwd)),
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
      `pool ${system.name} --processes ${processes} --threads ${threads}${prefetch > 0 ? ` (the --prefetch ${prefetch} row)` : ''}: ${Math.round(rate)} tasks/s (drain ${draining.toFixed(2)} s, spawn to exit ${total.toFixed(2)} s)`,
    );
    return rate;
  }

  private runToExit([file, ...args]: string[], cwd: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(file, args, {
        cwd,
        env: {
          ...process.env,
          REDIS_URL: this.server.url,
          THREADMILL_ALIAS: THREADMILL_POOL_ALIAS,
        },
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

/**
 * A Threadmill pool started through a build's sample CLI (`node <entry>
 * worker --processes P --threads T --exit-empty`, with REDIS_URL and
 * THREADMILL_ALIAS in its environment: the sample's only backend, so no flag
 * names it in any build), counted in that build's key layout.
 */
export function sampleCliSystem(
  name: string,
  fill: QueueRunner,
  entry: string,
  keys: PoolKeys,
  server: BenchRedisServer,
  cwd?: string,
): PoolSystem {
  const { admin } = server;
  return {
    name,
    fill,
    cwd,
    commands: (processes, threads, prefetch) => [
      [
        process.execPath,
        entry,
        'worker',
        '--processes',
        String(processes),
        '--threads',
        String(threads),
        ...(prefetch > 0 ? ['--prefetch', String(prefetch)] : []),
        '--exit-empty',
      ],
    ],
    remaining: () =>
      countAll(admin.pipeline().zcard(keys.queue('default')).zcard(keys.running('default'))),
  };
}

/** The sum of a pipeline of counts, sent as one round trip (one wake-up of Redis per look). */
export async function countAll(pipeline: ChainableCommander): Promise<number> {
  let total = 0;
  for (const [error, count] of (await pipeline.exec()) ?? []) {
    if (error) throw error;
    total += Number(count);
  }
  return total;
}
