import { Logger } from '@nestjs/common';

import {
  type LiveTaskEventsListener,
  InvalidTaskError,
  isRetry,
  queueNotConfigured,
  retryNotReady,
  type AcknowledgeAndAcquireResult,
  type AcknowledgeOutcome,
  type AcquireOptions,
  type ActivityQuery,
  type BackendActivity,
  type BackendConfig,
  type BackendFeatures,
  type BackendTelemetry,
  type CancelRequest,
  type CancelResult,
  type FeedUnsubscribe,
  type FinishedTasksListener,
  type MaintenancePassOptions,
  type MaintenancePassReport,
  type PoolInfo,
  type PoolStatus,
  type QueueLimits,
  type QueueSegment,
  type RetryOutcome,
  type TaskBackend,
  type TaskListQuery,
  type TaskPage,
  type TaskRecord,
} from '../../core';
import type { ScheduleStore } from '../../core/schedule-store.interface';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import { SqliteAcquirer } from './sqlite-acquirer';
import { SqliteActivity } from './sqlite-activity';
import {
  resolveSqliteBackendConfig,
  type ResolvedSqliteBackendConfig,
} from './sqlite-backend-options';
import { SqliteCancels } from './sqlite-cancels';
import { SqliteFeeds } from './sqlite-feeds';
import { SqliteListing } from './sqlite-listing';
import { SqliteLiveEvents } from './sqlite-live-events';
import { SqliteFinishedTasks } from './sqlite-finished-tasks';
import { SqliteUniqueKeys } from './sqlite-unique-keys';
import { SqliteConnection } from './sqlite-connection';
import { SqliteEnqueuer } from './sqlite-enqueuer';
import { SqliteHeldTasks } from './sqlite-held-tasks';
import { SqliteMaintenance } from './sqlite-maintenance';
import { SqlitePausedQueues } from './sqlite-paused-queues';
import { SqliteQueueLimits } from './sqlite-queue-limits';
import { SqlitePools } from './sqlite-pools';
import { SqliteSchedules } from './sqlite-schedules';
import { SqliteReads } from './sqlite-reads';
import { SqliteRows } from './sqlite-rows';

/**
 * A zero-infrastructure backend: one SQLite file on this machine, shared by
 * every process of the worker pool. Same semantics as the Redis backend
 * (the backend contract); every state change runs in one `BEGIN IMMEDIATE` transaction, so
 * two processes never take the same task, and WAL mode lets reads (idle
 * checks, peek, telemetry) run beside the single writer.
 *
 * better-sqlite3 (an optional peer dependency) is loaded when the first
 * SqliteBackend is constructed, never when the package is imported.
 *
 * @example
 * ThreadmillModule.forRoot({
 *   backends: { default: { backend: SqliteBackend, url: 'sqlite:///var/lib/app/threadmill.db' } },
 * });
 * @throws InvalidBackendConfigError for a missing url, an unknown option or a
 *   non-positive duration (naming the alias and the option), or when
 *   better-sqlite3 is not installed.
 * @throws StoreCorruptError when the file is not a SQLite database or is damaged.
 * @throws BackendUnavailableError when the file cannot be opened or migrated otherwise.
 * @publicApi
 */
export class SqliteBackend implements TaskBackend {
  readonly queues: readonly string[];
  /**
   * No `blockingAcquire`: an idle consumer wakes at once for work enqueued in
   * its own process, but checks (cheaply, with backoff) for work from others.
   */
  readonly features: BackendFeatures = {
    defer: true,
    bulkEnqueue: true,
    blockingAcquire: false,
    sharedAcrossProcesses: true,
  };
  readonly maintenanceIntervalMs: number;
  readonly leaseTtlMs: number;

