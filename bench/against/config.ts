import { FULL, QUICK, type PoolRun } from '../bench-config';
import type { AgainstOptions } from './options';

/** Sizes of one A/B run: the figures a refactor is judged on, each taken `rounds` times per build. */
export interface AgainstConfig {
  mode: 'full' | 'quick';
  rounds: number;
  warmupTasks: number;
  drainTasks: number;
  /** In-process drains; the costs per task (CPU, round trips, commands) come from the widest. */
  drainSlots: readonly number[];
  enqueueTasks: number;
  sequentialTasks: number;
  enqueueInFlight: number;
  bulkBatch: number;
  latencyRate: number;
  latencyCount: number;
  latencySlots: number;
  memoryTasks: number;
  payloadBytes: number;
  /** null: `--no-pool`. */
  pool: PoolRun | null;
}

/**
 * The full benchmark's sizes where one measurement is short; fewer pickups
 * per latency sample and a smaller pool drain where it is not, because every
 * figure is now taken 2 × rounds times. A pool drain of 50k still runs past a
 * child's JIT warm-up (about 2 s at 100 threads, see PoolRun) at the ~20k/s
 * such a child reaches here. No backlog figure: its million-task fills would
 * take most of the run.
 */
export function againstConfig(options: AgainstOptions): AgainstConfig {
  const base = options.quick ? QUICK : FULL;
  return {
    mode: base.mode,
    rounds: options.rounds,
    // The full run's warm-up in both modes: each build warms every path (see AgainstSuite).
    warmupTasks: FULL.warmupTasks,
    drainTasks: base.drainTasks,
    drainSlots: [1, 100],
    enqueueTasks: base.enqueueTasks,
    sequentialTasks: base.sequentialTasks,
    enqueueInFlight: base.enqueueInFlight,
    bulkBatch: base.bulkBatch,
    latencyRate: base.latencyRate,
    latencyCount: options.quick ? QUICK.latencyCount : 1000,
    latencySlots: base.latencySlots,
    memoryTasks: options.quick ? QUICK.memoryTasks : 20_000,
    payloadBytes: base.payloadBytes,
    pool: options.pool
      ? { processes: 1, threads: 100, tasks: options.quick ? 10_000 : 50_000 }
      : null,
  };
}
