import { hostname } from 'node:os';

import {
  acknowledgeThenAcquire,
  assertDistinctIds,
  BackendUnavailableError,
  FINISHED_STATUSES,
  InvalidBackendConfigError,
  InvalidTaskError,
  TaskResultDoesNotExist,
  TaskResultStatus,
  acknowledgeUnfinished,
  backendClosed,
  deferNotSupported,
  failedAttempt,
  holdsLease,
  immediateWithoutExecutor,
  isRetry,
  queueNotConfigured,
  retryNotReady,
  serializeRecord,
  TaskAlreadyExistsError,
  taskAlreadyExists,
  TaskResult,
  taskResultDoesNotExist,
  unleasedRecord,
  type AcknowledgeAndAcquireResult,
  type AcknowledgeOutcome,
  type AcquireOptions,
  type BackendConfig,
  type BackendFeatures,
  type BackendTelemetry,
  type MaintenancePassOptions,
  type MaintenancePassReport,
  type ExecutingBackend,
  type QueueSegment,
  type RetryOutcome,
  type TaskExecutor,
  type TaskRecord,
} from '../../core';
import { delayUntil } from '../../core/run-after';
import type { EndAttempt } from '../../lifecycle/ended-attempt';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import type { MaintenanceStore } from '../../lifecycle/maintenance-store.interface';
import type { ResolvedLimit } from '../../lifecycle/retention';
import { BackendConfigReader, type CommonBackendOptions } from '../backend-config.reader';
import { MemoryReadyQueue, readyScore } from './memory-ready-queue';

type FinishedSegment = 'successful' | 'failed';

interface QueueState {
  readonly ready: MemoryReadyQueue;
  /** id -> due time (ms). */
  readonly deferred: Map<string, number>;
  /** id -> finish time (ms), per outcome. */
  readonly history: Record<FinishedSegment, Map<string, number>>;
  /** Enqueue times (ms), oldest first. */
  readonly ingress: number[];
}

interface Lease {
  readonly queue: string;
  readonly deadline: number;
  /** The pool that holds it, when the acquire named one. */
  readonly poolId?: string;
}

type Waiter = () => void;

const copyDate = (date: Date | null): Date | null => (date ? new Date(date.getTime()) : null);
const copyJson = <T>(value: T): T =>
  value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);

/**
 * A deep copy, so callers can never mutate what is stored. Built by hand rather than
 * with structuredClone, whose Dates come from the main realm and fail `instanceof Date`
 * inside Jest's sandbox, where users run this backend.
 */
