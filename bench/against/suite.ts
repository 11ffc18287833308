import type { PoolRun } from '../bench-config';
import type { WindowCost } from '../metrics';
import type { PoolDrain, PoolSystem } from '../pool-drain';
import type { QueueRunner } from '../queue-runner.interface';
import type { Better } from '../report';
import type { LatencySample } from '../paced-pickup';
import type { DrainSample, EnqueueMode, Scenarios } from '../scenarios';
import { enqueueLabel } from '../enqueue-figures';
import type { AgainstConfig } from './config';
import { roundOrder, SIDES, type Side } from './schedule';
import type { AbSeries } from './summary';

type Log = (line: string) => void;

/** One figure read off a measurement's sample. */
interface FigureSpec<S> {
  key: string;
  label: string;
  unit: string;
  better: Better;
  of(sample: S): number;
}

/** One scenario taken for each build in every round, and the figures it yields. */
interface Measurement<S> {
  name: string;
  take(runner: QueueRunner, side: Side): Promise<S>;
  describe(sample: S): string;
  figures: FigureSpec<S>[];
}

export interface AgainstResults {
  series: AbSeries[];
  /**
   * Figures of the current build alone, two variants of one scenario taken
   * one right after the other in every round: `current` holds the variant,
   * `ref` the plain scenario.
   */
  within: AbSeries[];
  /** Every sample as taken, per measurement and build, index = round. */
  raw: Record<string, Record<Side, unknown[]>>;
}

const perSecond = (tasks: number, cost: WindowCost): number => tasks / cost.seconds;
const drainRate = (s: DrainSample): number => perSecond(s.tasks, s.cost);

/**
 * The A/B figures, each from the full benchmark's own scenario code
 * (bench/scenarios.ts, bench/pool-drain.ts) run for the current build and the
 * ref in every round, the two one right after the other (see roundOrder), on
 * the one Redis. The pool figure comes first, while this process is fresh,
 * as in the full benchmark.
 */
export class AgainstSuite {
  constructor(
    private readonly scenarios: Scenarios,
    private readonly config: AgainstConfig,
    private readonly log: Log,
    private readonly runners: Record<Side, QueueRunner>,
    private readonly pool: { drain: PoolDrain; systems: Record<Side, PoolSystem> } | null,
  ) {}

  async run(): Promise<AgainstResults> {
    const results: AgainstResults = { series: [], within: [], raw: {} };
    const c = this.config;
    if (this.pool !== null && c.pool !== null) {
      await this.collect(results, this.poolDrain(c.pool, this.pool));
    }
    await this.warmUp();
    for (const slots of c.drainSlots) await this.collect(results, this.drain(slots));
    results.within.push(await this.limitedDrain(Math.max(...c.drainSlots)));
    await this.collect(results, this.enqueue('sequential', c.sequentialTasks, 1));
    await this.collect(results, this.enqueue('concurrent', c.enqueueTasks, c.enqueueInFlight));
    await this.collect(
      results,
      this.enqueue('concurrentBackendLevel', c.enqueueTasks, c.enqueueInFlight),
    );
    await this.collect(results, this.enqueue('bulk', c.enqueueTasks, c.bulkBatch));
    await this.collect(results, this.latency());
    await this.collect(results, this.memory());
    return results;
  }

  /**
   * Every in-process path a figure takes, untimed, for each build. A single
   * drain at 10 slots was not enough: the first timed 1-slot drain of a
   * build then cost 245 µs of CPU per task against 81 in the next round,
   * its code still being compiled, and the build measured first paid for it.
   */
  private async warmUp(): Promise<void> {
    const c = this.config;
    const enqueues: [EnqueueMode, number][] = [
      ['sequential', 1],
      ['concurrent', c.enqueueInFlight],
      ['concurrentBackendLevel', c.enqueueInFlight],
      ['bulk', c.bulkBatch],
    ];
    for (const side of SIDES) {
      const runner = this.runners[side];
      this.log(`warm-up ${runner.name}`);
      for (const slots of c.drainSlots) await this.scenarios.drain(runner, c.warmupTasks, slots);
      for (const [mode, width] of enqueues) {
        await this.scenarios.enqueue(runner, mode, c.warmupTasks, width);
      }
    }
  }

  private async collect<S>(results: AgainstResults, m: Measurement<S>): Promise<void> {
    const series = m.figures.map(({ of: _, ...figure }): AbSeries => ({
      ...figure,
      current: [],
      ref: [],
    }));
    const raw: Record<Side, S[]> = { current: [], ref: [] };
    for (let round = 0; round < this.config.rounds; round++) {
      for (const side of roundOrder(round)) {
        const runner = this.runners[side];
        const sample = await m.take(runner, side);
        raw[side][round] = sample;
        m.figures.forEach((figure, i) => (series[i][side][round] = figure.of(sample)));
        this.log(`${m.name} ${runner.name} #${round + 1}: ${m.describe(sample)}`);
      }
    }
    results.series.push(...series);
    results.raw[m.name] = raw;
  }

  private poolDrain(
    { processes, threads, tasks }: PoolRun,
    pool: { drain: PoolDrain; systems: Record<Side, PoolSystem> },
  ): Measurement<number> {
    return {
      name: `pool -p${processes} -t${threads}`,
      take: (_, side) => pool.drain.once(pool.systems[side], processes, threads, tasks),
      describe: (rate) => `${Math.round(rate)} tasks/s`,
      figures: [
        {
          key: `drain.pool.p${processes}t${threads}`,
          label: `drain ${tasks / 1000}k, pool --processes ${processes} --threads ${threads}`,
          unit: 'tasks/s',
          better: 'higher',
          of: (rate) => rate,
        },
      ],
    };
  }

