import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client } from 'pg';

import type { CleanupRegistry, Log } from '../pool-drain';
import type { PostgresBenchConfig } from './postgres-bench-config';
import { markAdmin } from './postgres-cost-meter';
import type { PostgresScenarios } from './postgres-scenarios';
import { ThreadmillPostgresRunner } from './threadmill-postgres.runner';

/** The alias and schema the fill uses (ThreadmillPostgresRunner's), handed to the sample CLI. */
const ALIAS = 'bench';
const SCHEMA = 'threadmill';
const POOL_DEADLINE_MS = 180_000;
/** As the Redis pool figure: each look costs the pool a little CPU on 2 cores. */
const OBSERVE_EVERY_MS = 20;

/**
 * Threadmill's pool on Postgres: the sample CLI (`worker --processes P
 * --threads T --exit-empty` with DATABASE_URL), timed from outside as the
 * Redis pool figure is (bench/pool-drain.ts): from the first moment fewer
 * than N tasks are left to the moment none is waiting or running. The peers
 * have no pool of processes; the page says so in their cells.
 */
export class PostgresPoolBench {
  constructor(
    private readonly scenarios: PostgresScenarios,
    private readonly config: PostgresBenchConfig,
    private readonly root: string,
    private readonly log: Log,
    private readonly cleanup: CleanupRegistry,
  ) {}

  /** Tasks/s of each repetition; empty without a pool row in the config. */
  async run(version: string): Promise<number[]> {
    const pool = this.config.pool;
    if (pool === null) return [];
    this.log('postgres pool: building the sample CLI once (npm run -s build:sample)');
    execFileSync('npm', ['run', '-s', 'build:sample'], { cwd: this.root, stdio: 'inherit' });
    const entry = join(this.root, 'sample-dist', 'sample', 'src', 'worker.js');
    const fill = new ThreadmillPostgresRunner(version);
    const rates: number[] = [];
    try {
      for (let rep = 0; rep < this.config.reps; rep++) {
        const url = await this.scenarios.fresh(fill);
        await fill.fill(pool.tasks);
        rates.push(await this.once(entry, url, pool.processes, pool.threads, pool.tasks));
      }
    } finally {
      await this.scenarios.release(fill);
    }
    return rates;
  }

  private async once(
    entry: string,
    url: string,
    processes: number,
    threads: number,
    tasks: number,
  ): Promise<number> {
    const counter = new Client({ connectionString: url });
    markAdmin(counter);
    await counter.connect();
    const remaining = async (): Promise<number> => {
      const { rows } = await counter.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${SCHEMA}.threadmill_tasks WHERE alias = $1`,
        [ALIAS],
      );
      return rows[0].n;
    };
    try {
      const spawned = performance.now();
      let exited = false;
      const args = ['worker', '--processes', `${processes}`, '--threads', `${threads}`];
      const done = this.runToExit(entry, [...args, '--exit-empty'], url).finally(
        () => (exited = true),
      );
      done.catch(() => undefined); // awaited below, after the sampling loop
      let firstTaken: number | null = null;
      let lastSeen = spawned;
      while (!exited && performance.now() < spawned + POOL_DEADLINE_MS) {
        const left = await remaining();
        const now = performance.now();
        if (firstTaken === null && left < tasks) firstTaken = now;
        lastSeen = now;
        if (left === 0) break;
        await sleep(OBSERVE_EVERY_MS);
      }
      await done;
      const draining = (lastSeen - (firstTaken ?? spawned)) / 1000;
      const rate = tasks / Math.max(draining, 1e-3);
      this.log(
        `postgres pool Threadmill --processes ${processes} --threads ${threads}: ${Math.round(rate)} tasks/s (drain ${draining.toFixed(2)} s)`,
      );
      return rate;
    } finally {
      await counter.end();
    }
  }

  private runToExit(entry: string, args: string[], url: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: url,
        THREADMILL_ALIAS: ALIAS,
        THREADMILL_PG_SCHEMA: SCHEMA,
      };
      // With a Redis in its environment the sample would store its tasks there.
      for (const name of ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS']) delete env[name];
      const child = spawn(process.execPath, [entry, ...args], {
        cwd: this.root,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-4000);
      });
      const stop = (signal: NodeJS.Signals): void => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      };
      const timer = setTimeout(() => {
        stop('SIGTERM');
        setTimeout(() => stop('SIGKILL'), 10_000).unref();
      }, POOL_DEADLINE_MS);
      this.cleanup.add(async () => stop('SIGTERM'));
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`sample worker exited ${code ?? signal}: ${stderr}`));
      });
    });
  }
}
