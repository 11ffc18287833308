import type { QueueLimits } from '../queue-limits';
import type { TaskRecord } from '../task-record.interface';

/**
 * What `cancel` did: a waiting task was stored CANCELLED (`cancelled`), a
 * running one's pool was asked to stop it (`requested`), or the task had
 * already finished and nothing changed (`already-final`).
 */
export type CancelOutcome = 'cancelled' | 'requested' | 'already-final';

/** `cancel`'s outcome and the task as it stands after it. */
export interface CancelResult {
  outcome: CancelOutcome;
  record: TaskRecord;
  /** For `requested`: the pool the request went to; null or absent for a lease without a pool. */
  holder?: string | null;
}

/** What a cancel makes of one task, as the lifecycle decided it (decideCancel). */
export interface CancelDecision {
  outcome: CancelOutcome;
  /** The task as it is to be stored (`cancelled`, `requested`), or as it is (`already-final`). */
  record: TaskRecord;
}

/**
 * The cancel rule a backend applies: given the task as read and whether a
 * lease holds it, what it becomes. The caller passes it (decideCancel in
 * lib/lifecycle); the backend applies it only to the task as it read it.
 */
export type CancelRule = (record: TaskRecord, leased: boolean, now: Date) => CancelDecision;

/** A request to stop a running task, addressed to the pool that holds it. */
export interface CancelRequest {
  id: string;
  /** When it was made, by the store's clock. */
  requestedAt: Date;
  /**
   * The worker id of the lease the cancel found (the last of the task's
   * `workerIds`): only the holder of that lease acts on it, so a child still
   * running an earlier lease of the task never handles, and drops, the
   * request meant for the current one.
   */
  lease: string;
}

/**
 * The part of the store contract that operators and the control services
 * drive, apart from the path every task takes: stopping tasks, retrying and
 * removing final ones by hand, and pausing and limiting queues for every
 * pool at once. Each is one atomic step in the store. Part of TaskBackend.
 */
export interface ControlStore {
  /**
   * Cancel one task, atomically, as `decide` makes of it (decideCancel): the
   * task is read with whether a lease holds it, and the decision stored only
   * while the task is still as read. `cancelled`: the task left its queue,
   * stored CANCELLED, so no worker can start it. `requested`: it was leased;
   * it is stored marked, and its pool gets a cancel request naming the lease
   * (see `cancelRequests`), the pool named as `holder`. `already-final`:
   * nothing changed. Throws `TaskResultDoesNotExist` for an unknown or
   * expired id.
   */
  cancel(id: string, decide: CancelRule): Promise<CancelResult>;
  /**
   * Store `retried` (manualRetryRecord of `finished`) in place of the final
   * task `finished`, in one atomic step: out of its history segment, READY
   * in its ready queue at once (with a wake-up), its result no longer
   * expiring. Only while the stored task is still `finished`
   * (isSameFinished); returns false, changing nothing, when it changed or
   * is gone since it was read.
   */
  retryFinished(finished: TaskRecord, retried: TaskRecord): Promise<boolean>;
  /**
   * Delete the final task `finished`, in one atomic step: its record, its
   * history entry, and its unique key's index entry when it holds it (a
   * window still runs out on its own). Only while the stored task is still
   * `finished` (isSameFinished); returns false, changing nothing, when it
   * changed or is gone since it was read.
   */
  removeFinished(finished: TaskRecord): Promise<boolean>;
  /**
   * The cancel requests addressed to pool `poolId`, oldest first: one cheap
   * read, polled by its children.
   */
  cancelRequests(poolId: string): Promise<CancelRequest[]>;
  /**
   * Removes requests of pool `poolId` (handled, or stale: their task
   * finished first), each only while it is still for the lease it names.
   */
  dropCancelRequests(poolId: string, requests: readonly CancelRequest[]): Promise<void>;
  /**
   * Stop leasing tasks of `queue`, for every pool of this store, until
   * `resumeQueue`: stored, so a pool started later sees it too. Acquire
   * checks it atomically with taking the lease, so no task of the queue
   * starts once this resolves; running tasks finish and enqueue still
   * stores. Pausing a paused queue changes nothing. Throws UnknownQueueError
   * for a queue the alias does not configure.
   */
  pauseQueue(queue: string): Promise<void>;
  /**
   * Lease tasks of `queue` again, and wake idle consumers so they take its
   * waiting tasks at once. Resuming a queue that is not paused changes
   * nothing. Throws UnknownQueueError for a queue the alias does not configure.
   */
  resumeQueue(queue: string): Promise<void>;
  /** The paused queues of this alias, in no particular order. */
  pausedQueues(): Promise<string[]>;
  /**
   * Stores `queue`'s limits for every pool of the store, checked in the same
   * atomic step that takes a lease; null lifts them (and keeps the configured
   * ones from coming back). Idle consumers look again at once. Throws
   * UnknownQueueError for a queue the alias does not configure.
   */
  setQueueLimits(queue: string, limits: QueueLimits | null): Promise<void>;
  /**
   * The limits in force, by queue (limited queues only): the stored ones,
   * which the configured ones seed for a queue the store has none for.
   */
  queueLimits(): Promise<Record<string, QueueLimits>>;
}
