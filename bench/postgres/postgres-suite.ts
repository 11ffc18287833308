import type { LatencySample } from '../paced-pickup';
import type { OutboxSample } from './outbox-bench';
import type { PostgresBenchConfig } from './postgres-bench-config';
import type { PostgresQueueRunner } from './postgres-queue-runner';
import type {
  HeldHorizonSample,
  PostgresEnqueueMode,
  PostgresSample,
  PostgresScenarios,
} from './postgres-scenarios';

/** Everything measured for one library on Postgres, raw (the table takes medians). */
export interface PostgresRunnerResults {
  drain: Record<number, PostgresSample[]>;
  enqueue: Partial<Record<PostgresEnqueueMode, PostgresSample[]>>;
  latency: LatencySample[];
  /** Slices drained against each backlog size. */
  backlog: Record<number, PostgresSample[]>;
  heldHorizon: HeldHorizonSample | null;
  /** Threadmill's alone: a Redis alias's outbox in this Postgres (OutboxBench). */
  outbox?: OutboxSample[];
}

type Log = (line: string) => void;

function emptyResults(): PostgresRunnerResults {
  return { drain: {}, enqueue: {}, latency: [], backlog: {}, heldHorizon: null };
}

const rate = (sample: PostgresSample): string =>
  `${Math.round(sample.tasks / sample.cost.seconds)} tasks/s`;

/**
 * Runs every in-process Postgres figure for every runner, alternating which
 * runner goes first in each repetition so slow drift of the machine does
 * not favour one of them.
 */
export class PostgresSuite {
  constructor(
    private readonly scenarios: PostgresScenarios,
    private readonly config: PostgresBenchConfig,
    private readonly log: Log,
  ) {}

  async run(
    runners: readonly PostgresQueueRunner[],
  ): Promise<Record<string, PostgresRunnerResults>> {
    const results: Record<string, PostgresRunnerResults> = {};
    for (const runner of runners) results[runner.name] = emptyResults();
    const c = this.config;

    for (const runner of runners) {
      this.log(`postgres warm-up ${runner.name}`);
      await this.scenarios.drain(runner, Math.min(1000, c.drainTasks), 10);
    }
    for (const slots of c.drainSlots) {
      await this.repeat(runners, async (runner, rep) => {
        const sample = await this.scenarios.drain(runner, c.drainTasks, slots);
        (results[runner.name].drain[slots] ??= []).push(sample);
        this.log(`postgres drain ${runner.name} slots=${slots} #${rep + 1}: ${rate(sample)}`);
      });
    }
    const enqueues: [PostgresEnqueueMode, number, number][] = [
      ['sequential', c.sequentialTasks, 1],
      ['concurrent', c.enqueueTasks, c.enqueueInFlight],
      ['bulk', c.enqueueTasks, c.bulkBatch],
    ];
    for (const [mode, tasks, width] of enqueues) {
      await this.repeat(runners, async (runner, rep) => {
        const sample = await this.scenarios.enqueue(runner, mode, tasks, width);
        (results[runner.name].enqueue[mode] ??= []).push(sample);
        this.log(`postgres enqueue ${mode} ${runner.name} #${rep + 1}: ${rate(sample)}`);
      });
    }
    await this.repeat(runners, async (runner, rep) => {
      const sample = await this.scenarios.latency(
        runner,
        c.latencyRate,
        c.latencyCount,
        c.latencySlots,
      );
      results[runner.name].latency.push(sample);
      this.log(
        `postgres latency ${runner.name} #${rep + 1}: p50 ${sample.p50Ms.toFixed(2)} / p95 ${sample.p95Ms.toFixed(2)} / p99 ${sample.p99Ms.toFixed(2)} ms (${sample.seen}/${sample.sent} seen)`,
      );
    });
    for (const backlog of [c.backlogSmall, c.backlogLarge]) {
      for (const runner of runners) {
        const samples = await this.scenarios.backlog(
          runner,
          backlog,
          c.backlogSlice,
          c.heavySlots,
          c.reps,
        );
        results[runner.name].backlog[backlog] = samples;
        this.log(`postgres backlog ${backlog} ${runner.name}: ${samples.map(rate).join(', ')}`);
      }
    }
    for (const runner of runners) {
      const held = await this.scenarios.heldHorizon(
        runner,
        c.drainTasks,
        c.heavySlots,
        c.horizonHoldMs,
      );
      results[runner.name].heldHorizon = held;
      this.log(
        `postgres held horizon ${runner.name} (${Math.round(held.heldMs / 1000)} s): ${held.slices.map(rate).join(', ')}`,
      );
    }
    for (const runner of runners) await this.scenarios.release(runner);
    return results;
  }

  private async repeat(
    runners: readonly PostgresQueueRunner[],
    body: (runner: PostgresQueueRunner, rep: number) => Promise<void>,
  ): Promise<void> {
    for (let rep = 0; rep < this.config.reps; rep++) {
      const order = rep % 2 === 0 ? runners : [...runners].reverse();
      for (const runner of order) await body(runner, rep);
    }
  }
}
