import { Logger } from '@nestjs/common';

import type { BackendConfig } from '../../core/backend-config.interface';
import type { BackendTelemetry } from '../../core/backend-telemetry.interface';
import type { FeedUnsubscribe, FinishedTasksListener } from '../../core/finished-task-feed';
import type { LiveTaskEventsListener } from '../../core/live-task-feed';
import type { QueueLimits } from '../../core/queue-limits';
import type {
  AcknowledgeAndAcquireResult,
  AcknowledgeOutcome,
  AcquireOptions,
  BackendFeatures,
  MaintenancePassOptions,
  MaintenancePassReport,
  QueueSegment,
  RetryOutcome,
  TaskBackend,
} from '../../core/task-backend.interface';
import type { CancelRequest, CancelResult } from '../../core/control-store.interface';
import type { ScheduleStore } from '../../core/schedule-store.interface';
import type { StoreCondition } from '../../core/store-condition';
import type {
  ActivityQuery,
  BackendActivity,
  PoolInfo,
  PoolStatus,
  TaskListQuery,
  TaskPage,
} from '../../core/task-listing';
import type { TaskRecord } from '../../core/task-record.interface';
import { redisLocalFallback } from '../../core/threadmill.messages';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import { RedisAcquirer } from './redis-acquirer';
import { RedisActivity } from './redis-activity';
import { parseRedisBackendConfig, type RedisBackendSettings } from './redis-backend-config.parser';
import { RedisCallGuard } from './redis-call-guard';
import { RedisCanceller } from './redis-canceller';
import { RedisFeeds } from './redis-feeds';
import { RedisFinishedTasks } from './redis-finished-tasks';
import { RedisProgress } from './redis-progress';
import { RedisConnection } from './redis-connection';
import { RedisEnqueuer } from './redis-enqueuer';
import { RedisIdleWait } from './redis-idle-wait';
import { RedisKeys } from './redis-keys';
import { RedisLeaseTaker } from './redis-lease-taker';
import { RedisListing } from './redis-listing';
import { usesLocalRedisFallback } from './redis-local-fallback';
import { RedisMaintenance } from './redis-maintenance';
import { RedisPausedQueues } from './redis-paused-queues';
import { RedisQueueLimits } from './redis-queue-limits';
import { RedisPoolHeartbeat } from './redis-pool-heartbeat';
import { RedisReader } from './redis-reader';
import { RedisRecordCodec } from './redis-record.codec';
import { RedisReleaser } from './redis-releaser';
import { RedisReplicaWait } from './redis-replica-wait';
import { RedisRoles } from './redis-roles';
import { RedisSchedules } from './redis-schedules';
import { RedisScripts } from './redis-scripts';
import { RedisSettler } from './redis-settler';
import { RedisTelemetry } from './redis-telemetry';

/**
 * The Redis backend: durable priority queues with leases, one Lua script per
 * atomic operation, every key of an alias under the hash tag `{alias}` (so it
 * runs unchanged on Redis Cluster). Constructed by ThreadmillModule from a
 * BackendConfig; connects lazily on first use.
 *
 * @example
 * ```ts
 * ThreadmillModule.forRoot({
 *   backends: {
 *     default: { backend: RedisBackend, url: 'redis://localhost:6379/0', queues: ['default', 'emails'] },
 *   },
 * });
 * ```
 * @throws InvalidBackendConfigError when an option, the url or a queue name is invalid (names the alias and option).
 * @publicApi
 */
export class RedisBackend implements TaskBackend {
  readonly queues: readonly string[];
  readonly features: BackendFeatures = {
    defer: true,
    bulkEnqueue: true,
    blockingAcquire: true,
    sharedAcrossProcesses: true,
  };
  readonly maintenanceIntervalMs: number;
  readonly leaseTtlMs: number;
  readonly maxPayloadBytes: number;

  private readonly settings: RedisBackendSettings;
  private readonly logger: Logger;
  private readonly guard: RedisCallGuard;
  private readonly connection: RedisConnection;
  private readonly maintenance: RedisMaintenance;
  private readonly telemetryReader: RedisTelemetry;
  private readonly poolBeats: RedisPoolHeartbeat;
  private readonly enqueuer: RedisEnqueuer;
  private readonly acquirer: RedisAcquirer;
  private readonly settler: RedisSettler;
  private readonly releaser: RedisReleaser;
  private readonly reader: RedisReader;
  private readonly listing: RedisListing;
  private readonly activityReader: RedisActivity;
  private readonly canceller: RedisCanceller;
  private readonly finished: RedisFinishedTasks;
  private readonly progress: RedisProgress;
  /** Schedules, under the alias's hash tag like its tasks. */
  readonly schedules: ScheduleStore;
  private readonly paused: RedisPausedQueues;
  private readonly limits: RedisQueueLimits;
  private readonly feeds: RedisFeeds;
  private readonly roles: RedisRoles;

