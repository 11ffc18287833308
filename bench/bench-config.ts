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
  /** Pool runs as `[--processes, --threads]`. */
  poolRuns: readonly (readonly [number, number])[];
  poolTasks: number;
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
    [1, 1],
    [1, 100],
    [2, 100],
  ],
  poolTasks: 20_000,
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
  poolRuns: [[1, 100]],
  poolTasks: 3000,
  warmupTasks: 300,
};
