/**
 * One pool figure. A freshly started child runs cold code for its first
 * second or so (JIT warm-up), so a pool of many slots drains enough tasks to
 * measure more than that: at 100 threads 20k tasks took under a second, and
 * 300k drained 43% faster per task than 20k did.
 */
export interface PoolRun {
  processes: number;
  threads: number;
  tasks: number;
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
  backlogSlice: 10_000,
  backlogSlots: 100,
  poolRuns: [
    { processes: 1, threads: 1, tasks: 20_000 },
    { processes: 1, threads: 100, tasks: 100_000 },
    { processes: 2, threads: 100, tasks: 100_000 },
  ],
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
  warmupTasks: 300,
};
