import { setTimeout as sleep } from 'node:timers/promises';

import { Client } from 'pg';

import { pacedPickup, type LatencySample } from '../paced-pickup';
import type { BenchPostgresServer } from './bench-postgres-server';
import type { PostgresCostMeter, PostgresWindowCost } from './postgres-cost-meter';
import { markAdmin } from './postgres-cost-meter';
import type { PostgresQueueRunner } from './postgres-queue-runner';

/** One measured drain or enqueue window of `tasks` tasks. */
export interface PostgresSample {
  tasks: number;
  cost: PostgresWindowCost;
  /** The drain outlasted its time limit: `tasks` is what it finished by then. */
  cutShort?: true;
}

export type PostgresEnqueueMode = 'sequential' | 'concurrent' | 'bulk';

/** The drains of slices run while a transaction held the vacuum horizon. */
export interface HeldHorizonSample {
  heldMs: number;
  slices: PostgresSample[];
}

/** Wait after the last pickup send for the stragglers (pg-boss polls every 2 s by default). */

/**
 * The Postgres scenarios, each starting from a fresh database of the
 * runner's own (made by `fresh`, the previous one dropped). They know
 * nothing of any library: every call goes through a PostgresQueueRunner.
 */
export class PostgresScenarios {
  private readonly databases = new Map<PostgresQueueRunner, string>();

  /** @param drainLimitMs how long a drain may take before it is cut short (see measureDrain). */
  constructor(
    private readonly server: BenchPostgresServer,
    private readonly meter: PostgresCostMeter,
    private readonly drainLimitMs: number,
  ) {}

  /** Disconnects the runner, drops its database, and connects it to a new empty one. */
  async fresh(runner: PostgresQueueRunner): Promise<string> {
    await this.release(runner);
    const { name, url } = await this.server.createDatabase('bench');
    this.databases.set(runner, name);
    await runner.connect(url);
    return url;
  }

  /** Disconnects the runner and drops its database, if it has one. */
  async release(runner: PostgresQueueRunner): Promise<void> {
    const name = this.databases.get(runner);
    if (name === undefined) return;
    this.databases.delete(runner);
    await runner.disconnect();
    await this.server.dropDatabase(name);
  }

  async drain(runner: PostgresQueueRunner, tasks: number, slots: number): Promise<PostgresSample> {
    await this.fresh(runner);
    await runner.fill(tasks);
    return this.measureDrain(runner, tasks, slots);
  }

  async enqueue(
    runner: PostgresQueueRunner,
    mode: PostgresEnqueueMode,
    tasks: number,
    width: number,
  ): Promise<PostgresSample> {
    await this.fresh(runner);
    await runner.prepareEnqueue?.();
    const { cost } = await this.meter.measure(() => {
      switch (mode) {
        case 'sequential':
          return runner.enqueueSequential(tasks);
        case 'concurrent':
          return runner.enqueueConcurrent(tasks, width);
        case 'bulk':
          return runner.enqueueBulk(tasks, width);
      }
    });
    return { tasks, cost };
  }

  /**
   * Slices of `slice` drained while at least `backlog` more stay waiting:
   * the queue holds backlog + reps × slice at the start.
   */
  async backlog(
    runner: PostgresQueueRunner,
    backlog: number,
    slice: number,
    slots: number,
    reps: number,
  ): Promise<PostgresSample[]> {
    await this.fresh(runner);
    await runner.fill(backlog + reps * slice);
    const samples: PostgresSample[] = [];
    for (let rep = 0; rep < reps; rep++) {
      samples.push(await this.measureDrain(runner, slice, slots));
    }
    return samples;
  }

  /**
   * Another session opens a REPEATABLE READ transaction and takes its
   * snapshot, which holds the vacuum horizon: no row deleted or updated
   * after it can be cleaned away until it ends. For `holdMs` slices of
   * `slice` tasks are filled (untimed) and drained (timed); then it ends.
   */
  async heldHorizon(
    runner: PostgresQueueRunner,
    slice: number,
    slots: number,
    holdMs: number,
  ): Promise<HeldHorizonSample> {
    const url = await this.fresh(runner);
    const holder = new Client({ connectionString: url });
    markAdmin(holder);
    await holder.connect();
    const slices: PostgresSample[] = [];
    const started = performance.now();
    try {
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT 1');
      do {
        await runner.fill(slice);
        slices.push(await this.measureDrain(runner, slice, slots));
      } while (performance.now() - started < holdMs);
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
    return { heldMs: performance.now() - started, slices };
  }

  /**
   * Pickup latency: an idle consumer and a producer at a steady
   * `ratePerSecond`; each latency is from just before the enqueue call to
   * the handler's start, on one clock (same process).
   */
  async latency(
    runner: PostgresQueueRunner,
    ratePerSecond: number,
    count: number,
    slots: number,
  ): Promise<LatencySample> {
    await this.fresh(runner);
    return pacedPickup(runner, ratePerSecond, count, slots);
  }

  /**
   * A library that drains some figure far slower than the rest would hold
   * the whole run up: a drain still running after drainLimitMs is cut there
   * and measured by the tasks it finished (a runner that cannot count them
   * is waited for).
   */
  private async measureDrain(
    runner: PostgresQueueRunner,
    tasks: number,
    slots: number,
  ): Promise<PostgresSample> {
    const drain = await runner.prepareDrain(tasks, slots);
    try {
      const limited = drain.finished !== undefined;
      const { result: late, cost } = await this.meter.measure(async () => {
        const run = drain.run().then(() => false);
        if (!limited) return run;
        const timer = new AbortController();
        const limit = sleep(this.drainLimitMs, true, { signal: timer.signal }).catch(() => false);
        try {
          return await Promise.race([run, limit]);
        } finally {
          timer.abort();
        }
      });
      if (!late) return { tasks, cost };
      const finished = drain.finished?.() ?? 0;
      console.error(
        `${runner.name}: drain of ${tasks} at ${slots} slots cut short after ${this.drainLimitMs / 1000} s, ${finished} finished`,
      );
      return { tasks: finished, cost, cutShort: true };
    } finally {
      await drain.close();
    }
  }
}
