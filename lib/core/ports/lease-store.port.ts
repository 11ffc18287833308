import type { TaskRecord } from '../task-record.interface';

export interface AcquireOptions {
  /** Identity recorded in the task's `workerIds` (`host:pid-slot`). */
  workerId: string;
  /** Most tasks to take at once (bounded prefetch). Default 1. */
  max?: number;
  /** How long to wait when every queue is empty; 0 returns at once. */
  timeoutMs: number;
  /** Ends the wait early (graceful shutdown); resolves with what was acquired, possibly nothing. */
  signal?: AbortSignal;
  /**
   * The worker pool that holds what is acquired (see `pools.beat`). When that
   * pool's heartbeat lapses, any live pool's maintenance pass recovers these tasks.
   */
  poolId?: string;
}

/**
 * Per record, in order: the acknowledge stored it (`acknowledged`), found its
 * lease already gone (`stale`: the reaper or a pool recovery settled it, and
 * the record was not stored), or found this very record already stored
 * (`already-stored`: an earlier acknowledge of the same attempt whose reply
 * was lost had stored it).
 */
export type AcknowledgeOutcome = 'acknowledged' | 'stale' | 'already-stored';

/** What `acknowledgeAndAcquire` stored and leased. */
export interface AcknowledgeAndAcquireResult {
  /** Per finished record, in order, as `acknowledge` reports it. */
  acknowledged: AcknowledgeOutcome[];
  /** The tasks leased afterwards, as `acquire` returns them. */
  acquired: TaskRecord[];
  /**
   * Set when nothing was leased because the heartbeat of `options.poolId`
   * had lapsed by the store's clock (or was missing): another pool may be
   * recovering that pool's tasks as lost. The outcomes were stored; lease
   * again once the pool has beaten (`pools.beat`). A backend that does not
   * check (memory, SQLite) never sets it; Redis's plain `acquire` throws
   * PoolHeartbeatLapsedError instead, having waited for the beat as long as
   * its timeout allowed.
   */
  poolLapsed?: boolean;
}

/**
 * Per record, in order: the retry put it back (`retried`), found its lease
 * already gone (`stale`), or found this very record already put back by an
 * earlier retry whose reply was lost (`already-stored`).
 */
export type RetryOutcome = 'retried' | 'stale' | 'already-stored';

/**
 * What a worker uses on the path every task takes: lease tasks, store their
 * outcomes and progress, give back what it will not run. A worker child
 * depends on this part (and `control` for its cancel requests, `pools` for
 * its pool's lapse).
 */
export interface LeaseStore {
  /**
   * Take up to `max` of the best ready tasks from the first non-empty queue in
   * the order given, mark them RUNNING under a lease and return them. Resolves
   * with `[]` when the timeout passes or the signal aborts first.
   */
  acquire(queues: readonly string[], options: AcquireOptions): Promise<TaskRecord[]>;
  /**
   * Store finished records (SUCCESSFUL, FAILED or CANCELLED) whose lease is still held;
   * each outcome says what happened (see AcknowledgeOutcome).
   */
  acknowledge(records: readonly TaskRecord[]): Promise<AcknowledgeOutcome[]>;
  /**
   * `acknowledge(finished)` then `acquire(queues, options)`, in one round trip
   * (Redis) or one transaction (SQLite): a busy worker slot then costs one
   * call per task. The records are stored even when the signal has already
   * aborted. With records to store it never waits for work (it returns what
   * was ready, perhaps nothing), so their outcomes are not held back by an
   * idle queue. When it throws, whether `finished` was stored is unknown:
   * acknowledge them again (a repeat of a stored record is reported
   * `already-stored`, nothing more).
   */
  acknowledgeAndAcquire(
    finished: readonly TaskRecord[],
    queues: readonly string[],
    options: AcquireOptions,
  ): Promise<AcknowledgeAndAcquireResult>;
  /**
   * Send failed attempts back for another one: each record is READY as
   * `nextAttempt` built it (errors and worker ids kept, `task.runAfter` = when
   * it is due). A task still held goes to its deferred segment, or straight to
   * its ready queue when already due; stale when its lease was already gone.
   */
  retry(records: readonly TaskRecord[]): Promise<RetryOutcome[]>;
  /**
   * Put RUNNING tasks back in their ready queue, unfinished (shutdown). Returns how many were still held.
   * Never fails a task: the interrupted run stays in `workerIds` (it counts as an attempt) but the
   * task always gets at least one more run.
   */
  release(records: readonly TaskRecord[]): Promise<number>;
  /**
   * Give back leases whose tasks never started: one whose lease was never
   * received (an acquire's reply lost, a child that died before it read the
   * reply) or arrived after an urgent stop. Each goes back to its ready queue
   * as if never leased, its lease's worker id taken off `workerIds` (so no
   * attempt is counted), but only while it still holds that very lease: the
   * record is the one the lease returned (or `peek` shows). Returns how many
   * went back.
   */
  unlease(records: readonly TaskRecord[]): Promise<number>;
  /**
   * Store each entry's `stored` (storedProgress) as the progress of its
   * `record`'s task, only while that attempt (the count of `record.workerIds`)
   * still holds it: a late write never touches a finished, removed or
   * re-leased task. All the entries in one round trip (Redis) or one
   * transaction (SQLite): a process writes the progress of every task it
   * runs in one call per interval. Per entry, in order, whether it was
   * stored; reads return it on the record (recordWithProgress). The last
   * value of an attempt is not written here: the finished record carries
   * it, and `acknowledge` stores it with the outcome (finishedProgress).
   */
  storeProgress(entries: readonly { record: TaskRecord; stored: string }[]): Promise<boolean[]>;
}
