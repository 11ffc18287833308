import type { CostMeter, WindowCost } from './metrics';
import { pacedPickup, type LatencySample } from './paced-pickup';
import type { ProgressSample } from './progress-figures';
import type { QueueRunner } from './queue-runner.interface';
import type { BenchRedisServer } from './redis-server';

/** One measured drain: how long `tasks` took and what they cost. */
export interface DrainSample {
  tasks: number;
  waitingBefore: number;
  cost: WindowCost;
}

/** The slices of one backlog figure: one right after the fill, the rest once Redis has settled. */
export interface BacklogSamples {
  fresh: DrainSample;
  /** How long Redis took to settle after `fresh` (ms). */
  settleMs: number;
  settled: DrainSample[];
}

/**
 * `sequentialKeyed`: sequential, each with a unique key; `concurrentBackendLevel`:
 * in flight below TaskService; each only for a runner that has it.
 */
export type EnqueueMode =
  'sequential' | 'sequentialKeyed' | 'concurrent' | 'concurrentBackendLevel' | 'bulk';

/** `passes` schedule ticks of a maintenance pass over `schedules` schedules, none due. */
export interface SchedulePassSample {
  schedules: number;
  passes: number;
  /** Script calls (EVALSHA, EVAL) Redis ran for them. */
  scriptCalls: number;
  /** Redis's time in those calls, the commands they ran included (µs, INFO commandstats). */
  scriptMicros: number;
  /** Commands Redis ran, those inside the scripts included. */
  commands: number;
}

/** The commands a script call arrives as; their `usec` holds the commands the script ran. */
const SCRIPT_COMMANDS = ['evalsha', 'eval'] as const;

/**
 * The benchmark's scenarios, each starting from an empty private Redis (and an
 * empty store of the runner's own, if it has one). They know nothing of any
 * library: every call goes through a QueueRunner.
 */
export class Scenarios {
  constructor(
    private readonly server: BenchRedisServer,
    private readonly meter: CostMeter,
  ) {}

  /** A bare round trip to the benchmark's Redis (µs, median of 1000 PINGs). */
  bareRoundTripMicros(): Promise<number> {
    return this.server.roundTripMicros(1000);
  }

  /**
   * Drain `tasks` pre-enqueued no-op tasks with `slots` slots in this process,
   * the queue's concurrency capped at `concurrency` when one is given.
   */
  async drain(
    runner: QueueRunner,
    tasks: number,
    slots: number,
    concurrency?: number,
  ): Promise<DrainSample> {
    await this.reset(runner);
    if (concurrency !== undefined) {
      if (!runner.limitConcurrency)
        throw new Error(`${runner.name} has no queue concurrency limit`);
      await runner.limitConcurrency(concurrency);
    }
    await runner.fill(tasks);
    await this.server.settle();
    return this.measureDrain(runner, tasks, slots, tasks);
  }

  /**
   * Drain slices of `slice` tasks while at least `backlog` more stay waiting:
   * the queue holds backlog + (reps + 1) * slice at the start, so every slice
   * runs against a queue of at least `backlog`. The first slice runs right
   * after the fill, while Redis may still be resizing its tables for it
   * (`fresh`); the `reps` slices of the figure run once it is done (see
   * BenchRedisServer.settle).
   */
  async backlog(
    runner: QueueRunner,
    backlog: number,
    slice: number,
    slots: number,
    reps: number,
  ): Promise<BacklogSamples> {
    await this.reset(runner);
    let waiting = backlog + (reps + 1) * slice;
    await runner.fill(waiting);
    const fresh = await this.measureDrain(runner, slice, slots, waiting);
    waiting -= slice;
    const settleMs = await this.server.settle();
    const settled: DrainSample[] = [];
    for (let rep = 0; rep < reps; rep++) {
      settled.push(await this.measureDrain(runner, slice, slots, waiting));
      waiting -= slice;
    }
    return { fresh, settleMs, settled };
  }

  async enqueue(
    runner: QueueRunner,
    mode: EnqueueMode,
    tasks: number,
    width: number,
  ): Promise<WindowCost> {
    await this.reset(runner);
    await runner.prepareEnqueue?.();
    const { cost } = await this.meter.measure(() => {
      switch (mode) {
        case 'sequential':
          return runner.enqueueSequential(tasks);
        case 'sequentialKeyed':
          return (runner.enqueueSequentialKeyed ?? runner.enqueueSequential).call(runner, tasks);
        case 'concurrent':
          return runner.enqueueConcurrent(tasks, width);
        case 'concurrentBackendLevel':
          if (!runner.enqueueConcurrentBackendLevel) {
            throw new Error(`${runner.name} has no backend-level enqueue`);
          }
          return runner.enqueueConcurrentBackendLevel(tasks, width);
        case 'bulk':
          return runner.enqueueBulk(tasks, width);
      }
    });
    return cost;
  }

