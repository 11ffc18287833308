import {
  acknowledgeThenAcquire,
  assertFinished,
  BackendUnavailableError,
  InvalidTaskError,
  TaskResultStatus,
  backendClosed,
  holdsLease,
  isRetry,
  retryNotReady,
  unleasedRecord,
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
  type LiveTaskEventsListener,
  type MaintenancePassOptions,
  type MaintenancePassReport,
  type ExecutingBackend,
  type PoolInfo,
  type PoolStatus,
  type QueueSegment,
  type RetryOutcome,
  type QueueLimits,
  type TaskExecutor,
  type TaskListQuery,
  type TaskPage,
  type TaskRecord,
} from '../../core';
import type { ScheduleStore } from '../../core/schedule-store.interface';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import { BackendConfigReader, type CommonBackendOptions } from '../backend-config.reader';
import { MemoryCancels } from './memory-cancels';
import { MemoryEnqueuer } from './memory-enqueuer';
import { MemoryQueueControl } from './memory-queue-control';
import { MemoryFeeds } from './memory-feeds';
import { MemoryFinishedTasks } from './memory-finished-tasks';
import { MemoryImmediateRunner } from './memory-immediate-runner';
import { MemoryMaintenance } from './memory-maintenance';
import { MemoryReads } from './memory-reads';
import { MemoryRoles } from './memory-roles';
import { MemorySchedules } from './memory-schedules';
import { MemoryStore } from './memory-store';
import { MemoryUniqueKeys } from './memory-unique-keys';
import { MemoryWaiters } from './memory-waiters';

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
export class MemoryBackend implements ExecutingBackend {
  readonly queues: readonly string[];
  readonly features: BackendFeatures;
  readonly maintenanceIntervalMs: number;
  readonly leaseTtlMs: number;
  readonly runsOnEnqueue: boolean;
  /** Schedules, kept in this process like everything else here. */
  readonly schedules: ScheduleStore = new MemorySchedules();

  private readonly options: CommonBackendOptions & { immediate: boolean };
  private readonly store: MemoryStore;
  private readonly reads: MemoryReads;
  private readonly maintenance: MemoryMaintenance;
  private readonly immediate: MemoryImmediateRunner;
  private readonly cancels: MemoryCancels;
  private readonly finished: MemoryFinishedTasks;
  private readonly enqueuer: MemoryEnqueuer;
  private readonly queueControl: MemoryQueueControl;
  private readonly waiters = new MemoryWaiters(() => this.closed);
  private readonly feeds: MemoryFeeds;
  private readonly roles = new MemoryRoles();
  private closed = false;

  /**
   * @param alias the key under `backends`.
   * @param config `queues` (default `['default']`) and `options` (see `MemoryBackendOptions`).
   * @throws InvalidBackendConfigError naming the alias and the option at fault.
   */
  constructor(
    readonly alias: string,
    config: BackendConfig,
  ) {
    const reader = new BackendConfigReader(alias, config, 'MemoryBackend', ['immediate']);
    this.options = { ...reader.common(), immediate: reader.flag('immediate', false) };
    this.queues = reader.queues;
    this.feeds = new MemoryFeeds(alias);
    this.store = new MemoryStore(alias, this.queues, this.options, this.feeds);
    this.reads = new MemoryReads(alias, this.store);
    const uniqueKeys = new MemoryUniqueKeys(alias, this.store);
    this.maintenance = new MemoryMaintenance({
      store: this.store,
      uniqueKeys,
      longestMaxAgeMs: this.options.retention.longestMaxAgeMs,
      workAdded: () => this.waiters.wake(),
    });
    this.immediate = new MemoryImmediateRunner(alias, this.store);
    this.queueControl = new MemoryQueueControl(alias, this.queues, this.store, () =>
      this.waiters.wake(),
    );
    this.enqueuer = new MemoryEnqueuer({
      alias,
      queues: this.queues,
      immediate: this.options.immediate ? this.immediate : null,
      store: this.store,
      uniqueKeys,
      workAdded: () => this.waiters.wake(),
      backend: this,
    });
    this.cancels = new MemoryCancels(alias, this.store);
    this.finished = new MemoryFinishedTasks(this.store, uniqueKeys);
    this.runsOnEnqueue = this.options.immediate;
    this.maintenanceIntervalMs = this.options.maintenanceInterval;
    this.leaseTtlMs = this.options.leaseTtl;
    this.features = {
      defer: !this.options.immediate,
      bulkEnqueue: true,
      blockingAcquire: true,
      sharedAcrossProcesses: false,
    };
  }

