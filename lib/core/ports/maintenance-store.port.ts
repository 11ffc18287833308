import type { TaskResultStatus } from '../task-result-status.enum';
import type { Retention, ResolvedLimit, RetentionEntry } from '../retention';
import type { TaskRecord } from '../task-record.interface';

/** A task whose attempt ended without an acknowledge, as the store read it. */
export interface AbandonedAttempt {
  readonly id: string;
  readonly queue: string;
  /** The task as stored; null when its data cannot be read. */
  readonly record: TaskRecord | null;
}

/** The lifecycle's decision for one ended attempt: the record as it is to be stored. */
export type EndAttempt = (ended: AbandonedAttempt) => TaskRecord;

/** What a maintenance pass is bounded by, from the backend's options. */
export interface MaintenanceLimits {
  readonly leaseTtl: number;
  readonly retention: Retention;
  /** Most tasks one step of a pass handles. */
  readonly batchSize: number;
}

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
 * What a backend stores for the maintenance pass: atomic primitives only.
 * What the pass decides (which error, retried or failed, an unreadable task)
 * is the lifecycle's, handed in as `end`; the store applies each decision
 * only while the task still holds the lease it was made for (Redis: a Lua
 * script guarded by the lease; SQLite: one transaction; memory: one
 * synchronous step). Every time compared is the store's clock.
 */
export interface MaintenanceStore {
  /** The bounds the pass (runMaintenancePass) works within. */
  readonly limits: MaintenanceLimits;
  /** Due deferred tasks into their ready queues, at most `max`; how many moved. */
  promoteDue(max: number): Promise<number>;
  /** Ends, as `end` decides, the attempts of at most `max` tasks whose lease ran out; how many ended. */
  endExpiredLeases(max: number, end: EndAttempt): Promise<number>;
  /** Pools whose heartbeat lapsed, longest lapsed first, at most `max`; never `ownPoolId`. */
  lapsedPools(max: number, ownPoolId: string | undefined): Promise<string[]>;
  /**
   * Ends, as `end` decides, the attempts of at most `max` tasks `poolId`
   * still holds, then forgets the pool once it holds nothing.
   */
  endPoolAttempts(
    poolId: string,
    max: number,
    end: EndAttempt,
  ): Promise<{ ended: number; forgotten: boolean }>;
  /**
   * The finished tasks of one queue and status past `limit`: older than its
   * age, and the oldest beyond its count; their results and history go, never
   * a live task's data. How many went.
   */
  trimFinished(queue: string, status: TaskResultStatus, limit: ResolvedLimit): Promise<number>;
  /** Enqueue counts (ingress) older than the longest retention; how many went. */
  trimCounts(): Promise<number>;
  /**
   * Optional: trimCounts and trimFinished of every entry in one step (one
   * statement), each entry bounded as its own trimFinished is; how many went.
   * The pass calls it in place of those where a store has it.
   */
  trimAll?(entries: readonly RetentionEntry[]): Promise<number>;
  /**
   * Unique keys that no longer hold (their task final or gone, no window
   * left) dropped from the key index, among at most `max` looked at; how many went.
   */
  forgetFreeKeys(max: number): Promise<number>;
  /** Records that a pass completed now, for health checks. */
  markPass(): Promise<void>;
}
