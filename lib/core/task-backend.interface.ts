import type { BackendTelemetry } from './backend-telemetry.interface';
import type { FeedUnsubscribe, FinishedTasksListener } from './finished-task-feed';
import type { LiveTaskEventsListener } from './live-task-feed';
import type { ControlStore } from './control-store.interface';
import type { StoreCondition } from './store-condition';
import type {
  ActivityQuery,
  BackendActivity,
  PoolInfo,
  PoolStatus,
  TaskListQuery,
  TaskPage,
} from './task-listing';
import type { TaskRecord } from './task-record.interface';
import { TaskResultStatus } from './task-result-status.enum';

/** The segments of a queue a task can be in; `peek` and telemetry speak of these. */
export type QueueSegment = 'ready' | 'running' | 'deferred' | 'successful' | 'failed' | 'cancelled';

export const QUEUE_SEGMENTS: readonly QueueSegment[] = [
  'ready',
  'running',
  'deferred',
  'successful',
  'failed',
  'cancelled',
];

/** The segments that hold finished tasks, one per final status (history). */
export type FinishedSegment = Extract<QueueSegment, 'successful' | 'failed' | 'cancelled'>;

/** The history segment of a final status. */
export function finishedSegment(status: TaskResultStatus): FinishedSegment {
  if (status === TaskResultStatus.SUCCESSFUL) return 'successful';
  return status === TaskResultStatus.CANCELLED ? 'cancelled' : 'failed';
}

export function isFinishedSegment(segment: QueueSegment): segment is FinishedSegment {
  return segment === 'successful' || segment === 'failed' || segment === 'cancelled';
}

/** What a backend can do beyond the minimum; enqueue validation asks these. */
export interface BackendFeatures {
  /** Honours `runAfter` (a deferred segment moved by the maintenance pass). */
  readonly defer: boolean;
  /** Stores many tasks in one round trip. */
  readonly bulkEnqueue: boolean;
  /** An idle `acquire` waits for a wake-up instead of polling. */
  readonly blockingAcquire: boolean;
  /**
   * Every process that opens the same store sees the same tasks, so a worker
   * pool (whose children are processes of their own) can serve it.
   */
  readonly sharedAcrossProcesses: boolean;
}

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
   * The worker pool that holds what is acquired (see `beatPool`). When that
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
   * again once the pool has beaten (`beatPool`). A backend that does not
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

/** Who runs a maintenance pass. */
export interface MaintenancePassOptions {
  /**
   * The pool running it: alive by definition, so its own tasks are never
   * recovered as a dead pool's, even if one of its beats failed to arrive.
   */
  poolId?: string;
}

/** What one maintenance pass did; a failed step is listed, never thrown. */
export interface MaintenancePassReport {
  promoted: number;
  reaped: number;
  /** Tasks of lapsed pools retried or failed (WorkerLost) by this pass. */
  recovered: number;
  trimmed: number;
  failedSteps: { step: string; error: unknown }[];
}

/**
 * The contract between the task layer and a store. Every backend passes the
 * same contract suite (test/contract), so the task layer, the worker pool, the
 * health indicator and the inspector depend on this interface only.
 */
export interface TaskBackend extends ControlStore {
  readonly alias: string;
  readonly queues: readonly string[];
  readonly features: BackendFeatures;
  /** Period of `maintenancePass` that the worker pool's main process keeps. */
  readonly maintenanceIntervalMs: number;
  /** How long a lease lasts: a task still unacknowledged that long after it started is failed. */
  readonly leaseTtlMs: number;
  /** Largest serialized `args` (bytes) enqueue accepts; DEFAULT_MAX_PAYLOAD_BYTES when absent. */
  readonly maxPayloadBytes?: number;