  setExecutor(executor: TaskExecutor): void {
    this.immediate.setExecutor(executor);
  }

  async enqueue(record: TaskRecord): Promise<TaskRecord> {
    const [stored] = await this.enqueueMany([record]);
    return stored;
  }

  async enqueueMany(records: readonly TaskRecord[]): Promise<TaskRecord[]> {
    this.assertOpen();
    return this.enqueuer.enqueueMany(records);
  }

  async acquire(queues: readonly string[], options: AcquireOptions): Promise<TaskRecord[]> {
    this.assertOpen();
    const max = Math.max(1, options.max ?? 1);
    const deadline = Date.now() + options.timeoutMs;
    for (;;) {
      const taken = this.store.take(queues, options.workerId, max, options.poolId);
      if (taken.length > 0) return taken;
      const remaining = deadline - Date.now();
      if (remaining <= 0 || options.signal?.aborted || this.closed) return [];
      // A full rate window admits again at a known time, with no wake-up to announce it.
      const waitMs = this.store.limitWaitMs > 0 ? this.store.limitWaitMs : remaining;
      const woken = await this.waiters.waitForWork(Math.min(remaining, waitMs), options.signal);
      if (!woken && waitMs >= remaining) return [];
    }
  }

  async acknowledgeAndAcquire(
    finished: readonly TaskRecord[],
    queues: readonly string[],
    options: AcquireOptions,
  ): Promise<AcknowledgeAndAcquireResult> {
    return acknowledgeThenAcquire(this, finished, queues, options);
  }

  async acknowledge(records: readonly TaskRecord[]): Promise<AcknowledgeOutcome[]> {
    this.assertOpen();
    for (const record of records) assertFinished(record);
    const now = Date.now();
    const outcomes = records.map((record) => this.store.acknowledge(record, now));
    // A finished task frees its share of a concurrency limit for the waiting consumers.
    if (this.store.limits.any()) this.waiters.wake();
    return outcomes;
  }

  async retry(records: readonly TaskRecord[]): Promise<RetryOutcome[]> {
    this.assertOpen();
    for (const record of records) {
      if (!isRetry(record)) throw new InvalidTaskError(retryNotReady(record.id, record.status));
    }
    const now = Date.now();
    const outcomes = records.map((record) => this.store.retry(record, now));
    this.waiters.wake();
    return outcomes;
  }

  async release(records: readonly TaskRecord[]): Promise<number> {
    return this.giveBack(records, (held) => ({ ...held, status: TaskResultStatus.READY }));
  }

  async unlease(records: readonly TaskRecord[]): Promise<number> {
    const leased = new Map(records.map((record) => [record.id, record]));
    return this.giveBack(records, (held) => {
      const lease = leased.get(held.id);
      return lease && holdsLease(held, lease) ? unleasedRecord(held) : null;
    });
  }

  /** Leased tasks back to their ready queue as `back` makes them (null: not this lease, left alone). */
  private async giveBack(
    records: readonly TaskRecord[],
    back: (held: TaskRecord) => TaskRecord | null,
  ): Promise<number> {
    this.assertOpen();
    const released = this.store.giveBack(records, back);
    if (released > 0) this.waiters.wake();
    return released;
  }

  async storeProgress(
    entries: readonly { record: TaskRecord; stored: string }[],
  ): Promise<boolean[]> {
    this.assertOpen();
    return entries.map(({ record, stored }) =>
      this.store.storeProgress(record.id, record.workerIds.length, stored),
    );
  }

