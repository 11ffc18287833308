import type { BenchConfig } from './bench-config';
import type { CliStartSample } from './cli-start';
import type { WindowCost } from './metrics';
import type { LatencySample } from './paced-pickup';
import type { ProgressSample } from './progress-figures';
import type { QueueRunner } from './queue-runner.interface';
import type {
  BacklogSamples,
  DrainSample,
  EnqueueMode,
  SchedulePassSample,
  Scenarios,
} from './scenarios';

/** Everything measured for one library, raw (the table takes medians of these). */
export interface RunnerResults {
  drain: Record<number, DrainSample[]>;
  enqueue: Partial<Record<EnqueueMode, { tasks: number; costs: WindowCost[] }>>;
  /** One sample per repetition; the table takes the median of each percentile. */
  latency: LatencySample[];
  memoryPerTaskBytes: number | null;
  backlog: Record<number, BacklogSamples>;
  /** One sample per repetition; empty for a runner without schedules on Redis. */
  schedulePasses: SchedulePassSample[];
  /** One sample per repetition; empty for a runner without task progress. */
  progress: ProgressSample[];
  /** Per repetition, each wait's latency (ms); empty for a runner that cannot wait for a result. */
  waits: number[][];
  /** Each load of the dashboard's overview, until its counts show (ms); empty when not measured. */
  dashboardPaintMs: number[];
  /** Each start of the CLI's commands (spawn to exit); empty when not measured. */
  cliStarts: CliStartSample[];
  /**
   * A bare round trip (µs), measured right before each repetition of the
   * 1-slot drain: what one task per round trip is judged against.
   */
  bareRoundTripMicros: number[];
  /** false: the round trips in `cost` were not seen (QueueRunner.roundTripsCounted), not zero. */
  roundTripsCounted: boolean;
}

function emptyResults(roundTripsCounted: boolean): RunnerResults {
  return {
    drain: {},
    enqueue: {},
    latency: [],
    memoryPerTaskBytes: null,
    backlog: {},
    schedulePasses: [],
    progress: [],
    waits: [],
    bareRoundTripMicros: [],
    dashboardPaintMs: [],
    cliStarts: [],
    roundTripsCounted,
  };
}

/**
 * A runner's results as a report written by an older benchmark holds them
 * (`--from-json`): the samples it did not take yet are empty.
 */
export function completeResults(stored: Partial<RunnerResults>): RunnerResults {
  return {
    ...emptyResults(true),
    ...stored,
  };
}

type Log = (line: string) => void;

/**
 * Runs every in-process figure for every runner in the same run, alternating
 * which runner goes first in each repetition so slow drift of the machine
 * does not favour one of them.
 */
export class Suite {
  constructor(
    private readonly scenarios: Scenarios,
    private readonly config: BenchConfig,
    private readonly log: Log,
  ) {}