  private drain(slots: number): Measurement<DrainSample> {
    const { drainTasks } = this.config;
    const plural = slots > 1 ? 's' : '';
    const perTask =
      (field: keyof Omit<WindowCost, 'redisCommandCalls'>) =>
      (s: DrainSample): number =>
        s.cost[field] / s.tasks;
    const costs: FigureSpec<DrainSample>[] = [
      {
        key: `roundTrips.${slots}`,
        label: `round trips per task, ${slots} slot${plural}`,
        unit: 'count',
        better: 'lower',
        of: perTask('roundTrips'),
      },
    ];
    if (slots === Math.max(...this.config.drainSlots)) {
      costs.push(
        {
          key: `commands.${slots}`,
          label: `Redis commands per task (Lua included), ${slots} slots`,
          unit: 'count',
          better: 'lower',
          of: perTask('redisCommands'),
        },
        {
          key: `clientCpu.${slots}`,
          label: `worker CPU per task, ${slots} slots`,
          unit: 'µs',
          better: 'lower',
          of: perTask('clientCpuMicros'),
        },
        {
          key: `redisCpu.${slots}`,
          label: `Redis CPU per task, ${slots} slots`,
          unit: 'µs',
          better: 'lower',
          of: perTask('redisCpuMicros'),
        },
      );
    }
    return {
      name: `drain ${slots} slot${plural}`,
      take: (runner) => this.scenarios.drain(runner, drainTasks, slots),
      describe: (s) => `${Math.round(drainRate(s))} tasks/s`,
      figures: [
        {
          key: `drain.inProcess.${slots}`,
          label: `drain ${drainTasks / 1000}k, ${slots} slot${plural}, in-process`,
          unit: 'tasks/s',
          better: 'higher',
          of: drainRate,
        },
        ...costs,
      ],
    };
  }

  /**
   * The current build's drain with the queue's concurrency capped at its
   * slots, so the cap is checked at every lease and is just never short,
   * against the same drain with no limit: what enforcing a limit costs.
   * The uncapped drain takes the ref's turn in roundOrder.
   */
  private async limitedDrain(slots: number): Promise<AbSeries> {
    const { drainTasks, rounds } = this.config;
    const runner = this.runners.current;
    const series: AbSeries = {
      key: `drain.concurrencyLimit.${slots}`,
      label: `drain ${drainTasks / 1000}k, ${slots} slots, in-process, queue concurrency ${slots} against none`,
      unit: 'tasks/s',
      better: 'higher',
      current: [],
      ref: [],
    };
    for (let round = 0; round < rounds; round++) {
      for (const side of roundOrder(round)) {
        const limit = side === 'current' ? slots : undefined;
        const sample = await this.scenarios.drain(runner, drainTasks, slots, limit);
        series[side][round] = drainRate(sample);
        const variant = limit === undefined ? 'no limit' : `concurrency ${limit}`;
        this.log(
          `drain ${slots} slots, ${variant} #${round + 1}: ${Math.round(drainRate(sample))} tasks/s`,
        );
      }
    }
    return series;
  }

  private enqueue(mode: EnqueueMode, tasks: number, width: number): Measurement<WindowCost> {
    const label = enqueueLabel(mode, width);
    return {
      name: `enqueue ${mode}`,
      take: (runner) => this.scenarios.enqueue(runner, mode, tasks, width),
      describe: (cost) => `${Math.round(perSecond(tasks, cost))} tasks/s`,
      figures: [
        {
          key: `enqueue.${mode}`,
          label,
          unit: 'tasks/s',
          better: 'higher',
          of: (cost) => perSecond(tasks, cost),
        },
      ],
    };
  }

  private latency(): Measurement<LatencySample> {
    const { latencyRate, latencyCount, latencySlots } = this.config;
    return {
      name: 'latency',
      take: (runner) => this.scenarios.latency(runner, latencyRate, latencyCount, latencySlots),
      describe: (s) =>
        `p50 ${s.p50Ms.toFixed(2)} / p95 ${s.p95Ms.toFixed(2)} / p99 ${s.p99Ms.toFixed(2)} ms (${s.seen}/${s.sent} seen)`,
      figures: (['p50', 'p95', 'p99'] as const).map((p) => ({
        key: `latency.${p}`,
        label: `pickup latency ${p} at ${latencyRate}/s`,
        unit: 'ms',
        better: 'lower' as const,
        of: (s: LatencySample) => s[`${p}Ms`],
      })),
    };
  }

  private memory(): Measurement<number> {
    const { memoryTasks, payloadBytes } = this.config;
    return {
      name: 'memory',
      take: (runner) => this.scenarios.memoryPerTask(runner, memoryTasks, payloadBytes),
      describe: (bytes) => `${bytes.toFixed(0)} B per waiting task`,
      figures: [
        {
          key: 'memory.perWaitingTask',
          label: `Redis memory per waiting task (${payloadBytes} B payload)`,
          unit: 'B',
          better: 'lower',
          of: (bytes) => bytes,
        },
      ],
    };
  }
}
