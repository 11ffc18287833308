import { InvalidTaskError } from '../../core/errors/invalid-task.error';
import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import type { AcknowledgeOutcome, RetryOutcome } from '../../core/ports/lease-store.port';
import { finishedSegment } from '../../core/queue-segment';
import { recordWith } from '../../core/record-with';
import { finishedProgress } from '../../core/task-progress';
import type { TaskRecord } from '../../core/task-record.interface';
import { serializeRecord } from '../../core/task-serializer';
import { queueNotConfigured, taskResultDoesNotExist } from '../../core/threadmill.messages';
import { delayUntil } from '../run-after';
import type { CommonBackendSettings } from '../backend-config.reader';
import type { MemoryFeeds } from './memory-feeds';
import { MemoryLimits } from './memory-limits';
import { MemoryPools } from './memory-pools';
import { copyRecord } from './memory-record-copy';
import { emptyQueueState, type MemoryQueueState } from './memory-queue-state';
import { readyScore } from './memory-ready-queue';
import type { StoreRules } from '../../core/ports/store-rules.port';

/** A running task's hold on its attempt. */
export interface MemoryLease {
  readonly queue: string;
  readonly deadline: number;
  /** The pool that holds it, when the acquire named one. */
  readonly poolId?: string;
}

/** What the store needs of the backend's settings. */
export type MemoryStoreSettings = Pick<CommonBackendSettings, 'leaseTtl' | 'retention' | 'limits'>;

/**
 * Everything one MemoryBackend stores, and the changes that keep its maps in
 * step: a task sits in one segment at a time, and a lease and its pool's
 * claim on the task come and go together. Each change is synchronous, so no
 * other call ever sees one half made.
 *
 * @internal
 */
export class MemoryStore {
  readonly queueStates = new Map<string, MemoryQueueState>();
  /** Every unfinished task (ready, deferred or running). */
  readonly tasks = new Map<string, TaskRecord>();
  readonly leases = new Map<string, MemoryLease>();
  readonly results = new Map<string, { record: TaskRecord; expiresAt: number }>();
  /** Task id -> its progress as storeProgress stored it, until its result is dropped. */
  readonly progress = new Map<string, string>();
  /** Each pool's heartbeat deadline (a pool past it is dead), last beat, info and held tasks. */
  readonly pools = new MemoryPools();
  /** Pool id -> task id -> when its cancel was requested (ms); see MemoryCancels. */
  readonly cancelRequests = new Map<string, Map<string, { at: number; lease: string }>>();
  /** Queues whose tasks are not leased until resumed. */
  readonly paused = new Set<string>();
  readonly limits: MemoryLimits;
  /** When the last take found a rate-limited queue full: ms until its window admits a start. */
  limitWaitMs = 0;

  constructor(
    private readonly alias: string,
    private readonly queues: readonly string[],
    private readonly settings: MemoryStoreSettings,
    private readonly feeds: MemoryFeeds,
    private readonly rules: StoreRules,
  ) {
    this.limits = new MemoryLimits(settings.limits, rules);
    for (const queue of queues) this.queueStates.set(queue, emptyQueueState());
  }

  queue(name: string): MemoryQueueState {
    const state = this.queueStates.get(name);
    // Only reachable through a record that enqueue already checked.
    if (!state) throw new InvalidTaskError(queueNotConfigured('?', name, this.alias, this.queues));
    return state;
  }

  /** What is held for `id`: the unfinished task, else its live result. */
  find(id: string, now: number): TaskRecord | undefined {
    return this.tasks.get(id) ?? this.liveResult(id, now);
  }

  liveResult(id: string, now: number): TaskRecord | undefined {
    const result = this.results.get(id);
    if (!result) return undefined;
    if (result.expiresAt > now) return result.record;
    this.dropResult(id);
    return undefined;
  }

  /** Forgets a result and the progress stored beside it; returns whether there was one. */
  dropResult(id: string): boolean {
    this.progress.delete(id);
    return this.results.delete(id);
  }

  /** Stores progress only while attempt number `attempt` of task `id` holds its lease. */
  storeProgress(id: string, attempt: number, stored: string): boolean {
    const held = this.tasks.get(id);
    if (!held || !this.leases.has(id) || held.workerIds.length !== attempt) return false;
    this.progress.set(id, stored);
    this.feeds.liveTransport.progressed(held, stored);
    return true;
  }

  /** A new task, enqueued `now`: counted, then deferred or ready. */
  add(record: TaskRecord, now: number): void {
    const state = this.queue(record.task.queue);
    state.ingress.push(now);
    this.tasks.set(record.id, record);
    this.enter(state, record, now);
    this.feeds.liveTransport.enqueued(record);
  }

  /**
   * A waiting task (ready or deferred, never started) replaced by `record`,
   * its id's new data (debounce): ready or deferred again as `record` says.
   */
  replaceWaiting(record: TaskRecord, now: number): void {
    const state = this.queue(record.task.queue);
    state.ready.remove(record.id);
    state.deferred.delete(record.id);
    this.tasks.set(record.id, record);
    this.enter(state, record, now);
  }