function clone(record: TaskRecord): TaskRecord {
  const copy: TaskRecord = {
    ...record,
    task: { ...record.task, runAfter: copyDate(record.task.runAfter) },
    enqueuedAt: new Date(record.enqueuedAt.getTime()),
    startedAt: copyDate(record.startedAt),
    finishedAt: copyDate(record.finishedAt),
    lastAttemptedAt: copyDate(record.lastAttemptedAt),
    args: copyJson(record.args),
    errors: record.errors.map((error) => ({ ...error })),
    workerIds: [...record.workerIds],
  };
  return 'returnValue' in record ? { ...copy, returnValue: copyJson(record.returnValue) } : copy;
}

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

  private readonly options: CommonBackendOptions & { immediate: boolean };
  private readonly state = new Map<string, QueueState>();
  /** Every unfinished task (ready, deferred or running). */
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly leases = new Map<string, Lease>();
  private readonly results = new Map<string, { record: TaskRecord; expiresAt: number }>();
  /** Pool id -> heartbeat deadline (ms); a pool past it is dead. */
  private readonly pools = new Map<string, number>();
  /** Pool id -> ids it holds, so recovering a dead pool costs only its own tasks. */
  private readonly poolTasks = new Map<string, Set<string>>();
  private readonly waiters = new Set<Waiter>();
  private readonly immediateWorkerId = `${hostname()}:${process.pid}-immediate`;
  private executor: TaskExecutor | null = null;
  private heartbeat: Date | null = null;
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
    for (const queue of this.queues) {
      this.state.set(queue, {
        ready: new MemoryReadyQueue(),
        deferred: new Map(),
        history: { successful: new Map(), failed: new Map() },
        ingress: [],
      });
    }
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
    this.executor = executor;
  }

  async enqueue(record: TaskRecord): Promise<TaskRecord> {
    const [stored] = await this.enqueueMany([record]);
    return stored;
  }

  async enqueueMany(records: readonly TaskRecord[]): Promise<TaskRecord[]> {
    this.assertOpen();
    // Validate all before storing any, so a bulk enqueue is all or none.
    for (const record of records) this.assertEnqueueable(record);
    assertDistinctIds(records);
    for (const record of records) this.assertNotStored(record.id);
    if (this.options.immediate) {
      const finished: TaskRecord[] = [];
      for (const record of records) finished.push(await this.runImmediately(record));
      return finished;
    }
    const now = Date.now();
    for (const record of records) this.store(clone(record), now);
    this.wake();
    return records.map(clone);
  }

  async acquire(queues: readonly string[], options: AcquireOptions): Promise<TaskRecord[]> {
    this.assertOpen();
    const max = Math.max(1, options.max ?? 1);
    const deadline = Date.now() + options.timeoutMs;
    for (;;) {
      const taken = this.take(queues, options.workerId, max, options.poolId);
      if (taken.length > 0) return taken;
      const remaining = deadline - Date.now();
      if (remaining <= 0 || options.signal?.aborted || this.closed) return [];
      if (!(await this.waitForWork(remaining, options.signal))) return [];
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
    for (const record of records) {
      if (!FINISHED_STATUSES.has(record.status)) {
        throw new InvalidTaskError(acknowledgeUnfinished(record.id, record.status));
      }
    }
    const now = Date.now();
    return records.map((record) => {
      const lease = this.leases.get(record.id);
      if (!lease) {
        return this.isStored(this.liveResult(record.id, now), record) ? 'already-stored' : 'stale';
      }
      this.finish(lease.queue, clone(record), now);
      return 'acknowledged';
    });
  }

  async retry(records: readonly TaskRecord[]): Promise<RetryOutcome[]> {
    this.assertOpen();
    for (const record of records) {
      if (!isRetry(record)) throw new InvalidTaskError(retryNotReady(record.id, record.status));
    }
    const now = Date.now();
    const outcomes = records.map((record): RetryOutcome => {
      const lease = this.leases.get(record.id);
      if (!lease) {
        return this.isStored(this.tasks.get(record.id), record) ? 'already-stored' : 'stale';
      }
      this.requeue(lease.queue, clone(record), now);
      return 'retried';
    });
    this.wake();
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
    let released = 0;
    for (const { id } of records) {
      const lease = this.leases.get(id);
      const held = this.tasks.get(id);
      if (!lease || !held) continue;
      const ready = back(held);
      if (!ready) continue;
      this.dropLease(id);
      this.tasks.set(id, ready);
      this.queue(lease.queue).ready.add(
        id,
        readyScore(ready.task.priority, ready.enqueuedAt.getTime()),
      );
      released++;
    }
    if (released > 0) this.wake();
    return released;
  }

  async peek(queue: string, segment: QueueSegment, count: number): Promise<TaskRecord[]> {
    this.assertOpen();
    const state = this.state.get(queue);
    if (!state || count <= 0) return [];
    let ids: string[];
    switch (segment) {
      case 'ready':
        ids = state.ready.peek(count);
        break;
      case 'deferred':
        ids = [...state.deferred.entries()].sort((a, b) => a[1] - b[1]).map(([id]) => id);
        break;
      case 'running':
        ids = [...this.leases.entries()]
          .filter(([, lease]) => lease.queue === queue)
          .sort((a, b) => a[1].deadline - b[1].deadline)
          .map(([id]) => id);
        break;
      case 'successful':
      case 'failed':
        // Newest first: what an operator looking at history wants to see.
        ids = [...state.history[segment].entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
        break;
    }
    const now = Date.now();
    const found: TaskRecord[] = [];
    for (const id of ids) {
      const record = this.tasks.get(id) ?? this.liveResult(id, now);
      if (record) found.push(clone(record));
      if (found.length >= count) break;
    }
    return found;
  }

  async telemetry(intervalMs: number): Promise<BackendTelemetry> {
    this.assertOpen();
    const now = Date.now();
    const since = now - intervalMs;
    const telemetry: BackendTelemetry = { queues: {} };
    for (const [queue, state] of this.state) {
      const running = [...this.leases.values()].filter((lease) => lease.queue === queue).length;
      const live = (segment: FinishedSegment): number[] =>
        [...state.history[segment].entries()]
          .filter(([id]) => this.liveResult(id, now))
          .map(([, finishedAt]) => finishedAt);
      const successful = live('successful');
      const failed = live('failed');
      const failedInWindow = failed.filter((t) => t >= since).length;
      telemetry.queues[queue] = {
        counts: {
          ready: state.ready.size,
          running,
          deferred: state.deferred.size,
          successful: successful.length,
          failed: failed.length,
        },
        rates: {
          intervalMs,
          ingress: state.ingress.filter((t) => t >= since).length,
          egress: successful.filter((t) => t >= since).length + failedInWindow,
          failed: failedInWindow,
        },
      };
    }
    return telemetry;
  }

  async getResult(id: string): Promise<TaskRecord> {
    this.assertOpen();
    const record = this.tasks.get(id) ?? this.liveResult(id, Date.now());
    if (!record) throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, this.alias));
    return clone(record);
  }

  async beatPool(poolId: string, ttlMs: number): Promise<void> {
    this.assertOpen();
    this.pools.set(poolId, Date.now() + ttlMs);
  }

  async retirePool(poolId: string): Promise<void> {
    this.assertOpen();
    // A pool that still holds tasks (a release that failed) lapses now, so the next pass recovers them.
    if ((this.poolTasks.get(poolId)?.size ?? 0) > 0) this.pools.set(poolId, Date.now());
    else this.pools.delete(poolId);
  }

  async maintenancePass(options: MaintenancePassOptions = {}): Promise<MaintenancePassReport> {
    this.assertOpen();
    return runMaintenancePass(this.maintenance, this, this.options, options);
  }

  /** What the maintenance pass stores here, each step one synchronous change of the maps. */
  private readonly maintenance: MaintenanceStore = {
    promoteDue: async (max) => this.promoteDue(max),
    endExpiredLeases: async (max, end) => this.endExpiredLeases(max, end),
    lapsedPools: async (max, ownPoolId) => {
      const now = Date.now();
      return [...this.pools]
        .filter(([poolId, deadline]) => deadline <= now && poolId !== ownPoolId)
        .map(([poolId]) => poolId)
        .slice(0, max);
    },
    endPoolAttempts: async (poolId, max, end) => this.endPoolAttempts(poolId, max, end),
    trimFinished: async (queue, status, limit) => this.trimFinished(queue, status, limit),
    trimCounts: async () => this.trimCounts(),
    markPass: async () => {
      this.heartbeat = new Date();
    },
  };

  async maintenanceHeartbeat(): Promise<Date | null> {
    this.assertOpen();
    return this.heartbeat;
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    this.closed = true;
    // Waiting acquires resolve with nothing, and their timers are cleared.
    this.wake();
  }

  private assertOpen(): void {
    if (this.closed) throw new BackendUnavailableError(backendClosed(this.alias));
  }

  private assertEnqueueable(record: TaskRecord): void {
    if (!this.state.has(record.task.queue)) {
      throw new InvalidTaskError(
        queueNotConfigured(record.task.name, record.task.queue, this.alias, this.queues),
      );
    }
    if (this.options.immediate) {
      if (record.task.runAfter) {
        throw new InvalidTaskError(deferNotSupported(record.task.name, this.alias));
      }
      if (!this.executor) throw new InvalidBackendConfigError(immediateWithoutExecutor(this.alias));
    }
  }

  /** Throws TaskAlreadyExistsError, with the stored task, when `id` is waiting, running or a live result. */
  private assertNotStored(id: string): void {
    const stored = this.tasks.get(id) ?? this.liveResult(id, Date.now());
    if (stored) {
      throw new TaskAlreadyExistsError(
        taskAlreadyExists(id, this.alias, stored.status),
        new TaskResult(clone(stored), this),
      );
    }
  }

  /** Whether what is stored for a task is this very record (an earlier store of the same one). */
  private isStored(stored: TaskRecord | undefined, record: TaskRecord): boolean {
    return stored !== undefined && serializeRecord(stored) === serializeRecord(record);
  }

  private queue(name: string): QueueState {
    const state = this.state.get(name);
    // Only reachable through a record that enqueue already checked.
    if (!state) throw new InvalidTaskError(queueNotConfigured('?', name, this.alias, this.queues));
    return state;
  }

  private store(record: TaskRecord, now: number): void {
    const state = this.queue(record.task.queue);
    state.ingress.push(now);
    this.tasks.set(record.id, record);
    this.enter(state, record, now);
  }

  /**
   * Into the deferred segment while the wait left of its runAfter lasts, else
   * the ready queue. As on Redis, the wait is measured on the clock that set
   * runAfter and added to the store's, which here are one clock: the three
   * backends agree on what a runAfter means.
   */
  private enter(state: QueueState, record: TaskRecord, now: number): void {
    const wait = delayUntil(record.task.runAfter, now);
    if (wait > 0) state.deferred.set(record.id, now + wait);
    else state.ready.add(record.id, readyScore(record.task.priority, record.enqueuedAt.getTime()));
  }

  private take(
    queues: readonly string[],
    workerId: string,
    max: number,
    poolId: string | undefined,
  ): TaskRecord[] {
    for (const queue of queues) {
      const state = this.state.get(queue);
      if (!state || state.ready.size === 0) continue;
      return state.ready.take(max).map((id) => this.start(id, queue, workerId, poolId));
    }
    return [];
  }

  private start(id: string, queue: string, workerId: string, poolId?: string): TaskRecord {
    const now = new Date();
    const ready = this.tasks.get(id);
    if (!ready) throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, this.alias));
    const running: TaskRecord = {
      ...ready,
      status: TaskResultStatus.RUNNING,
      startedAt: ready.startedAt ?? now,
      lastAttemptedAt: now,
      workerIds: [...ready.workerIds, workerId],
    };
    this.tasks.set(id, running);
    this.leases.set(id, { queue, deadline: now.getTime() + this.options.leaseTtl, poolId });
    if (poolId !== undefined) {
      let held = this.poolTasks.get(poolId);
      if (!held) this.poolTasks.set(poolId, (held = new Set()));
      held.add(id);
    }
    return clone(running);
  }

  /** Ends a lease, and its pool's claim on the task with it. */
  private dropLease(id: string): void {
    const poolId = this.leases.get(id)?.poolId;
    this.leases.delete(id);
    if (poolId === undefined) return;
    const held = this.poolTasks.get(poolId);
    held?.delete(id);
    if (held?.size === 0) this.poolTasks.delete(poolId);
  }

  /** A leased task back to its deferred segment (or ready queue when due), as `retry` stores it. */
  private requeue(queue: string, record: TaskRecord, now: number): void {
    this.dropLease(record.id);
    this.tasks.set(record.id, record);
    this.enter(this.queue(queue), record, now);
  }

  private finish(queue: string, record: TaskRecord, now: number): void {
    this.dropLease(record.id);
    this.tasks.delete(record.id);
    // The longest any result is kept; the trimming step applies each queue and status's own limit.
    this.results.set(record.id, {
      record,
      expiresAt: now + this.options.retention.longestMaxAgeMs,
    });
    const segment: FinishedSegment =
      record.status === TaskResultStatus.SUCCESSFUL ? 'successful' : 'failed';
    this.queue(queue).history[segment].set(record.id, record.finishedAt?.getTime() ?? now);
  }

  private async runImmediately(record: TaskRecord): Promise<TaskRecord> {
    const now = Date.now();
    this.store(clone(record), now);
    const queue = this.queue(record.task.queue);
    queue.ready.remove(record.id);
    const running = this.start(record.id, record.task.queue, this.immediateWorkerId);
    let finished: TaskRecord;
    try {
      finished = await (this.executor as TaskExecutor)(running);
    } catch (error) {
      // The executor records task failures itself; this is a failure of the executor.
      finished = failedAttempt(running, error);
    }
    if (this.leases.has(record.id)) this.finish(record.task.queue, clone(finished), Date.now());
    return clone(finished);
  }

  private liveResult(id: string, now: number): TaskRecord | undefined {
    const result = this.results.get(id);
    if (!result) return undefined;
    if (result.expiresAt > now) return result.record;
    this.results.delete(id);
    return undefined;
  }

  private promoteDue(max: number): number {
    const now = Date.now();
    const due = [...this.state.entries()]
      .flatMap(([queue, state]) =>
        [...state.deferred.entries()].map(([id, runAfter]) => ({ queue, id, runAfter })),
      )
      .filter((entry) => entry.runAfter <= now)
      .sort((a, b) => a.runAfter - b.runAfter)
      .slice(0, max);
    for (const { queue, id } of due) {
      const state = this.queue(queue);
      state.deferred.delete(id);
      const record = this.tasks.get(id);
      if (record) {
        state.ready.add(id, readyScore(record.task.priority, record.enqueuedAt.getTime()));
      }
    }
    if (due.length > 0) this.wake();
    return due.length;
  }

  private endExpiredLeases(max: number, end: EndAttempt): number {
    const now = Date.now();
    const expired = [...this.leases.entries()]
      .filter(([, lease]) => lease.deadline <= now)
      .sort((a, b) => a[1].deadline - b[1].deadline)
      .slice(0, max);
    for (const [id, lease] of expired) this.endLease(id, lease, end, now);
    if (expired.length > 0) this.wake();
    return expired.length;
  }

  /** The tasks a lapsed pool still holds, ended as decided; the pool forgotten once it holds none. */
  private endPoolAttempts(
    poolId: string,
    max: number,
    end: EndAttempt,
  ): { ended: number; forgotten: boolean } {
    const now = Date.now();
    const ids = [...(this.poolTasks.get(poolId) ?? [])].slice(0, max);
    for (const id of ids) {
      const lease = this.leases.get(id);
      if (lease) this.endLease(id, lease, end, now);
      else this.dropLease(id);
    }
    const forgotten = !this.poolTasks.has(poolId);
    if (forgotten) this.pools.delete(poolId);
    if (ids.length > 0) this.wake();
    return { ended: ids.length, forgotten };
  }

  /** One held task's attempt ended as decided: back for its next attempt, or stored final. */
  private endLease(id: string, lease: Lease, end: EndAttempt, now: number): void {
    const running = this.tasks.get(id);
    if (!running) {
      this.dropLease(id);
      return;
    }
    const decided = end({ id, queue: lease.queue, record: running });
    // The decision read the clock after `now`: its wait is counted from the decision.
    if (isRetry(decided)) this.requeue(lease.queue, decided, Date.now());
    else this.finish(lease.queue, decided, now);
  }

  /** The finished tasks of one queue and status past `limit`: older than its age, the oldest beyond its count. */
  private trimFinished(queue: string, status: TaskResultStatus, limit: ResolvedLimit): number {
    const state = this.state.get(queue);
    if (!state) return 0;
    const history = state.history[status === TaskResultStatus.SUCCESSFUL ? 'successful' : 'failed'];
    const horizon = Date.now() - limit.maxAgeMs;
    const newestFirst = [...history].sort((a, b) => b[1] - a[1]);
    let trimmed = 0;
    newestFirst.forEach(([id, finishedAt], index) => {
      const beyondCount = limit.maxCount !== null && index >= limit.maxCount;
      if (finishedAt >= horizon && !beyondCount && this.results.has(id)) return;
      history.delete(id);
      if (this.results.delete(id)) trimmed++;
    });
    return trimmed;
  }

  /** Results past their expiry, and enqueue counts older than the longest retention. */
  private trimCounts(): number {
    const now = Date.now();
    const horizon = now - this.options.retention.longestMaxAgeMs;
    let trimmed = 0;
    for (const [id, result] of this.results) {
      if (result.expiresAt <= now) {
        this.results.delete(id);
        trimmed++;
      }
    }
    for (const state of this.state.values()) {
      const firstKept = state.ingress.findIndex((t) => t > horizon);
      state.ingress.splice(0, firstKept < 0 ? state.ingress.length : firstKept);
    }
    return trimmed;
  }

  /** Lets every waiting acquire look again; called whenever a task becomes ready. */
  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Resolves true when woken, false on timeout or abort; leaves no timer or listener behind. */
  private waitForWork(timeoutMs: number, signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (woken: boolean): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters.delete(onWake);
        resolve(woken);
      };
      const onWake = (): void => done(!this.closed);
      const onAbort = (): void => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.waiters.add(onWake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