  /**
   * Pickup latency: an idle consumer (blocking on Redis) and a producer at a
   * steady `ratePerSecond`; each latency is from just before the enqueue call
   * to the moment the processor starts the task, on one clock (same process).
   */
  async latency(
    runner: QueueRunner,
    ratePerSecond: number,
    count: number,
    slots: number,
  ): Promise<LatencySample> {
    await this.reset(runner);
    return pacedPickup(runner, ratePerSecond, count, slots);
  }

  /** Latencies of `waits` waits for a result, from an empty store (see QueueRunner.measureWaits). */
  async waits(runner: QueueRunner, waits: number): Promise<number[]> {
    if (!runner.measureWaits) throw new Error(`${runner.name} cannot wait for a result`);
    await this.reset(runner);
    return runner.measureWaits(waits);
  }

  /**
   * The schedule tick of a pool's maintenance pass when nothing is due:
   * `schedules` stored (untimed), one pass that loads the script, then
   * `passes` passes, charged by Redis's own accounting: the INFO commandstats
   * `usec` of the script calls, which is Redis's time for the pass and
   * leaves the round trip out.
   */
  async schedulePasses(
    runner: QueueRunner,
    schedules: number,
    passes: number,
  ): Promise<SchedulePassSample> {
    if (!runner.prepareSchedulePasses) throw new Error(`${runner.name} stores no schedules`);
    await this.reset(runner);
    const pass = await runner.prepareSchedulePasses(schedules);
    await pass();
    const before = await this.server.commandStats();
    let ticks = 0;
    for (let i = 0; i < passes; i++) ticks += await pass();
    const after = await this.server.commandStats();
    // A tick enqueued would make it another figure than that of a pass with nothing due.
    if (ticks > 0) throw new Error(`${ticks} schedule ticks came due in the passes`);
    const delta = (name: string, field: 'calls' | 'usec'): number =>
      (after[name]?.[field] ?? 0) - (before[name]?.[field] ?? 0);
    const sum = (names: readonly string[], field: 'calls' | 'usec'): number =>
      names.reduce((total, name) => total + delta(name, field), 0);
    return {
      schedules,
      passes,
      scriptCalls: sum(SCRIPT_COMMANDS, 'calls'),
      scriptMicros: sum(SCRIPT_COMMANDS, 'usec'),
      commands: sum(
        Object.keys(after).filter((name) => name !== 'info'),
        'calls',
      ),
    };
  }

  /**
   * Worker CPU of `tasks` tasks ticking every ms for `durationMs`, run once
   * silent and once reporting progress each tick (`reportingFirst` says
   * which runs first; the suite alternates it), each from an empty store.
   */
  async progress(
    runner: QueueRunner,
    tasks: number,
    durationMs: number,
    reportingFirst: boolean,
  ): Promise<ProgressSample> {
    if (!runner.prepareProgress) throw new Error(`${runner.name} has no task progress`);
    const cpu: Record<'silent' | 'reporting', number> = { silent: 0, reporting: 0 };
    for (const reporting of reportingFirst ? [true, false] : [false, true]) {
      await this.reset(runner);
      const prepared = await runner.prepareProgress(tasks, reporting, durationMs);
      const { cost } = await this.meter.measure(() => prepared.run());
      cpu[reporting ? 'reporting' : 'silent'] = cost.clientCpuMicros;
    }
    return { tasks, silentCpuMicros: cpu.silent, reportingCpuMicros: cpu.reporting };
  }

  /** `used_memory` growth per waiting task, with a payload of `payloadBytes` characters. */
  async memoryPerTask(runner: QueueRunner, tasks: number, payloadBytes: number): Promise<number> {
    await this.reset(runner);
    const before = await this.server.usedMemory();
    await runner.fill(tasks, 'x'.repeat(payloadBytes));
    const after = await this.server.usedMemory();
    return (after - before) / tasks;
  }

  /** Empties the Redis and, for a runner with a store of its own, that store too. */
  async reset(runner: QueueRunner): Promise<void> {
    await this.server.reset();
    await runner.reset?.();
  }

  private async measureDrain(
    runner: QueueRunner,
    tasks: number,
    slots: number,
    waitingBefore: number,
  ): Promise<DrainSample> {
    const drain = await runner.prepareDrain(tasks, slots);
    try {
      const { cost } = await this.meter.measure(() => drain.run());
      return { tasks, waitingBefore, cost };
    } finally {
      await drain.close();
    }
  }
}