  async cancel(id: string): Promise<CancelResult> {
    this.assertOpen();
    return this.cancels.cancel(id, Date.now());
  }

  async retryFinished(finished: TaskRecord, retried: TaskRecord): Promise<boolean> {
    this.assertOpen();
    if (!this.finished.retry(finished, retried, Date.now())) return false;
    this.waiters.wake();
    return true;
  }

  async removeFinished(finished: TaskRecord): Promise<boolean> {
    this.assertOpen();
    return this.finished.remove(finished, Date.now());
  }

  async cancelRequests(poolId: string): Promise<CancelRequest[]> {
    this.assertOpen();
    return this.cancels.requestsOf(poolId);
  }

  async dropCancelRequests(poolId: string, requests: readonly CancelRequest[]): Promise<void> {
    this.assertOpen();
    this.cancels.drop(poolId, requests);
  }

  async pauseQueue(queue: string): Promise<void> {
    this.assertOpen();
    this.queueControl.pause(queue);
  }

  async resumeQueue(queue: string): Promise<void> {
    this.assertOpen();
    this.queueControl.resume(queue);
  }

  async pausedQueues(): Promise<string[]> {
    this.assertOpen();
    return this.queueControl.paused();
  }

  async setQueueLimits(queue: string, limits: QueueLimits | null): Promise<void> {
    this.assertOpen();
    this.queueControl.setLimits(queue, limits);
  }

  async queueLimits(): Promise<Record<string, QueueLimits>> {
    this.assertOpen();
    return this.queueControl.limits();
  }

  async peek(queue: string, segment: QueueSegment, count: number): Promise<TaskRecord[]> {
    this.assertOpen();
    return this.reads.peek(queue, segment, count);
  }

  async listTasks(query: TaskListQuery): Promise<TaskPage> {
    this.assertOpen();
    return this.reads.listTasks(query);
  }

  async telemetry(intervalMs: number): Promise<BackendTelemetry> {
    this.assertOpen();
    return this.reads.telemetry(intervalMs);
  }

  async activity(query: ActivityQuery): Promise<BackendActivity> {
    this.assertOpen();
    return this.reads.activity(query);
  }

  async getResult(id: string): Promise<TaskRecord> {
    this.assertOpen();
    return this.reads.getResult(id);
  }

  /** In-process only: a memory store is never shared with another process. */
  async subscribeFinished(listener: FinishedTasksListener): Promise<FeedUnsubscribe> {
    this.assertOpen();
    return this.feeds.finished.subscribe(listener);
  }

  /** In-process only, as subscribeFinished. */
  async subscribeLive(listener: LiveTaskEventsListener): Promise<FeedUnsubscribe> {
    this.assertOpen();
    return this.feeds.live.subscribe(listener);
  }

  async beatPool(poolId: string, ttlMs: number, info?: PoolInfo): Promise<void> {
    this.assertOpen();
    const now = Date.now();
    this.store.pools.beat(poolId, now + ttlMs, now, info);
  }

  async pools(): Promise<PoolStatus[]> {
    this.assertOpen();
    return this.reads.pools();
  }

  async retirePool(poolId: string): Promise<void> {
    this.assertOpen();
    this.store.retirePool(poolId, Date.now());
  }

  async claimRole(role: string, holder: string, ttlMs: number): Promise<boolean> {
    this.assertOpen();
    return this.roles.claim(role, holder, ttlMs);
  }

  async maintenancePass(options: MaintenancePassOptions = {}): Promise<MaintenancePassReport> {
    this.assertOpen();
    return runMaintenancePass(this.maintenance, this, this.options, options);
  }

  async maintenanceHeartbeat(): Promise<Date | null> {
    this.assertOpen();
    return this.maintenance.heartbeat;
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    this.closed = true;
    // Waiting acquires resolve with nothing, and their timers are cleared.
    this.waiters.wake();
    await this.feeds.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new BackendUnavailableError(backendClosed(this.alias));
  }
}