  /**
   * Store a new READY task (or deferred, with `task.runAfter` in the future).
   * Throws TaskAlreadyExistsError (with the stored task) when its id is
   * already stored, and stores nothing. A record with `task.unique` is
   * decided by its key (planUniqueEnqueue) in the same atomic step that
   * stores it: when the key is held, the holder is returned in its place
   * (under the holder's own id, which is how the caller tells), or, in
   * debounce mode, the waiting holder takes the record's data and due time
   * and is returned; UniqueKeyHeldError when a window holds a key whose task
   * is gone. Ids are checked before keys. A store with a round trip to
   * save (Redis, SQLite) gathers the enqueues of one tick into one atomic
   * step (EnqueueCoalescer): each is decided as if it came alone, in call
   * order, and gets its own record or error.
   */
  enqueue(record: TaskRecord): Promise<TaskRecord>;
  /**
   * Store many tasks at once; all or none (TaskAlreadyExistsError for the
   * first stored id). Per record, in order, what `enqueue` of it would
   * return, the records decided as if sent one by one.
   */
  enqueueMany(records: readonly TaskRecord[]): Promise<TaskRecord[]>;
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
  /**
   * Pool `poolId` is alive until `ttlMs` from now. Once that passes without
   * another beat, the next maintenance pass of any pool recovers the tasks it
   * holds. `info` (the pool's main process sends it) is stored with the beat
   * for `pools`; a beat without it keeps the info stored before.
   */
  beatPool(poolId: string, ttlMs: number, info?: PoolInfo): Promise<void>;
  /** Pool `poolId` stopped cleanly (it holds nothing): forget its heartbeat and info. */
  retirePool(poolId: string): Promise<void>;
  /**
   * The pools the store knows, by id: alive ones, and lapsed ones not yet
   * recovered and forgotten, each with its last beat, deadline, info and
   * how many running tasks it holds. Bounded (POOLS_LISTED_MAX).
   */
  pools(): Promise<PoolStatus[]>;
  /**
   * Claims `role` for `holder` until `ttlMs` from now, in one atomic step:
   * true when `holder` holds it now (it was free, its lease had run out, or
   * `holder` held it already and renewed it), false while another holder's
   * lease runs. A holder that stops claiming loses the role once its lease
   * runs out, so another takes over (the store gauges of the metrics).
   */
  claimRole(role: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Up to `count` tasks of one segment, best first; expired data is skipped. */
  peek(queue: string, segment: QueueSegment, count: number): Promise<TaskRecord[]>;
  /**
   * A page of a segment's tasks in `peek`'s order (planListing checks the
   * query). Its cursor is the last entry's position, never an offset: a
   * task present from first page to last is listed once, however many come
   * and go. A call examines at most ListPlan.scan entries from the cursor,
   * so a page costs the same with a million tasks waiting; with `taskName`
   * it may come back short with `next` set. Skips what `peek` skips.
   */
  listTasks(query: TaskListQuery): Promise<TaskPage>;
  /** Counts per queue and rates over the last `intervalMs`. */
  telemetry(intervalMs: number): Promise<BackendTelemetry>;
  /**
   * Per queue and bucket (ActivityBuckets, on the store's clock): tasks
   * enqueued, finished per final status, and the mean wait and run of a
   * bounded sample of those finished. Reads only what the store keeps
   * already (ingress counts, history by finish time), so it costs nothing
   * on the path every task takes, and a bounded number of reads per bucket
   * whatever the store's size. InvalidQueryError for a bucket or window out
   * of range.
   */
  activity(query: ActivityQuery): Promise<BackendActivity>;
  /** The stored task; throws `TaskResultDoesNotExist` for an unknown or expired id. */
  getResult(id: string): Promise<TaskRecord>;
  /**
   * Calls `listener` with the tasks this store finishes (acknowledged,
   * cancelled, failed by the reaper or a pool recovery), by any process
   * that shares the store, from the moment the returned promise resolves
   * until its unsubscribe is called. Tasks finished while nobody was
   * subscribed are not replayed: read the result after subscribing to close
   * that gap (waitForFinished does). One transport per alias, opened for the
   * first listener (FinishedTaskFanout); closed with the backend.
   */
  subscribeFinished(listener: FinishedTasksListener): Promise<FeedUnsubscribe>;
  /**
   * Calls `listener` with the live events of this store's tasks (`enqueued`
   * when a task is made, `started` when a lease is taken, `progressed` when
   * progress is stored), by any
   * process that shares the store, from the moment the returned promise
   * resolves until its unsubscribe is called. Nothing is replayed, and a
   * listener too slow for the store's bound may miss events (see each
   * backend). One transport per alias, opened for the first listener
   * (LiveTaskFanout), so an alias nobody listens to stores and sends none.
   */
  subscribeLive(listener: LiveTaskEventsListener): Promise<FeedUnsubscribe>;
  /**
   * One maintenance pass: promote due deferred tasks, reap expired leases and
   * recover the tasks of lapsed pools (each retried per its policy or FAILED),
   * trim history, heartbeat.
   */
  maintenancePass(options?: MaintenancePassOptions): Promise<MaintenancePassReport>;
  /** When the last maintenance pass ran, or null if none has. */
  maintenanceHeartbeat(): Promise<Date | null>;
  /** Resolves when the store answers; throws `BackendUnavailableError` otherwise. */
  ping(): Promise<void>;
  /**
   * What the backend found of its store when it last reached it: how it
   * keeps its data over a restart, and whether this process found the data
   * gone. No round trip; the health checks read it (storeHealth). Absent
   * where the backend has nothing to say (memory, SQLite).
   */
  storeCondition?(): StoreCondition;
  /** Release every connection and timer. */
  close(): Promise<void>;
}
