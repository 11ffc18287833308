import type { ControlStore } from './ports/control-store.port';
import type { FeedStore } from './ports/feed-store.port';
import type { LeaseStore } from './ports/lease-store.port';
import type { MaintenanceStore } from './ports/maintenance-store.port';
import type { PoolStore } from './ports/pool-store.port';
import type { ReadStore } from './ports/read-store.port';
import type { ScheduleStore } from './ports/schedule-store.port';
import type { TaskStore } from './ports/task-store.port';
import type { StoreCondition } from './store-condition';
import type { StoreMigration } from './store-migration';

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

/**
 * A store of tasks, in parts by who uses them (docs/architecture.md lists
 * every method with its consumers). Each consumer depends on the parts it
 * uses only; every backend passes the same contract suite
 * (lib/backend-kit/contract), a section per part. A backend only stores: the
 * lifecycle decides, and each part applies a decision in one atomic step.
 */
export interface TaskBackend {
  readonly alias: string;
  readonly queues: readonly string[];
  readonly features: BackendFeatures;
  /** Period of the maintenance pass (runMaintenancePass) that the worker pool's main process keeps. */
  readonly maintenanceIntervalMs: number;
  /** How long a lease lasts: a task still unacknowledged that long after it started is failed. */
  readonly leaseTtlMs: number;
  /** Largest serialized `args` (bytes) enqueue accepts; DEFAULT_MAX_PAYLOAD_BYTES when absent. */
  readonly maxPayloadBytes?: number;
  /** New tasks and their results. */
  readonly tasks: TaskStore;
  /** Leases, outcomes and progress: what a worker calls for every task. */
  readonly leases: LeaseStore;
  /** Cancel, retry and remove by hand, pause and limit queues. */
  readonly control: ControlStore;
  /** Segments, pages, counts, activity. */
  readonly reads: ReadStore;
  /** Finished tasks and live events, across processes. */
  readonly feeds: FeedStore;
  /** Pool heartbeats and roles. */
  readonly pools: PoolStore;
  /** Schedules and their cursors. */
  readonly schedules: ScheduleStore;
  /** The atomic steps of the maintenance pass (runMaintenancePass drives them). */
  readonly maintenance: MaintenanceStore;
  /** Resolves when the store answers; throws `BackendUnavailableError` otherwise. */
  ping(): Promise<void>;
  /**
   * What the backend found of its store when it last reached it: how it
   * keeps its data over a restart, and whether this process found the data
   * gone. No round trip; the health checks read it (storeHealth). Absent
   * where the backend has nothing to say (memory, SQLite).
   */
  storeCondition?(): StoreCondition;
  /**
   * Brings the store's schema to the version this release uses (the
   * `migrate` command), for a deploy that migrates before it starts the
   * app. Absent where the store keeps no schema (memory, Redis).
   */
  migrate?(): Promise<StoreMigration>;
  /** Release every connection and timer. */
  close(): Promise<void>;
}
