/**
 * Sizes of the Postgres rows of one run; `--quick` scales them down and the
 * page says so. A full run's Postgres part takes about a quarter of an hour
 * on a 2-core machine, most of it the four 1M fills and the four 60 s holds.
 */
export interface PostgresBenchConfig {
  mode: 'full' | 'quick';
  /** Tasks per drain measurement. */
  drainTasks: number;
  drainSlots: readonly number[];
  /** Repetitions of the drain and enqueue figures; the table shows medians. */
  reps: number;
  sequentialTasks: number;
  enqueueTasks: number;
  enqueueInFlight: number;
  bulkBatch: number;
  latencyRate: number;
  latencyCount: number;
  latencySlots: number;
  /** The backlog row: slices drained against `large` waiting, over the same against `small`. */
  backlogSmall: number;
  backlogLarge: number;
  backlogSlice: number;
  /** Slots of the backlog and held-horizon drains. */
  heavySlots: number;
  /** How long the vacuum horizon is held while slices of `drainTasks` are filled and drained. */
  horizonHoldMs: number;
  /** A drain still running after this long is cut short and measured by what it finished. */
  drainLimitMs: number;
  /** Threadmill's pool (the sample CLI on Postgres): processes, threads, tasks drained. */
  pool: { processes: number; threads: number; tasks: number } | null;
}

export const POSTGRES_FULL: PostgresBenchConfig = {
  mode: 'full',
  drainTasks: 5000,
  drainSlots: [1, 10, 100],
  reps: 3,
  sequentialTasks: 2000,
  enqueueTasks: 5000,
  enqueueInFlight: 100,
  bulkBatch: 1000,
  latencyRate: 200,
  latencyCount: 2000,
  latencySlots: 1,
  backlogSmall: 10_000,
  backlogLarge: 1_000_000,
  backlogSlice: 5000,
  heavySlots: 100,
  horizonHoldMs: 60_000,
  drainLimitMs: 30_000,
  pool: { processes: 1, threads: 100, tasks: 50_000 },
};

export const POSTGRES_QUICK: PostgresBenchConfig = {
  mode: 'quick',
  drainTasks: 2000,
  drainSlots: [1, 10, 100],
  reps: 1,
  sequentialTasks: 300,
  enqueueTasks: 2000,
  enqueueInFlight: 100,
  bulkBatch: 1000,
  latencyRate: 200,
  latencyCount: 300,
  latencySlots: 1,
  backlogSmall: 10_000,
  backlogLarge: 50_000,
  backlogSlice: 2000,
  heavySlots: 100,
  horizonHoldMs: 10_000,
  drainLimitMs: 10_000,
  pool: { processes: 1, threads: 100, tasks: 5000 },
};
