import { Logger } from '@nestjs/common';
import type { StoreRules } from '../../core/ports/store-rules.port';
import { PartsBackend } from '../parts-backend';

import type { BackendConfig } from '../../core/backend-config.interface';
import type { StoreCondition } from '../../core/store-condition';
import type { BackendFeatures, TaskBackend } from '../../core/task-backend.interface';
import { redisLocalFallback } from '../../core/threadmill.messages';
import { RedisAcquirer } from './redis-acquirer';
import { RedisActivity } from './redis-activity';
import { parseRedisBackendConfig } from './redis-backend-config.parser';
import { RedisCallGuard } from './redis-call-guard';
import { RedisCancels } from './redis-cancels';
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
import { RedisReads } from './redis-reads';
import { RedisRecordCodec } from './redis-record.codec';
import { RedisReleaser } from './redis-releaser';
import { RedisReplicaWait } from './redis-replica-wait';
import { RedisRoles } from './redis-roles';
import { RedisSchedules } from './redis-schedules';
import { RedisScripts } from './redis-scripts';
import { RedisAcknowledger } from './redis-acknowledger';
import { RedisTelemetry } from './redis-telemetry';
import { RedisOutboxMover } from './redis-outbox-mover';
import { TaskOutbox } from '../outbox/task-outbox';

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
export class RedisBackend extends PartsBackend implements TaskBackend {
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

  private readonly guard: RedisCallGuard;
  private readonly connection: RedisConnection;
  private readonly transports: RedisFeeds;
  /** The app's Postgres outbox, when the alias has one. */
  private readonly outbox: TaskOutbox | null;

  /**
   * @param alias the backend alias; its name is the hash tag of every key.
   * @param config url (or options.clusterNodes / options.client), queues and RedisBackendOptions.
   * @param rules the lifecycle's rules it applies (`storeRules`).
   */
  constructor(
    readonly alias: string,
    config: BackendConfig,
    rules: StoreRules,
  ) {
    super();
    const settings = parseRedisBackendConfig(alias, config);
    this.queues = settings.queues;
    this.maintenanceIntervalMs = settings.maintenanceInterval;
    this.leaseTtlMs = settings.leaseTtl;
    this.maxPayloadBytes = settings.maxPayloadBytes;
    const logger = new Logger(`RedisBackend:${alias}`);
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
    const telemetry = new RedisTelemetry(
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
      rules,
    };
    const pools = new RedisPoolHeartbeat(context);
    const acknowledger = new RedisAcknowledger(context, pools);
    const releaser = new RedisReleaser(context);
    const taker = new RedisLeaseTaker(context, pools, acknowledger);
    const idleWait = new RedisIdleWait(context, taker, releaser);
    const limits = new RedisQueueLimits(context);
    const acquirer = new RedisAcquirer(taker, idleWait, acknowledger, pools, guard, limits);
    const enqueuer = new RedisEnqueuer(context, this);
    const reads = new RedisReads(context);
    const listing = new RedisListing(context);
    const activity = new RedisActivity(context);
    const cancels = new RedisCancels(context);
    const finished = new RedisFinishedTasks(context);
    const progress = new RedisProgress(context);
    const paused = new RedisPausedQueues(context);
    const feeds = new RedisFeeds(keys, connection, logger);
    this.transports = feeds;
    const roles = new RedisRoles(context);
    const outbox = settings.outbox
      ? new TaskOutbox(
          alias,
          settings.outbox,
          new RedisOutboxMover(context, settings.outbox.markWindowMs),
          logger,
        )
      : null;
    this.outbox = outbox;
    this.expose(guard, {
      tasks: {
        enqueue: (record) => enqueuer.enqueue(record),
        enqueueMany: (records) => enqueuer.enqueueMany(records),
        // Written to the app's Postgres; the outbox relay moves them here after the commit.
        ...(outbox && {
          enqueueInTransaction: (transaction, records) => outbox.write(transaction, records),
          awaitMoved: (id, timeoutMs) => outbox.awaitMoved(id, timeoutMs),
        }),
        getResult: (id) => reads.getResult(id),
      },
      leases: {
        // Throws PoolHeartbeatLapsedError when the pool's beat lapsed by Redis's clock and
        // did not come back within the timeout: an empty result would read as "no work".
        acquire: (queues, options) => acquirer.acquire(queues, options),
        // One script call: a busy worker slot costs one round trip per task.
        acknowledgeAndAcquire: (finishedRecords, queues, options) =>
          acquirer.acknowledgeAndAcquire(finishedRecords, queues, options),
        acknowledge: (records) => acknowledger.acknowledge(records),
        retry: (records) => acknowledger.retry(records),
        release: (records) => releaser.release(records),
        unlease: (records) => releaser.unlease(records),
        storeProgress: (entries) => progress.store(entries),
      },
      control: {
        cancel: (id, decide) => cancels.cancel(id, decide),
        retryFinished: (record, retried) => finished.retry(record, retried),
        removeFinished: (record) => finished.remove(record),
        cancelRequests: (poolId) => cancels.requests(poolId),
        dropCancelRequests: (poolId, requests) => cancels.drop(poolId, requests),
        pauseQueue: (queue) => paused.pause(queue),
        // Both wake the consumers blocked on the queue's wake-up list.
        resumeQueue: (queue) => paused.resume(queue),
        pausedQueues: () => paused.list(),
        setQueueLimits: (queue, queueLimits) => limits.set(queue, queueLimits),
        queueLimits: () => limits.all(),
      },
      reads: {
        peek: (queue, segment, count) => reads.peek(queue, segment, count),
        listTasks: (query) => listing.listTasks(query),
        telemetry: (intervalMs) => telemetry.read(intervalMs),
        // Buckets on Redis's clock, read in three round trips.
        activity: (query) => activity.read(query),
        // The last pass on this process's clock, its age measured on Redis's clock.
        maintenanceHeartbeat: () => reads.maintenanceHeartbeat(),
        ...(outbox && { outboxBacklog: () => outbox.backlog() }),
      },
      feeds: {
        subscribeFinished: async (listener) => feeds.finished.subscribe(listener),
        subscribeLive: async (listener) => feeds.live.subscribe(listener),
      },
      pools: {
        beat: (poolId, ttlMs, info) => pools.beat(poolId, ttlMs, info),
        retire: (poolId) => pools.retire(poolId),
        list: () => pools.list(),
        // The role's key expires with the lease, by Redis's clock.
        claimRole: (role, holder, ttlMs) => roles.claim(role, holder, ttlMs),
      },
      schedules: new RedisSchedules(keys, connection, maintenance, guard),
      maintenance,
    });
  }

  async ping(): Promise<void> {
    this.guard.assertOpen();
    await this.connection.run(() => this.connection.client.ping());
  }

  /** Its persistence and any data found gone, as the last connection check found them. */
  storeCondition(): StoreCondition {
    return this.connection.storeCondition();
  }

  /** Whether this process relays the alias's outbox now (one process at a time does). */
  get relaysOutbox(): boolean {
    return this.outbox?.relaying ?? false;
  }

  async close(): Promise<void> {
    this.guard.close();
    await this.outbox?.close();
    await this.transports.close();
    await this.connection.close();
  }
}
