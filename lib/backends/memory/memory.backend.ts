import { acknowledgeThenAcquire } from './acknowledge-then-acquire';
import type { BackendConfig } from '../../core/backend-config.interface';
import type { StoreRules } from '../../core/ports/store-rules.port';
import type { BackendFeatures } from '../../core/task-backend.interface';
import type { ExecutingBackend, TaskExecutor } from '../../core/task-executor.interface';
import { BackendConfigReader } from '../backend-config.reader';
import { StoreGuard } from '../store-guard';
import { MemoryCancels } from './memory-cancels';
import { MemoryEnqueuer } from './memory-enqueuer';
import { MemoryQueueControl } from './memory-queue-control';
import { MemoryFeeds } from './memory-feeds';
import { MemoryFinishedTasks } from './memory-finished-tasks';
import { MemoryImmediateRunner } from './memory-immediate-runner';
import { MemoryLeases } from './memory-leases';
import { MemoryMaintenance } from './memory-maintenance';
import { MemoryReads } from './memory-reads';
import { MemoryRoles } from './memory-roles';
import { MemorySchedules } from './memory-schedules';
import { MemoryStore } from './memory-store';
import { MemoryUniqueKeys } from './memory-unique-keys';
import { MemoryWaiters } from './memory-waiters';
import { PartsBackend } from '../parts-backend';

/**
 * A complete `TaskBackend` in process memory: the same ordering, leases,
 * deferral, history and telemetry as the Redis backend, with no I/O. For
 * users' unit tests and single-process apps; nothing survives a restart.
 * With `options.immediate`, `enqueue` runs the task before it returns.
 *
 * @example
 * ```ts
 * ThreadmillModule.forRoot({
 *   backends: { default: { backend: MemoryBackend, queues: ['default', 'emails'], options: { immediate: true } } },
 * });
 * ```
 * @publicApi
 */
export class MemoryBackend extends PartsBackend implements ExecutingBackend {
  readonly queues: readonly string[];
  readonly features: BackendFeatures;
  readonly maintenanceIntervalMs: number;
  readonly leaseTtlMs: number;
  readonly runsOnEnqueue: boolean;

  private readonly guard: StoreGuard;
  private readonly immediate: MemoryImmediateRunner;
  private readonly waiters: MemoryWaiters;
  private readonly transports: MemoryFeeds;

  /**
   * @param alias the key under `backends`.
   * @param config `queues` (default `['default']`) and `options` (see `MemoryBackendOptions`).
   * @param rules the lifecycle's rules it applies (`storeRules`).
   * @throws InvalidBackendConfigError naming the alias and the option at fault.
   */
  constructor(
    readonly alias: string,
    config: BackendConfig,
    rules: StoreRules,
  ) {
    super();
    const reader = new BackendConfigReader(alias, config, 'MemoryBackend', ['immediate']);
    const settings = { ...reader.common(), immediate: reader.flag('immediate', false) };
    this.queues = reader.queues;
    const guard = new StoreGuard(alias, this.queues);
    this.guard = guard;
    const waiters = new MemoryWaiters(() => guard.closed);
    this.waiters = waiters;
    const workAdded = (): void => waiters.wake();
    const feeds = new MemoryFeeds(alias);
    this.transports = feeds;
    const store = new MemoryStore(alias, this.queues, settings, feeds, rules);
    const reads = new MemoryReads(alias, store);
    const uniqueKeys = new MemoryUniqueKeys(alias, store, rules);
    const maintenance = new MemoryMaintenance({
      store,
      uniqueKeys,
      limits: settings,
      longestMaxAgeMs: settings.retention.longestMaxAgeMs,
      workAdded,
    });
    this.immediate = new MemoryImmediateRunner(alias, store, rules);
    const queueControl = new MemoryQueueControl(alias, this.queues, store, workAdded);
    const enqueuer = new MemoryEnqueuer({
      alias,
      immediate: settings.immediate ? this.immediate : null,
      store,
      uniqueKeys,
      workAdded,
      backend: this,
    });
    const cancels = new MemoryCancels(alias, store);
    const finished = new MemoryFinishedTasks(store, uniqueKeys);
    const roles = new MemoryRoles();
    const leases = new MemoryLeases(store, waiters, () => guard.closed, rules);
    this.expose(guard, {
      tasks: {
        enqueue: async (record) => (await enqueuer.enqueueMany([record]))[0],
        enqueueMany: async (records) => enqueuer.enqueueMany(records),
        getResult: async (id) => reads.getResult(id),
      },
      leases: {
        acquire: (queues, options) => leases.acquire(queues, options),
        // Through the guarded part, as every other caller reaches it.
        acknowledgeAndAcquire: (records, queues, options) =>
          acknowledgeThenAcquire(this.leases, records, queues, options),
        acknowledge: (records) => leases.acknowledge(records),
        retry: (records) => leases.retry(records),
        release: (records) => leases.release(records),
        unlease: (records) => leases.unlease(records),
        storeProgress: (entries) => leases.storeProgress(entries),
      },
      control: {
        cancel: async (id, decide) => cancels.cancel(id, decide, Date.now()),
        retryFinished: async (record, retried) => {
          if (!finished.retry(record, retried, Date.now())) return false;
          workAdded();
          return true;
        },
        removeFinished: async (record) => finished.remove(record, Date.now()),
        cancelRequests: async (poolId) => cancels.requestsOf(poolId),
        dropCancelRequests: async (poolId, requests) => cancels.drop(poolId, requests),
        pauseQueue: async (queue) => queueControl.pause(queue),
        resumeQueue: async (queue) => queueControl.resume(queue),
        pausedQueues: async () => queueControl.paused(),
        setQueueLimits: async (queue, limits) => queueControl.setLimits(queue, limits),
        queueLimits: async () => queueControl.limits(),
      },
      reads: {
        peek: async (queue, segment, count) => reads.peek(queue, segment, count),
        listTasks: async (query) => reads.listTasks(query),
        telemetry: async (intervalMs) => reads.telemetry(intervalMs),
        activity: async (query) => reads.activity(query),
        maintenanceHeartbeat: async () => maintenance.heartbeat,
      },
      // In-process only: a memory store is never shared with another process.
      feeds: {
        subscribeFinished: async (listener) => feeds.finished.subscribe(listener),
        subscribeLive: async (listener) => feeds.live.subscribe(listener),
      },
      pools: {
        beat: async (poolId, ttlMs, info) => {
          const now = Date.now();
          store.pools.beat(poolId, now + ttlMs, now, info);
        },
        retire: async (poolId) => store.retirePool(poolId, Date.now()),
        list: async () => reads.pools(),
        claimRole: async (role, holder, ttlMs) => roles.claim(role, holder, ttlMs),
      },
      schedules: new MemorySchedules(),
      maintenance,
    });
    this.runsOnEnqueue = settings.immediate;
    this.maintenanceIntervalMs = settings.maintenanceInterval;
    this.leaseTtlMs = settings.leaseTtl;
    this.features = {
      defer: !settings.immediate,
      bulkEnqueue: true,
      blockingAcquire: true,
      sharedAcrossProcesses: false,
    };
  }

  setExecutor(executor: TaskExecutor): void {
    this.immediate.setExecutor(executor);
  }

  async ping(): Promise<void> {
    this.guard.assertOpen();
  }

  async close(): Promise<void> {
    this.guard.close();
    // Waiting acquires resolve with nothing, and their timers are cleared.
    this.waiters.wake();
    await this.transports.close();
  }
}