  /**
   * Leases up to `max` ready tasks of the first of `queues` that has any, is
   * not paused and whose limits leave room (at most that room).
   */
  take(
    queues: readonly string[],
    workerId: string,
    max: number,
    poolId: string | undefined,
  ): TaskRecord[] {
    const now = Date.now();
    this.limitWaitMs = 0;
    for (const queue of queues) {
      const state = this.queueStates.get(queue);
      if (!state || state.ready.size === 0 || this.paused.has(queue)) continue;
      const limited = this.limits.room(queue, () => this.runningOf(queue), now);
      if (limited?.room === 0) {
        if (limited.waitMs > 0) {
          this.limitWaitMs = Math.min(this.limitWaitMs || Infinity, limited.waitMs);
        }
        continue;
      }
      const ids = state.ready.take(Math.min(max, limited?.room ?? max));
      this.limits.started(queue, ids.length, now);
      return ids.map((id) => this.start(id, queue, workerId, poolId));
    }
    return [];
  }

  private runningOf(queue: string): number {
    let running = 0;
    for (const lease of this.leases.values()) if (lease.queue === queue) running++;
    return running;
  }

  /** A task (already out of its ready queue) leased to `workerId`; a copy of it running. */
  start(id: string, queue: string, workerId: string, poolId?: string): TaskRecord {
    const now = new Date();
    const ready = this.tasks.get(id);
    if (!ready) throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, this.alias));
    const running = this.rules.leased(ready, workerId, now);
    this.tasks.set(id, running);
    this.leases.set(id, { queue, deadline: now.getTime() + this.settings.leaseTtl, poolId });
    if (poolId !== undefined) this.pools.claim(poolId, id);
    this.feeds.liveTransport.started(running);
    return copyRecord(running);
  }

  /** A finished record stored as its task's result, while its lease still holds. */
  acknowledge(record: TaskRecord, now: number): AcknowledgeOutcome {
    const lease = this.leases.get(record.id);
    if (!lease) {
      return this.isStored(this.liveResult(record.id, now), record) ? 'already-stored' : 'stale';
    }
    this.finish(lease.queue, copyRecord(record), now);
    return 'acknowledged';
  }

  /** A record due for another attempt stored for it, while its lease still holds. */
  retry(record: TaskRecord, now: number): RetryOutcome {
    const lease = this.leases.get(record.id);
    if (!lease) {
      return this.isStored(this.tasks.get(record.id), record) ? 'already-stored' : 'stale';
    }
    // A cancel asked while it ran, which its holder had not heard of, outlives the attempt.
    const held = this.tasks.get(record.id);
    const kept =
      held?.cancelRequestedAt && !record.cancelRequestedAt
        ? recordWith(record, { cancelRequestedAt: held.cancelRequestedAt })
        : record;
    this.storeRetry(lease.queue, copyRecord(kept), now);
    return 'retried';
  }

  /**
   * Leased tasks back to their ready queue as `back` makes them (null: not
   * this lease, left alone); how many went back.
   */
  releaseOrUnlease(
    records: readonly TaskRecord[],
    back: (held: TaskRecord) => TaskRecord | null,
  ): number {
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
    return released;
  }

  /** A leased task back to its deferred segment (or ready queue when due), as `retry` stores it. */
  storeRetry(queue: string, record: TaskRecord, now: number): void {
    this.dropLease(record.id);
    this.tasks.set(record.id, record);
    this.enter(this.queue(queue), record, now);
  }

  /** A task out of its segment into its history; the last progress its record carries stored with it. */
  finish(queue: string, record: TaskRecord, now: number): void {
    this.dropLease(record.id);
    this.tasks.delete(record.id);
    const progress = finishedProgress(record);
    if (progress !== null) this.progress.set(record.id, progress);
    // The longest any result is kept; the trimming step applies each queue and status's own limit.
    this.results.set(record.id, {
      record,
      expiresAt: now + this.settings.retention.longestMaxAgeMs,
    });
    this.queue(queue).history[finishedSegment(record.status)].set(
      record.id,
      record.finishedAt?.getTime() ?? now,
    );
    this.feeds.finishedTransport.finished(record);
  }

  /** Ends a lease, and its pool's claim on the task with it. */
  dropLease(id: string): void {
    const poolId = this.leases.get(id)?.poolId;
    this.leases.delete(id);
    if (poolId !== undefined) this.pools.unclaim(poolId, id);
  }

  retirePool(poolId: string, now: number): void {
    // A pool that still holds tasks (a release that failed) lapses now, so the next pass recovers them.
    if (this.pools.holds(poolId)) this.pools.lapse(poolId, now);
    else this.forgetPool(poolId);
  }

  /** A pool that holds nothing is forgotten, and the cancel requests addressed to it with it. */
  forgetPool(poolId: string): void {
    this.pools.forget(poolId);
    this.cancelRequests.delete(poolId);
  }

  /**
   * Into the deferred segment while the wait left of its runAfter lasts, else
   * the ready queue. As on Redis, the wait is measured on the clock that set
   * runAfter and added to the store's, which here are one clock: the three
   * backends agree on what a runAfter means.
   */
  private enter(state: MemoryQueueState, record: TaskRecord, now: number): void {
    const wait = delayUntil(record.task.runAfter, now);
    if (wait > 0) state.deferred.set(record.id, now + wait);
    else state.ready.add(record.id, readyScore(record.task.priority, record.enqueuedAt.getTime()));
  }

  /** Whether what is stored for a task is this very record (an earlier store of the same one). */
  private isStored(stored: TaskRecord | undefined, record: TaskRecord): boolean {
    return stored !== undefined && serializeRecord(stored) === serializeRecord(record);
  }
}
