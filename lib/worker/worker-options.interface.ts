/**
 * What `threadmill worker` was asked to do, after parsing and defaults. The
 * pool passes the same options to every child through its command line, so
 * this is the whole contract between them.
 */
export interface WorkerOptions {
  /** Backend alias whose queues are consumed. */
  readonly alias: string;
  /** Queues in priority order: a task is taken from a later queue only when the earlier ones are empty. */
  readonly queues: readonly string[];
  /** Child processes, each with its own Nest application context. */
  readonly processes: number;
  /** Concurrent task slots per child (async: a CPU-bound task holds its whole process). */
  readonly threads: number;
  /** A child is recycled after this many tasks (plus jitter); null never recycles. */
  readonly maxTasks: number | null;
  /** Up to this many extra tasks before recycling, drawn per child so they do not all restart together. */
  readonly maxTasksJitter: number;
  /**
   * Tasks a child may hold leased beyond its free slots, so the next one is
   * already there when a slot frees (`--prefetch`); 0 or absent, none.
   */
  readonly prefetch?: number;
  /** Drain the queues, then exit 0, instead of waiting for more work. */
  readonly exitEmpty: boolean;
  /**
   * A child whose event loop has not answered this long (ms) is killed and
   * replaced, its tasks recovered as a crash's; a task's `blockingMs` extends
   * it while that task runs. Never more than the backend's lease.
   */
  readonly livenessTimeoutMs: number;
  /**
   * How long the pool's heartbeat outlives its last beat (ms): a store outage
   * shorter than this fails nothing; a pool dead this long is recovered by
   * the others.
   */
  readonly heartbeatToleranceMs: number;
  /**
   * How long a task whose name this app does not register is given back for
   * a worker that does (ms; `--unknown-task-grace`); absent, the default
   * (DEFAULT_UNKNOWN_TASK_GRACE_MS); 0 fails it at once.
   */
  readonly unknownTaskGraceMs?: number;
  /** Port of the main process's liveness endpoint; none when absent. */
  readonly healthPort?: number;
  /**
   * Children record task metrics for the main process's `GET /metrics` (on
   * with a health port; off when prom-client is not installed).
   */
  readonly metrics?: boolean;
}
