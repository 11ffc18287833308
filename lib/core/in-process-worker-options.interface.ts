import type { AliasOption } from './alias-option.interface';
/**
 * The `inProcessWorker` option of ThreadmillModule: task slots in the app's
 * own process, with the leases, heartbeat, recovery and graceful stop of a
 * worker pool, but no child processes. Each option is the `threadmill worker`
 * flag of the same name, with its default.
 *
 * @example
 * ```ts
 * const inProcessWorker: InProcessWorkerOptions = { threads: 4, queues: ['default', 'emails'] };
 * ```
 * @publicApi
 */
export interface InProcessWorkerOptions extends AliasOption {
  /**
   * Queues in priority order: a task is taken from a later queue only when
   * the earlier ones are empty (`--queues`). Default: all of the backend's.
   */
  queues?: string[];
  /**
   * Concurrent task slots (`--threads`), all on the app's event loop: a
   * CPU-bound task holds the whole app. Default: 1.
   */
  threads?: number;
  /**
   * Tasks leased beyond the free slots, so the next one is already there
   * when a slot frees (`--prefetch`). Default: 0.
   */
  prefetch?: number;
  /**
   * How long (ms) its heartbeat may fail to reach the store before other
   * workers take this app for dead and recover its tasks; also how long a
   * killed app's tasks wait for that (`--heartbeat-tolerance`). At least two
   * maintenance intervals. Default: 30 000.
   */
  heartbeatToleranceMs?: number;
  /**
   * How long (ms) a task whose name this app registers no `@Task` for goes
   * back for a worker that does, no attempt counted, before it fails
   * (`--unknown-task-grace`); 0 fails it at once. Default: 600 000 (10 minutes).
   */
  unknownTaskGraceMs?: number;
}