  /**
   * @param alias the backend alias; its name is the hash tag of every key.
   * @param config url (or options.clusterNodes / options.client), queues and RedisBackendOptions.
   */
  constructor(
    readonly alias: string,
    config: BackendConfig,
  ) {
    const settings = parseRedisBackendConfig(alias, config);
    this.settings = settings;
    this.queues = settings.queues;
    this.maintenanceIntervalMs = settings.maintenanceInterval;
    this.leaseTtlMs = settings.leaseTtl;
    this.maxPayloadBytes = settings.maxPayloadBytes;
    const logger = new Logger(`RedisBackend:${alias}`);
    this.logger = logger;
    if (usesLocalRedisFallback(config))
      logger.log(redisLocalFallback(alias, settings.maskedTarget));
    const guard = new RedisCallGuard(alias, this.queues);
    this.guard = guard;
    const keys = new RedisKeys(alias, settings.prefix);
    const codec = new RedisRecordCodec(alias, settings.maxPayloadBytes);
    const connection = new RedisConnection(settings);
    this.connection = connection;
    const scripts = new RedisScripts(connection.client);
    const maintenance = new RedisMaintenance(settings, keys, scripts, connection, codec, logger);
    this.maintenance = maintenance;
    this.telemetryReader = new RedisTelemetry(
      this.queues,
      settings.retention.longestMaxAgeMs,
      keys,
      scripts,
      connection,
    );
    const replicas = new RedisReplicaWait(
      settings.waitForReplicas,
      alias,
      () => connection.maskedTarget,
    );
    const context = {
      alias,
      settings,
      keys,
      codec,
      connection,
      scripts,
      maintenance,
      guard,
      replicas,
      logger,
    };
    const pools = new RedisPoolHeartbeat(context);
    this.poolBeats = pools;
    const settler = new RedisSettler(context, pools);
    this.settler = settler;
    const releaser = new RedisReleaser(context);
    this.releaser = releaser;
    const taker = new RedisLeaseTaker(context, pools, settler);
    const idleWait = new RedisIdleWait(context, taker, releaser);
    this.limits = new RedisQueueLimits(context);
    this.acquirer = new RedisAcquirer(taker, idleWait, settler, pools, guard, this.limits);
    this.enqueuer = new RedisEnqueuer(context, this);
    this.reader = new RedisReader(context);
    this.listing = new RedisListing(context);
    this.activityReader = new RedisActivity(context);
    this.canceller = new RedisCanceller(context);
    this.finished = new RedisFinishedTasks(context);
    this.progress = new RedisProgress(context);
    this.schedules = new RedisSchedules(keys, connection, maintenance, guard);
    this.paused = new RedisPausedQueues(context);
    this.feeds = new RedisFeeds(keys, connection, logger);
    this.roles = new RedisRoles(context);
  }

  async enqueue(record: TaskRecord): Promise<TaskRecord> {
    return this.enqueuer.enqueue(record);
  }

  enqueueMany(records: readonly TaskRecord[]): Promise<TaskRecord[]> {
    return this.enqueuer.enqueueMany(records);
  }

  /**
   * Throws PoolHeartbeatLapsedError when `options.poolId`'s heartbeat had
   * lapsed by Redis's clock and did not come back within the timeout: an
   * empty result would read as "no work", and a draining worker would stop.
   */
  acquire(queues: readonly string[], options: AcquireOptions): Promise<TaskRecord[]> {
    return this.acquirer.acquire(queues, options);
  }

  /**
   * Stores `finished` and leases the next tasks in one script call: a busy
   * worker slot costs one round trip per task. Without finished records it is
   * `acquire`.
   */
  acknowledgeAndAcquire(
    finished: readonly TaskRecord[],
    queues: readonly string[],
    options: AcquireOptions,
  ): Promise<AcknowledgeAndAcquireResult> {
    return this.acquirer.acknowledgeAndAcquire(finished, queues, options);
  }

  acknowledge(records: readonly TaskRecord[]): Promise<AcknowledgeOutcome[]> {
    return this.settler.acknowledge(records);
  }

  retry(records: readonly TaskRecord[]): Promise<RetryOutcome[]> {
    return this.settler.retry(records);
  }

