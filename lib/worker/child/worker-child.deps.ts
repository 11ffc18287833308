import type { LoggerService } from '@nestjs/common';

import type { CancelHook } from '../../core/cancel-hook';
import type { StoreCorruptError } from '../../core/errors/store-corrupt.error';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { MetricsSnapshot } from '../../metrics/prom-client.loader';
import type { TaskRecord } from '../../core/task-record.interface';
import type { HeldJournal } from '../held-journal';
import type { ParentChannel } from '../worker-ipc';

/**
 * Runs one RUNNING record and returns it finished; `TaskRunner.run` in the
 * app. `cancel` is requested when the task's cancel is.
 */
export type RunTask = (record: TaskRecord, cancel: CancelHook) => Promise<TaskRecord>;

/** The metrics a child records for its pool's `/metrics` (TaskMetrics), when they are on. */
export interface ChildMetrics {
  /** Calls `changed` after each change from now on, so the next report carries it. */
  watch(changed: () => void): void;
  /** A backend call of this child failed (an acquire, an acknowledgement). */
  storeFailed(): void;
  /** Everything counted so far (cumulative). */
  snapshot(): Promise<MetricsSnapshot>;
}

export interface WorkerChildDeps {
  readonly backend: TaskBackend;
  readonly runTask: RunTask;
  readonly channel: ParentChannel;
  /**
   * Where the ids this child holds are kept for the pool's main process; null
   * where no other process could read it (the in-process worker).
   */
  readonly journal: HeldJournal | null;
  readonly logger: LoggerService;
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
   * Period of the read of the pool's cancel requests, the age after which
   * an unhandled one is dropped, and the oldest a read may be when a leased
   * task starts (see cancel-delivery); omitted (or no poolId), none runs.
   */
  readonly cancelPoll?: { everyMs: number; requestTtlMs: number; freshMs: number };
  /** A task's declared `cancel.hardStopAfterMs`, by its name (none: cooperative only). */
  readonly hardStopAfterMs?: (taskName: string) => number | undefined;
  /** Draws the recycling jitter; `Math.random` outside tests. */
  readonly random?: () => number;
  /**
   * Told when an acquire or a store of outcomes finds the store damaged: no
   * retry can help, so the child should stop (the launcher stops it at once).
   * Omitted, the error is retried as any refused call.
   */
  readonly storeCorrupt?: (error: StoreCorruptError) => void;
  /** Told of failed store calls, and read for each progress report; omitted, metrics are off. */
  readonly metrics?: ChildMetrics;
  /** Told when each task starts and ends: the liveness beat, which carries their declared bounds. */
  readonly liveness?: {
    started(record: TaskRecord): void;
    ended(record: TaskRecord): void;
  };
}