  private readonly logger = new Logger(SqliteBackend.name);
  private readonly config: ResolvedSqliteBackendConfig;
  private readonly connection: SqliteConnection;
  private readonly acquirer: SqliteAcquirer;
  private readonly enqueuer: SqliteEnqueuer;
  private readonly heldTasks: SqliteHeldTasks;
  private readonly poolBeats: SqlitePools;
  private readonly paused: SqlitePausedQueues;
  private readonly limits: SqliteQueueLimits;
  private readonly reads: SqliteReads;
  private readonly listing: SqliteListing;
  private readonly activityReads: SqliteActivity;
  private readonly maintenance: SqliteMaintenance;
  private readonly cancels: SqliteCancels;
  private readonly finished: SqliteFinishedTasks;
  private readonly feeds: SqliteFeeds;
  /** Schedules, in the same file as the tasks. */
  readonly schedules: ScheduleStore;

  constructor(
    readonly alias: string,
    config: BackendConfig,
  ) {
    this.config = resolveSqliteBackendConfig(alias, config);
    this.queues = this.config.queues;
    this.maintenanceIntervalMs = this.config.maintenanceInterval;
    this.leaseTtlMs = this.config.leaseTtl;

    const connection = new SqliteConnection(alias, this.config, this.logger);
    const rows = new SqliteRows(alias, this.config, connection.sql.tasks, this.logger);
    // Built before the acquirer that reads it; its run-time changes wake the acquirer's consumers.
    const limits = new SqliteQueueLimits(alias, this.queues, connection, () =>
      acquirer.workAdded(),
    );
    const live = new SqliteLiveEvents(alias, connection);
    const acquirer = new SqliteAcquirer(alias, this.config, connection, rows, limits, live);
    const workAdded = () => acquirer.workAdded();
    limits.seed(this.config.limits);
    this.limits = limits;
    this.connection = connection;
    this.acquirer = acquirer;
    this.enqueuer = new SqliteEnqueuer(alias, connection, this, workAdded, live);
    this.heldTasks = new SqliteHeldTasks(alias, connection, rows, acquirer, live);
    this.poolBeats = new SqlitePools(alias, connection);
    this.schedules = new SqliteSchedules(alias, connection);
    this.paused = new SqlitePausedQueues(alias, this.queues, connection, workAdded);
    this.reads = new SqliteReads(alias, this.config, connection, this.logger);
    this.listing = new SqliteListing(alias, this.config, connection, this.logger);
    this.activityReads = new SqliteActivity(alias, this.config, connection, this.logger);
    this.cancels = new SqliteCancels(alias, connection, rows);
    this.finished = new SqliteFinishedTasks(
      alias,
      connection,
      workAdded,
      new SqliteUniqueKeys(alias, connection),
    );
    this.feeds = new SqliteFeeds(alias, connection, this.logger);
    this.maintenance = new SqliteMaintenance({
      alias,
      config: this.config,
      db: connection.db,
      sql: connection.sql.maintenance,
      pools: connection.sql.pools,
      rows,
      guard: (run) => connection.guard(run),
      workAdded,
      forgetFreeKeys: (max) => this.enqueuer.forgetFreeKeys(max),
    });
  }

  async enqueue(record: TaskRecord): Promise<TaskRecord> {
    this.assertQueue(record);
    return this.enqueuer.enqueue(record);
  }

  async enqueueMany(records: readonly TaskRecord[]): Promise<TaskRecord[]> {
    for (const record of records) this.assertQueue(record);
    return this.enqueuer.enqueueMany(records);
  }

  async acquire(queues: readonly string[], options: AcquireOptions): Promise<TaskRecord[]> {
    return this.acquirer.acquire(queues, options);
  }

  async acknowledgeAndAcquire(
    finished: readonly TaskRecord[],
    queues: readonly string[],
    options: AcquireOptions,
  ): Promise<AcknowledgeAndAcquireResult> {
    if (finished.length === 0) {
      return { acknowledged: [], acquired: await this.acquire(queues, options) };
    }
    return this.heldTasks.acknowledgeAndTake(finished, queues, options);
  }

  async acknowledge(records: readonly TaskRecord[]): Promise<AcknowledgeOutcome[]> {
    return this.heldTasks.acknowledge(records);
  }

  async retry(records: readonly TaskRecord[]): Promise<RetryOutcome[]> {
    for (const record of records) {
      if (!isRetry(record)) throw new InvalidTaskError(retryNotReady(record.id, record.status));
      this.assertQueue(record);
    }
    return this.heldTasks.retry(records);
  }

