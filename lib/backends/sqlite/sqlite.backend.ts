import { Logger } from '@nestjs/common';
import type { StoreRules } from '../../core/ports/store-rules.port';
import type { StoreMigration } from '../../core/store-migration';
import { SQLITE_SCHEMA_VERSION } from './sqlite-migrations';
import { PartsBackend } from '../parts-backend';

import type { BackendConfig } from '../../core/backend-config.interface';
import type { BackendFeatures, TaskBackend } from '../../core/task-backend.interface';
import { finishedRecordSource } from '../../core/wait-for-finished';
import { StoreGuard } from '../store-guard';
import { SqliteAcquirer } from './sqlite-acquirer';
import { SqliteActivity } from './sqlite-activity';
import { resolveSqliteBackendSettings } from './sqlite-backend-options';
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
export class SqliteBackend extends PartsBackend implements TaskBackend {
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

  private readonly guard: StoreGuard;
  private readonly connection: SqliteConnection;
  private readonly acquirer: SqliteAcquirer;
  private readonly transports: SqliteFeeds;
  private readonly probe: SqliteReads;
  private readonly filename: string;

  constructor(
    readonly alias: string,
    config: BackendConfig,
    rules: StoreRules,
  ) {
    super();
    const settings = resolveSqliteBackendSettings(alias, config);
    this.queues = settings.queues;
    this.maintenanceIntervalMs = settings.maintenanceInterval;
    this.leaseTtlMs = settings.leaseTtl;
    this.filename = settings.filename;
    const logger = new Logger(SqliteBackend.name);
    const guard = new StoreGuard(alias, this.queues);
    this.guard = guard;
    const connection = new SqliteConnection(alias, settings, logger);
    const rows = new SqliteRows(alias, settings, connection.sql.tasks, logger);
    // Built before the acquirer that reads it; its run-time changes wake the acquirer's consumers.
    const limits = new SqliteQueueLimits(
      alias,
      this.queues,
      connection,
      () => acquirer.workAdded(),
      rules,
    );
    const live = new SqliteLiveEvents(alias, connection);
    const acquirer = new SqliteAcquirer(alias, settings, connection, rows, limits, live, rules);
    const workAdded = () => acquirer.workAdded();
    limits.seed(settings.limits);
    this.connection = connection;
    this.acquirer = acquirer;
    const enqueuer = new SqliteEnqueuer(
      alias,
      connection,
      finishedRecordSource(this),
      workAdded,
      live,
      rules,
    );
    const held = new SqliteHeldTasks(alias, connection, rows, acquirer, live, rules);
    const pools = new SqlitePools(alias, connection);
    const paused = new SqlitePausedQueues(alias, this.queues, connection, workAdded);
    const reads = new SqliteReads(alias, settings, connection, logger);
    this.probe = reads;
    const listing = new SqliteListing(alias, settings, connection, logger);
    const activity = new SqliteActivity(alias, settings, connection, logger);
    const cancels = new SqliteCancels(alias, connection, rows);
    const finished = new SqliteFinishedTasks(
      alias,
      connection,
      workAdded,
      new SqliteUniqueKeys(alias, connection, rules),
    );
    const feeds = new SqliteFeeds(alias, connection, logger);
    this.transports = feeds;
    const maintenance = new SqliteMaintenance({
      alias,
      settings,
      db: connection.db,
      sql: connection.sql.maintenance,
      pools: connection.sql.pools,
      rows,
      guard: (run) => connection.guard(run),
      workAdded,
      forgetFreeKeys: (max) => enqueuer.forgetFreeKeys(max),
    });
    this.expose(guard, {
      tasks: {
        enqueue: (record) => enqueuer.enqueue(record),
        enqueueMany: async (records) => enqueuer.enqueueMany(records),
        getResult: async (id) => reads.getResult(id),
      },
      leases: {
        acquire: (queues, options) => acquirer.acquire(queues, options),
        acknowledgeAndAcquire: async (records, queues, options) =>
          records.length === 0
            ? { acknowledged: [], acquired: await acquirer.acquire(queues, options) }
            : held.acknowledgeAndTake(records, queues, options),
        acknowledge: async (records) => held.acknowledge(records),
        retry: async (records) => held.retry(records),
        release: async (records) =>
          records.length === 0 ? 0 : held.releaseOrUnlease(records, false),
        unlease: async (records) => held.releaseOrUnlease(records, true),
        storeProgress: async (entries) => held.storeProgress(entries),
      },
      control: {
        cancel: async (id, decide) => cancels.cancel(id, decide),
        retryFinished: async (record, retried) => finished.retry(record, retried),
        removeFinished: async (record) => finished.remove(record),
        cancelRequests: async (poolId) => cancels.requests(poolId),
        dropCancelRequests: async (poolId, requests) => cancels.drop(poolId, requests),
        pauseQueue: async (queue) => paused.pause(queue),
        resumeQueue: async (queue) => paused.resume(queue),
        pausedQueues: async () => paused.list(),
        setQueueLimits: async (queue, queueLimits) => limits.set(queue, queueLimits),
        queueLimits: async () => limits.all(),
      },
      reads: {
        peek: async (queue, segment, count) => reads.peek(queue, segment, count),
        listTasks: async (query) => listing.listTasks(query),
        telemetry: async (intervalMs) => reads.telemetry(intervalMs),
        activity: async (query) => activity.read(query),
        maintenanceHeartbeat: async () => reads.maintenanceHeartbeat(),
      },
      feeds: {
        subscribeFinished: (listener) => connection.guard(() => feeds.finished.subscribe(listener)),
        subscribeLive: (listener) => connection.guard(() => feeds.live.subscribe(listener)),
      },
      pools: {
        beat: async (poolId, ttlMs, info) => pools.beat(poolId, ttlMs, info),
        retire: async (poolId) => pools.retire(poolId),
        list: async () => pools.list(),
        claimRole: async (role, holder, ttlMs) => pools.claimRole(role, holder, ttlMs),
        // A process writes the file itself: once it is dead, none of its transactions can commit.
        endSessionsOf: () => Promise.resolve(true),
      },
      schedules: new SqliteSchedules(alias, connection),
      maintenance,
    });
  }

  async ping(): Promise<void> {
    this.guard.assertOpen();
    this.probe.ping();
  }

  /**
   * Reports the migration of the file, which opening it does (in one
   * immediate transaction, so processes opening it at once migrate it
   * once): the version it was at then, and the one it is at now.
   */
  async migrate(): Promise<StoreMigration> {
    this.guard.assertOpen();
    return {
      from: this.connection.foundVersion,
      to: SQLITE_SCHEMA_VERSION,
      where: `file ${this.filename}`,
    };
  }

  async close(): Promise<void> {
    if (this.connection.closed) return;
    this.guard.close();
    await this.transports.close();
    this.acquirer.close();
    this.connection.close();
  }
}
