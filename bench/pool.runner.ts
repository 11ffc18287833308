import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { BenchConfig } from './bench-config';
import { BullmqRunner } from './bullmq.runner';
import { BULLMQ, THREADMILL, type PoolResults } from './figures';
import type { QueueRunner } from './queue-runner.interface';
import type { BenchRedisServer } from './redis-server';

type Log = (line: string) => void;

interface CleanupRegistry {
  add(step: () => Promise<void>): void;
}

/** How long one pool run may take before it is killed and the figure left out. */
const POOL_DEADLINE_MS = 180_000;
const POOL_QUEUE = 'pool';

/**
 * The original's headline, measured like it: N tasks waiting, then a pool with
 * `--exit-empty` is started and timed until it exits. Boot and shutdown are
 * not queue work, so the same command is also timed on an empty queue and
 * that time is subtracted: throughput = N / (t(N) - t(empty)).
 *
 * Threadmill: the sample CLI, `threadmill worker --processes P --threads T
 * --exit-empty`. BullMQ has no pool: P processes each running one Worker
 * with concurrency T (bench/bullmq.pool-child.ts) stand in for it.
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
    const results: PoolResults = {};
    const systems: {
      name: string;
      fill: QueueRunner;
      command: (p: number, t: number) => string[][];
    }[] = [];
    if (only === null || only === THREADMILL.toLowerCase()) {
      const threadmill = await this.threadmillSystem();
      if (threadmill) systems.push(threadmill);
    }
    if (only === null || only === BULLMQ.toLowerCase()) {
      const fill = new BullmqRunner(this.server.url, POOL_QUEUE);
      this.cleanup.add(() => fill.close());
      const child = join(__dirname, 'bullmq.pool-child.js');
      systems.push({
        name: BULLMQ,
        fill,
        command: (processes, threads) =>
          Array.from({ length: processes }, () => [
            process.execPath,
            child,
            this.server.url,
            POOL_QUEUE,
            String(threads),
          ]),
      });
    }
    for (const processes of this.config.poolProcesses) {
      for (const threads of this.config.poolThreads) {
        const key = `p${processes}t${threads}`;
        results[key] = {};
        for (const system of systems) {
          const samples: number[] = [];
          for (let rep = 0; rep < this.config.reps; rep++) {
            const commands = system.command(processes, threads);
            await this.server.reset();
            const empty = await this.timeProcesses(commands);
            await this.server.reset();
            await system.fill.fill(this.config.poolTasks);
            const full = await this.timeProcesses(commands);
            const rate = this.config.poolTasks / Math.max(full - empty, 1e-3);
            samples.push(rate);
            this.log(
              `pool ${system.name} --processes ${processes} --threads ${threads} #${rep + 1}: ${Math.round(rate)} tasks/s (run ${full.toFixed(2)} s, empty ${empty.toFixed(2)} s)`,
            );
          }
          results[key][system.name] = samples;
        }
      }
    }
    return results;
  }

  /** Threadmill's pool, when the sample CLI exists in this checkout; null (and a log line) otherwise. */
  private async threadmillSystem(): Promise<{
    name: string;
    fill: QueueRunner;
    command: (p: number, t: number) => string[][];
  } | null> {
    const manifest = JSON.parse(readFileSync(join(this.root, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    if (!manifest.scripts?.cli || !existsSync(join(this.root, 'sample'))) {
      this.log('pool: no `npm run cli` / sample/ in this checkout yet, Threadmill pool skipped');
      return null;
    }
    const { ThreadmillRunner } = await import('./threadmill.runner');
    const fill = await ThreadmillRunner.create(this.server.url, POOL_QUEUE);
    this.cleanup.add(() => fill.close());
    return {
      name: THREADMILL,
      fill,
      command: (processes, threads) => [
        [
          'npm',
          'run',
          '-s',
          'cli',
          '--',
          'worker',
          '--queues',
          POOL_QUEUE,
          '--processes',
          String(processes),
          '--threads',
          String(threads),
          '--exit-empty',
        ],
      ],
    };
  }

  /** Runs the commands side by side and returns seconds until the last one exited 0. */
  private async timeProcesses(commands: string[][]): Promise<number> {
    const started = process.hrtime.bigint();
    await Promise.all(commands.map((argv) => this.runToExit(argv)));
    return Number(process.hrtime.bigint() - started) / 1e9;
  }

  private runToExit([file, ...args]: string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(file, args, {
        cwd: this.root,
        env: { ...process.env, REDIS_URL: this.server.url },
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true, // its own process group, so the kill below reaches npm's children too
      });
      let stderr = '';
      child.stderr.on(
        'data',
        (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)),
      );
      const kill = (): void => {
        if (child.exitCode === null && child.pid) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // already gone between the check and the kill
          }
        }
      };
      const timer = setTimeout(kill, POOL_DEADLINE_MS);
      this.cleanup.add(async () => kill());
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`${file} ${args.join(' ')} exited ${code ?? signal}: ${stderr}`));
      });
    });
  }
}