  /** Alive until Redis's time plus `ttlMs` (see beatPool-2.lua), whatever this host's clock says. */
  beatPool(poolId: string, ttlMs: number, info?: PoolInfo): Promise<void> {
    return this.poolBeats.beat(poolId, ttlMs, info);
  }

  retirePool(poolId: string): Promise<void> {
    return this.poolBeats.retire(poolId);
  }

  /** Read in one call of readPools-2.lua; times moved to this host's clock. */
  pools(): Promise<PoolStatus[]> {
    return this.poolBeats.list();
  }

  /** The role's key expires with the lease, by Redis's clock (see claimRole-1.lua). */
  claimRole(role: string, holder: string, ttlMs: number): Promise<boolean> {
    return this.roles.claim(role, holder, ttlMs);
  }

  release(records: readonly TaskRecord[]): Promise<number> {
    return this.releaser.release(records);
  }

  unlease(records: readonly TaskRecord[]): Promise<number> {
    return this.releaser.unlease(records);
  }

  cancel(id: string): Promise<CancelResult> {
    return this.canceller.cancel(id);
  }

  storeProgress(entries: readonly { record: TaskRecord; stored: string }[]): Promise<boolean[]> {
    return this.progress.store(entries);
  }

  retryFinished(finished: TaskRecord, retried: TaskRecord): Promise<boolean> {
    return this.finished.retry(finished, retried);
  }

  removeFinished(finished: TaskRecord): Promise<boolean> {
    return this.finished.remove(finished);
  }

  cancelRequests(poolId: string): Promise<CancelRequest[]> {
    return this.canceller.requests(poolId);
  }

  dropCancelRequests(poolId: string, requests: readonly CancelRequest[]): Promise<void> {
    return this.canceller.drop(poolId, requests);
  }

  pauseQueue(queue: string): Promise<void> {
    return this.paused.pause(queue);
  }

  /** Wakes consumers blocked on the queue's wake-up list (see resumeQueue-3.lua). */
  resumeQueue(queue: string): Promise<void> {
    return this.paused.resume(queue);
  }

  pausedQueues(): Promise<string[]> {
    return this.paused.list();
  }

  /** Wakes consumers blocked on the queue's wake-up list (see storeQueueLimits-5.lua). */
  setQueueLimits(queue: string, limits: QueueLimits | null): Promise<void> {
    return this.limits.set(queue, limits);
  }

  queueLimits(): Promise<Record<string, QueueLimits>> {
    return this.limits.all();
  }

  peek(queue: string, segment: QueueSegment, count: number): Promise<TaskRecord[]> {
    return this.reader.peek(queue, segment, count);
  }

  /** One call of listSegment-1.lua per page. */
  listTasks(query: TaskListQuery): Promise<TaskPage> {
    return this.listing.listTasks(query);
  }

  async telemetry(intervalMs: number): Promise<BackendTelemetry> {
    this.guard.assertOpen();
    return this.telemetryReader.read(intervalMs);
  }

  /** Buckets on Redis's clock, read in three round trips (see RedisActivity). */
  activity(query: ActivityQuery): Promise<BackendActivity> {
    return this.activityReader.read(query);
  }

  getResult(id: string): Promise<TaskRecord> {
    return this.reader.getResult(id);
  }

  /** Pub/sub on RedisKeys.finishedChannel, on a connection opened for the first listener (RedisFeeds). */
  async subscribeFinished(listener: FinishedTasksListener): Promise<FeedUnsubscribe> {
    this.guard.assertOpen();
    return this.feeds.finished.subscribe(listener);
  }

  /** Pub/sub on RedisKeys.liveChannel, as subscribeFinished. */
  async subscribeLive(listener: LiveTaskEventsListener): Promise<FeedUnsubscribe> {
    this.guard.assertOpen();
    return this.feeds.live.subscribe(listener);
  }

  async maintenancePass(options: MaintenancePassOptions = {}): Promise<MaintenancePassReport> {
    this.guard.assertOpen();
    return runMaintenancePass(this.maintenance, this, this.settings, options, this.logger);
  }

  /**
   * The last pass on this process's clock, its age measured on Redis's clock
   * (see RedisReader.maintenanceHeartbeat).
   */
  maintenanceHeartbeat(): Promise<Date | null> {
    return this.reader.maintenanceHeartbeat();
  }

  async ping(): Promise<void> {
    this.guard.assertOpen();
    await this.connection.run(() => this.connection.client.ping());
  }

  /** Its persistence and any data found gone, as the last connection check found them. */
  storeCondition(): StoreCondition {
    return this.connection.storeCondition();
  }

  async close(): Promise<void> {
    this.guard.close();
    await this.feeds.close();
    await this.connection.close();
  }
}
