import type { WorkerOptions } from '../../lib/worker/worker-options.interface';

/** A worker's options as the command would resolve them, for one process of one slot on `alias`. */
export const workerOptions = (
  alias: string,
  overrides: Partial<WorkerOptions> = {},
): WorkerOptions => ({
  alias: alias,
  queues: ['default'],
  processes: 1,
  threads: 1,
  maxTasks: null,
  maxTasksJitter: 0,
  exitEmpty: false,
  livenessTimeoutMs: 30_000,
  heartbeatToleranceMs: 30_000,
  ...overrides,
});
