import type { LoggerService } from '@nestjs/common';

import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import type { HeldJournal } from '../held-journal';
import type { ParentChannel } from '../worker-ipc';

/**
 * Runs one RUNNING record and returns it finished; `TaskRunner.run` in the
 * app. `cancel` aborts when the task's cancel is requested.
 */
export type RunTask = (record: TaskRecord, cancel: AbortSignal) => Promise<TaskRecord>;

export interface WorkerChildDeps {
  readonly backend: TaskBackend;
  readonly runTask: RunTask;
  readonly channel: ParentChannel;
  /** Where the ids this child holds are kept for the pool's main process. */
  readonly journal: HeldJournal;
  readonly logger: LoggerService;
  /** Whether per-task lines are logged; decided once so a silent pool builds no strings. */
  readonly logTasks: boolean;
  /** `host:pid`, the prefix of every slot's worker id. */
  readonly identity: string;
  /** How long one idle acquire blocks before it is re-issued. */
  readonly idleWaitMs: number;
  /** Pause after a failed acquire or store before trying again. */
  readonly retryDelayMs: number;
  /** The pool this child belongs to: its acquires are recorded under it (dead-pool recovery). */
  readonly poolId?: string;
  /** Period of the check for tasks whose lease is gone (see LeaseCheck); omitted, none runs. */
  readonly leaseCheckMs?: number;
  /**
   * Period of the read of the pool's cancel requests, and the age after
   * which an unhandled one is dropped; omitted (or no poolId), none runs.
   */
  readonly cancelPoll?: { everyMs: number; requestTtlMs: number };
  /** A task's declared `cancel.hardStopAfterMs`, by its name (none: cooperative only). */
  readonly hardStopAfterMs?: (taskName: string) => number | undefined;
  /** Draws the recycling jitter; `Math.random` outside tests. */
  readonly random?: () => number;
  /** Told when each task starts and ends: the liveness beat, which carries their declared bounds. */
  readonly liveness?: {
    started(record: TaskRecord): void;
    ended(record: TaskRecord): void;
  };
}