  async run(runners: readonly QueueRunner[]): Promise<Record<string, RunnerResults>> {
    const results: Record<string, RunnerResults> = {};
    for (const runner of runners)
      results[runner.name] = emptyResults(runner.roundTripsCounted ?? true);
    const c = this.config;

    for (const runner of runners) {
      this.log(`warm-up ${runner.name}`);
      await this.scenarios.drain(runner, c.warmupTasks, 10);
    }

    for (const slots of c.drainSlots) {
      await this.repeat(runners, async (runner, rep) => {
        if (slots === 1) {
          results[runner.name].bareRoundTripMicros.push(await this.scenarios.bareRoundTripMicros());
        }
        const sample = await this.scenarios.drain(runner, c.drainTasks, slots);
        (results[runner.name].drain[slots] ??= []).push(sample);
        this.log(
          `drain ${runner.name} slots=${slots} #${rep + 1}: ${rate(sample.tasks, sample.cost)}`,
        );
      });
    }

    const enqueueRuns: [EnqueueMode, number, number][] = [
      ['sequential', c.sequentialTasks, 1],
      ['sequentialKeyed', c.sequentialTasks, 1],
      ['concurrent', c.enqueueTasks, c.enqueueInFlight],
      ['concurrentBackendLevel', c.enqueueTasks, c.enqueueInFlight],
      ['bulk', c.enqueueTasks, c.bulkBatch],
    ];
    // Modes only Threadmill's runners have; the rest every runner does.
    const only: Partial<Record<EnqueueMode, (r: QueueRunner) => boolean>> = {
      sequentialKeyed: (r) => r.enqueueSequentialKeyed !== undefined,
      concurrentBackendLevel: (r) => r.enqueueConcurrentBackendLevel !== undefined,
    };
    for (const [mode, tasks, width] of enqueueRuns) {
      const has = only[mode];
      const measured = has ? runners.filter(has) : runners;
      await this.repeat(measured, async (runner, rep) => {
        const cost = await this.scenarios.enqueue(runner, mode, tasks, width);
        const entry = (results[runner.name].enqueue[mode] ??= { tasks, costs: [] });
        entry.costs.push(cost);
        this.log(`enqueue ${mode} ${runner.name} #${rep + 1}: ${rate(tasks, cost)}`);
      });
    }

    // Repeated like the rest (medians of 3): one run's p99 is its 20 slowest
    // pickups, which the machine's scheduling alone can double.
    await this.repeat(runners, async (runner, rep) => {
      const sample = await this.scenarios.latency(
        runner,
        c.latencyRate,
        c.latencyCount,
        c.latencySlots,
      );
      results[runner.name].latency.push(sample);
      this.log(
        `latency ${runner.name} #${rep + 1}: p50 ${sample.p50Ms.toFixed(2)} / p95 ${sample.p95Ms.toFixed(2)} / p99 ${sample.p99Ms.toFixed(2)} ms (${sample.seen}/${sample.sent} seen)`,
      );
    });

    // Only Threadmill's Redis runner stores schedules here: the figure is Redis's time.
    await this.repeat(
      runners.filter((r) => r.prepareSchedulePasses),
      async (runner, rep) => {
        const sample = await this.scenarios.schedulePasses(
          runner,
          c.idleSchedules,
          c.schedulePasses,
        );
        results[runner.name].schedulePasses.push(sample);
        const perPass = (n: number): string => (n / sample.passes).toFixed(1);
        this.log(
          `schedule passes ${runner.name} #${rep + 1}: ${perPass(sample.scriptMicros)} µs of Redis time per pass (${perPass(sample.scriptCalls)} script calls, ${perPass(sample.commands)} commands)`,
        );
      },
    );

    const reporting = runners.filter((r) => r.prepareProgress);
    // Untimed: the first run of the reporting path loads the progress script and compiles its
    // code, which cost more than the whole silent run of 30 tasks and landed in one side only.
    for (const runner of reporting) {
      await this.scenarios.progress(runner, c.progressTasks, c.progressWarmUpMs, false);
    }
    await this.repeat(
      reporting,
      async (runner, rep) => {
        const sample = await this.scenarios.progress(
          runner,
          c.progressTasks,
          c.progressMs,
          rep % 2 === 1,
        );
        results[runner.name].progress.push(sample);
        this.log(
          `progress ${runner.name} #${rep + 1}: worker CPU ${(sample.reportingCpuMicros / 1000).toFixed(0)} ms reporting, ${(sample.silentCpuMicros / 1000).toFixed(0)} ms silent (${(sample.reportingCpuMicros / sample.silentCpuMicros).toFixed(3)}×)`,
        );
      },
      c.progressReps,
    );

    await this.repeat(
      runners.filter((r) => r.measureWaits),
      async (runner, rep) => {
        const latencies = await this.scenarios.waits(runner, c.waits);
        results[runner.name].waits.push(latencies);
        const sorted = [...latencies].sort((a, b) => a - b);
        this.log(
          `waits ${runner.name} #${rep + 1}: median ${sorted[Math.floor(sorted.length / 2)].toFixed(2)} ms, max ${sorted[sorted.length - 1].toFixed(2)} ms`,
        );
      },
    );

    // Redis memory says nothing about a queue kept elsewhere.
    for (const runner of runners.filter((r) => (r.store ?? 'redis') === 'redis')) {
      const bytes = await this.scenarios.memoryPerTask(runner, c.memoryTasks, c.payloadBytes);
      results[runner.name].memoryPerTaskBytes = bytes;
      this.log(`memory ${runner.name}: ${bytes.toFixed(0)} B per waiting task`);
    }

    for (const backlog of c.backlogs) {
      for (const runner of runners) {
        const backlogSamples = await this.scenarios.backlog(
          runner,
          backlog,
          c.backlogSlice,
          c.backlogSlots,
          c.reps,
        );
        results[runner.name].backlog[backlog] = backlogSamples;
        const { fresh, settleMs, settled } = backlogSamples;
        this.log(
          `backlog ${backlog} ${runner.name}: ${rate(fresh.tasks, fresh.cost)} right after the fill; Redis settled in ${Math.round(settleMs)} ms; then ${settled.map((s) => rate(s.tasks, s.cost)).join(', ')}`,
        );
      }
    }
    for (const runner of runners) {
      if (!runner.measureDashboardPaint) continue;
      await this.scenarios.reset(runner);
      const times = await runner.measureDashboardPaint(c.dashboardWaiting, c.dashboardLoads);
      results[runner.name].dashboardPaintMs = times;
      this.log(
        `dashboard ${runner.name}: counts shown after ${times.map((t) => t.toFixed(0)).join(', ')} ms`,
      );
    }
    for (const runner of runners) {
      if (!runner.measureCliStart) continue;
      await this.scenarios.reset(runner);
      const starts = await runner.measureCliStart(c.cliStarts);
      results[runner.name].cliStarts = starts;
      const ms = (field: keyof CliStartSample): string =>
        starts.map((start) => start[field].toFixed(0)).join(', ');
      this.log(
        `cli ${runner.name}: result ${ms('resultMs')} ms, queues list ${ms('queuesListMs')} ms (Node alone ${ms('nodeMs')} ms, loading the entry's modules ${ms('modulesMs')} ms)`,
      );
    }
    return results;
  }

  private async repeat(
    runners: readonly QueueRunner[],
    body: (runner: QueueRunner, rep: number) => Promise<void>,
    reps = this.config.reps,
  ): Promise<void> {
    for (let rep = 0; rep < reps; rep++) {
      const order = rep % 2 === 0 ? runners : [...runners].reverse();
      for (const runner of order) await body(runner, rep);
    }
  }
}

function rate(tasks: number, cost: WindowCost): string {
  return `${Math.round(tasks / cost.seconds)} tasks/s`;
}
