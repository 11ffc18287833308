/**
 * One pool figure. A freshly started child runs cold code for its first
 * seconds (JIT warm-up), so a pool of many slots drains enough tasks to
 * measure more than that: a 100-thread Threadmill child went from 12k to
 * about 48k tasks/s in its first second and reached its steady 60-70k only
 * after about two (ZCARD every 100 ms), so 100k tasks, drained in 2.1 s,
 * measured mostly the warm-up. 300k take 5 s (BullMQ's about 20 s).
 */
export interface PoolRun {
  processes: number;
  threads: number;
  tasks: number;
  /**
   * Threadmill's `--prefetch` (absent: none). BullMQ runs the same row
   * without it: its worker fetches the next job in the call that completes one.
   */
  prefetch?: number;
}

/** Sizes of one benchmark run; `--quick` trades precision for a run under a minute. */
export interface BenchConfig {
  mode: 'full' | 'quick';
  /** Tasks per drain measurement. */
  drainTasks: number;
  drainSlots: readonly number[];
  /** Repetitions of the cheap figures; the table shows medians. */
  reps: number;
  enqueueTasks: number;
  /** Sequential enqueue is slow; it gets fewer tasks. */
  sequentialTasks: number;
  enqueueInFlight: number;
  bulkBatch: number;
  latencyRate: number;
  latencyCount: number;
  latencySlots: number;
  memoryTasks: number;
  payloadBytes: number;
  backlogs: readonly number[];
  backlogSlice: number;
  backlogSlots: number;
  /** Pool runs: `--processes`, `--threads`, and how many tasks each drains. */
  poolRuns: readonly PoolRun[];
  /** Schedules stored, none due, for the maintenance pass figure. */
  idleSchedules: number;
  /** Schedule ticks of a maintenance pass measured on them; the figure is per pass. */
  schedulePasses: number;
  /** Tasks run at once for the progress figure, each ticking every ms for `progressMs`. */
  progressTasks: number;
  progressMs: number;
  /**
   * Repetitions of the progress figure: a silent run of 30 tasks costs only
   * some 50 ms of CPU, which one timer-heavy second varies by a third, so
   * its median needs more of them than the other figures.
   */
  progressReps: number;
  /** The untimed run before them (long enough for a batched write and the last values). */
  progressWarmUpMs: number;
  /** Tasks waiting while the dashboard's overview is opened, and how many times it is. */
  dashboardWaiting: number;
  dashboardLoads: number;
  /** Starts of each CLI command timed for the CLI's start figures. */
  cliStarts: number;
  /** Waits for a result per repetition of the wait figure. */
  waits: number;
  warmupTasks: number;
}

export const FULL: BenchConfig = {
  mode: 'full',
  drainTasks: 20_000,
  drainSlots: [1, 10, 100],
  reps: 3,
  enqueueTasks: 20_000,
  sequentialTasks: 10_000,
  enqueueInFlight: 100,
  bulkBatch: 1000,
  latencyRate: 200,
  latencyCount: 2000,
  latencySlots: 1,
  memoryTasks: 100_000,
  payloadBytes: 100,
  backlogs: [10_000, 100_000, 1_000_000],
  // A slice of 10k drains in under 0.2 s at 100 slots: one scheduling hiccup moved the ratio by 20%.
  backlogSlice: 30_000,
  backlogSlots: 100,
  poolRuns: [
    { processes: 1, threads: 1, tasks: 20_000 },
    { processes: 1, threads: 1, tasks: 20_000, prefetch: 1 },
    { processes: 1, threads: 100, tasks: 300_000 },
    { processes: 2, threads: 100, tasks: 300_000 },
  ],
  idleSchedules: 1000,
  schedulePasses: 2000,
  progressTasks: 30,
  progressMs: 1000,
  progressReps: 9,
  progressWarmUpMs: 600,
  dashboardWaiting: 1_000_000,
  dashboardLoads: 5,
  cliStarts: 9,
  waits: 200,
  warmupTasks: 2000,
};

export const QUICK: BenchConfig = {
  mode: 'quick',
  drainTasks: 3000,
  drainSlots: [1, 10, 100],
  reps: 1,
  enqueueTasks: 3000,
  sequentialTasks: 1000,
  enqueueInFlight: 100,
  bulkBatch: 1000,
  latencyRate: 200,
  latencyCount: 300,
  latencySlots: 1,
  memoryTasks: 5000,
  payloadBytes: 100,
  backlogs: [10_000, 100_000],
  backlogSlice: 3000,
  backlogSlots: 100,
  poolRuns: [{ processes: 1, threads: 100, tasks: 3000 }],
  idleSchedules: 1000,
  schedulePasses: 200,
  progressTasks: 30,
  progressMs: 1000,
  progressReps: 1,
  progressWarmUpMs: 600,
  dashboardWaiting: 10_000,
  dashboardLoads: 2,
  cliStarts: 3,
  waits: 50,
  warmupTasks: 300,
};