  async beatPool(poolId: string, ttlMs: number, info?: PoolInfo): Promise<void> {
    this.poolBeats.beat(poolId, ttlMs, info);
  }

  async pools(): Promise<PoolStatus[]> {
    return this.poolBeats.list();
  }

  async retirePool(poolId: string): Promise<void> {
    this.poolBeats.retire(poolId);
  }

  async claimRole(role: string, holder: string, ttlMs: number): Promise<boolean> {
    return this.poolBeats.claimRole(role, holder, ttlMs);
  }

  async release(records: readonly TaskRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    return this.heldTasks.giveBack(records, false);
  }

  async unlease(records: readonly TaskRecord[]): Promise<number> {
    return this.heldTasks.giveBack(records, true);
  }

  async storeProgress(
    entries: readonly { record: TaskRecord; stored: string }[],
  ): Promise<boolean[]> {
    return this.heldTasks.storeProgress(entries);
  }

  async cancel(id: string): Promise<CancelResult> {
    return this.cancels.cancel(id);
  }

  async retryFinished(finished: TaskRecord, retried: TaskRecord): Promise<boolean> {
    return this.finished.retry(finished, retried);
  }

  async removeFinished(finished: TaskRecord): Promise<boolean> {
    return this.finished.remove(finished);
  }

  async cancelRequests(poolId: string): Promise<CancelRequest[]> {
    return this.cancels.requests(poolId);
  }

  async dropCancelRequests(poolId: string, requests: readonly CancelRequest[]): Promise<void> {
    this.cancels.drop(poolId, requests);
  }

  async pauseQueue(queue: string): Promise<void> {
    this.paused.pause(queue);
  }

  async resumeQueue(queue: string): Promise<void> {
    this.paused.resume(queue);
  }

  async pausedQueues(): Promise<string[]> {
    return this.paused.list();
  }

  async setQueueLimits(queue: string, limits: QueueLimits | null): Promise<void> {
    this.limits.set(queue, limits);
  }

  async queueLimits(): Promise<Record<string, QueueLimits>> {
    return this.limits.all();
  }

  async peek(queue: string, segment: QueueSegment, count: number): Promise<TaskRecord[]> {
    return this.reads.peek(queue, segment, count);
  }

  async listTasks(query: TaskListQuery): Promise<TaskPage> {
    return this.listing.listTasks(query);
  }

  async telemetry(intervalMs: number): Promise<BackendTelemetry> {
    return this.reads.telemetry(intervalMs);
  }

  async activity(query: ActivityQuery): Promise<BackendActivity> {
    return this.activityReads.read(query);
  }

  async getResult(id: string): Promise<TaskRecord> {
    return this.reads.getResult(id);
  }

  /** Read from the results table every SQLITE_FEED_INTERVAL_MS while anyone listens (see SqliteFinishedFeed). */
  subscribeFinished(listener: FinishedTasksListener): Promise<FeedUnsubscribe> {
    return this.connection.guard(() => this.feeds.finished.subscribe(listener));
  }

  /** Read from the live events table while anyone listens (see SqliteLiveFeed, SqliteLiveEvents). */
  subscribeLive(listener: LiveTaskEventsListener): Promise<FeedUnsubscribe> {
    return this.connection.guard(() => this.feeds.live.subscribe(listener));
  }

  async maintenancePass(options: MaintenancePassOptions = {}): Promise<MaintenancePassReport> {
    return runMaintenancePass(this.maintenance, this, this.config, options, this.logger);
  }

  async maintenanceHeartbeat(): Promise<Date | null> {
    return this.reads.maintenanceHeartbeat();
  }

  async ping(): Promise<void> {
    this.reads.ping();
  }

  async close(): Promise<void> {
    if (this.connection.closed) return;
    await this.feeds.close();
    this.acquirer.close();
    this.connection.close();
  }

  private assertQueue(record: TaskRecord): void {
    if (!this.queues.includes(record.task.queue)) {
      throw new InvalidTaskError(
        queueNotConfigured(record.task.name, record.task.queue, this.alias, this.queues),
      );
    }
  }
}
